import Testing
import TillModel
import TillProtocol
@testable import TillUI

/// Issue 34, "Words and room": no programmer identifier on what a cashier reads.
@Suite struct CashierWordsTests {
    @Test func theReportsShowTheBatchByNameNotItsId() {
        let f = ReportFormat()
        for kind in [Report.Kind.running, .closing] {
            let r = sampleReport(kind: kind)
            let text = r.reportLines(f).map(\.text).joined(separator: "\n")
            #expect(!text.contains(openBatch.id!), "\(text)")
            #expect(text.contains("Morning"))
            // For machines the id stays.
            #expect(r.csv(f).contains(openBatch.id!))
        }
        var s = readyState()
        _ = update(&s, .reportLoaded(sampleReport(), show: true))
        #expect(!view(s, size: s.size).text.contains(openBatch.id!))
    }

    @Test func aRowsDetailShowsNoReferenceTheCashierDidNotType() {
        var s = readyState()
        press(&s, .f(7))
        let uuid = "c9415588-0d0b-4d3c-9a53-2f1f0a1b2c3d"
        var e = entry(1, response: response("status=success&action=sale&amount=1250&referenceNumber=000013&clientTransactionId=\(uuid)"))
        // As the real till journals it: the controller made the reference up (a UUID) when none was typed.
        e.clientTransactionId = uuid
        _ = update(&s, .journalLoaded([e]))
        press(&s, .enter)
        let text = view(s, size: s.size).text
        #expect(!text.contains("Reference"), "\(text)")
        #expect(!text.contains("c9415588"), "\(text)")
        // One the cashier typed is shown.
        var typed = readyState()
        press(&typed, .f(7))
        _ = update(&typed, .journalLoaded([entry(2, response: approvedSaleResponse)]))
        press(&typed, .enter)
        #expect(view(typed, size: typed.size).text.contains("Reference"))
    }

    @Test func theCSVCallsARefundARefundBesideTheProtocolsWord() {
        let refund = entry(3, .cancel, cents: 500)
        let csv = TransactionExport.csv([refund], ReportFormat())
        let lines = csv.split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = lines[0], row = lines[1]
        let what = try! #require(header.firstIndex(of: "what"))
        #expect(row[what] == "refund")
        #expect(row[header.firstIndex(of: "action")!] == "cancel")
        // Columns read by position stay where they were: the new one is last.
        #expect(what == header.count - 1 && header[header.count - 2] == "paid")
    }
}

/// Issue 34, "room": at 200x50 the journal uses its width (the card beside the STAN and the refund link) instead of
/// leaving most columns blank; at 80x24 nothing is added.
@Suite struct JournalRoomTests {
    func journal(_ size: Size) -> String {
        var s = readyState(size: size)
        press(&s, .f(7))
        _ = update(&s, .journalLoaded([entry(1, response: approvedSaleResponse)]))
        return view(s, size: size).text
    }

    @Test func theJournalShowsTheCardWhereThereIsRoom() {
        let wide = journal(Size(width: 200, height: 50))
        #expect(wide.contains("Visa 478212******7417"), "\(wide)")
        #expect(wide.contains("654321"))
        let narrow = journal(Size(width: 80, height: 24))
        #expect(!narrow.contains("478212"), "\(narrow)")
        #expect(narrow.contains("654321"))
    }
}

/// Issue 34's "programmer identifiers": the journal's notes name entries by number ("An answer for journal entry 12 …",
/// "… (journal entry 15)"); the Unresolved list, a row's detail and the result pane showed them as written.
@Suite struct NotesInCashierWordsTests {
    static let note = "An answer for journal entry 12 (sale, approved) that contradicts what is journaled for it: check the terminal. (journal entry 15)"

    @Test func noEntryNumberInANoteOnTheScreens() {
        let e = entry(15, cents: 909, state: .review, note: Self.note)
        var s = readyState(size: Size(width: 120, height: 40))
        _ = update(&s, .unresolvedLoaded([e], recovered: false))
        press(&s, .f(8))
        var text = NothingCutTests.flat(s)
        #expect(!text.contains("journal entry") && text.contains("An answer for an earlier entry (sale, approved) that contradicts"), "\(text)")
        press(&s, .f(7))
        _ = update(&s, .journalLoaded([e]))
        press(&s, .enter)
        text = NothingCutTests.flat(s)
        #expect(!text.contains("journal entry") && text.contains("check the terminal."), "\(text)")
        var r = readyState(size: Size(width: 120, height: 40))
        _ = update(&r, .performed(.answered(e), summary: "Sale € 9.09"))
        text = NothingCutTests.flat(r)
        #expect(!text.contains("journal entry") && text.contains("an earlier entry"), "\(text)")
    }
}
