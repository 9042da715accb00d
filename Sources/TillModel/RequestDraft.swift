import TillProtocol

/// How the screen's amount fields read the digits typed: as the amount reads (`12.50`), or in cents as many card
/// terminals take them (`1250` is 12.50; each digit shifts in from the right).
public enum AmountEntry: String, Sendable, Hashable, Codable, CaseIterable {
    case decimal
    case cents
}

/// A request read from typed text (the cashier's screen or the command line), with what could
/// not be read. One function per request kind turns the same text into the same request for the
/// UI and the CLI, so both send the identical URL for the same sale.
public struct RequestDraft: Sendable, Hashable {
    public var request: Request
    /// Problems with the typed text itself (unreadable amounts, numbers, a missing amount).
    public var errors: [ValidationError]
    /// The protocol fields whose text could not be read: the draft carries a stand-in for them,
    /// so the request's rule errors about those fields are left out.
    public var unreadable: Set<String>

    public init(request: Request, errors: [ValidationError] = [], unreadable: Set<String> = []) {
        self.request = request; self.errors = errors; self.unreadable = unreadable
    }

    /// Every problem: unreadable text first, then each rule the request breaks (not those about unreadable fields).
    public func problems(caller: Caller, tipStyle: TipStyle = .onTop) -> [ValidationError] {
        errors + TerminalRequest(caller: caller, request: request).validationErrors(tipStyle: tipStyle).filter { !unreadable.contains($0.field) }
    }

    /// The `protocol` value the vendor's pages say to always send.
    public static let defaultProtocol = "int_default"

    /// A sale from typed text. `amount`: `12`, `12.5`, `12,50` (nil: not given, `missingAmount` says so); `tip`: an amount or a percentage of
    /// the amount (`10%`, rounded half up to the cent; a zero tip is no tip); `installments`: a whole
    /// number (`SaleRequest.installmentFields`: `withInstallments=false` when none or 1);
    /// `reference`: the client transaction id. Blank text is absent. `protocolName`: nil leaves it out.
    public static func sale(amount: String?, tip: String? = nil, installments: String? = nil, reference: String? = nil,
                            tipStyle: TipStyle = .onTop, protocolName: String? = defaultProtocol,
                            missingAmount: String = MoneyError.empty.description) -> RequestDraft {
        var r = TypedText()
        let amountValue = r.amount(amount, missing: missingAmount)
        var tipValue: Money?
        if let t = blankIsNil(tip) {
            if t.hasSuffix("%") && amountValue == nil {
                // A percentage of an amount that cannot be read: the amount's own error says it.
            } else {
                switch RequestDraft.tip(t, of: amountValue ?? Money(cents: 0)) {
                case .success(let v): tipValue = v
                case .failure(let e): r.fail("tipAmount", "Tip: " + e.message)
                }
            }
            if tipValue?.cents == 0 { tipValue = nil }
        }
        let n = r.wholeNumber(installments, field: "preferredInstallments", label: "Installments")
        // The vendor's sample always sends withInstallments (false when there are none); true only for more
        // than one, or 0 (the cardholder is asked).
        let plan = SaleRequest.installmentFields(n)
        // With no readable amount, stand in the largest one: no rule comparing against it (tip ≤ amount)
        // can fire, and the amount's own rules are left out as unreadable. With the tip included
        // (config `tip = "included"`) the amount sent is goods + tip.
        let sent = amountValue.map { tipStyle.requestAmount(goods: $0, tip: tipValue) } ?? Money.maximum
        let sale = SaleRequest(amount: sent, tipAmount: tipValue, clientTransactionId: blankIsNil(reference),
                               withInstallments: plan.withInstallments, preferredInstallments: plan.preferredInstallments,
                               protocolName: protocolName)
        return RequestDraft(request: .sale(sale), errors: r.errors, unreadable: r.unreadable)
    }

    /// Why a tip as typed cannot be read.
    public struct TipError: Error, Sendable, Hashable { public var message: String }

