import Foundation

/// Start-up stages and their times, for measuring what delays the first frame (issue 11): with
/// `TILL_TRACE_START=1` in the environment, each `mark` writes "till start: <ms since main> <stage>" to standard
/// error; otherwise a mark costs one branch. (`TillBench` and a person use it; nothing depends on it.)
public enum StartTrace {
    nonisolated(unsafe) private static var t0: UInt64 = 0
    nonisolated(unsafe) private static var on = false

    /// Call first thing in `main`.
    public static func begin() {
        on = getenv("TILL_TRACE_START").map { String(cString: $0) == "1" } ?? false
        t0 = WallClock.monotonicNs()
    }

    public static func mark(_ stage: String) {
        guard on else { return }
        let ms = Double(WallClock.monotonicNs() - t0) / 1_000_000
        let line = String(format: "till start: %7.2f ms %@\n", ms, stage)
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
