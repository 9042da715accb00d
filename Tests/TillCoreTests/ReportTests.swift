import Foundation
import Testing
import TillProtocol
@testable import TillCore

/// A scripted day, with the figures computed by hand below.
enum ScriptedDay {
    static let batch = BatchInfo(id: "7885F4F1-59CA-42C2-81BB-6DB48AA138A6", name: "Saturday morning", openedAtMs: 1_795_000_000_000, isOpen: true)

    static func entry(_ id: Int64, _ action: Action, _ state: EntryState, amount: Int?, tip: Int? = nil,
                      card: String? = nil, method: String? = nil, at minute: Int64, answer: Bool = true,
                      answeredAmount: Int? = nil, orderCode: String? = nil) -> JournalEntry {
        var response: CallbackResponse?
        if answer {
            var fields = ["status=\(state == .approved ? "success" : "fail")", "action=\(action.rawValue)"]
            if let a = answeredAmount ?? amount { fields.append("amount=\(a)") }
            if let tip { fields.append("tipAmount=\(tip)") }
            if let card { fields.append("cardType=\(card)") }
            if let method { fields.append("verificationMethod=\(method)") }
            if let orderCode { fields.append("orderCode=\(orderCode)") }
            response = try! CallbackResponse.decode("cb://result?" + fields.joined(separator: "&"))
        }
        // As the journal keeps it: the amount the answer stated, else the one asked.
        let counted = answer ? (answeredAmount ?? amount) : amount
        return JournalEntry(id: id, requestId: "r\(id)", action: action, clientTransactionId: "c\(id)",
                            amount: counted.map { Money(cents: $0) }, tipAmount: tip.map { Money(cents: $0) },
                            requestURL: "", state: state, createdAtMs: batch.openedAtMs! + minute * 60_000,
                            updatedAtMs: batch.openedAtMs! + minute * 60_000, response: response,
                            batchId: batch.id, batchName: batch.name)
    }

    /// Sales with tips, declines, an abort, a partial refund, a pre-auth and its capture, an unknown outcome.
    static let entries: [JournalEntry] = [
        entry(1, .batch, .approved, amount: nil, at: 0),
        entry(2, .sale, .approved, amount: 2000, tip: 200, card: "VISA", method: "CONTACTLESS", at: 5),
        entry(3, .sale, .approved, amount: 1250, card: "Debit Mastercard", method: "CHIP", at: 12),
        entry(4, .sale, .declined, amount: 666, card: "VISA", method: "CHIP", at: 20),
        entry(5, .sale, .aborted, amount: 909, at: 25),
        entry(6, .sale, .approved, amount: 4000, tip: 600, card: "VISA", method: "CHIP", at: 31),
        entry(7, .cancel, .approved, amount: 1500, card: "VISA", at: 40),           // partial refund of #6
        entry(8, .preAuth, .approved, amount: 5000, card: "VISA", method: "CHIP", at: 45, orderCode: "1091166300000136"),
        entry(9, .capturePreAuth, .approved, amount: nil, card: "VISA", at: 50, answeredAmount: 4200),
        entry(10, .sale, .unknown, amount: 1313, at: 55, answer: false),
        entry(11, .sale, .declined, amount: 551, tip: 50, card: "Maestro", method: "CONTACTLESS", at: 58),
        entry(12, .abort, .approved, amount: nil, at: 25),
    ]
}

@Test func scriptedDayTotalsMatchHandComputedFigures() {
    let r = Report(kind: .running, batch: ScriptedDay.batch, generatedAtMs: ScriptedDay.batch.openedAtMs! + 3_600_000,
                   buckets: ReportBucket.aggregate(ScriptedDay.entries))
    // Sales approved: 20.00 + 12.50 + 40.00 = 72.50 (3); tips: 2.00 + 6.00 = 8.00 on 2 sales.
    #expect(r.sales == Tally(count: 3, cents: 7250))
    #expect(r.tips == Tally(count: 2, cents: 800))
    // Pre-auth 50.00 approved; captured 42.00 (the terminal's answered amount); none awaiting capture.
    #expect(r.preAuths == Tally(count: 1, cents: 5000))
    #expect(r.captures == Tally(count: 1, cents: 4200))
    #expect(r.preAuthsAwaitingCapture == 0)
    // Partial refund 15.00.
    #expect(r.refunds == Tally(count: 1, cents: 1500))
    // Net: 72.50 + 8.00 + 42.00 - 15.00 = 107.50
    #expect(r.netCents == 10750)
    // Not in totals: declined 6.66 and 5.51+0.50; aborted 9.09; unknown 13.13.
    #expect(r.declined == Tally(count: 2, cents: 666 + 601))
    #expect(r.aborted == Tally(count: 1, cents: 909))
    #expect(r.unknown == Tally(count: 1, cents: 1313))
    // By card type (approved sales, amount + tip): VISA 22.00 + 46.00 = 68.00 (2); Debit Mastercard 12.50 (1).
    #expect(r.byCardType == ["VISA": Tally(count: 2, cents: 6800), "Debit Mastercard": Tally(count: 1, cents: 1250)])
    #expect(r.byVerificationMethod == ["CONTACTLESS": Tally(count: 1, cents: 2200), "CHIP": Tally(count: 2, cents: 5850)])
    // First money transaction at minute 5, last at minute 58.
    #expect(r.firstAtMs == ScriptedDay.batch.openedAtMs! + 5 * 60_000)
    #expect(r.lastAtMs == ScriptedDay.batch.openedAtMs! + 58 * 60_000)
}