    /// A tip as typed: an amount (`2.50`) or a percentage of `amount` (`10%`, rounded half up to the cent). The one
    /// reading of a tip: the screen's running total and every request use it.
    public static func tip(_ text: String, of amount: Money) -> Result<Money, TipError> {
        let t = text.trimmingWhitespace()
        if t.hasSuffix("%") {
            let num = String(t.dropLast()).trimmingWhitespace()
            // The percentage is read with the amount rules (two decimals at most).
            guard let p = try? Money.parse(num) else { return .failure(TipError(message: "'\(t)' is not a percentage like 10%.")) }
            if p.cents > 100_00 { return .failure(TipError(message: "a tip of more than 100% is more than the amount.")) }
            return .success(Money(cents: (amount.cents * p.cents + 5_000) / 10_000))
        }
        do { return .success(try Money.parse(t)) } catch { return .failure(TipError(message: error.description)) }
    }

    /// A refund (`cancel`) from typed text: the amount (nil, not given: the full amount), the keys that find the payment, and
    /// the search dates (`TerminalDate.requestDate`: a day, a time in the till's zone, or a full ISO date).
    public static func refund(amount: String?, reference: String?, orderCode: String?, shortOrderCode: String?,
                              from: String?, to: String?, showReceipt: Bool? = nil, showResult: Bool? = nil,
                              offsetMinutes: (Int64) -> Int) -> RequestDraft {
        var r = TypedText()
        let (a, finder) = r.finder(amount: amount, reference: reference, orderCode: orderCode, shortOrderCode: shortOrderCode,
                                   from: from, to: to, offsetMinutes: offsetMinutes)
        let c = CancelRequest(amount: a, finder: finder, showReceipt: showReceipt, showTransactionResult: showResult)
        return RequestDraft(request: .cancel(c), errors: r.errors, unreadable: r.unreadable)
    }

    /// A capture of a pre-authorisation from typed text (see `refund`); capture-preauth.txt lists `protocol`.
    public static func capture(amount: String?, reference: String?, orderCode: String?, shortOrderCode: String?,
                               from: String?, to: String?, showReceipt: Bool? = nil, showResult: Bool? = nil,
                               protocolName: String? = defaultProtocol, offsetMinutes: (Int64) -> Int) -> RequestDraft {
        var r = TypedText()
        let (a, finder) = r.finder(amount: amount, reference: reference, orderCode: orderCode, shortOrderCode: shortOrderCode,
                                   from: from, to: to, offsetMinutes: offsetMinutes)
        let c = CaptureRequest(amount: a, finder: finder, showReceipt: showReceipt, showTransactionResult: showResult,
                               protocolName: protocolName)
        return RequestDraft(request: .capturePreAuth(c), errors: r.errors, unreadable: r.unreadable)
    }

    /// The terminal's activation from typed text (the screen's fields, the command line's options): blank is not given.
    /// `flags` are the switches already read (the screen toggles them; the command line reads `true|false`).
    public static func activation(activationCode: String?, apiKey: String?, apiSecret: String?, sourceId: String?, pinCode: String?,
                                  flags: [String: Bool]) -> RequestDraft {
        RequestDraft(request: .activatePos(ActivationRequest(apiKey: blankIsNil(apiKey), apiSecret: blankIsNil(apiSecret),
                                                             activationCode: blankIsNil(activationCode), sourceId: blankIsNil(sourceId),
                                                             pinCode: blankIsNil(pinCode), flags: flags)))
    }

    /// A pre-authorisation from typed text (see `sale`).
    public static func preAuth(amount: String?, reference: String? = nil, protocolName: String? = defaultProtocol,
                               missingAmount: String = MoneyError.empty.description) -> RequestDraft {
        var r = TypedText()
        let a = r.amount(amount, missing: missingAmount)
        let p = PreAuthRequest(amount: a ?? Money.maximum, clientTransactionId: blankIsNil(reference), protocolName: protocolName)
        return RequestDraft(request: .preAuth(p), errors: r.errors, unreadable: r.unreadable)
    }
}

