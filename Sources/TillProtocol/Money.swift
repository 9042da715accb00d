/// An amount of money in integer cents, as the protocol carries it.
///
/// `Money.parse` reads what a cashier types (`12`, `12.5`, `12.50`, `12,50`) and
/// refuses anything else with a message that says what is wrong.
public struct Money: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let cents: Int

    /// The largest amount the protocol carries: a signed 32-bit integer of cents
    /// (21,474,836.47), the range of the terminal app's integer fields.
    public static let maximumCents = 2_147_483_647
    public static let zero = Money(cents: 0)
    public static let maximum = Money(cents: maximumCents)

    public init(cents: Int) { self.cents = cents }

    public static func < (lhs: Money, rhs: Money) -> Bool { lhs.cents < rhs.cents }
    public static func + (lhs: Money, rhs: Money) -> Money { Money(cents: lhs.cents + rhs.cents) }
    public static func - (lhs: Money, rhs: Money) -> Money { Money(cents: lhs.cents - rhs.cents) }

    /// `12.50`: two decimals, `.` as separator, no symbol.
    public var description: String { formatted() }

    /// Formats with the given decimal separator and optional currency symbol (`€ 12,50`).
    public func formatted(symbol: String = "", decimalSeparator: String = ".") -> String {
        let negative = cents < 0
        let magnitude = cents.magnitude
        let whole = magnitude / 100
        let fraction = magnitude % 100
        var text = (negative ? "-" : "") + String(whole) + decimalSeparator
        if fraction < 10 { text += "0" }
        text += String(fraction)
        return symbol.isEmpty ? text : symbol + " " + text
    }

    /// Parses what a cashier types. Accepts digits with at most one `.` or `,`
    /// followed by at most two digits. Zero is accepted here (a tip may be zero);
    /// whether an amount must be positive is the request's rule.
    public static func parse(_ input: String) throws(MoneyError) -> Money {
        let text = input.trimmingWhitespace()
        if text.isEmpty { throw .empty }
        // Two separators (`1,234.56`, `1.2.3`) is not an amount, whatever the digits after them.
        var separators = 0
        for b in text.utf8 where b == 0x2E || b == 0x2C { separators += 1 }
        if separators > 1 { throw .notAnAmount(input) }
        var whole = 0
        var fraction = 0
        var fractionDigits = 0
        var sawSeparator = false
        var sawDigit = false
        var wholeDigits = 0
        for scalar in text.unicodeScalars {
            switch scalar {
            case "0"..."9":
                sawDigit = true
                let d = Int(scalar.value - 48)
                if sawSeparator {
                    fractionDigits += 1
                    if fractionDigits > 2 { throw .tooManyDecimals(input) }
                    fraction = fraction * 10 + d
                } else {
                    // `000009` is a STAN typed into the amount (read as 9.00, it refunded 9.00), `05` a slip: an amount
                    // has no zero before its first digit, only before its separator (`0.50`).
                    if wholeDigits == 1 && whole == 0 { throw .leadingZeros(input) }
                    wholeDigits += 1
                    whole = whole * 10 + d
                    if whole > maximumCents / 100 + 1 { throw .tooLarge(input) }
                }
            case ".", ",":
                if sawSeparator { throw .notAnAmount(input) }
                sawSeparator = true
            case "-":
                // A leading minus is a negative amount; one anywhere else is just not an amount.
                if sawDigit || sawSeparator { throw .notAnAmount(input) }
                throw .negative(input)
            case "e", "E":
                if sawDigit { throw .exponent(input) }
                throw .notAnAmount(input)
            default:
                throw .notAnAmount(input)
            }
        }
        if !sawDigit { throw .notAnAmount(input) }
        if fractionDigits == 1 { fraction *= 10 }
        let cents = whole * 100 + fraction
        if cents > maximumCents { throw .tooLarge(input) }
        return Money(cents: cents)
    }

    /// Parses the protocol's own form: an integer number of cents (`1200`).
    public static func fromCents(_ text: Substring) -> Money? {
        guard !text.isEmpty, text.utf8.count <= 12 else { return nil }
        var value = 0
        for b in text.utf8 {
            guard b >= 48 && b <= 57 else { return nil }
            value = value * 10 + Int(b - 48)
        }
        return Money(cents: value)
    }
}

/// Why a typed amount was refused, in words a cashier understands.
public enum MoneyError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case negative(String)
    case exponent(String)
    case tooManyDecimals(String)
    case tooLarge(String)
    case notAnAmount(String)
    case leadingZeros(String)

    public var description: String {
        switch self {
        case .empty: return "Enter an amount, like 12.50."
        case .negative(let s): return "'\(s)' is negative: enter the amount without a minus sign."
        case .exponent(let s): return "'\(s)' is not an amount: write it out in full, like 12.50."
        case .tooManyDecimals(let s): return "'\(s)' has more than two decimals: use cents at most, like 12.35."
        case .tooLarge(let s): return "'\(s)' is more than the largest amount the terminal takes (\(Money.maximum))."
        case .notAnAmount(let s): return "'\(s)' is not an amount: use digits with one . or , like 12.50."
        case .leadingZeros(let s): return "'\(s)' begins with 0: type the amount without it (a STAN goes under STAN)."
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing whitespace, newlines included (no Foundation, whose `CharacterSet`
    /// costs half a millisecond of start-up on first use): the one copy every module uses.
    ///
    /// One pass over each end: `dropLast()` here was Collection's, which counts the whole text for every character it
    /// drops, so trailing whitespace took time by the square of the text's length (a megabyte of it, most of an hour).
    public func trimmingWhitespace() -> String {
        var start = startIndex, end = endIndex
        while start < end, self[start].isWhitespace { start = index(after: start) }
        while start < end {
            let before = index(before: end)
            guard self[before].isWhitespace else { break }
            end = before
        }
        return String(self[start..<end])
    }
}

/// How the terminal reads `tipAmount` (config `tip`). sale.txt:26 (the request) says the tip is "added on
/// top of the amount"; sale.txt:129 (the answer) says it is "how much of the amount is considered as tip".
public enum TipStyle: String, Sendable, Hashable, Codable, CaseIterable {
    /// `amount` is the goods, the tip is charged on top: the card pays amount + tip (till's default).
    case onTop = "on-top"
    /// `amount` is what the card pays, the tip a part of it.
    case included

    /// The `amount` field to send for goods and a tip, both as the cashier typed them.
    public func requestAmount(goods: Money, tip: Money?) -> Money {
        self == .included ? goods + (tip ?? .zero) : goods
    }

    /// What the card paid, from the terminal's answer (its amount and tip are the truth).
    public func charged(amount: Money, tip: Money?) -> Money {
        self == .included ? amount : amount + (tip ?? .zero)
    }

    /// The goods (without the tip), from the terminal's answer.
    public func goods(amount: Money, tip: Money?) -> Money {
        self == .included ? amount - (tip ?? .zero) : amount
    }
}
