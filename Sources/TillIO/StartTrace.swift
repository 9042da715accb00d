import Foundation

/// Start-up stages and their times, for measuring what delays the first frame (issue 11): with
/// `TILL_TRACE_START=1` in the environment, each `mark` writes "till start: <ms since main> <stage>" to standard
/// error; otherwise a mark costs one branch. (`TillBench` and a person use it; nothing depends on it.)
/// `TILL_TRACE_EXEC_NS=<CLOCK_MONOTONIC ns>`, taken by whoever starts till just before its `execve`, adds a first line
/// with the time from there to `main`: what the kernel, the loader and the static initialisers took.
public enum StartTrace {
    nonisolated(unsafe) private static var t0: UInt64 = 0
    nonisolated(unsafe) private static var on = false

    /// Call first thing in `main`.
    public static func begin() {
        on = getenv("TILL_TRACE_START").map { String(cString: $0) == "1" } ?? false
        t0 = WallClock.monotonicNs()
        if on, let exec = getenv("TILL_TRACE_EXEC_NS").flatMap({ UInt64(String(cString: $0)) }), exec < t0 {
            let saved = t0
            t0 = exec
            mark("main reached (since exec)")
            t0 = saved
        }
    }

    public static func mark(_ stage: String) {
        guard on else { return }
        // Hundredths of a millisecond, by hand: `String(format:)` costs most of a millisecond on its first use,
        // which the next mark would count.
        let hundredths = (WallClock.monotonicNs() - t0) / 10_000
        let fraction = String(hundredths % 100)
        let ms = String(hundredths / 100)
        let line = "till start: " + String(repeating: " ", count: max(0, 4 - ms.count)) + ms + "."
            + (fraction.count < 2 ? "0" : "") + fraction + " ms " + stage + "\n"
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
