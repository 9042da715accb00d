import Testing
@testable import TillUI

/// The cell buffer counts display width as a terminal does (grapheme clusters, wide ones two
/// cells, combining marks none), and `diff` says exactly which cells a backend must paint.
@Suite struct ScreenBufferTests {
    func row(_ text: String, width: Int = 12, at x: Int = 0) -> ScreenBuffer {
        var b = ScreenBuffer(size: Size(width: width, height: 1))
        b.put(text, x: x, y: 0)
        return b
    }

    @Test func widths() {
        #expect(displayWidth("a") == 1)
        #expect(displayWidth("東") == 2)
        #expect(displayWidth("🙂") == 2)
        #expect(displayWidth("👩‍👩‍👧") == 2)          // one ZWJ sequence, one picture
        #expect(displayWidth("🇵🇹") == 2)
        #expect(displayWidth("e\u{301}") == 1)       // é as e + combining acute: one cell
        #expect(displayWidth("\u{301}") == 0)        // a lone combining mark takes none
        #expect(displayWidth("\u{1B}") == 0)
        #expect(displayWidth("€") == 1)
        #expect("Café 東京".displayWidth == 9)
    }

    @Test func wideClustersTakeTwoCellsAndTheRestStaysInPlace() {
        let b = row("東京|x")
        #expect(b.line(0) == "東京|x      ")
        #expect(b[4, 0].ch == "|")       // after two wide clusters: column 4
        #expect(b[1, 0].isContinuation && b[3, 0].isContinuation)
        var c = ScreenBuffer(size: Size(width: 12, height: 1))
        #expect(c.put("a🙂b", x: 0, y: 0) == 4)
        #expect(c[3, 0].ch == "b")
    }

    @Test func combiningMarksStayWithTheirLetter() {
        let b = row("Cafe\u{301}!")
        #expect(b[3, 0].ch == "e\u{301}")
        #expect(b[4, 0].ch == "!")
        #expect(b.line(0).hasPrefix("Café!"))
    }

    @Test func aWideClusterThatDoesNotFitIsLeftOutWhole() {
        var b = ScreenBuffer(size: Size(width: 5, height: 1))
        #expect(b.put("ab東京", x: 0, y: 0, maxWidth: 5) == 4)
        #expect(b.line(0) == "ab東 ")
    }

    @Test func overwritingHalfAWideClusterBlanksTheOtherHalf() {
        var b = row("東京")
        b.put("x", x: 1, y: 0)            // the right half of 東
        #expect(b.line(0).hasPrefix(" x京"))
        var c = row("東京")
        c.put("y", x: 2, y: 0)            // the left half of 京
        #expect(c.line(0).hasPrefix("東y "))
    }

    @Test func aBoxWithACJKTitleKeepsItsRightBorder() {
        var b = ScreenBuffer(size: Size(width: 16, height: 3))
        b.box(Rect(x: 0, y: 0, width: 16, height: 3), title: "東京の朝シフト")
        #expect(b.line(0).hasSuffix("┐"))
        #expect(b.line(0).displayWidth == 16)
        #expect(b.line(1) == "│              │")
    }

    @Test func diffOfIdenticalBuffersIsEmpty() {
        #expect(row("abc").diff(from: row("abc")).isEmpty)
    }

    @Test func diffNamesOnlyTheChangedCells() {
        #expect(row("abc").diff(from: row("abd")) == [2])
        #expect(row("abc", at: 1).diff(from: row("abc")) == [0, 1, 2, 3])
    }

    @Test func diffPaintsAWideClusterOnceAndNeverItsRightHalf() {
        let new = row("a東b")
        #expect(new.diff(from: row("axyb")) == [1])       // 東 covers both cells
        #expect(row("axyb").diff(from: new) == [1, 2])    // both halves become narrow cells
    }

    @Test func diffWithoutAnOldFrameOrAfterAResizeIsEverything() {
        let new = row("東", width: 3)
        #expect(new.diff(from: nil) == [0, 2])
        #expect(new.diff(from: row("東", width: 4)) == [0, 2])
    }

    @Test func aBatchNameInCJKOrEmojiDoesNotShiftTheLayout() {
        var s = readyState()
        var b = openBatch; b.name = "東京 🙂 café"
        _ = update(&s, .batchLoaded(b))
        var e = entry(1, cents: 1250, response: approvedSaleResponse); e.batchName = b.name; e.clientTransactionId = "注文-🙂-42"
        for screen: Key in [.f(2), .f(6), .f(7)] {
            press(&s, screen)
            _ = update(&s, .journalLoaded([e]))
            let buf = view(s, size: s.size)
            for y in 0..<buf.size.height {
                #expect(buf.line(y).displayWidth == buf.size.width, "row \(y) of \(screen): \(buf.line(y))")
            }
            #expect(buf.line(1).hasSuffix("┐"), "\(screen)")
        }
    }
}
