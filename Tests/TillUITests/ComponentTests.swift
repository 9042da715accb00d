import Testing
import TillModel
import TillProtocol
@testable import TillUI

/// Components rendered alone into a small buffer, compared inline (whole screens are the golden files).
@Suite struct ComponentTests {
    @Test func aFieldWithItsValueAndCursor() {
        var buf = ScreenBuffer(size: Size(width: 30, height: 1))
        drawField(Field("amount", "Amount", .money, text: "12,5"), focused: true, error: nil, x: 0, labelW: 10, fieldX: 10, fieldW: 14, y: 0,
                  currency: "€", &buf)
        #expect(buf.text == "Amount     € 12,5_")
    }

    @Test func aRefusedFieldIsMarked() {
        var buf = ScreenBuffer(size: Size(width: 30, height: 1))
        drawField(Field("amount", "Amount", .money, text: "3"), focused: true, error: "'-' refused", x: 0, labelW: 10, fieldX: 10, fieldW: 14, y: 0,
                  currency: "€", &buf)
        #expect(buf.text == "Amount     € 3_        !")
        #expect(buf[0, 0].role == .error)
    }

    @Test func aConfirmationWithoutAnEnterDefault() {
        var buf = ScreenBuffer(size: Size(width: 50, height: 10))
        let c = Confirmation(title: "Resolve?", lines: ["Check the terminal."],
                             choices: [ConfirmChoice(key: "c", label: "charged", action: .quit),
                                       ConfirmChoice(key: "x", label: "not charged", action: .quit)], enterPicksFirst: false)
        confirmOverlay(c, readyState(), &buf)
        let box = ["   ┌─ Resolve? ───────────────────────────────┐",
                   "   │                                          │",
                   "   │  Check the terminal.                     │",
                   "   │                                          │",
                   "   │  [c] charged                             │",
                   "   │  [x] not charged                         │",
                   "   │  [Esc/n] cancel, nothing happens         │",
                   "   └──────────────────────────────────────────┘"]
        #expect(buf.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) == [""] + box + [""])
    }

    // Found by hand at 80×24: "… check the terminal before char" — a warning cut at the box's edge.
    @Test func aLongConfirmationLineWrapsInsteadOfBeingCut() {
        var buf = ScreenBuffer(size: Size(width: 60, height: 14))
        let c = Confirmation(title: "Earlier payment UNKNOWN",
                             lines: ["€ 13.13 at 13:13 may have been charged: check the terminal before charging again."],
                             choices: [ConfirmChoice(key: "y", label: "charge anyway", action: .quit)], enterPicksFirst: false)
        confirmOverlay(c, readyState(), &buf)
        let text = buf.text.split(separator: "\n").map { $0.replacingOccurrences(of: "│", with: "").trimmingCharacters(in: .whitespaces) }
            .joined(separator: " ")
        #expect(text.contains("may have been charged: check the terminal before") && text.contains("charging again."), "\(buf.text)")
    }

    @Test func theLayoutPagesTheJournalByWhatItShows() {
        for height in [24, 30, 40] {
            var s = readyState(size: Size(width: 80, height: height))
            press(&s, .f(7))
            _ = update(&s, .journalLoaded((1...200).map { entry(Int64($0), cents: 100 + $0) }))
            let rows = Layout(s.size).journalRows
            press(&s, .pageDown)
            #expect(s.journal.selected == rows)
            // Exactly `rows` entries are drawn, the selected one on the last row of the page or the first of the next.
            let buf = view(s, size: s.size)
            let drawn = (0..<buf.size.height).filter { y in (1...200).contains { buf.line(y).hasPrefix("│ \($0) ") } }
            #expect(drawn.count == rows, "height \(height)")
        }
    }
}
