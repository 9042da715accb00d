import Foundation
import Synchronization
import TillCore
import TillIO
import TillProtocol
import TillSimulator

/// The core benchmarks (see BENCHMARKS.md): transport round trips against `till simulate` as a separate process,
/// durable journal appends, and totals/listing over a journal of 1,000,000 transactions.
/// Needs a release `till` binary: `TILL_BIN`, else the one beside TillBench (`swift build -c release --product till`).
func coreBench() async throws {
    let till = tillBinaryPath()
    guard FileManager.default.isExecutableFile(atPath: till) else {
        print("  needs \(till): set TILL_BIN, or run `swift build -c release --product till` first")
        return
    }
    let root = "/tmp/till-core-bench-\(getpid())"
    try? FileManager.default.removeItem(atPath: root)
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }
    let caller = Caller(callback: "interapp-callback", merchantKey: "BENCH-KEY", appId: "com.example.till.bench")
    let url = TerminalRequest(caller: caller, request: .sale(SaleRequest(amount: Money(cents: 1200), clientTransactionId: "bench"))).url

    // 1. File drop: transport alone, then through the controller (journal writes included).
    do {
        let drop = root + "/drop"
        let sim = try startProcess(till, ["simulate", "--dir", drop, "--speed", "0"])
        defer { sim.terminate(); sim.waitUntilExit() }
        try await Task.sleep(nanoseconds: 300_000_000)
        let t = FileDropTransport(directory: drop)
        let ms = try await transportRoundTrips(t, url: url, count: 300)
        report("file drop round trip, transport only (till simulate --dir, fsync'd both ways)", ms)
        let c = TillController(transport: FileDropTransport(directory: drop), journal: try Journal(path: root + "/file.sqlite"), caller: caller)
        try await c.start()
        report("file drop sale through the controller (journal pending/sent/answer + archive)", try await controllerSales(c, count: 200))
        await c.shutdown()
    }

    // 2. Pipe: transport alone, then through the controller.
    do {
        let t = PipeTransport(command: "'\(till)' simulate --stdio --speed 0")
        let ms = try await transportRoundTrips(t, url: url, count: 2000)
        report("pipe round trip, transport only (till simulate --stdio)", ms)
        let c = TillController(transport: PipeTransport(command: "'\(till)' simulate --stdio --speed 0"),
                               journal: try Journal(path: root + "/pipe.sqlite"), caller: caller)
        try await c.start()
        report("pipe sale through the controller (journal pending/sent/answer)", try await controllerSales(c, count: 300))
        await c.shutdown()
    }

    // 3. Durable appends: each its own committed transaction, WAL, synchronous=FULL.
    do {
        let j = try Journal(path: root + "/append.sqlite")
        let req = TerminalRequest(caller: caller, request: .sale(SaleRequest(amount: Money(cents: 1200), clientTransactionId: "x")))
        let n = 2000
        let start = WallClock.monotonicNs()
        for i in 0..<n { _ = try j.insertPending(requestId: "r\(i)", request: req, batch: BatchInfo()) }
        let secs = Double(WallClock.monotonicNs() - start) / 1e9
        print(String(format: "  durable journal appends (insert pending, one commit + fsync each): %.0f/s (%d in %.2f s)", Double(n) / secs, n, secs))
    }

    // 4. One million transactions: 1,000 batches of 1,000 (sales, refunds, captures, pre-auths, a few unknown).
    do {
        let j = try Journal(path: root + "/million.sqlite")
        let actions: [Action] = [.sale, .sale, .sale, .sale, .sale, .sale, .cancel, .preAuth, .capturePreAuth, .sale]
        let states: [EntryState] = [.approved, .approved, .approved, .approved, .declined, .approved, .approved, .aborted, .approved, .unknown]
        let fill = WallClock.monotonicNs()
        var rng = UInt64(42)
        for chunk in 0..<100 {
            var rows: [(action: Action, state: EntryState, amountCents: Int, tipCents: Int, batchId: String?, atMs: Int64)] = []
            rows.reserveCapacity(10_000)
            for n in 0..<10_000 {
                let b = chunk * 10 + n / 1000, i = n % 1000
                rng = rng &* 6364136223846793005 &+ 1442695040888963407
                let r = Int(rng >> 33)
                rows.append((actions[(r >> 4) % actions.count], states[r % states.count], 100 + r % 20_000, (r >> 8) % 300,
                             "batch-\(b)", Int64(b * 1000 + i)))
            }
            try j.insertSettled(rows)
        }
        let fillSecs = Double(WallClock.monotonicNs() - fill) / 1e9
        print(String(format: "  built a journal of %d transactions in %.1f s", try j.count(), fillSecs))
        var totals: [Double] = []
        var lists: [Double] = []
        var check = 0
        for k in 0..<200 {
            let id = "batch-\((k * 37) % 1000)"
            let t0 = WallClock.monotonicNs()
            // The running report of the batch, as `till report` makes it: its summary rows, counted by `Report`.
            let t = Report(kind: .running, batch: nil, generatedAtMs: 0, buckets: try j.reportBuckets(batchId: id))
            totals.append(Double(WallClock.monotonicNs() - t0) / 1e6)
            check += t.sales.count
            let l0 = WallClock.monotonicNs()
            let page = try j.entries(JournalFilter(scope: .batch(id), limit: 50))
            lists.append(Double(WallClock.monotonicNs() - l0) / 1e6)
            check += page.count
        }
        report("totals of one batch (its running report from the summary rows) out of 1,000,000", totals)
        report("listing one batch's newest 50 entries out of 1,000,000", lists)
        var all: [Double] = []
        for _ in 0..<50 {
            let t0 = WallClock.monotonicNs()
            _ = try j.entries(JournalFilter(scope: .all, limit: 500))
            all.append(Double(WallClock.monotonicNs() - t0) / 1e6)
        }
        report("listing the newest 500 entries of the whole journal", all)
        var search: [Double] = []
        for _ in 0..<5 {
            let t0 = WallClock.monotonicNs()
            _ = try j.entries(JournalFilter(scope: .all, text: "no-such-text", limit: 50))
            search.append(Double(WallClock.monotonicNs() - t0) / 1e6)
        }
        report("free-text search that matches nothing (full scan of 1,000,000)", search)
        if check == 0 { print("  (no rows?)") }
    }
}

