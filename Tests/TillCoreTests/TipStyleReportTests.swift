import Foundation
import Testing
@testable import TillCore
import TillProtocol

/// sale.txt's request table: the tip "added on top of the amount"; the answer tables: "how much of the
/// amount is considered as tip"): the terminal's answer is the truth for every total, read with the style each entry was journaled with.
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
    }

    /// The tip style was read at report time: changing `tip` in the config restated past sales, and a Z report closed
    /// meanwhile kept the restated figure. Each entry keeps the style it was journaled with.
    @Test func changingTheConfigsTipStyleRestatesNothingJournaled() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.path + "/j.sqlite"
        do {
            let j = try Journal(path: path, tipStyle: .included)
            try approvedSale(j, amount: 1200, tip: 200)      // the card paid 12.00, of which 2.00 tip
            j.close()
        }
        let j = try Journal(path: path, tipStyle: .onTop)
        try approvedSale(j, amount: 1000, tip: 100)          // the card paid 11.00
        let r = try j.report(for: nil)
        #expect(r.sales.cents == 1000 + 1000 && r.tips.cents == 300 && r.netCents == 1200 + 1100, "net \(r.netCents)")
        let fresh = Report(kind: .running, batch: nil, generatedAtMs: 0, buckets: ReportBucket.aggregate(try j.entries(batchId: nil)))
        #expect(fresh.netCents == r.netCents)
        let lines = try j.entries(batchId: nil).map { TransactionExport.paid($0, amount: $0.amount ?? .zero, tip: $0.tipAmount ?? .zero).cents }
        #expect(lines.sorted() == [1100, 1200])
    }

    // Found by attack: outside the totals (declined, aborted, unknown, review, duplicates) the tip was added to the
    // amount whatever the style, so with the tip included an unknown 9.09 (tip 1.00 in it) read 10.09.
    @Test(arguments: [EntryState.unknown, .sent, .pending, .declined, .aborted, .review, .duplicate])
    func outsideTheTotalsTheTipIsReadWithTheStyle(_ state: EntryState) {
        func bucket(included: Bool) -> ReportBucket {
            ReportBucket(action: .sale, state: state, cardType: "", verificationMethod: "", count: 1, amountCents: 909,
                         tipCents: 100, tippedCount: 1, firstAtMs: 0, lastAtMs: 0, includedTipCents: included ? 100 : 0)
        }
        let included = Report(kind: .running, batch: nil, generatedAtMs: 0, buckets: [bucket(included: true)])
        let onTop = Report(kind: .running, batch: nil, generatedAtMs: 0, buckets: [bucket(included: false)])
        let pick: (Report) -> Int = { r in
            switch state {
            case .declined: return r.declined.cents
            case .aborted: return r.aborted.cents
            case .review: return r.review.cents
            case .duplicate: return r.duplicates.cents
            case .pending, .sent: return r.waiting.cents
            default: return r.unknown.cents
            }
        }
        #expect(pick(included) == 909 && pick(onTop) == 1009)
    }
}
