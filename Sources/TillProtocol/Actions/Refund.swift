/// Refund (`cancel`) and capture: an optional amount (none: all of it — the whole payment, the whole pre-authorised
/// amount), the keys that find the earlier transaction, two of the terminal's screens and the protocol.
public struct FinderRequest: Sendable, Hashable, Codable {
    public var amount: Money?
    public var finder: TransactionFinder
    public var showReceipt: Bool?
    public var showTransactionResult: Bool?
    public var protocolName: String?
    public init(amount: Money? = nil, finder: TransactionFinder = .init(), showReceipt: Bool? = nil,
                showTransactionResult: Bool? = nil, protocolName: String? = nil) {
        self.amount = amount; self.finder = finder; self.showReceipt = showReceipt
        self.showTransactionResult = showTransactionResult; self.protocolName = protocolName
    }
}

/// Cancel (same day) or refund; `amount` absent means the full amount.
public typealias CancelRequest = FinderRequest
/// Capture of a pre-authorisation; `amount` absent means the full pre-authorised amount.
public typealias CaptureRequest = FinderRequest

/// `cancel`: a refund, of the whole payment or part of it, found by its keys (or picked on the terminal).
public enum RefundAction: ActionDeclaration {
    public static let words = ActionWords(name: "refund", answerLabel: "refund (cancel)", approved: "Refunded: the money goes back to the card.",
                                          done: ("REFUNDED", "REFUNDED"), notDone: "NOT REFUNDED")
    public static let reportRole = ReportRole.refund
    public static let findsEarlierPayment: EarlierPayment? = .toRefund
    public static let requestCase = RequestCase<CancelRequest>(.cancel, { .cancel($0) }) { if case .cancel(let f) = $0 { f } else { nil } }

    public static func check(_ x: CancelRequest, _ c: inout RequestChecker) { check(x, &c, amount: "The refund amount", what: nil) }
    public static func summary(_ x: CancelRequest, _ c: SummaryContext) -> String { summary(x, c, verb: "Refund") }
}

extension Request {
    /// The fields of a request that finds an earlier payment by its keys (refund, capture); nil for any other.
    public var finding: FinderRequest? {
        switch self {
        case .cancel(let f), .capturePreAuth(let f): return f
        case .sale, .preAuth, .abort, .batch, .transactionDetails, .reprint, .getPrintingSettings, .setPrintingSettings,
             .sendLogs, .getActivationCode, .activatePos:
            return nil
        }
    }
}

/// Refund and capture write, read and echo their fields the same way.
extension ActionDeclaration where Fields == FinderRequest {
    public static func write(_ f: Fields, to w: inout FieldWriter) {
        w.add("amount", f.amount); w.add(f.finder)
        w.add("show_receipt", f.showReceipt); w.add("show_transaction_result", f.showTransactionResult)
        w.add("protocol", f.protocolName)
    }

    public static func read(_ r: RequestReader) throws(RequestParseError) -> Fields {
        Fields(amount: try r.money("amount"), finder: r.finder(), showReceipt: try r.bool("show_receipt"),
               showTransactionResult: try r.bool("show_transaction_result"), protocolName: r.text("protocol"))
    }

    public static func refusalEcho(_ f: Fields, to w: inout FieldWriter) {
        if let a = f.amount { w.add("amount", String(a.cents)) }
    }

    public static func asked(_ f: Fields) -> AskedMoney { AskedMoney(amount: f.amount) }

    /// `what`: the transaction a key must name (a capture's pre-authorisation); nil when none is needed (a refund
    /// without one lets the cardholder pick on the terminal).
    static func check(_ x: FinderRequest, _ c: inout RequestChecker, amount label: String, what: String?) {
        c.amount("amount", x.amount, label: label, required: false)
        c.finder(x.finder, requireKey: what != nil, what: what ?? "payment")
        c.text("protocol", x.protocolName, label: "The protocol")
    }

    static func summary(_ x: FinderRequest, _ c: SummaryContext, verb: String) -> String {
        verb + " " + (x.amount.map { c.money($0) } ?? "in full") + x.finder.summary
    }
}
