import Testing
import TillModel
import TillProtocol
@testable import TillUI

/// Issue 34, "Words and room": at 120×40 the result pane stayed 46 columns with a 3-row verdict and an empty lower half,
/// and the journal left the card out. From 120 columns the verdict is in the large letters; on the journal, whose rows
/// are the facts, the rows take the room and show the card too.
@Suite struct RoomAt120Tests {
    func approved(_ size: Size) -> String {
        var s = readyState(size: size)
        type(&s, "12.50"); press(&s, .enter)
        _ = update(&s, .performed(.answered(entry(1, cents: 1250, tip: 125, response: approvedSaleResponse)), summary: "Sale € 12.50 + tip 1.25"))
        return view(s, size: size).text
    }

    @Test(arguments: [Size(width: 120, height: 40), Size(width: 200, height: 50)])
    func theVerdictIsInLargeLettersFrom120Columns(size: Size) {
        let text = approved(size)
        let large = BigText.lines("APPROVED", maxWidth: 200, size: .large)!
        for l in large { #expect(text.contains(l), "no large APPROVED:\n\(text)") }
    }

    @Test func at100ColumnsTheVerdictHasItsMark() {
        let text = approved(Size(width: 100, height: 30))
        let small = BigText.lines("✓ APPROVED", maxWidth: 200, size: .small)!
        for l in small { #expect(text.contains(l), "no ✓ APPROVED:\n\(text)") }
    }

    @Test func at80ColumnsTheVerdictIsAsItWas() {
        let text = approved(Size(width: 80, height: 24))
        let small = BigText.lines("APPROVED", maxWidth: 200, size: .small)!
        for l in small { #expect(text.contains(l), "\(text)") }
    }

    @Test func theJournalAt120x40ShowsTheCardTheStanAndTheLink() {
        let size = Size(width: 120, height: 40)
        var s = readyState(size: size)
        press(&s, .f(7))
        let sale = entry(1, cents: 1250, tip: 125, response: approvedSaleResponse)
        var refund = entry(2, .cancel, cents: 500, response: response("status=success&message=Transaction successful.&action=cancel&amount=500&referenceNumber=654322&cardType=Visa&accountNumber=478212******7417"))
        refund.requestURL = "vivapayclient://pay/v1?action=cancel&amount=500&referenceNumber=654321"
        _ = update(&s, .journalLoaded([refund, sale]))
        let text = view(s, size: size).text
        let rows = text.split(separator: "\n").map(String.init)
        guard let saleRow = rows.first(where: { $0.contains("654321") && $0.contains("13.75") }),
              let refundRow = rows.first(where: { $0.contains("654322") }) else { Issue.record("rows missing:\n\(text)"); return }
        #expect(saleRow.contains("Visa …7417") && saleRow.contains("654321 part refunded, 8.75 left"), "\(saleRow)")
        #expect(refundRow.contains("Visa …7417") && refundRow.contains("654322 of 13.75 sale 11:00"), "\(refundRow)")
    }
}
