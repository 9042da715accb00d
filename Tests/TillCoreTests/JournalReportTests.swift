import Foundation
import Testing
@testable import TillCore
import TillIO
import TillProtocol
import TillSimulator

/// A report from the trigger-maintained summary must equal one aggregated afresh from the entries.
private func reportsAgree(_ journal: Journal, batchId: String?) throws -> (Report, Report) {
    let fromSummary = Report(kind: .running, batch: nil, generatedAtMs: 0, buckets: try journal.reportBuckets(batchId: batchId))
    let fromEntries = Report(kind: .running, batch: nil, generatedAtMs: 0,
                             buckets: ReportBucket.aggregate(try journal.entries(batchId: batchId)))
    return (fromSummary, fromEntries)
}

@Test func aShiftThroughTheControllerGivesHandComputedTotals() async throws {
    let dir = TempDir("till-report"); defer { dir.cleanup() }
    // Every request but 9.09 waits the default minute for its answer (a decline timed out on a loaded machine with
    // 1.5 s, and 5 s is no promise either); only 9.09, never answered, has a short timeout to wait out.
    let c = try await simulatorController(dir)
    let open = await c.perform(.batch(BatchRequest(command: .open, batchName: "Till 1 morning")))
    #expect(open.exitCode == 0)
    #expect(await c.perform(sale(2000, tip: 200)).exitCode == 0)          // 20.00 + 2.00
    #expect(await c.perform(sale(1250)).exitCode == 0)                    // 12.50
    #expect(await c.perform(sale(666)).exitCode == 1)                     // declined
    let big = await c.perform(sale(4000, tip: 600))                       // 40.00 + 6.00
    let stan = try #require(big.journalEntry?.response?.referenceNumber)
    #expect(await c.perform(.cancel(CancelRequest(amount: Money(cents: 1500), finder: TransactionFinder(referenceNumber: stan)))).exitCode == 0)
    let pre = await c.perform(.preAuth(PreAuthRequest(amount: Money(cents: 5000))))
    let code = try #require(pre.journalEntry?.response?.shortOrderCode)
    #expect(await c.perform(.capturePreAuth(CaptureRequest(amount: Money(cents: 4200), finder: TransactionFinder(shortOrderCode: code)))).exitCode == 0)
    #expect(await c.perform(sale(909), hooks: true, timeoutMs: 1_000).exitCode == 3)   // no answer: unknown
    let batch = await c.batch()
    await c.shutdown()

    let journal = try Journal(path: dir.path + "/journal.sqlite")
    let (summary, entries) = try reportsAgree(journal, batchId: batch.id)
    #expect(summary == entries)
    let r = try journal.report(for: try journal.findBatch(.current))
    #expect(r.kind == .running)
    #expect(r.batchName == "Till 1 morning")
    #expect(r.sales == Tally(count: 3, cents: 7250))
    #expect(r.tips == Tally(count: 2, cents: 800))
    #expect(r.refunds == Tally(count: 1, cents: 1500))
    #expect(r.preAuths == Tally(count: 1, cents: 5000))
    #expect(r.captures == Tally(count: 1, cents: 4200))
    #expect(r.netCents == 7250 + 800 + 4200 - 1500)
    #expect(r.declined == Tally(count: 1, cents: 666))
    #expect(r.unknown == Tally(count: 1, cents: 909))
    #expect(r.byCardType.values.reduce(0) { $0 + $1.cents } == 7250 + 800)
    #expect(r.byVerificationMethod.values.reduce(0) { $0 + $1.count } == 3)
    #expect(!r.byVerificationMethod.keys.contains("(unknown)"))
}

@Test func closingStoresAZReportThatReadsTheSameLater() async throws {
    let dir = TempDir("till-report"); defer { dir.cleanup() }
    let c = try await simulatorController(dir)
    _ = await c.perform(.batch(BatchRequest(command: .open, batchName: "Evening")))
    _ = await c.perform(sale(1000, tip: 100))
    _ = await c.perform(sale(551))
    let closed = await c.perform(.batch(BatchRequest(command: .close)))
    #expect(closed.exitCode == 0)
    // Business after the close (outside any batch) must not change the stored Z report.
    _ = await c.perform(sale(3000))
    await c.shutdown()

    let journal = try Journal(path: dir.path + "/journal.sqlite")
    let batch = try #require(try journal.findBatch(.idOrName("Evening")))
    #expect(!batch.isOpen)
    #expect(batch.closedHow == .byTill)
    let z1 = try journal.report(for: batch)
    #expect(z1.kind == .closing)
    #expect(z1.sales == Tally(count: 1, cents: 1000))
    #expect(z1.declined == Tally(count: 1, cents: 551))
    let z2 = try journal.report(for: batch, nowMs: WallClock.nowMs() + 86_400_000)
    #expect(z1 == z2)
    #expect(z1.text(ReportFormat()) == z2.text(ReportFormat()))
    #expect(z1.csv(ReportFormat()) == z2.csv(ReportFormat()))
}

