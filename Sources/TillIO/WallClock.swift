#if canImport(Glibc)
import Glibc
#endif

/// Milliseconds since 1970 on the wall clock.
public enum WallClock {
    public static func nowMs() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }
    /// A monotonic clock in nanoseconds, for measuring durations.
    public static func monotonicNs() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

extension WallClock {
    /// The monotonic clock in milliseconds: it never steps, where the wall clock may (RTC or NTP, a snapshot restored).
    public static func monotonicMs() -> Int64 { Int64(monotonicNs() / 1_000_000) }
}
