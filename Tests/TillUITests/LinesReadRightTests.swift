import Testing
import TillModel
import TillProtocol
@testable import TillUI

/// Journal rows and the result pane read as a cashier reads them: a part refund is not a refund in full, a captured
/// pre-auth says so, the STAN column never holds a piece of a card number, the count says what it counts, the result
/// echoes instalments, and no programmer word (a process id, a result code, a protocol name) reaches the screen.
@Suite struct LinesReadRightTests {
    static let at1031 = JournalRollTests.at1031

    static func preAuth(_ id: Int64, cents: Int, stan: String, at: Int64) -> JournalEntry {
        entry(id, .preAuth, cents: cents, response: response(
            "status=success&message=Transaction successful.&action=preAuth&amount=\(cents)&cardType=Visa&accountNumber=478212******7417&referenceNumber=\(stan)&orderCode=333333333333333\(id)"),
            at: at)
    }

    static func capture(_ id: Int64, cents: Int?, stan: String, at: Int64) -> JournalEntry {
        var e = entry(id, .capturePreAuth, cents: cents, response: response(
            "status=success&message=Transaction successful.&action=capturePreAuth&amount=\(cents ?? 5000)&referenceNumber=4\(id)4444&orderCode=444444444444444\(id)"),
            at: at)
        e.requestURL = "vivapayclient://pay/v1?action=capture_pre_auth" + (cents.map { "&amount=\($0)" } ?? "") + "&referenceNumber=\(stan)"
        return e
    }

    @Test func aPartlyRefundedSaleSaysPartAndWhatIsLeft() {
        let entries = [JournalRollTests.sale, JournalRollTests.refund(2, cents: 1250, at: fixedNow - 20 * 60_000)]
        // 80 columns: the STAN always (issue 34), and PART REF in the result column; wide: the STAN and what is left.
        let s = JournalRollTests.journal(entries)
        let row = JournalRollTests.rowAt(s, "10:31")
        #expect(row.contains("PART REF") && row.contains("111111"), "\(row)")
        let wide = JournalRollTests.journal(entries, size: Size(width: 120, height: 40))
        let wideRow = JournalRollTests.row(wide, 1)
        #expect(wideRow.contains("111111 part refunded, 9.50 left"), "\(wideRow)")
        // Refunded in full: no "part".
        let full = JournalRollTests.journal([JournalRollTests.sale, JournalRollTests.refund(2, cents: 2200, at: fixedNow - 20 * 60_000)])
        let fullRow = JournalRollTests.rowAt(full, "10:31")
        #expect(fullRow.contains("REFUNDED") && !fullRow.contains("PART") && fullRow.contains("111111"), "\(fullRow)")
        // A small refund of a sale: the row still says it was part refunded, and shows its STAN.
        let small = JournalRollTests.journal([JournalRollTests.sale, JournalRollTests.refund(2, cents: 500, at: fixedNow - 20 * 60_000)])
        #expect(JournalRollTests.rowAt(small, "10:31").contains("PART REF 111111"), "\(JournalRollTests.rowAt(small, "10:31"))")
        // The detail says what is left too.
        var d = s
        press(&d, .enter)
        #expect(d.journal.detail?.id == 1)
        #expect(view(d, size: d.size).contains("€ 9.50 left"), "\(view(d, size: d.size).text)")
    }

    @Test func aCapturedPreAuthSaysCaptured() {
        let entries = [Self.preAuth(1, cents: 5000, stan: "333333", at: Self.at1031), Self.capture(2, cents: 5000, stan: "333333", at: fixedNow - 10 * 60_000)]
        var s = JournalRollTests.journal(entries)
        let row = JournalRollTests.rowAt(s, "10:31")
        #expect(row.contains("CAPTURED") && row.contains("333333"), "\(row)")
        let captureRow = JournalRollTests.rowAt(s, "10:50")
        #expect(captureRow.contains("424444"), "\(captureRow)")
        press(&s, .enter)
        #expect(s.journal.detail?.id == 1)
        #expect(view(s, size: s.size).contains("Captured"), "\(view(s, size: s.size).text)")
        // Not captured: never says so.
        let alone = JournalRollTests.journal([Self.preAuth(1, cents: 5000, stan: "333333", at: Self.at1031)])
        #expect(!JournalRollTests.rowAt(alone, "10:31").contains("captured"))
    }

