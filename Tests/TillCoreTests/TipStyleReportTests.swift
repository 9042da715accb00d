import Foundation
import Testing
@testable import TillCore
import TillProtocol

/// Issue 12 (sale.txt's request table: the tip "added on top of the amount"; the answer tables: "how much of the
/// amount is considered as tip"): the terminal's answer is the truth for every total, read with the configured style.
struct TipStyleReportTests {
    func approvedSale(_ j: Journal, amount: Int, tip: Int) throws {
        let req = TerminalRequest(caller: testCaller, request: sale(amount, tip: tip))
        let e = try j.insertPending(requestId: UUID().uuidString.lowercased(), request: req, batch: BatchInfo())
        let r = try CallbackResponse.decode("interapp-callback://result?status=success&message=Transaction%20successful.&action=sale&amount=\(amount)&tipAmount=\(tip)&transactionId=\(UUID().uuidString.lowercased())")
        try j.recordAnswer(e.id, response: r, state: .approved, note: nil)
    }

    @Test func onTopTheCardPaidAmountPlusTip() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let j = try Journal(path: dir.path + "/j.sqlite")
        try approvedSale(j, amount: 1200, tip: 200)
        let r = try j.report(for: nil)
        #expect(r.sales.cents == 1200 && r.tips.cents == 200 && r.netCents == 1400)
    }

    @Test func includedTheCardPaidTheAmountOfWhichTip() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let j = try Journal(path: dir.path + "/j.sqlite", tipStyle: .included)
        try approvedSale(j, amount: 1200, tip: 200)
        let r = try j.report(for: nil)
        #expect(r.sales.cents == 1000 && r.tips.cents == 200 && r.netCents == 1200, "net \(r.netCents)")
        #expect(r.byCardType.values.reduce(0) { $0 + $1.cents } == 1200)
        #expect(r.tipStyle == .included)
    }

    // Found by attack: outside the totals (declined, aborted, unknown, review, duplicates) the tip was added to the
    // amount whatever the style, so with the tip included an unknown 9.09 (tip 1.00 in it) read 10.09.
    @Test(arguments: [EntryState.unknown, .declined, .aborted, .review, .duplicate])
    func outsideTheTotalsTheTipIsReadWithTheStyle(_ state: EntryState) {
        let b = ReportBucket(action: .sale, state: state, cardType: "", verificationMethod: "", count: 1, amountCents: 909,
                             tipCents: 100, tippedCount: 1, firstAtMs: 0, lastAtMs: 0)
        let included = Report(kind: .running, batch: nil, generatedAtMs: 0, buckets: [b], tipStyle: .included)
        let onTop = Report(kind: .running, batch: nil, generatedAtMs: 0, buckets: [b], tipStyle: .onTop)
        let pick: (Report) -> Int = { r in
            switch state {
            case .declined: return r.declined.cents
            case .aborted: return r.aborted.cents
            case .review: return r.review.cents
            case .duplicate: return r.duplicates.cents
            default: return r.unknown.cents
            }
        }
        #expect(pick(included) == 909 && pick(onTop) == 1009)
    }
}
