/// One terminal action, declared once: its wire name, how its fields are written, read and checked, what a
/// terminal echoes when it refuses it, how it counts in a report, and its words for a cashier. Each action is one
/// file under `Actions/` (`Reprint.swift`, …) registered in `Registry.swift`; the request builder, the parser, the
/// validator, the simulator's refusals, the screens and `till decode` look the declaration up (`Action.declaration`)
/// instead of switching on the action. Higher modules keep their own per-action parts beside it: the command line in
/// `Sources/till/Actions/`, the simulated terminal's behaviour in TillSimulator.
public protocol ActionDeclaration: Sendable {
    /// The action's own fields as a typed value (`SaleRequest`, `ReprintRequest`; `NoFields` for none).
    associatedtype Fields: Sendable

    /// The action (`requestCase` names it).
    static var action: Action { get }
    static var words: ActionWords { get }
    /// How an approved answer counts in a shift report (`.none`: it moves no money).
    static var reportRole: ReportRole { get }
    /// Whether the action moves money (or may): it counts in a report, and an unknown outcome may have charged.
    static var movesMoney: Bool { get }
    /// The terminal's own settings and set-up (printing, logs, activation, reprint): never money, never a batch.
    static var isAdministrative: Bool { get }
    /// Whether the request carries `merchantKey`.
    static var sendsMerchantKey: Bool { get }

    // What the journal, recovery, the screens and the simulator ask of an action instead of naming it.

    /// Takes a new payment from a card (sale, pre-auth): till gives it a client transaction id when it has none,
    /// recovery and the Unresolved screen ask the terminal about it by that id, and its amount may have been charged
    /// while its outcome is not known.
    static var startsPayment: Bool { get }
    /// Names an earlier payment by the keys the terminal finds it by (`TransactionFinder`), and what for: to refund
    /// it (a refund) or to capture it (a capture); nil for an action that names none.
    static var findsEarlierPayment: EarlierPayment? { get }
    /// Its answer may be for less than asked, or asked none (all of what is left): it takes part of an earlier
    /// payment, so an answer of another amount is still its own.
    static var amountMayBeLess: Bool { get }
    /// An approved one's money can be given back by a refund (sale, capture).
    static var refundable: Bool { get }
    /// An approved one's amount is reserved until a capture takes it (pre-auth).
    static var capturable: Bool { get }
    /// The request may carry a tip, and its answer says which tip was taken (sale).
    static var takesTip: Bool { get }
    /// Asks the terminal what became of an earlier payment, by its client transaction id (the look-up): its answer
    /// tells of that payment, not of itself, and moves no money.
    static var isLookUp: Bool { get }
    /// About another request, not a transaction of its own (an abort, a look-up): a till roll leaves it out.
    static var aboutAnotherRequest: Bool { get }
    /// What start-up recovery does with a request left without its answer when till stopped.
    static var recovery: RecoveryRule { get }

    /// Where the fields sit in `Request`: `request(_:)` and `fields(of:)` go through it.
    static var requestCase: RequestCase<Fields> { get }

    /// The fields as sent, in the order the pages show them (nil ones left out).
    static func write(_ fields: Fields, to w: inout FieldWriter)
    /// The fields read back from a request URL (what the terminal app does on receipt).
    static func read(_ r: RequestReader) throws(RequestParseError) -> Fields
    /// Every rule the pages (and this project) set on the fields.
    static func check(_ fields: Fields, _ c: inout RequestChecker)
    /// The fields of the request a terminal repeats in its answer when it refuses the request.
    static func refusalEcho(_ fields: Fields, to w: inout FieldWriter)
    /// The client transaction id the request carries, if the action has one.
    static func clientTransactionId(_ fields: Fields) -> String?
    /// A one-line description for a cashier (`Reprint order 1091166300000136`).
    static func summary(_ fields: Fields, _ context: SummaryContext) -> String
    /// The amount and tip the request asks for, as sent (nil: none, or all of an earlier one).
    static func asked(_ fields: Fields) -> AskedMoney
}

/// The money a request asks for: its amount and tip as sent.
public struct AskedMoney: Sendable, Hashable {
    public var amount: Money?
    public var tip: Money?
    public init(amount: Money? = nil, tip: Money? = nil) { self.amount = amount; self.tip = tip }
}

extension ActionDeclaration {
    public static var reportRole: ReportRole { .none }
    public static var movesMoney: Bool { reportRole != .none }
    public static var isAdministrative: Bool { false }
    public static var sendsMerchantKey: Bool { true }
    public static var startsPayment: Bool { false }
    public static var findsEarlierPayment: EarlierPayment? { nil }
    public static var amountMayBeLess: Bool { findsEarlierPayment != nil }
    public static var refundable: Bool { false }
    public static var capturable: Bool { false }
    public static var takesTip: Bool { false }
    public static var isLookUp: Bool { false }
    public static var aboutAnotherRequest: Bool { isLookUp }
    public static var recovery: RecoveryRule {
        aboutAnotherRequest ? .nothingToSettle : startsPayment ? .askByClientTransactionId : .flagUnknown
    }
    public static func write(_ fields: Fields, to w: inout FieldWriter) {}
    public static func check(_ fields: Fields, _ c: inout RequestChecker) {}
    public static func refusalEcho(_ fields: Fields, to w: inout FieldWriter) {}
    public static func clientTransactionId(_ fields: Fields) -> String? { nil }
    public static func asked(_ fields: Fields) -> AskedMoney { AskedMoney() }

