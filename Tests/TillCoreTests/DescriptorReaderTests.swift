import Foundation
import Synchronization
import Testing
import TillIO
#if canImport(Glibc)
import Glibc
#endif

/// `DescriptorReader`, the one way the transports read a descriptor: bytes as they come, the end when every writer is
/// gone, and a stop that never waits for a writer that says nothing.
@Suite struct DescriptorReaderTests {
    /// A pipe whose ends no child started meanwhile inherits.
    func pipePair() -> (read: Int32, write: Int32) {
        var p: [Int32] = [0, 0]
        precondition(pipe(&p) == 0)
        for fd in p { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (p[0], p[1])
    }

    @discardableResult
    func put(_ fd: Int32, _ text: String) -> Int {
        Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// Whether the pipe's read end is closed: a write then fails with EPIPE.
    func readEndClosed(_ writeEnd: Int32) -> Bool {
        signal(SIGPIPE, SIG_IGN)
        return put(writeEnd, "x") < 0 && errno == EPIPE
    }

    final class Flag: Sendable {
        private let value = Mutex(false)
        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
    }

    @Test func givesBytesAsTheyComeAndThenTheEnd() async {
        let p = pipePair()
        let reader = DescriptorReader(fd: p.read, name: "test-reader", closesDescriptor: true)
        var it = reader.makeAsyncIterator()
        put(p.write, "half a li")
        // A line cut short is given as it is: putting it together is the caller's.
        #expect(await it.next() == Array("half a li".utf8))
        put(p.write, "ne\nnext")
        #expect(await it.next() == Array("ne\nnext".utf8))
        close(p.write)
        #expect(await it.next() == nil)
        #expect(await it.next() == nil, "an ended reader stays ended")
    }

    @Test func aChildThatEndsEndsTheReadingAfterItsLastBytes() async throws {
        let p = pipePair()
        let pid = try Spawn.start(["/bin/sh", "-c", "printf 'approved\\nhalf'; exit 3"], stdout: .descriptor(p.write)).get()
        close(p.write)
        var got: [UInt8] = []
        for await chunk in DescriptorReader(fd: p.read, name: "test-reader", closesDescriptor: true) { got += chunk }
        #expect(String(decoding: got, as: UTF8.self) == "approved\nhalf")
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        #expect((status >> 8) & 0xff == 3)
    }

    /// A writer that stays silent (a bridge that holds its output open and says nothing) cannot hold up a stop, by
    /// `cancel()` or by the task's cancellation. A reader closes the descriptor it owns once it stopped reading; one
    /// not its own is left open for its owner.
    @Test(arguments: [true, false])
    func aStopEndsAReadThatBlocks(byTheTask: Bool) async {
        let p = pipePair(); defer { close(p.write) }
        let reader = DescriptorReader(fd: p.read, name: "test-reader", closesDescriptor: !byTheTask)
        let ended = Flag()
        let task = Task { for await _ in reader {}; ended.set() }
        try? await Task.sleep(nanoseconds: 100_000_000)
        #expect(!ended.isSet, "nothing was written and the writer is open: the read waits")
        if byTheTask { task.cancel() } else { reader.cancel() }
        #expect(await eventuallyAsync(10) { ended.isSet }, "the stop did not end the read that waited")
        await task.value
        if byTheTask {
            #expect(put(p.write, "x") == 1)
            close(p.read)
        } else {
            #expect(readEndClosed(p.write))
        }
    }

    @Test func aQuietDescriptorGivesEmptyChunksOnItsRhythm() async {
        let p = pipePair(); defer { close(p.write) }
        let reader = DescriptorReader(fd: p.read, name: "test-reader", idleMs: 10, closesDescriptor: true)
        var it = reader.makeAsyncIterator()
        #expect(await it.next() == [])
        put(p.write, "a")
        #expect(await it.next() == Array("a".utf8))
        #expect(await it.next() == [])
        reader.cancel()
        #expect(await it.next() == nil)
    }

    /// A signal that interrupts the wait (EINTR) is no end: the read goes on and gives what comes after it.
    @Test func aSignalDuringTheWaitIsNoEnd() async {
        signal(SIGUSR2, { _ in })
        let p = pipePair(); defer { close(p.read); close(p.write) }
        let outcome = Outcome<DescriptorReader.Outcome>()
        let waiting = Locked<pthread_t?>(nil)
        let t = Thread {
            waiting.withLock { $0 = pthread_self() }
            var buffer = [UInt8](repeating: 0, count: 16)
            outcome.set(.success(buffer.withUnsafeMutableBytes { DescriptorReader.readOnce(p.read, wake: -1, timeoutMs: -1, into: $0) }))
        }
        t.start()
        #expect(await eventuallyAsync(10) { waiting.withLock { $0 != nil } })
        try? await Task.sleep(nanoseconds: 50_000_000)
        if let thread = waiting.withLock({ $0 }) { pthread_kill(thread, SIGUSR2) }
        try? await Task.sleep(nanoseconds: 50_000_000)
        #expect(outcome.result == nil, "the signal ended the wait")
        put(p.write, "ok")
        #expect(await eventuallyAsync(10) { outcome.result != nil })
        if case .success(let o) = outcome.result { #expect(o == .read(2)) }
    }
}
