/// One problem with a request, tied to the field it concerns, in words a cashier understands.
public struct ValidationError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The protocol's field name (`amount`, `tipAmount`, `batchId`, …).
    public var field: String
    public var message: String
    public init(field: String, message: String) { self.field = field; self.message = message }
    public var description: String { message }
}

/// All the problems found in a request; thrown by `validated()`.
public struct ValidationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public var errors: [ValidationError]
    public init(errors: [ValidationError]) { self.errors = errors }
    /// The fields the problems concern, in order, each once.
    public var fields: [String] {
        var seen = Set<String>()
        return errors.compactMap { seen.insert($0.field).inserted ? $0.field : nil }
    }
    public var description: String { errors.map(\.message).joined(separator: " ") }
}

public enum Limits {
    /// What till sends. Above `installmentsWithoutPrompt` (and at 0) the terminal asks the cardholder
    /// (sale.txt:28): sent as typed, with a notice, never refused.
    public static let installments = 0...999
    /// The most instalments a terminal allows without asking (the Greek market's 36).
    public static let installmentsWithoutPrompt = 36
    public static let maxTextLength = 64
    public static let maxClientTransactionIdLength = 64
}

extension TerminalRequest {
    /// Checks every rule the pages state, and this project's own, before anything is sent.
    public func validationErrors() -> [ValidationError] { validationErrors(tipStyle: .onTop) }

    /// As `validationErrors()`, for a terminal that reads `tipAmount` as `tipStyle` says (config `tip`).
    public func validationErrors(tipStyle: TipStyle) -> [ValidationError] {
        var c = RequestChecker(tipStyle: tipStyle)
        c.text("callback", caller.callback, label: "The callback", required: true, max: 256)
        if !caller.callback.trimmingWhitespace().isEmpty, !CallbackAddress.isAddressable(caller.callback),
           !caller.callback.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            c.fail("callback", CallbackAddress.problem(caller.callback))
        }
        if request.sendsMerchantKey {
            c.text("merchantKey", caller.merchantKey, label: "The merchant key", required: true, max: 256)
        }
        c.text("appId", caller.appId, label: "The app id", required: true, max: 256)
        request.action.declaration.checkRequest(request, &c)
        return c.errors
    }

    /// Returns self when valid; throws every problem found otherwise.
    public func validated() throws(ValidationFailure) -> TerminalRequest {
        let errors = validationErrors()
        if !errors.isEmpty { throw ValidationFailure(errors: errors) }
        return self
    }
}

extension SaleRequest {
    /// Whether the terminal will ask the cardholder for the number of instalments: 0, or more than a
    /// terminal allows (sale.txt:28). The UI shows a notice; nothing is refused.
    public var terminalWillAskForInstallments: Bool {
        guard withInstallments == true, let n = preferredInstallments else { return false }
        return n == 0 || n > Limits.installmentsWithoutPrompt
    }
}

/// The one rule for a callback a terminal can answer to (till's validation and the simulator share it).
public enum CallbackAddress {
    /// A scheme (`interapp-callback`) or a full `scheme://host/path` with nothing that would break the
    /// answer's query: letters, digits, `+ - .`; with `://` also `: / _`. No `?`, `&`, `#`, `%`, space.
    public static func isAddressable(_ callback: String) -> Bool {
        let u = Array(callback.utf8)
        guard let first = u.first, (first >= 0x41 && first <= 0x5A) || (first >= 0x61 && first <= 0x7A) else { return false }
        let hasSlashes = hasSchemeSeparator(callback)
        for b in u {
            let alnum = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
            if alnum || b == 0x2B || b == 0x2D || b == 0x2E { continue }
            if hasSlashes && (b == 0x3A || b == 0x2F || b == 0x5F) { continue }
            return false
        }
        return true
    }

    /// Whether the text holds `://`.
    public static func hasSchemeSeparator(_ text: String) -> Bool {
        var state = 0
        for b in text.utf8 {
            switch (state, b) {
            case (_, 0x3A): state = 1
            case (1, 0x2F): state = 2
            case (2, 0x2F): return true
            default: state = 0
            }
        }
        return false
    }