    public static var action: Action { requestCase.action }

    /// The typed request holding these fields, and back.
    public static func request(_ fields: Fields) -> Request { requestCase.embed(fields) }
    public static func fields(of request: Request) -> Fields? { requestCase.extract(request) }

    // The look-ups on a `Request` whatever its action (`Action.declaration` gives the type).

    static func wireFields(of request: Request) -> [(String, String)] {
        guard let f = fields(of: request) else { return [] }
        var w = FieldWriter()
        write(f, to: &w)
        return w.fields
    }

    static func readRequest(_ r: RequestReader) throws(RequestParseError) -> Request { request(try read(r)) }

    static func checkRequest(_ request: Request, _ c: inout RequestChecker) {
        if let f = fields(of: request) { check(f, &c) }
    }

    /// The fields of `request` a terminal echoes when refusing it (`refusalEcho`).
    public static func refusalFields(of request: Request) -> [(String, String)] {
        guard let f = fields(of: request) else { return [] }
        var w = FieldWriter()
        refusalEcho(f, to: &w)
        return w.fields
    }

    static func asked(of request: Request) -> AskedMoney { fields(of: request).map { asked($0) } ?? AskedMoney() }

    static func clientTransactionId(of request: Request) -> String? { fields(of: request).flatMap { clientTransactionId($0) } }

    static func summary(of request: Request, _ context: SummaryContext) -> String? {
        fields(of: request).map { summary($0, context) }
    }
}

/// How an approved answer counts in a shift report: the goods it sold (with its tips), an amount it reserved, took
/// from a reservation, or gave back; or nothing.
public enum ReportRole: Sendable, Hashable {
    case none, sale, preAuth, capture, refund

    /// What an approved request did with the money, in every place that says so ("WAS CHARGED", "was NOT reserved",
    /// `till decode`'s "= 14.00 reserved"): a sale charges the card, a pre-auth only reserves the money, a capture
    /// charges what was reserved, a refund gives it back.
    public var moneyVerb: String {
        switch self {
        case .sale: return "charged"
        case .preAuth: return "reserved"
        case .capture: return "captured"
        case .refund: return "refunded"
        case .none: return "done"
        }
    }

    /// The verb's present form, for what is asked before doing it again ("Refund again?", "checked: refund …").
    public var moneyVerbToDo: String {
        switch self {
        case .sale: return "charge"
        case .preAuth: return "reserve"
        case .capture: return "capture"
        case .refund: return "refund"
        case .none: return "send"
        }
    }
}

/// What an action that names an earlier payment does with it (`findsEarlierPayment`).
public enum EarlierPayment: Sendable, Hashable {
    /// Gives back (part of) a `refundable` payment's money.
    case toRefund
    /// Takes (part of) what a `capturable` payment reserved.
    case toCapture
}

/// What start-up recovery does with a request that was sent (or may have been) and has no answer.
public enum RecoveryRule: Sendable, Hashable {
    /// Settled at once: it was about another request (an abort, a look-up) and has nothing of its own to settle.
    case nothingToSettle
    /// The terminal is asked about it by its client transaction id (it is flagged unknown when it carries none, or
    /// the terminal does not answer).
    case askByClientTransactionId
    /// Flagged unknown for the cashier to check on the terminal: nothing to ask the terminal about it by.
    case flagUnknown
}

/// The fields of an action that has none of its own (abort, send logs, …).
public struct NoFields: Sendable, Hashable, Codable {
    public init() {}
}

extension ActionDeclaration where Fields == NoFields {
    public static func read(_ r: RequestReader) throws(RequestParseError) -> NoFields { NoFields() }
}

/// The case of `Request` that holds an action's fields: how they go in, and how they come back out.
public struct RequestCase<Fields: Sendable>: Sendable {
    let action: Action
    let embed: @Sendable (Fields) -> Request
    let extract: @Sendable (Request) -> Fields?
    public init(_ action: Action, _ embed: @escaping @Sendable (Fields) -> Request, _ extract: @escaping @Sendable (Request) -> Fields?) {
        self.action = action; self.embed = embed; self.extract = extract
    }
}

extension RequestCase where Fields == NoFields {
    /// The case of an action without fields (`.abort`).
    public init(_ request: Request) {
        self.init(request.action, { _ in request }, { $0 == request ? NoFields() : nil })
    }
}

