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
        var e: [ValidationError] = []
        func fail(_ field: String, _ message: String) { e.append(ValidationError(field: field, message: message)) }
        func text(_ field: String, _ value: String?, label: String, required: Bool = false, max: Int = Limits.maxTextLength) {
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
        func amount(_ field: String, _ m: Money?, label: String, required: Bool) {
            guard let m else { if required { fail(field, "\(label) is missing.") }; return }
            if m.cents <= 0 { fail(field, "\(label) must be more than 0.") }
            if m.cents > Money.maximumCents { fail(field, "\(label) is more than the largest amount the terminal takes (\(Money.maximum)).") }
        }
        func clientId(_ field: String, _ v: String?) {
            text(field, v, label: "The client transaction id", max: Limits.maxClientTransactionIdLength)
        }
        func finder(_ f: TransactionFinder, requireKey: Bool, what: String) {
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

        text("callback", caller.callback, label: "The callback", required: true, max: 256)
        if !caller.callback.trimmingWhitespace().isEmpty, !CallbackAddress.isAddressable(caller.callback),
           !caller.callback.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            fail("callback", CallbackAddress.problem(caller.callback))
        }
        if request.sendsMerchantKey {
            text("merchantKey", caller.merchantKey, label: "The merchant key", required: true, max: 256)
        }
        text("appId", caller.appId, label: "The app id", required: true, max: 256)
        func orderCode(_ o: String?) {
            if let o, !(10...20).contains(o.utf8.count) || !o.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
                fail("orderCode", "The order code must be 10 to 20 digits (got '\(o)').")
            }
        }

        switch request {
        case .sale(let s):
            amount("amount", s.amount, label: "The amount", required: true)
            if let tip = s.tipAmount {
                if tip.cents < 0 { fail("tipAmount", "The tip cannot be negative.") }
                else if tip > s.amount { fail("tipAmount", "The tip (\(tip)) is more than the amount (\(s.amount)).") }
                // Included: the amount holds the tip, so the rule is on the goods (found by attack: "--amount 0 --tip 5"
                // was charged 5.00 as a tip on nothing, "--amount 1 --tip 100" 101.00).
                else if tipStyle == .included, tip > s.amount - tip {
                    fail("tipAmount", "The tip (\(tip)) is more than the amount (\(s.amount - tip)).")
                }
                // The tip is added on top of the amount: the total must fit too (included: the amount is the total).
                else if tipStyle == .onTop, s.amount.cents > 0, s.amount.cents <= Money.maximumCents,
                        s.amount.cents + tip.cents > Money.maximumCents {
                    fail("amount", "The amount plus the tip (\(s.amount + tip)) is more than the largest amount the terminal takes (\(Money.maximum)).")
                }
            }
            clientId("clientTransactionId", s.clientTransactionId)
            if let n = s.preferredInstallments {
                if s.withInstallments != true { fail("preferredInstallments", "Installments need withInstallments=true.") }
                if !Limits.installments.contains(n) {
                    fail("preferredInstallments", "Installments must be from \(Limits.installments.lowerBound) to \(Limits.installments.upperBound) (0 lets the cardholder choose).")
                }

            } else if s.withInstallments == true {
                fail("preferredInstallments", "Say how many installments (0 lets the cardholder choose).")
            }
            if let i = s.isv {
                if i.clientId != nil {
                    if i.amount == nil { fail("ISV_amount", "An ISV client id needs the ISV amount too.") }
                    if i.clientSecret == nil { fail("ISV_clientSecret", "An ISV client id needs the ISV client secret too.") }
                }
                if let a = i.amount {
                    if a.cents < 0 { fail("ISV_amount", "The ISV amount cannot be negative.") }
                    else if a > s.amount { fail("ISV_amount", "The ISV fee (\(a)) is more than the amount (\(s.amount)).") }
                    if i.clientId == nil { fail("ISV_clientId", "An ISV amount needs the ISV client id.") }
                }
                if i.clientSecret != nil && i.clientId == nil { fail("ISV_clientId", "An ISV client secret needs the ISV client id.") }
                text("ISV_clientId", i.clientId, label: "The ISV client id", max: 256)
                text("ISV_clientSecret", i.clientSecret, label: "The ISV client secret", max: 256)
                text("ISV_sourceCode", i.sourceCode, label: "The ISV source code")
                text("ISV_merchantId", i.merchantId, label: "The ISV merchant id")
                text("ISV_merchantSourceCode", i.merchantSourceCode, label: "The ISV merchant source code")
                text("ISV_customerTrns", i.customerTrns, label: "The ISV customer description", max: 256)
                clientId("ISV_clientTransactionId", i.clientTransactionId)
                if let c = i.currencyCode {
                    let u = Array(c.utf8)
                    let digits = u.count == 3 && u.allSatisfy { $0 >= 48 && $0 <= 57 }
                    let letters = u.count == 3 && u.allSatisfy { ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) }
                    if !digits && !letters {
                        fail("ISV_currencyCode", "The ISV currency code must be an ISO 4217 code: three digits like 978, or three letters like EUR (got '\(c)').")
                    }
                    if i.merchantId == nil {
                        fail("ISV_currencyCode", "The ISV currency code goes with a merchant switch: give the ISV merchant id too.")
                    }
                }
            }
            text("protocol", s.protocolName, label: "The protocol")
        case .preAuth(let p):
            amount("amount", p.amount, label: "The amount", required: true)
            clientId("clientTransactionId", p.clientTransactionId)
            text("protocol", p.protocolName, label: "The protocol")
        case .cancel(let c):
            amount("amount", c.amount, label: "The refund amount", required: false)
            finder(c.finder, requireKey: false, what: "payment")
            text("protocol", c.protocolName, label: "The protocol")
        case .capturePreAuth(let c):
            amount("amount", c.amount, label: "The capture amount", required: false)
            finder(c.finder, requireKey: true, what: "pre-authorisation")
            text("protocol", c.protocolName, label: "The protocol")
        case .abort:
            break
        case .batch(let b):
            text("batchName", b.batchName, label: "The batch name")
            if let id = b.batchId {
                if b.command == .open { fail("batchId", "A batch id can only be given when closing a batch.") }
                if !UUIDText.isValid(id) { fail("batchId", "The batch id '\(id)' is not a UUID like 7885F4F1-59CA-42C2-81BB-6DB48AA138A6.") }
            }
        case .transactionDetails(let d):
            text("clientTransactionId", d.clientTransactionId, label: "The client transaction id", required: true,
                 max: Limits.maxClientTransactionIdLength)
            text("sourceTerminalId", d.sourceTerminalId, label: "The source terminal id")
        case .reprint(let r):
            orderCode(r.orderCode)
        case .getPrintingSettings, .sendLogs, .getActivationCode:
            break
        case .setPrintingSettings(let p):
            if p.isEmpty {
                fail("set_printing_settings", "Say which printing setting to change (customer receipt, merchant receipt, printing, logo, VAT, barcode, address or business description).")
            }
        case .activatePos(let a):
            text("apikey", a.apiKey, label: "The API key", max: 256)
            text("apiSecret", a.apiSecret, label: "The API secret", max: 256)
            text("activationCode", a.activationCode, label: "The activation code")
            text("sourceID", a.sourceId, label: "The source id")
            if a.apiKey != nil && a.apiSecret == nil { fail("apiSecret", "An API key needs its API secret too.") }
            if a.apiSecret != nil && a.apiKey == nil { fail("apikey", "An API secret needs its API key too.") }
            if a.activationCode == nil && a.apiKey == nil && a.apiSecret == nil {
                fail("activationCode", "Say how to activate: give the activation code (from getActivationCode), or the API key and secret.")
            }
            if let pin = a.pinCode, !((4...8).contains(pin.utf8.count) && pin.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }) {
                // Never echo a PIN back: it is a secret.
                fail("pinCode", "The PIN must be 4 to 8 digits.")
            }
            for k in a.flags.keys where !ActivationRequest.flagNames.contains(k) {
                fail(k, "'\(k)' is not an activation setting (known: \(ActivationRequest.flagNames.joined(separator: ", "))).")
            }
        }
        return e
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

/// UUID syntax check without Foundation: 8-4-4-4-12 hex digits.
public enum UUIDText {
    public static func isValid(_ s: String) -> Bool {
        let u = Array(s.utf8)
        guard u.count == 36 else { return false }
        for (i, b) in u.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 { if b != 0x2D { return false } }
            else if QueryCodec.hexValue(b) == nil { return false }
        }
        return true
    }
}
