import Foundation
import TillIO
#if canImport(Glibc)
import Glibc
#endif

/// The pipe transport: till starts the bridge (`/bin/sh -c COMMAND`, in a process group of its own), writes each
/// request URL as one line to its standard input and reads callback URLs, one a line, from its standard output.
/// A bridge that exits is reported and started again for the next request; one that does not answer before till
/// gives up (the timeout) is stopped and started again for the next request. Neither takes till down.
public final class PipeTransport: Transport, @unchecked Sendable {
    public let command: String
    /// Where the bridge's standard error goes (nil: /dev/null, so it cannot scribble over the full-screen UI).
    public let stderrPath: String?
    public var description: String { "pipe:" + command }

    private struct Bridge {
        var pid: pid_t
        var stdin: Int32
        var generation: Int
        var stopping = false
    }
    private struct State {
        var sink: (@Sendable (TransportEvent) -> Void)?
        var bridge: Bridge?
        var generation = 0
        /// The id of the last request written and not yet followed by any answer line.
        var outstanding: String?
        var starts = 0
        var lineHighWater = 0
    }
    private let state = Locked(State())

    /// How many times a bridge process was started (for tests and the status line).
    public var bridgeStarts: Int { state.withLock { $0.starts } }
    /// The most bytes the line buffer ever held (tests: a bridge that writes without a newline).
    var lineBufferHighWater: Int { state.withLock { $0.lineHighWater } }

    public init(command: String, stderrPath: String? = nil) {
        self.command = command
        self.stderrPath = stderrPath
        signal(SIGPIPE, SIG_IGN)
    }

    public func start(sink: @escaping @Sendable (TransportEvent) -> Void) async throws -> [IncomingAnswer] {
        state.withLock { $0.sink = sink }
        do { try ensureBridge() } catch {
            sink(.problem("The bridge '\(command)' could not be started: \(error). till tries again with the next request."))
        }
        return []
    }

    private func ensureBridge() throws(TransportError) {
        if state.withLock({ $0.bridge != nil }) { return }
        var inPipe: [Int32] = [0, 0]
        var outPipe: [Int32] = [0, 0]
        guard PipeTransport.cloexecPipe(&inPipe) else { throw .notSent("cannot make a pipe: \(String(cString: strerror(errno)))") }
        guard PipeTransport.cloexecPipe(&outPipe) else {
            close(inPipe[0]); close(inPipe[1])
            throw .notSent("cannot make a pipe: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        let errPath = stderrPath ?? "/dev/null"
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        posix_spawnattr_setpgroup(&attr, 0)
        var sigs = sigset_t()
        sigemptyset(&sigs)
        sigaddset(&sigs, SIGPIPE)
        posix_spawnattr_setsigdefault(&attr, &sigs)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF))
        let args = ["/bin/sh", "-c", command]
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/bin/sh", &actions, &attr, &argv, environ)
        close(inPipe[0]); close(outPipe[1])
        guard rc == 0 else {
            close(inPipe[1]); close(outPipe[0])
            throw .notSent("cannot start /bin/sh: \(String(cString: strerror(rc)))")
        }
        let generation = state.withLock { s -> Int in
            s.generation += 1
            s.starts += 1
            s.bridge = Bridge(pid: pid, stdin: inPipe[1], generation: s.generation)
            return s.generation
        }
        let readFd = outPipe[0]
        let childPid = pid
        let t = Thread { [weak self] in self?.readLoop(fd: readFd, pid: childPid, generation: generation) }
        t.name = "till-pipe-bridge"
        t.start()
    }

    private func readLoop(fd: Int32, pid: pid_t, generation: Int) {
        var pending = [UInt8]()
        var buf = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            pending.append(contentsOf: buf[0..<n])
            let held = pending.count
            state.withLock { $0.lineHighWater = max($0.lineHighWater, held) }
            while let nl = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[..<nl], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                pending.removeSubrange(...nl)
                if pending.count > 1 << 20 { pending.removeAll() }
                guard !line.isEmpty else { continue }
                let sink = state.withLock { s -> (@Sendable (TransportEvent) -> Void)? in
                    guard s.bridge?.generation == generation || s.bridge == nil else { return nil }
                    s.outstanding = nil
                    return s.sink
                }
                sink?(.answer(IncomingAnswer(text: line)))
            }
        }
        close(fd)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let how = PipeTransport.describe(status: status)
        let (sink, lostId, deliberate) = state.withLock { s -> ((@Sendable (TransportEvent) -> Void)?, String?, Bool) in
            guard let b = s.bridge, b.generation == generation else { return (nil, nil, true) }
            close(b.stdin)
            s.bridge = nil
            let lost = s.outstanding
            s.outstanding = nil
            return (s.sink, lost, b.stopping)
        }
        guard !deliberate, let sink else { return }
        if let lostId {
            sink(.lost(requestId: lostId, reason: "The bridge '\(command)' \(how) before answering."))
        }
        sink(.problem("The bridge '\(command)' \(how); till starts it again for the next request."))
    }

    static func cloexecPipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    static func describe(status: Int32) -> String {
        let sig = status & 0x7f
        if sig == 0 { return "exited with status \((status >> 8) & 0xff)" }
        return "was killed by signal \(sig)"
    }

    public func send(id: String, url: String) async throws(TransportError) {
        for attempt in 0..<2 {
            try ensureBridge()
            guard let fd = state.withLock({ $0.bridge?.stdin }) else { continue }
            state.withLock { $0.outstanding = id }
            let bytes = Array((url + "\n").utf8)
            var written = 0
            var failure: Int32 = 0
            while written < bytes.count {
                let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if n < 0 { if errno == EINTR { continue }; failure = errno; break }
                written += n
            }
            if failure == 0 { return }
            // EPIPE with nothing written: the bridge was gone before it read a byte; start it again once.
            killBridge(reason: nil)
            if written == 0 && failure == EPIPE && attempt == 0 { continue }
            state.withLock { $0.outstanding = nil }
            if written == 0 { throw .notSent("The bridge '\(command)' did not take the request: \(String(cString: strerror(failure))).") }
            throw .maybeSent("The bridge '\(command)' took part of the request and failed: \(String(cString: strerror(failure))).")
        }
        throw .notSent("The bridge '\(command)' could not be started.")
    }

    /// Stops the current bridge (its whole process group); the reader thread reaps it.
    private func killBridge(reason: String?) {
        let target = state.withLock { s -> Bridge? in
            guard var b = s.bridge else { return nil }
            b.stopping = true
            s.bridge = nil
            s.outstanding = nil
            return b
        }
        guard let b = target else { return }
        close(b.stdin)
        kill(-b.pid, SIGKILL)
        kill(b.pid, SIGKILL)
        if let reason, let sink = state.withLock({ $0.sink }) { sink(.problem(reason)) }
    }

    public func acknowledge(_ answer: IncomingAnswer) async {}
    public func reject(_ answer: IncomingAnswer, reason: String) async {}

    public func gaveUp(on id: String) async -> Bool {
        killBridge(reason: "The bridge '\(command)' did not answer in time; it was stopped and starts again for the next request.")
        return false
    }

    public func stop() async {
        let target = state.withLock { s -> Bridge? in
            s.sink = nil
            guard var b = s.bridge else { return nil }
            b.stopping = true
            s.bridge = nil
            return b
        }
        guard let b = target else { return }
        close(b.stdin)
        // Give a well-behaved bridge a moment to exit on end of input, then make sure.
        try? await Task.sleep(nanoseconds: 100_000_000)
        kill(-b.pid, SIGKILL)
        kill(b.pid, SIGKILL)
    }
}