    @Test func aDeclinedRowShowsNoPieceOfACardNumber() {
        for size in [Size(width: 80, height: 24), Size(width: 120, height: 40)] {
            let s = JournalRollTests.journal([entry(1, cents: 666, state: .declined, response: declinedSaleResponse, at: Self.at1031)], size: size)
            let text = view(s, size: size).text
            let row = text.split(separator: "\n").first { $0.contains("DECLINED") }.map(String.init) ?? ""
            #expect(row.contains("—"), "\(row)")
            // From 120 columns the card has its own column (issue 34: the room used), headed "card": its type and last
            // four digits, never a piece of the number under "STAN".
            if size.width >= 120 {
                #expect(text.contains("card") && row.contains("Visa …7417 ") && !row.contains("478") && !row.contains("***"), "\(text)")
            } else {
                #expect(!text.contains("478") && !text.contains("7417") && !text.contains("***"), "\(text)")
            }
        }
    }

    @Test func theCountSaysWhatItCounts() {
        var entries = (1...10).map { entry(Int64($0), cents: 100 * $0, at: fixedNow - Int64($0) * 60_000) }
        entries.append(entry(11, .transactionDetails, cents: nil, response: nil, at: fixedNow - 30 * 60_000))
        entries.append(entry(12, .transactionDetails, cents: nil, response: nil, at: fixedNow - 31 * 60_000))
        var s = JournalRollTests.journal(entries)
        let text = view(s, size: s.size).text
        #expect(!text.contains(" of 12") && text.contains("10 entries"), "\(text)")
        type(&s, "3.00")
        let filtered = view(s, size: s.size).text
        // Issue 34: the list said "48 entries", a filter "22 of 61 match": the same rows are counted in both.
        #expect(filtered.contains("1 of 10 match"), "\(filtered)")
    }

    @Test func theResultEchoesInstalments() {
        var s = readyState()
        type(&s, "300")
        press(&s, .tab, .tab)
        type(&s, "3")
        let cmds = press(&s, .enter)
        guard case .perform(let r, let summary)? = cmds.first else { Issue.record("not sent: \(cmds)"); return }
        var e = entry(1, cents: 30000, response: response(
            "status=success&message=Transaction successful.&action=sale&amount=30000&installments=3&cardType=Visa&referenceNumber=123456"))
        e.requestURL = "vivapayclient://pay/v1?action=sale&amount=30000&preferredInstallments=3"
        _ = r
        _ = update(&s, .performed(.answered(e), summary: summary))
        let text = view(s, size: s.size).text
        // Issue 34: spelt one way, as on the Sale form ("Installments"; the result said "Instalments").
        #expect(text.contains("Installments 3") || text.contains("Installments  3"), "\(text)")
    }

    @Test func anotherTillIsNotAProcessNumber() {
        var s = readyState()
        type(&s, "5")
        let cmds = press(&s, .enter)
        guard case .perform(_, let summary)? = cmds.first else { Issue.record("not sent"); return }
        _ = update(&s, .performed(.otherTillBusy("another till on this journal (process 26417) is waiting for the terminal; nothing was sent. Try again when it is done."), summary: summary))
        let text = view(s, size: s.size).text
        #expect(!text.contains("process") && !text.contains("26417") && text.contains("another till"), "\(text)")
    }

    @Test func anUnmatchedAnswerIsInWords() {
        var s = readyState()
        let details = response("status=success&message=Transaction Details Fetched&action=transactionDetails&amount=1250&referenceNumber=654321")
        _ = update(&s, .event(.unmatchedAnswer(details, note: "An answer that matches nothing till sent or is waiting for (transactionDetails, success): check the terminal. (journal entry 9)")))
        var text = view(s, size: s.size).text
        #expect(!text.contains("Transaction Details Fetched") && !text.contains("transactionDetails") && text.contains("checked an earlier payment"), "\(text)")
        _ = update(&s, .event(.unmatchedAnswer(declinedSaleResponse, note: "An answer that matches nothing till sent or is waiting for (sale, fail): check the terminal. (journal entry 10)")))
        text = view(s, size: s.size).text
        #expect(!text.contains("(-12)") && !text.contains("TRANSACTION_DECLINED") && text.contains("declined"), "\(text)")
    }
}