@Test func reportTextUsesCurrencyAndDecimalSeparator() {
    let r = Report(kind: .closing, batch: ScriptedDay.batch, closedAtMs: ScriptedDay.batch.openedAtMs! + 7_200_000,
                   closedHow: .byTill, generatedAtMs: ScriptedDay.batch.openedAtMs! + 7_200_000,
                   buckets: ReportBucket.aggregate(ScriptedDay.entries))
    let text = r.text(ReportFormat(currencySymbol: "€", decimalSeparator: ","))
    #expect(text.contains("Z report (closing): Saturday morning"))
    #expect(text.contains("NET TOTAL") && text.contains("€ 107,50"))
    #expect(text.contains("-€ 15,00"))
    #expect(text.contains("check the terminal"))
    #expect(r.lines(ReportFormat()).allSatisfy { $0.count <= 80 })
}

// The transactions export's last column, `paid`, is what the card paid read with each entry's tip style: with the tip
// included `amount` holds `tip`, and a spreadsheet adding the two would count the tip twice.
@Test func theTransactionsExportSaysWhatTheCardPaid() {
    let f = ReportFormat(currencySymbol: "EUR")
    func approvedSales(_ style: TipStyle) -> [[String]] {
        TransactionExport.csv(ScriptedDay.entries.map { var e = $0; e.tipStyle = style; return e }, f).split(separator: "\r\n").dropFirst()
            .map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
            .filter { $0[2] == "sale" && $0[3] == "approved" }
    }
    func cents(_ s: String) -> Int { Int(s.replacingOccurrences(of: ".", with: "")) ?? -1_000_000 }
    let onTop = approvedSales(.onTop)
    #expect(onTop.contains { cents($0[5]) > 0 }, "the scripted day has a tipped sale")
    // `paid` by its header's position (`what` follows it).
    let paid = TransactionExport.columns.firstIndex(of: "paid")!
    for c in onTop { #expect(cents(c[paid]) == cents(c[4]) + cents(c[5]), "\(c)") }
    for c in approvedSales(.included) { #expect(cents(c[paid]) == cents(c[4]), "\(c)") }
}

@Test func csvExportsCarryTheSameNumbers() {
    let f = ReportFormat(currencySymbol: "EUR")
    let r = Report(kind: .running, batch: ScriptedDay.batch, generatedAtMs: 0, buckets: ReportBucket.aggregate(ScriptedDay.entries))
    let csv = r.csv(f)
    #expect(csv.contains("totals,net total,,107.50,EUR\r\n"))
    #expect(csv.contains("totals,sales approved,3,72.50,EUR\r\n"))
    let tx = TransactionExport.csv(ScriptedDay.entries, f)
    let lines = tx.split(separator: "\r\n")
    #expect(lines.count == ScriptedDay.entries.count + 1)
    // Summing approved sales from the transaction export gives the report's figure.
    var approvedSalesCents = 0
    for line in lines.dropFirst() {
        let cols: [String] = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        if cols[2] == "sale" && cols[3] == "approved" {
            approvedSalesCents += Int(cols[4].replacingOccurrences(of: ".", with: "")) ?? -1_000_000
        }
    }
    #expect(approvedSalesCents == r.sales.cents)
    #expect(CSV.field("a,\"b\"") == "\"a,\"\"b\"\"\"")
}


/// A shop owner's X report taken while the terminal works on a sale said "Outcome unknown 1: check the terminal" (the
/// report folded sent, pending and unknown together): it says the terminal has it, and only a settled unknown is one.
@Test func aSaleInFlightIsWaitingNotUnknown() throws {
    let dir = TempDir(); defer { dir.cleanup() }
    let j = try Journal(path: dir.path + "/j.sqlite")
    let e = try j.insertPending(requestId: UUID().uuidString.lowercased(),
                                request: TerminalRequest(caller: testCaller, request: sale(700)), batch: BatchInfo())
    func lines() throws -> (Report, String) { let r = try j.report(for: nil); return (r, r.text(ReportFormat())) }
    var (r, text) = try lines()
    #expect(r.waiting == Tally(count: 1, cents: 700) && r.unknown.count == 0)
    #expect(text.contains("Waiting for the terminal") && text.contains("not counted yet"))
    #expect(text.split(separator: "\n").contains { $0.hasPrefix("  Outcome unknown") && $0.hasSuffix("€ 0.00") })
    #expect(try j.markSent(e.id))
    (r, text) = try lines()
    #expect(r.waiting.count == 1 && r.unknown.count == 0 && r.netCents == 0)
    #expect(try j.transition(e.id, to: .unknown, note: "no answer", from: [.sent]))
    (r, text) = try lines()
    #expect(r.waiting.count == 0 && r.unknown == Tally(count: 1, cents: 700) && !text.contains("Waiting"))
    #expect(r.notYetKnown == Tally(count: 1, cents: 700))
}

/// Z reports stored before `waiting` existed counted what was in flight as unknown: they read unchanged.
@Test func aZReportStoredBeforeWaitingExistedReadsUnchanged() throws {
    let day = Report(kind: .closing, batch: ScriptedDay.batch, generatedAtMs: 0, buckets: ReportBucket.aggregate(ScriptedDay.entries))
    var r = day
    r.waiting = Tally(count: 2, cents: 500)
    var stored = try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(r)) as? [String: Any])
    #expect(stored["waitingStored"] != nil)
    stored["waitingStored"] = nil
    let json = String(decoding: try JSONSerialization.data(withJSONObject: stored), as: UTF8.self)
    let old = try JSONDecoder().decode(Report.self, from: Data(json.utf8))
    #expect(old.waiting == Tally() && old == day)
}
