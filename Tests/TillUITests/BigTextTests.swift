import Testing
@testable import TillUI

@Suite struct BigTextTests {
    @Test func approvedInThreeRows() {
        #expect(BigText.lines("APPROVED", maxWidth: 32) == [
            "▄▀▄ █▀▄ █▀▄ █▀▄ █▀█ █ █ █▀▀ █▀▄",
            "█▀█ █▀  █▀  █▀▄ █ █ █ █ █▀  █ █",
            "▀ ▀ ▀   ▀   ▀ ▀ ▀▀▀  ▀  ▀▀▀ ▀▀ ",
        ])
    }

    @Test func marksAndWordsAt120Columns() {
        #expect(BigText.lines("✗ DECLINED", maxWidth: 44) == [
            "▀▄ ▄▀    █▀▄ █▀▀ ▄▀▀ █   ▀█▀ █▄ █ █▀▀ █▀▄",
            " ▄▀▄     █ █ █▀  █   █    █  █ ▀█ █▀  █ █",
            "▀   ▀    ▀▀  ▀▀▀  ▀▀ ▀▀▀ ▀▀▀ ▀  ▀ ▀▀▀ ▀▀ ",
        ])
        #expect(BigText.lines("? UNKNOWN", maxWidth: 44) == [
            "▀▀▄    █ █ █▄ █ █ █ █▄ █ █▀█ █   █ █▄ █",
            " ▀     █ █ █ ▀█ █▀▄ █ ▀█ █ █ █▄▀▄█ █ ▀█",
            " ▀     ▀▀▀ ▀  ▀ ▀ ▀ ▀  ▀ ▀▀▀ ▀   ▀ ▀  ▀",
        ])
    }

    @Test func amountWithCommaDescender() {
        #expect(BigText.lines("€ 12,50", maxWidth: 32) == [
            "▄▀▀▀    ▄█  ▀▀▄   █▀▀ ▄▀▄",
            "█▀▀      █  ▄▀    ▀▀▄ █ █",
            " ▀▀▀    ▀▀▀ ▀▀▀ █ ▀▀   ▀ ",
        ])
    }

    @Test func largeIsTwiceTheSizeInFullBlocks() {
        #expect(BigText.height(.large) == 6)
        #expect(BigText.lines("✓ OK", maxWidth: 32, size: .large) == [
            "        ██        ██████  ██  ██",
            "        ██        ██  ██  ██  ██",
            "      ██          ██  ██  ████  ",
            "██  ██            ██  ██  ██  ██",
            "  ██              ██████  ██  ██",
            "                                ",
        ])
    }

    /// The verdict words the result pane draws fit its 32 columns at 80×24.
    @Test(arguments: ["APPROVED", "DECLINED", "UNKNOWN", "REFUNDED", "CAPTURED", "ABORTED", "NOT SENT", "NOT PAID", "DONE", "FAILED", "BUSY"])
    func verdictWordsFitAt80Columns(word: String) throws {
        let lines = try #require(BigText.lines(word, maxWidth: 32))
        #expect(lines.count == 3)
    }

    /// With the mark in front they fit 44 columns (the pane at 120 columns).
    @Test(arguments: ["✓ APPROVED", "✗ DECLINED", "? UNKNOWN", "✓ REFUNDED", "✓ CAPTURED", "✗ ABORTED", "✗ NOT SENT", "✗ NOT PAID"])
    func markedWordsFitAt120Columns(word: String) throws {
        #expect(BigText.width(word)! <= 44)
        #expect(BigText.lines(word, maxWidth: 32) == nil)
    }

    @Test func everyGlyphHasTheSameHeightAndOnlyBlockCharacters() throws {
        for size in BigText.Size.allCases {
            for c in BigText.supported {
                let lines = try #require(BigText.lines(String(c), maxWidth: 100, size: size), "\(c)")
                #expect(lines.count == BigText.height(size), "\(c) \(size)")
                #expect(Set(lines.map(\.count)).count == 1, "\(c) \(size): ragged")
                #expect(lines.allSatisfy { $0.allSatisfy { " █▀▄".contains($0) } }, "\(c) \(size)")
                #expect(lines.contains { $0.contains { $0 != " " } } || c == " ", "\(c) draws nothing")
            }
        }
        #expect(BigText.height(.small) >= 3)
    }

    @Test func neverWiderThanMaxWidth() {
        let texts = ["SALE APPROVED € 22.00", "REFUNDED € 12.50", "NOT CHARGED", "CHECK THE TERMINAL", "W", "MMMM", "1,000.00", "✓"]
        for t in texts {
            for size in BigText.Size.allCases {
                let w = BigText.width(t, size: size)!
                for maxWidth in [0, 1, w - 1, w, w + 1, 32, 44, 200] {
                    if let lines = BigText.lines(t, maxWidth: maxWidth, size: size) {
                        #expect(lines.allSatisfy { $0.count <= maxWidth && $0.count == w }, "\(t) at \(maxWidth)")
                    } else {
                        #expect(w > maxWidth, "\(t) refused at \(maxWidth) though it is \(w) wide")
                    }
                }
            }
        }
    }

    @Test func unknownCharactersGiveNilNotAGuess() {
        #expect(BigText.lines("APPROVED ☃", maxWidth: 200) == nil)
        #expect(BigText.lines("CAFÉ", maxWidth: 200) == nil)
        #expect(BigText.lines("A\u{301}", maxWidth: 200) == nil)   // a combining mark makes another character
        #expect(BigText.lines("\t", maxWidth: 200) == nil)
        #expect(BigText.lines("", maxWidth: 200) == nil)
        #expect(BigText.width("£ 5") == nil)
        #expect(!BigText.supports("£"))
        // Lower case is drawn as capitals.
        #expect(BigText.lines("approved", maxWidth: 32) == BigText.lines("APPROVED", maxWidth: 32))
        #expect(BigText.supports("q"))
    }

    @Test func fitTriesLargeThenSmallBestCandidateFirst() throws {
        let wide = try #require(BigText.fit(["✓ APPROVED", "APPROVED", "✓"], maxWidth: 90, maxHeight: 6))
        #expect(wide.text == "✓ APPROVED" && wide.size == .large)
        let at120 = try #require(BigText.fit(["✓ APPROVED", "APPROVED", "✓"], maxWidth: 44, maxHeight: 6))
        #expect(at120.text == "✓ APPROVED" && at120.size == .small)
        let at80 = try #require(BigText.fit(["✓ APPROVED", "APPROVED", "✓"], maxWidth: 32, maxHeight: 6))
        #expect(at80.text == "APPROVED" && at80.size == .small && at80.lines.count == 3)
        let short = try #require(BigText.fit(["✓ APPROVED", "APPROVED", "✓"], maxWidth: 32, maxHeight: 3))
        #expect(short.size == .small)
        #expect(BigText.fit(["APPROVED"], maxWidth: 10, maxHeight: 6) == nil)
        #expect(BigText.fit(["APPROVED"], maxWidth: 40, maxHeight: 2) == nil)
    }
}