    /// Why a callback cannot be answered, in a cashier's (or an installer's) words.
    static func problem(_ callback: String) -> String {
        let shown = String(callback.unicodeScalars.prefix(60).map { Character($0) })
        return "The callback '\(shown)' is not an address a terminal can answer to: use a scheme like interapp-callback, "
            + "or scheme://host/path with letters, digits and + - . _ : / only (no spaces, ?, & or #)."
    }
}

@inline(__always) private func isBlank(_ u: Unicode.Scalar) -> Bool { u.properties.isWhitespace }



/// The rules an action's declaration checks its fields with (`ActionDeclaration.check`), collecting every problem.
public struct RequestChecker: Sendable {
    public private(set) var errors: [ValidationError] = []
    /// How the terminal reads `tipAmount` (config `tip`).
    public let tipStyle: TipStyle
    public init(tipStyle: TipStyle = .onTop) { self.tipStyle = tipStyle }

    public mutating func fail(_ field: String, _ message: String) { errors.append(ValidationError(field: field, message: message)) }

    /// A text field: not blank, not too long, no control characters, no space at either end.
    public mutating func text(_ field: String, _ value: String?, label: String, required: Bool = false, max: Int = Limits.maxTextLength) {
        guard let value else { if required { fail(field, "\(label) is missing.") }; return }
        if value.trimmingWhitespace().isEmpty { fail(field, "\(label) is empty."); return }
        if value.utf8.count > max { fail(field, "\(label) is longer than \(max) characters.") }
        if value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            fail(field, "\(label) contains a control character (a line break?).")
        } else if value.unicodeScalars.first.map(isBlank) == true || value.unicodeScalars.last.map(isBlank) == true {
            // The terminal's decoder (and till's) trims values: a space at either end would be lost.
            fail(field, "\(label) starts or ends with a space.")
        }
    }

    public mutating func amount(_ field: String, _ m: Money?, label: String, required: Bool) {
        guard let m else { if required { fail(field, "\(label) is missing.") }; return }
        if m.cents <= 0 { fail(field, "\(label) must be more than 0.") }
        if m.cents > Money.maximumCents { fail(field, "\(label) is more than the largest amount the terminal takes (\(Money.maximum)).") }
    }

    public mutating func clientId(_ field: String, _ v: String?) {
        text(field, v, label: "The client transaction id", max: Limits.maxClientTransactionIdLength)
    }

    public mutating func orderCode(_ o: String?) {
        if let o, !(10...20).contains(o.utf8.count) || !o.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
            fail("orderCode", "The order code must be 10 to 20 digits (got '\(o)').")
        }
    }

    /// The keys and dates that find an earlier transaction (refund, capture).
    public mutating func finder(_ f: TransactionFinder, requireKey: Bool, what: String) {
        if let r = f.referenceNumber, !(r.utf8.count == 6 && r.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }) {
            fail("referenceNumber", "The STAN must be exactly six digits (got '\(r)').")
        }
        orderCode(f.orderCode)
        if let s = f.shortOrderCode, !(s.utf8.count == 10 && s.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }) {
            fail("shortOrderCode", "The short order code must be exactly ten digits (got '\(s)').")
        }
        if requireKey && !f.hasKey {
            fail("referenceNumber", "Say which \(what) to use: give its STAN, order code or short order code.")
        }
        // Strict on the way out: a space where the offset's '+' belongs is refused here
        // (the decoder forgives it in answers, not in what till sends).
        func date(_ t: String) -> TerminalDate? {
            var spaceWasPlus = false
            guard let d = TerminalDate.parse(t, spaceWasPlus: &spaceWasPlus), !spaceWasPlus else { return nil }
            return d
        }
        var from: TerminalDate?
        if let t = f.txnDateFrom {
            from = date(t)
            if from == nil { fail("txnDateFrom", "The 'from' date '\(t)' is not an ISO 8601 date like 2021-03-29T00:00:00.000+03:00.") }
        }
        if let t = f.txnDateTo {
            if f.txnDateFrom == nil { fail("txnDateTo", "A 'to' date needs a 'from' date too.") }
            if let to = date(t) {
                if let from, to.instant < from.instant { fail("txnDateTo", "The 'to' date is before the 'from' date.") }
            } else {
                fail("txnDateTo", "The 'to' date '\(t)' is not an ISO 8601 date like 2021-03-30T00:00:00.000+03:00.")
            }
        }
    }
}
