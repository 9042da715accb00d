import Testing
import TillModel
import TillProtocol
@testable import TillUI

/// Issue 34, what was left of it: F5 on a sale refunded in full says so and opens no refund of nothing (the rule of
/// what is left is `RefundLinks`, as the refund box's warning and the core's refusal); F4 on a captured pre-auth the
/// same.
@Suite struct RefundedRowTests {
    /// The sale of 13.75 (12.50 + 1.25 tip, STAN 654321) and an approved refund of `cents` of it.
    func journalWithARefund(of cents: Int) -> AppState {
        var s = readyState()
        press(&s, .f(7))
        let sale = entry(1, cents: 1250, tip: 125, response: approvedSaleResponse)
        var refund = entry(2, .cancel, cents: cents, response: response("status=success&message=Transaction successful.&action=cancel&amount=\(cents)&referenceNumber=654322"))
        refund.requestURL = "vivapayclient://pay/v1?action=cancel&amount=\(cents)&referenceNumber=654321"
        _ = update(&s, .journalLoaded([refund, sale]))
        // The cursor on the sale's row.
        while s.journalRow?.id != 1 { press(&s, .down) }
        return s
    }

    @Test func f5OnASaleRefundedInFullSaysSoAndStays() {
        var s = journalWithARefund(of: 1375)
        let cmds = press(&s, .f(5))
        #expect(cmds == [])
        #expect(s.screen == .journal, "opened \(s.screen)")
        #expect(s.forms[.refund]?[.referenceNumber] ?? "" == "")
        let notice = s.notice ?? ""
        #expect(notice.contains("refunded in full already") && notice.contains("nothing is left"), "\(notice)")
        // In the cashier's words: no journal number, no programmer's name for it.
        #expect(!notice.contains("#") && !notice.contains("entry"), "\(notice)")
        #expect(view(s, size: s.size).text.contains("refunded in full already"), "\(view(s, size: s.size).text)")
        // The digits typed next go nowhere that moves money: the journal's filter, as on any journal row.
        #expect(s.refund.origin == nil)
    }

    @Test func f5OnASalePartlyRefundedStillOpensItsRefund() {
        var s = journalWithARefund(of: 500)
        press(&s, .f(5))
        #expect(s.screen == .refund)
        #expect(s.forms[.refund]?[.referenceNumber] == "654321")
    }

    @Test func f4OnACapturedPreAuthSaysSoAndStays() {
        var s = readyState()
        press(&s, .f(7))
        let pre = entry(1, .preAuth, cents: 3000, response: response("status=success&message=Transaction successful.&action=pre_auth&amount=3000&referenceNumber=654321"))
        var capture = entry(2, .capturePreAuth, cents: 3000, response: response("status=success&message=Transaction successful.&action=capture_pre_auth&amount=3000&referenceNumber=654322"))
        capture.requestURL = "vivapayclient://pay/v1?action=capture_pre_auth&amount=3000&referenceNumber=654321"
        _ = update(&s, .journalLoaded([capture, pre]))
        while s.journalRow?.id != 1 { press(&s, .down) }
        press(&s, .f(4))
        #expect(s.screen == .journal, "opened \(s.screen)")
        let notice = s.notice ?? ""
        #expect(notice.contains("captured already"), "\(notice)")
    }

    /// Found working a shift by hand: F7 F5 after a decline (the newest row) said "That row is a declined sale, not a
    /// sale", and an unknown one "a unknown sale". It says why plainly: nothing was charged to refund, or it is not
    /// approved (an unknown one may have been charged: never "nothing to refund").
    @Test(arguments: [(EntryState.declined, "That row is a declined sale, nothing to refund:"),
                      (.unknown, "That row is an unknown sale, not approved:")])
    func f5OnASaleNotApprovedSaysThereIsNothingToRefund(state: EntryState, says: String) {
        var s = readyState()
        press(&s, .f(7))
        _ = update(&s, .journalLoaded([entry(1, cents: 666, state: state)]))
        press(&s, .f(5))
        let notice = s.notice ?? ""
        #expect(notice.hasPrefix(says) && notice.hasSuffix("type the sale's STAN here.") && notice.count <= 79, "\(notice)")
        #expect(s.screen == .refund && s.form.focused?.id == .referenceNumber)
    }
}

/// Found in a shift by keys: after the shift's close, Enter on its Z report left the Batch screen with the cursor in
/// "New batch"; the next customer's amount typed by habit, then Enter, opened a shift named "12".
@Suite struct AfterTheCloseTests {
    @Test func closingTheZReportGoesBackToSaleAndTheNextAmountIsASale() {
        var s = readyState(size: Size(width: 80, height: 24))
        press(&s, .f(6))
        #expect(s.screen == .batch)
        _ = update(&s, .batchLoaded(BatchInfo(id: "B-1", name: "Morning", openedAtMs: fixedNow - 3_600_000, isOpen: false)))
        let z = Report(kind: .closing, batch: BatchInfo(id: "B-1", name: "Morning", openedAtMs: fixedNow - 3_600_000, isOpen: false),
                       closedAtMs: fixedNow, generatedAtMs: fixedNow, buckets: [])
        _ = update(&s, .reportLoaded(z, show: true))
        press(&s, .enter)
        #expect(s.overlay == nil)
        #expect(s.screen == .sale, "left on \(s.screen)")
        type(&s, "12")
        press(&s, .enter)
        let screen = view(s, size: s.size).text
        #expect(!screen.contains("Open a new batch named '12'"), "\(screen)")
        #expect(screen.contains("No shift open"), "\(screen)")
    }
}