/// At 200×50 the verdict stayed three rows in a 46-column pane beside 150 empty columns: a wide window gives the
/// result pane room for the verdict in large letters and the amount in block digits.
@Suite struct WideResultPaneTests {
    func approved(_ size: Size) -> [String] {
        var s = readyState(size: size)
        type(&s, "12.50"); press(&s, .ctrl("t"), .ctrl("t")); press(&s, .enter)
        _ = update(&s, .performed(.answered(entry(1, cents: 1250, tip: 125, response: approvedSaleResponse)), summary: "Sale € 12.50 + tip 1.25"))
        return view(s, size: s.size).text.components(separatedBy: "\n")
    }

    @Test func aWideWindowShowsTheVerdictLargeAndTheAmountInBlockDigits() {
        let lines = approved(Size(width: 200, height: 50))
        // The result pane is 90 of 200 columns (its frame starts at column 110).
        #expect(lines[1].contains("┐┌─ Result") && (lines[1].range(of: "┌─ Result").map { lines[1].distance(from: lines[1].startIndex, to: $0.lowerBound) } ?? 0) == 110)
        // Large letters: pixels two columns wide, one row each (the small font draws half blocks).
        let pane = lines.map { String($0.dropFirst(110)) }
        let large = pane.prefix(12).filter { $0.contains("██  ██") || $0.contains("██████") }
        #expect(large.count >= 5, "\(pane.prefix(20).joined(separator: "\n"))")
        #expect(pane.contains { $0.contains("✓ SALE APPROVED € 13.75") })
    }

    @Test func at80x24TheAmountIsNotRepeatedInBlockDigits() {
        let lines = approved(Size(width: 80, height: 24))
        #expect(!lines.contains { $0.contains("██████") })
    }
}