@Test func batchesClosedByTheTerminalAreShownSoWithTheirTotals() throws {
    let dir = TempDir("till-report"); defer { dir.cleanup() }
    let journal = try Journal(path: dir.path + "/journal.sqlite")
    let t0: Int64 = 1_800_000_000_000
    func batchAnswer(_ command: String, _ name: String, _ id: String, at: Int64) throws {
        let req = TerminalRequest(caller: testCaller, request: .batch(BatchRequest(command: command == "open" ? .open : .close)))
        let e = try journal.insertPending(requestId: UUID().uuidString, request: req, batch: try journal.batch(nowMs: at), nowMs: at)
        let resp = try CallbackResponse.decode("cb://result?status=success&message=ok&action=batch&command=\(command)&batchName=\(name)&batchId=\(id)")
        try journal.recordAnswer(e.id, response: resp, state: .approved, note: nil, nowMs: at)
    }
    func saleAt(_ cents: Int, at: Int64) throws {
        let req = TerminalRequest(caller: testCaller, request: sale(cents, ctid: UUID().uuidString))
        let e = try journal.insertPending(requestId: UUID().uuidString, request: req, batch: try journal.batch(nowMs: at), nowMs: at)
        let resp = try CallbackResponse.decode("cb://result?status=success&action=sale&amount=\(cents)&cardType=VISA&verificationMethod=CHIP")
        try journal.recordAnswer(e.id, response: resp, state: .approved, note: nil, nowMs: at)
    }
    let a = "11111111-1111-1111-1111-111111111111", b = "22222222-2222-2222-2222-222222222222"
    try batchAnswer("open", "A", a, at: t0)
    try saleAt(1000, at: t0 + 1000)
    // A second terminal-side open replaces A.
    try batchAnswer("open", "B", b, at: t0 + 3_600_000)
    try saleAt(2500, at: t0 + 3_700_000)
    let hours49 = t0 + 3_600_000 + 49 * 3_600_000
    let all = try journal.batches(nowMs: hours49)
    // batch.txt:10: closed "and a new one being started": the third, open, known only by its start.
    #expect(all.count == 3)
    #expect(all[2].isOpen && all[2].name == Journal.terminalStartedBatchName && all[2].openedAtMs == t0 + 3_600_000 + 48 * 3_600_000)
    #expect(all[0].closedHow == .newBatchOpened)
    #expect(all[0].closedAtMs == t0 + 3_600_000)
    // B was never closed by till: 48 hours after it opened, the terminal closed it.
    #expect(all[1].closedHow == .autoClose)
    #expect(all[1].closedAtMs == t0 + 3_600_000 + 48 * 3_600_000)
    let zA = try journal.report(for: all[0], nowMs: hours49)
    #expect(zA.kind == .closing && zA.sales == Tally(count: 1, cents: 1000))
    let zB = try journal.report(for: all[1], nowMs: hours49)
    #expect(zB.kind == .closing && zB.sales == Tally(count: 1, cents: 2500))
    #expect(zB.closedHow == .autoClose)
}

@Test func summaryFollowsEveryStateChange() throws {
    let dir = TempDir("till-report"); defer { dir.cleanup() }
    let journal = try Journal(path: dir.path + "/journal.sqlite")
    var rng = SplitMix64(state: 42)
    func next(_ n: Int) -> Int { rng.int(n) }
    let batch = BatchInfo(id: "33333333-3333-3333-3333-333333333333", name: "fuzz", openedAtMs: 0, isOpen: true)
    var ids: [Int64] = []
    let states: [EntryState] = [.approved, .declined, .aborted, .unknown, .resolved]
    for i in 0..<300 {
        let req = TerminalRequest(caller: testCaller, request: i % 5 == 0 ? .preAuth(PreAuthRequest(amount: Money(cents: 100 + i)))
                                                                 : sale(100 + next(5000), tip: next(3) == 0 ? next(300) : nil))
        let e = try journal.insertPending(requestId: "r\(i)", request: req, batch: batch, nowMs: Int64(i) * 1000)
        ids.append(e.id)
        if next(4) > 0 { try journal.markSent(e.id, nowMs: Int64(i) * 1000 + 1) }
    }
    for _ in 0..<600 {
        let id = ids[next(ids.count)]
        let state = states[next(states.count)]
        if state == .approved || state == .declined {
            let cards = ["VISA", "Maestro", "AMEX"], methods = ["CHIP", "CONTACTLESS"]
            let resp = try CallbackResponse.decode("cb://result?status=\(state == .approved ? "success" : "fail")&action=sale&amount=\(100 + next(900))&cardType=\(cards[next(3)])&verificationMethod=\(methods[next(2)])")
            try journal.recordAnswer(id, response: resp, state: state, note: nil, nowMs: 999_999)
        } else {
            try journal.setState(id, state, note: "x", nowMs: 999_999)
        }
        let (summary, entries) = try reportsAgree(journal, batchId: batch.id)
        #expect(summary == entries)
        if summary != entries { break }
    }
}
