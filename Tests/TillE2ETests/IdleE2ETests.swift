import Foundation
import Testing

/// An idle till sleeps: after a sale, with nothing in flight, the whole process wakes for the status line's clock,
/// once a minute (it shows hours and minutes), and for libdispatch's worker-pool monitor, a 1 Hz timer that Swift
/// concurrency's default executor starts on Linux: about one wake-up a second. Counted as the kernel counts it: every
/// thread's voluntary context switches (a thread that slept and was woken) in /proc. What this catches: a timer left
/// running after the answer (a payment's 90 s timer, cancelled by the answer, used to fire anyway), a clock ticking
/// every second again, or any other that ticks while idle.
@Suite(.serialized) struct IdleE2ETests {
    /// Voluntary context switches of every thread of `pid`.
    static func wakeUps(_ pid: Int32) -> Int {
        let base = "/proc/\(pid)/task"
        var total = 0
        for t in (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? [] {
            guard let status = try? String(contentsOfFile: "\(base)/\(t)/status", encoding: .utf8) else { continue }
            for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
                total += Int(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) ?? 0
            }
        }
        return total
    }

    @Test func anIdleTillWakesOnlyForItsClock() async throws {
        let t = try TillSession(args: ["--sim-speed", "0"])
        try t.openShift()
        try await Self.expectIdleAfterASale(t)
    }

    /// A sale, then the process idle: its wake-ups counted over 6 s. The 13 s of waiting are task sleeps, not
    /// thread sleeps: the test pool has a thread a core, and async tests with deadlines ran out of time behind them.
    static func expectIdleAfterASale(_ t: TillSession, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try t.type("3.20")
        try t.press("Enter", thenSee: "SALE APPROVED")
        // Dispatch ends its idle worker threads after 5 s; what is left is the idle process.
        try await Task.sleep(nanoseconds: 7_000_000_000)
        let pid = t.tillPid
        let before = wakeUps(pid)
        let start = Date()
        try await Task.sleep(nanoseconds: 6_000_000_000)
        let woken = wakeUps(pid) - before
        // The window as it really was: a task sleep resumes late when the suites running beside it hold the test
        // pool's threads (their screen waits are thread sleeps), and the monitor wakes once for every second of it.
        let seconds = Int(Date().timeIntervalSince(start).rounded(.up))
        // Dispatch's monitor, one a second, and at most one minute of the clock (or a few more: the store's cell read
        // on that tick). A clock ticking every second, or a stray timer, would add as many again.
        #expect(woken <= seconds + 4, "an idle till woke \(woken) times in \(seconds) s (dispatch's monitor needs \(seconds))",
                sourceLocation: sourceLocation)
        #expect(TillSession.running(pid), sourceLocation: sourceLocation)
    }

    /// The same for a till started on a journal it has used before, as a till starts every morning (its opening reads
    /// the file through a read-only connection first, and recovery runs).
    @Test func anIdleTillStartedOnItsJournalWakesOnlyForItsClock() async throws {
        let t = try TillSession(args: ["--sim-speed", "0"])
        try t.openShift()
        try t.restart(args: ["--sim-speed", "0"])
        #expect(t.waitFor("batch Test", "Ready for the next customer."))
        try await Self.expectIdleAfterASale(t)
    }
}
