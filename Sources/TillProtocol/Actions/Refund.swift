/// Cancel (same day) or refund; `amount` absent means the full amount.
public struct CancelRequest: Sendable, Hashable, Codable {
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


/// `cancel`: a refund, of the whole payment or part of it, found by its keys (or picked on the terminal).
public enum RefundAction: ActionDeclaration {
    public static let action = Action.cancel
    public static let words = ActionWords(name: "refund", answerLabel: "refund (cancel)", approved: "Refunded: the money goes back to the card.",
                                          done: ("REFUNDED", "REFUNDED"), notDone: "NOT REFUNDED")
    public static let reportRole = ReportRole.refund
    public static func request(_ f: CancelRequest) -> Request { .cancel(f) }
    public static func fields(of r: Request) -> CancelRequest? { if case .cancel(let f) = r { f } else { nil } }

    public static func write(_ c: CancelRequest, to w: inout FieldWriter) {
        w.add("amount", c.amount); w.add(c.finder)
        w.add("show_receipt", c.showReceipt); w.add("show_transaction_result", c.showTransactionResult)
        w.add("protocol", c.protocolName)
    }

    public static func read(_ r: RequestReader) throws(RequestParseError) -> CancelRequest {
        CancelRequest(amount: try r.money("amount"), finder: r.finder(), showReceipt: try r.bool("show_receipt"),
                      showTransactionResult: try r.bool("show_transaction_result"), protocolName: r.text("protocol"))
    }

    public static func check(_ x: CancelRequest, _ c: inout RequestChecker) {
        c.amount("amount", x.amount, label: "The refund amount", required: false)
        c.finder(x.finder, requireKey: false, what: "payment")
        c.text("protocol", x.protocolName, label: "The protocol")
    }

    public static func refusalEcho(_ x: CancelRequest, to w: inout FieldWriter) {
        if let a = x.amount { w.add("amount", String(a.cents)) }
    }

    public static func summary(_ x: CancelRequest, _ c: SummaryContext) -> String {
        "Refund " + (x.amount.map { c.money($0) } ?? "in full") + x.finder.summary
    }
}
