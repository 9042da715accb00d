import Testing
import TillModel
import TillProtocol
@testable import TillUI

/// Components rendered alone into a small buffer, compared inline (whole screens are the golden files).
@Suite struct ComponentTests {
    @Test func aFieldWithItsValueAndCursor() {
        var buf = ScreenBuffer(size: Size(width: 30, height: 1))
        drawField(Field(.amount, "Amount", .money, text: "12,5"), focused: true, error: nil, x: 0, labelW: 10, fieldX: 10, fieldW: 14, y: 0,
                  currency: "€", &buf)
        #expect(buf.text == "Amount     € 12,5_")
    }

    @Test func aRefusedFieldIsMarked() {
        var buf = ScreenBuffer(size: Size(width: 30, height: 1))
        drawField(Field(.amount, "Amount", .money, text: "3"), focused: true, error: "'-' refused", x: 0, labelW: 10, fieldX: 10, fieldW: 14, y: 0,
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
                   "   │  [Esc/n/-] cancel, nothing happens       │",
                   "   └──────────────────────────────────────────┘"]
        #expect(buf.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) == [""] + box + [""])
        // A digit selected "not charged": marked, but in a box that moves money Enter never answers (issue 34): only
        // the letter is named.
        var picked = c
        picked.selected = 1
        var buf2 = ScreenBuffer(size: Size(width: 50, height: 10))
        confirmOverlay(picked, readyState(), &buf2)
        #expect(buf2.text.split(separator: "\n", omittingEmptySubsequences: false)[5...6].map(String.init)
                == ["   │  [c] charged                             │",
                    "   │ ▸[x] not charged                         │"])
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
            // At 80 columns a row starts with its time (the entry number is in the detail).
            let drawn = (0..<buf.size.height).filter { y in
                let l = Array(buf.line(y))
                return l.count > 8 && l[0] == "│" && l[2].isNumber && l[3].isNumber && l[4] == ":" && l[5].isNumber && l[6].isNumber
            }
            #expect(drawn.count == rows, "height \(height)")
        }
    }

    /// The full-screen report styles each line by its kind (title, heading, total, warning), never by its text.
    @Test func reportLinesAreStyledByTheirKind() {
        let s = readyState(size: Size(width: 80, height: 40))
        var buf = ScreenBuffer(size: s.size)
        let report = sampleReport(kind: .closing)
        reportOverlay(ReportPanel(report: report), s, &buf)
        let r = Layout(buf.size).overlay
        let shown = report.lines(s.reportFormat).indices.map { i in (buf[r.x + 2, r.y + 1 + i].role, buf[r.x + 2, r.y + 1 + i].attrs) }
        let T = (Role.title, Attr.bold), N = (Role.normal, Attr()), A = (Role.approved, Attr.bold), U = (Role.unknown, Attr.bold)
        let expected = [T,                      // Z report (closing): Morning
                        N, N, N, N, N, N,       // batch, opened, closed, first/last, made at, blank
                        N, N, N, N, N,          // column heads, sales, tips, captures, refunds
                        A, N, N, N, N,          // NET TOTAL, blank, pre-auths approved, awaiting capture, blank
                        T, N, N,                // by card type: Debit Mastercard, VISA
                        T, N, N,                // by verification method: CHIP, CONTACTLESS
                        N, T, N, N,             // blank, Not in the totals, declined, aborted
                        U]                      // outcome unknown: check the terminal
        #expect(shown.count == expected.count)
        for (i, (got, want)) in zip(shown, expected).enumerated() {
            #expect(got.0 == want.0 && got.1 == want.1, "line \(i): \(report.lines(s.reportFormat)[i])")
        }
    }

    /// Found in the code: the report was styled by matching its text, so a batch or card named like a report line
    /// ("check the terminal …") was drawn as a warning.
    @Test func aBatchOrCardNamedLikeAReportLineIsPlainText() throws {
        let s = readyState(size: Size(width: 80, height: 40))
        var report = sampleReport(kind: .closing)
        report.batchName = "check the terminal"
        report.byCardType = ["check the terminal": Tally(count: 1, cents: 100)]
        var buf = ScreenBuffer(size: s.size)
        reportOverlay(ReportPanel(report: report), s, &buf)
        let r = Layout(buf.size).overlay
        let lines = report.lines(s.reportFormat)
        let batchLine = try #require(lines.firstIndex { $0.hasPrefix("Batch ") })
        let cardLine = try #require(lines.firstIndex { $0.hasPrefix("  check the terminal") })
        #expect(buf[r.x + 2, r.y + 1 + batchLine].role == .normal)
        #expect(buf[r.x + 2, r.y + 1 + cardLine].role == .normal)
        #expect(report.reportLines(s.reportFormat)[batchLine].kind == .detail)
    }
}
