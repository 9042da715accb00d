#if canImport(Glibc)
import Glibc
#endif
import TillIO

/// Signals as bytes on a pipe (the self-pipe trick): the handler only writes the signal's number,
/// which is async-signal-safe; whoever waits (the UI's `poll`, a headless command's watcher thread)
/// reads the byte and does the real work (journal the entry in flight as unknown, stop the bridge) in
/// ordinary code. One pipe for the whole process; `install` may be called more than once.
///
///     SignalPipe.install([SIGTERM, SIGHUP])
///     poll on SignalPipe.readFd; SignalPipe.take() -> [SIGTERM]
public enum SignalPipe {
    nonisolated(unsafe) private static var fds: (read: Int32, write: Int32) = (-1, -1)
    /// The SIGWINCH handler installed before (ncurses' own, which sets its resize flag): still called.
    nonisolated(unsafe) private static var previousWinch: sighandler_t? = nil
    /// A pause inside the SIGWINCH handler, for tests only (read at `install`, never in the handler).
    nonisolated(unsafe) private static var gapNs = 0

    /// The end to poll; -1 before the first `install`.
    public static var readFd: Int32 { fds.read }

    /// Routes these signals to the pipe. A SIGHUP that the parent set to ignored (`nohup`) stays
    /// ignored: the terminal's end is still noticed as a hang-up of the terminal itself.
    /// Not thread-safe: call it from one thread before the signals matter (start-up).
    public static func install(_ signals: [Int32]) {
        if fds.read < 0 {
            guard let p = makeWakePipe() else { return }
            fds = p
            gapNs = min(Environment.process["TILL_TEST_WINCH_GAP_MS"].flatMap { Int($0) } ?? 0, 1000) * 1_000_000
        }
        for sig in signals where sig > 0 && sig < 65 {
            var old = sigaction()
            sigaction(sig, nil, &old)
            if sig == SIGHUP, address(old.__sigaction_handler.sa_handler) == address(SIG_IGN) { continue }
            var act = sigaction()
            act.__sigaction_handler.sa_handler = signalPipeHandler
            sigemptyset(&act.sa_mask)
            act.sa_flags = SA_RESTART
            var prev = sigaction()
            sigaction(sig, &act, &prev)
            if sig == SIGWINCH, prev.sa_flags & SA_SIGINFO == 0, let h = prev.__sigaction_handler.sa_handler,
               address(h) != address(SIG_IGN), address(h) != address(signalPipeHandler) {
                previousWinch = h
            }
        }
    }

    /// The signals that arrived since the last call, oldest first (never blocks).
    public static func take() -> [Int32] { take(waitingMs: 0) }

    /// Blocks until a signal arrives; returns it.
    public static func wait() -> Int32 {
        while true {
            if let s = take(waitingMs: -1).first { return s }
        }
    }

    /// The signals on the pipe, after waiting up to `waitingMs` (-1: no limit) for the first.
    private static func take(waitingMs: Int32) -> [Int32] {
        guard fds.read >= 0 else { return [] }
        var out: [Int32] = []
        var buf = [UInt8](repeating: 0, count: 64)
        var wait = waitingMs
        while case .read(let n) = buf.withUnsafeMutableBytes({ DescriptorReader.readOnce(fds.read, wake: -1, timeoutMs: wait, into: $0) }) {
            out += buf[0..<n].map { Int32($0) }
            wait = 0
        }
        return out
    }

    /// Ends the process as the signal would have: its default action, after the work is done. The signal ends the
    /// process without `exit`'s handlers: `cleanUp` runs first (the executable closes its journals there).
    public static func terminate(as sig: Int32, cleanUp: () -> Void) -> Never {
        cleanUp()
        signal(sig, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, sig)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(sig)
        exit(128 + sig)
    }

    fileprivate static func handle(_ sig: Int32) {
        let saved = errno
        // ncurses' handler first: once the byte is on the pipe the loop may read the keys at once (on the other
        // core), and a resize not yet noted by ncurses then gave no KEY_RESIZE and no later wake-up; the resize was
        // lost until the next key.
        if sig == SIGWINCH, let h = previousWinch { h(sig) }
        // Tests widen the gap between the two steps (`TILL_TEST_WINCH_GAP_MS`), which was a race's window.
        if sig == SIGWINCH, gapNs > 0 {
            var t = timespec(tv_sec: gapNs / 1_000_000_000, tv_nsec: gapNs % 1_000_000_000)
            nanosleep(&t, nil)
        }
        var b = UInt8(truncatingIfNeeded: sig)
        _ = write(fds.write, &b, 1)
        errno = saved
    }
}

private func address(_ h: sighandler_t?) -> Int { h.map { unsafeBitCast($0, to: Int.self) } ?? 0 }
private func signalPipeHandlerBody(_ sig: Int32) { SignalPipe.handle(sig) }
private let signalPipeHandler: @convention(c) (Int32) -> Void = { sig in signalPipeHandlerBody(sig) }
