import Testing
@testable import TillProtocol

/// `trimmingWhitespace()`, the one trimming every module uses (typed amounts, config and keymap values, callback
/// fields): what it takes off, and that hostile input costs one pass, not the square of its length.
struct TrimmingTests {
    @Test func takesWhitespaceOffBothEndsOnly() {
        #expect("  12.50\t\n".trimmingWhitespace() == "12.50")
        #expect("\r\n a b \r\n".trimmingWhitespace() == "a b")
        // Unicode spaces too (no-break, ideographic), as Character.isWhitespace has them.
        #expect("\u{00A0}12\u{3000}".trimmingWhitespace() == "12")
        #expect("   ".trimmingWhitespace() == "")
        #expect("".trimmingWhitespace() == "")
        #expect("x".trimmingWhitespace() == "x")
        // A substring trims as its text does.
        let s = "[  inner  ]"
        #expect(s.dropFirst().dropLast().trimmingWhitespace() == "inner")
    }

    /// Found by the money property test taking 11 s: dropping the last character counted the whole text each time,
    /// so trailing whitespace cost the square of the length: 20,000 spaces 1.2 s, a megabyte about 50 minutes.
    @Test(.timeLimit(.minutes(1))) func aMegabyteOfWhitespaceIsOnePass() throws {
        let pad = String(repeating: " ", count: 1_000_000)
        #expect((pad + "12.50" + pad).trimmingWhitespace() == "12.50")
        #expect(throws: MoneyError.self) { try Money.parse("1" + pad + "2") }
        #expect(try Money.parse("12" + pad) == Money(cents: 1200))
    }
}
