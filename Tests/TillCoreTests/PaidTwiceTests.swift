import Foundation
import Testing
@testable import TillCore
import TillProtocol

/// A decline, Enter again by habit (another card), the second sale approved; then the first sale's own approval
/// comes. Both are counted (the terminal charged both), and the first one's CHECK THE TERMINAL says the customer may
/// have paid twice, naming the second by its STAN: the person refunds one. Against the SQLite journal, through the desk.
@Suite struct PaidTwiceTests {
    @Test func aLateApprovalAfterTheCustomerPaidAgainSaysSo() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let journal = try Journal(path: dir.path + "/journal.sqlite")
        let t0: Int64 = 1_800_000_000_000
        func sale(_ ctid: String, _ at: Int64) throws -> JournalEntry {
            let r = TerminalRequest(caller: testCaller, request: .sale(SaleRequest(amount: Money(cents: 1000), clientTransactionId: ctid)))
            return try journal.insertPending(requestId: "req-" + ctid, request: r, batch: try journal.batch(nowMs: at), parentId: nil, nowMs: at)
        }
        func answer(_ status: String, _ ctid: String, _ stan: String) -> IncomingAnswer {
            IncomingAnswer(text: "interapp-callback://result?status=\(status)&message=x&action=sale&clientTransactionId=\(ctid)"
                           + "&amount=1000&tipAmount=0" + (status == "success" ? "&referenceNumber=\(stan)&orderCode=9\(stan)&transactionId=tx-\(stan)" : ""))
        }
        func desk(_ at: Int64) -> AnswerDesk<Journal> { AnswerDesk(book: journal, now: at, anotherTillSending: { false }, newRequestId: { "x" }) }
        let first = try sale("a", t0)
        var flight: PaymentLife?
        #expect(try journal.recordAnswer(first.id, response: CallbackResponse.decode(answer("fail", "a", "").text), state: .declined, note: nil, nowMs: t0 + 1))
        let second = try sale("b", t0 + 2_000)
        _ = desk(t0 + 3_000).take(answer("success", "b", "000102"), flight: &flight)
        #expect(try journal.entry(id: second.id)?.state == .approved)
        _ = desk(t0 + 4_000).take(answer("success", "a", "000101"), flight: &flight)
        let e = try #require(try journal.entry(id: first.id))
        #expect(e.state == .approved)
        #expect(e.note?.contains("The same 10.00 was charged again after it (STAN 000102): the customer may have paid twice. Refund one.") == true,
                "\(e.note ?? "")")
    }
}
