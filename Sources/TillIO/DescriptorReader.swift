#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Synchronization

/// A file descriptor read as an async sequence of chunks: the one way the transports read a descriptor (a bridge's
/// output, the file drop's inotify events).
///
/// - Each `next()` reads once, on a thread of the reader's own: a read that blocks never holds one of the two threads
///   of Swift's shared pool. Nothing is read ahead, so a writer that floods is held back by its pipe, and till holds
///   one chunk of it at a time.
/// - `nil` at the end: the end of the file (every writer of a pipe closed it: a bridge and whatever it started ended),
///   an error other than `EINTR` or `EAGAIN` (both only mean "read again"), or `cancel()`. A partial line is the
///   caller's: the bytes come as the kernel gives them, a line cut anywhere.
/// - `idleMs`: a wait that sees nothing for that long gives an empty chunk, for work on a rhythm (the file drop's
///   listing); nil: no limit.
/// - `cancel()` (from any thread) or the consuming task's cancellation ends a wait at once: a pipe polled beside the
///   descriptor wakes it. Closing the descriptor under a blocked read would be no way to stop it (the read goes on,
///   and the number may already name another file), so `closesDescriptor`: the reader closes it itself, once its
///   thread is out of the read and before the end is given.
public final class DescriptorReader: AsyncSequence, Sendable {
    public typealias Element = [UInt8]
    public typealias Failure = Never

    public let fd: Int32
    private let name: String
    private let chunkSize: Int
    private let idleMs: Int32
    private let closesDescriptor: Bool
    /// What owns `fd` when the reader does not (the inotify watcher): kept until the reading ends.
    private let owner: (any Sendable)?
    private let wake: (read: Int32, write: Int32)?
    private struct State {
        var waiter: CheckedContinuation<[UInt8]?, Never>?
        var started = false
        var cancelled = false
        var ended = false
    }
    private let state = Mutex(State())
    /// Signalled for each `next()`, and by `cancel()`.
    private let demand = DispatchSemaphore(value: 0)

    /// `name`: the thread's, as `ps -L` and a debugger show it.
    public init(fd: Int32, name: String, chunkSize: Int = 16 * 1024, idleMs: Int32? = nil, closesDescriptor: Bool,
                owner: (any Sendable)? = nil) {
        self.fd = fd
        self.name = name
        self.chunkSize = chunkSize
        self.idleMs = idleMs ?? -1
        self.closesDescriptor = closesDescriptor
        self.owner = owner
        wake = makeWakePipe()
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let reader: DescriptorReader
        public mutating func next() async -> [UInt8]? { await reader.next() }
    }
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(reader: self) }

    /// Ends the reading: the wait under way (or the next) gives nil, and the descriptor is let go.
    public func cancel() {
        let unstarted = state.withLock { s -> Bool in
            guard !s.cancelled, !s.ended else { return false }
            s.cancelled = true
            if let w = wake { var one: UInt8 = 1; _ = write(w.write, &one, 1) }
            if !s.started { s.ended = true; return true }
            return false
        }
        if unstarted { release() } else { demand.signal() }
    }

    private func next() async -> [UInt8]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<[UInt8]?, Never>) in
                let start = state.withLock { s -> Bool? in
                    if s.ended { return nil }
                    s.waiter = c
                    defer { s.started = true }
                    return !s.started
                }
                guard let start else { c.resume(returning: nil); return }
                if start {
                    let t = Thread { [self] in run() }
                    t.name = name
                    t.start()
                }
                demand.signal()
            }
        } onCancel: {
            cancel()
        }
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        while true {
            demand.wait()
            let (waiter, cancelled) = state.withLock { s in
                defer { s.waiter = nil }
                return (s.waiter, s.cancelled)
            }
            guard let waiter else {
                if cancelled { break }
                continue
            }
            if cancelled { end(giving: waiter); return }
            let outcome = buffer.withUnsafeMutableBytes { DescriptorReader.readOnce(fd, wake: wake?.read ?? -1, timeoutMs: idleMs, into: $0) }
            switch outcome {
            case .read(let n): waiter.resume(returning: Array(buffer[0..<n]))
            case .timedOut: waiter.resume(returning: [])
            case .woken:
                // Only `cancel()` writes to the wake pipe.
                end(giving: waiter); return
            case .ended: end(giving: waiter); return
            }
        }
        end(giving: nil)
    }

    /// Marks the end, lets the descriptor go, then gives the end to whoever waits (a `next()` that came meanwhile too).
    private func end(giving waiter: CheckedContinuation<[UInt8]?, Never>?) {
        let stored = state.withLock { s in
            s.ended = true
            defer { s.waiter = nil }
            return s.waiter
        }
        release()
        waiter?.resume(returning: nil)
        stored?.resume(returning: nil)
    }

    private func release() {
        if closesDescriptor { close(fd) }
        state.withLock { _ in if let w = wake { close(w.read); close(w.write) } }
    }

    /// What one wait and read gave.
    public enum Outcome: Sendable, Equatable {
        /// This many bytes were read.
        case read(Int)
        /// `timeoutMs` passed with nothing to read.
        case timedOut
        /// The wake pipe was written to, and nothing was read.
        case woken
        /// The end of the file (0) or the error number that ended the reading.
        case ended(Int32)
    }

    /// Waits until `fd` has something to read (or has ended), `wake` was written to (drained here; -1: none), or
    /// `timeoutMs` passed (-1: no limit); then reads once into `buffer`. `EINTR` and `EAGAIN` wait again (a signal
    /// that interrupts a limited wait counts as the time passed: the caller's rhythm is checked early, never late).
    public static func readOnce(_ fd: Int32, wake: Int32, timeoutMs: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Outcome {
        while true {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            let r = poll(&fds, wake >= 0 ? 2 : 1, timeoutMs)
            if r < 0 {
                if errno != EINTR { return .ended(errno) }
                if timeoutMs >= 0 { return .timedOut }
                continue
            }
            if r == 0 { return .timedOut }
            if wake >= 0, fds[1].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while drain.withUnsafeMutableBytes({ read(wake, $0.baseAddress, $0.count) }) > 0 {}
                if fds[0].revents == 0 { return .woken }
            }
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n > 0 { return .read(n) }
            if n == 0 { return .ended(0) }
            if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
            return .ended(errno)
        }
    }
}