/// Text with only whitespace counts as not given.
func blankIsNil(_ s: String?) -> String? {
    guard let t = s?.trimmingWhitespace(), !t.isEmpty else { return nil }
    return t
}

/// Reads typed text (a form's fields, the command line's options) into typed values, collecting problems instead of
/// stopping at the first.
public struct TypedText {
    public var errors: [ValidationError] = []
    /// The fields given but not readable.
    public var unreadable: Set<String> = []

    public init() {}

    public mutating func fail(_ field: String, _ message: String) {
        errors.append(ValidationError(field: field, message: message))
        unreadable.insert(field)
    }

    mutating func amount(_ text: String?, missing: String) -> Money? {
        // Not given at all (no flag): `missing`; given but blank (an empty field): the amount rules say it.
        guard let text else { fail("amount", missing); return nil }
        return money(text.trimmingWhitespace(), field: "amount", label: "Amount")
    }

    /// An amount as a cashier types it (`12`, `12.5`, `12,50`); nil when absent or unreadable.
    public mutating func money(_ t: String?, field: String, label: String) -> Money? {
        guard let t else { return nil }
        do { return try Money.parse(t) } catch { fail(field, "\(label): \(error)"); return nil }
    }

    /// `true` or `false` (also `yes`/`no`, `1`/`0`, `on`/`off`, any case).
    public mutating func bool(_ text: String?, field: String, label: String) -> Bool? {
        guard let text else { return nil }
        switch text.trimmingWhitespace().lowercased() {
        case "true", "yes", "1", "on": return true
        case "false", "no", "0", "off": return false
        default: fail(field, "\(label): '\(text)' is not true or false."); return nil
        }
    }

    /// A payment method by its protocol name, in any case.
    public mutating func paymentMethod(_ text: String?) -> PaymentMethod? {
        guard let text else { return nil }
        guard let m = PaymentMethod(typed: text) else {
            fail("paymentMethod", "Payment method: '\(text)' is not one of \(PaymentMethod.names)."); return nil
        }
        return m
    }

    /// The amount (blank: none, the full amount) and the finder of a refund or capture.
    mutating func finder(amount: String?, reference: String?, orderCode: String?, shortOrderCode: String?, from: String?, to: String?,
                         offsetMinutes: (Int64) -> Int) -> (Money?, TransactionFinder) {
        // Not given (nil): the full amount. Given, even blank (`--amount ""`): it must read as an amount.
        let a = amount.flatMap { money($0.trimmingWhitespace(), field: "amount", label: "Amount") }
        // A date the terminal could not read is said in the words of the form it is typed in, not the protocol's ISO 8601.
        func date(_ t: String?, endOfDay: Bool, field: String, name: String) -> String? {
            guard let t = blankIsNil(t) else { return nil }
            if let d = TerminalDate.requestDate(t, endOfDay: endOfDay, offsetMinutes: offsetMinutes) { return d }
            fail(field, "The '\(name)' date '\(t)' is not a date: type it as YYYY-MM-DD, like 2026-03-29.")
            return t
        }
        // A STAN is six digits; the receipt's 000005 is often typed as 5: fewer digits are that STAN, zeros in front.
        func stan(_ t: String) -> String {
            t.utf8.count < 6 && t.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) ? String(repeating: "0", count: 6 - t.utf8.count) + t : t
        }
        return (a, TransactionFinder(referenceNumber: blankIsNil(reference).map(stan), orderCode: blankIsNil(orderCode),
                                     shortOrderCode: blankIsNil(shortOrderCode),
                                     txnDateFrom: date(from, endOfDay: false, field: "txnDateFrom", name: "from"),
                                     txnDateTo: date(to, endOfDay: true, field: "txnDateTo", name: "to")))
    }

    mutating func wholeNumber(_ text: String?, field: String, label: String) -> Int? {
        guard let t = blankIsNil(text) else { return nil }
        guard t.utf8.count <= 9, t.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let n = Int(t) else {
            fail(field, "\(label): '\(t)' is not a whole number, like 3."); return nil
        }
        return n
    }
}