private func startProcess(_ path: String, _ args: [String]) throws -> Process {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = args
    p.standardError = FileHandle.nullDevice
    p.standardOutput = FileHandle.nullDevice
    try p.run()
    return p
}

/// Sends `count` sale URLs one at a time through a bare transport and times each until its answer arrives (ms).
private func transportRoundTrips(_ t: any Transport, url: String, count: Int) async throws -> [Double] {
    let arrived = DispatchSemaphore(value: 0)
    let answers = AnswerBox()
    _ = try await t.start(sink: { e in
        if case .answer(let a) = e { answers.put(a); arrived.signal() }
    })
    var out: [Double] = []
    for i in 0..<(count + 20) {
        let t0 = WallClock.monotonicNs()
        try await t.send(id: "bench-\(i)-\(UUID().uuidString.lowercased())", url: url)
        await waitSemaphore(arrived)
        let dt = Double(WallClock.monotonicNs() - t0) / 1e6
        if let a = answers.take() { await t.acknowledge(a) }
        if i >= 20 { out.append(dt) }   // the first 20 warm up
    }
    await t.stop()
    return out
}

private func controllerSales(_ c: TillController, count: Int) async throws -> [Double] {
    var out: [Double] = []
    for i in 0..<(count + 10) {
        let t0 = WallClock.monotonicNs()
        let r = await c.perform(.sale(SaleRequest(amount: Money(cents: 1200))))
        let dt = Double(WallClock.monotonicNs() - t0) / 1e6
        guard case .answered = r else { print("  unexpected outcome: \(r)"); break }
        if i >= 10 { out.append(dt) }
    }
    return out
}

private func waitSemaphore(_ s: DispatchSemaphore) async {
    await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async { s.wait(); c.resume() }
    }
}

private final class AnswerBox: Sendable {
    private let items = Mutex<[IncomingAnswer]>([])
    func put(_ a: IncomingAnswer) { items.withLock { $0.append(a) } }
    func take() -> IncomingAnswer? { items.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
}

private func report(_ label: String, _ ms: [Double]) {
    guard !ms.isEmpty else { print("  \(label): no samples"); return }
    let s = ms.sorted()
    func q(_ p: Double) -> Double { s[min(s.count - 1, Int(Double(s.count - 1) * p))] }
    print(String(format: "  %@: n=%d p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms", label, s.count, q(0.5), q(0.9), q(0.99), s.last!))
}
