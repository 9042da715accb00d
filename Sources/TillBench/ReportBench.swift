import Foundation
import TillCore
import TillProtocol
import TillSimulator

/// X report of a batch of 1,000,000 journaled transactions (target ≤ 50 ms), read from the
/// trigger-maintained summary.
func reportBench() async throws {
    let dir = NSTemporaryDirectory() + "till-report-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let journal = try Journal(path: dir + "/journal.sqlite")
    let batchId = "44444444-4444-4444-4444-444444444444"
    let total = 1_000_000
    var rng = SplitMix64(state: 7)
    func next(_ n: Int) -> Int { rng.int(n) }
    let actions: [Action] = [.sale, .sale, .sale, .sale, .sale, .sale, .cancel, .preAuth, .capturePreAuth]
    let states: [EntryState] = [.approved, .approved, .approved, .approved, .approved, .approved, .declined, .aborted, .unknown]
    let fill = Date()
    var done = 0
    while done < total {
        let n = min(50_000, total - done)
        var rows: [(action: Action, state: EntryState, amountCents: Int, tipCents: Int, batchId: String?, atMs: Int64)] = []
        rows.reserveCapacity(n)
        for i in 0..<n {
            rows.append((actions[next(actions.count)], states[next(states.count)], 100 + next(20_000), next(4) == 0 ? next(500) : 0,
                         batchId, 1_800_000_000_000 + Int64(done + i) * 100))
        }
        try journal.insertSettled(rows)
        done += n
    }
    print("  journal of \(total) transactions in one batch filled in \(String(format: "%.1f", Date().timeIntervalSince(fill))) s")
    let batch = BatchRecord(id: batchId, name: "bench", openedAtMs: 1_800_000_000_000)
    func time(_ label: String, rounds: Int, _ body: () throws -> Void) rethrows {
        var samples: [Double] = []
        for _ in 0..<rounds {
            let t = DispatchTime.now().uptimeNanoseconds
            try body()
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - t) / 1e6)
        }
        samples.sort()
        print(String(format: "  %@: p50 %.3f ms, max %.3f ms (%d rounds)", label, samples[samples.count / 2], samples.last!, rounds))
    }
    var report: Report?
    try time("X report (summary table)", rounds: 200) { report = try journal.report(for: batch) }
    if let report { print("  check: \(report.sales.count) sales approved, net \(report.netCents) cents") }
}