/// What an action is called where a cashier (or `till decode`) reads it.
public struct ActionWords: Sendable, Hashable {
    /// Its short name on screens and in the journal: `reprint`, `pre-auth`.
    public var name: String
    /// What an answer is about, in `till decode`: `reprint of a receipt`.
    public var answerLabel: String
    /// A journal row's title: `Sale`, `Check of an earlier payment`.
    public var entryTitle: String
    /// What an approved answer means for the cashier: `The terminal reprints the receipt.`
    public var approved: String
    /// The result pane's verdict when it was done (`APPROVED`, `SALE APPROVED`) and its headline when not (`NOT CHARGED`).
    public var doneWord: String
    public var doneHeadline: String
    public var notDoneHeadline: String
    /// The verdict's word when the terminal said no: `DECLINED` (a card or a request refused), `FAILED` where nothing
    /// was asked of a card (a batch command, a look-up).
    public var declinedWord: String

    public init(name: String, answerLabel: String, entryTitle: String? = nil, approved: String = "The terminal did it.",
                done: (word: String, headline: String) = ("DONE", "DONE"), notDone: String = "FAILED",
                declinedWord: String = "DECLINED") {
        self.name = name; self.answerLabel = answerLabel
        self.entryTitle = entryTitle ?? (name.prefix(1).uppercased() + name.dropFirst())
        self.approved = approved
        doneWord = done.word; doneHeadline = done.headline; notDoneHeadline = notDone
        self.declinedWord = declinedWord
    }
}

/// What a request's one-line summary depends on beyond its fields.
public struct SummaryContext: Sendable {
    public var currency: String
    public var tipStyle: TipStyle
    public init(currency: String = "€", tipStyle: TipStyle = .onTop) { self.currency = currency; self.tipStyle = tipStyle }

    /// `€ 12.00` (`12.00` with no currency); `—` for none.
    public func money(_ m: Money?) -> String { m.map { $0.withCurrency(currency) } ?? "—" }
}

extension Money {
    /// `€ 12.00`, or `12.00` with no currency: the one way an amount is shown with its currency.
    public func withCurrency(_ currency: String) -> String { currency.isEmpty ? formatted() : currency + " " + formatted() }
}

/// A request's fields as they are sent: name and text, in order.
public struct FieldWriter: Sendable {
    public private(set) var fields: [(String, String)] = []
    public init() {}
    public mutating func add(_ k: String, _ v: String?) { if let v { fields.append((k, v)) } }
    public mutating func add(_ k: String, _ v: Bool?) { if let v { fields.append((k, v ? "true" : "false")) } }
    public mutating func add(_ k: String, _ v: Money?) { if let v { fields.append((k, String(v.cents))) } }
    public mutating func add(_ k: String, _ v: Int?) { if let v { fields.append((k, String(v))) } }
    public mutating func add(_ pairs: [(String, String)]) { fields += pairs }
    /// The keys that find an earlier transaction (refund, capture), in the pages' order.
    public mutating func add(_ x: TransactionFinder) {
        add("referenceNumber", x.referenceNumber); add("orderCode", x.orderCode)
        add("shortOrderCode", x.shortOrderCode); add("txnDateFrom", x.txnDateFrom); add("txnDateTo", x.txnDateTo)
    }
}

/// A request URL's fields, read as the terminal app reads them: blank is absent, typed values are checked.
public struct RequestReader: Sendable {
    let map: [String: String]
    init(_ map: [String: String]) { self.map = map }

    /// A field that must be there and not blank.
    public func required(_ k: String) throws(RequestParseError) -> String {
        guard let v = map[k], !v.isEmpty else { throw RequestParseError(field: k, "\(k) is missing") }
        return v
    }
    public func text(_ k: String) -> String? { map[k].flatMap { $0.isEmpty ? nil : $0 } }
    public func money(_ k: String) throws(RequestParseError) -> Money? {
        guard let v = text(k) else { return nil }
        guard let m = Money.fromCents(Substring(v)) else { throw RequestParseError(field: k, "\(k) is not an integer amount of cents: '\(v)'") }
        return m
    }
    public func requiredMoney(_ k: String) throws(RequestParseError) -> Money {
        guard let m = try money(k) else { throw RequestParseError(field: k, "\(k) is missing") }
        return m
    }
    public func bool(_ k: String) throws(RequestParseError) -> Bool? {
        guard let v = text(k) else { return nil }
        switch v.lowercased() {
        case "true": return true
        case "false": return false
        default: throw RequestParseError(field: k, "\(k) must be true or false: '\(v)'")
        }
    }
    public func int(_ k: String) throws(RequestParseError) -> Int? {
        guard let v = text(k) else { return nil }
        guard let n = Int(v) else { throw RequestParseError(field: k, "\(k) is not a number: '\(v)'") }
        return n
    }
    public func paymentMethod() throws(RequestParseError) -> PaymentMethod? {
        guard let v = text("paymentMethod") else { return nil }
        guard let m = PaymentMethod(rawValue: v) ?? PaymentMethod(typed: v) else {
            throw RequestParseError(field: "paymentMethod", "paymentMethod must be one of \(PaymentMethod.names): '\(v)'")
        }
        return m
    }
    public func finder() -> TransactionFinder {
        TransactionFinder(referenceNumber: text("referenceNumber"), orderCode: text("orderCode"),
                          shortOrderCode: text("shortOrderCode"), txnDateFrom: text("txnDateFrom"), txnDateTo: text("txnDateTo"))
    }
}
