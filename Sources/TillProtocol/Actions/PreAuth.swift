public struct PreAuthRequest: Sendable, Hashable, Codable {
    public var amount: Money
    public var clientTransactionId: String?
    public var paymentMethod: PaymentMethod?
    public var showReceipt: Bool?
    public var showRating: Bool?
    public var showTransactionResult: Bool?
    public var protocolName: String?
    public init(amount: Money, clientTransactionId: String? = nil, paymentMethod: PaymentMethod? = nil, showReceipt: Bool? = nil,
                showRating: Bool? = nil, showTransactionResult: Bool? = nil, protocolName: String? = nil) {
        self.amount = amount; self.clientTransactionId = clientTransactionId; self.paymentMethod = paymentMethod
        self.showReceipt = showReceipt
        self.showRating = showRating; self.showTransactionResult = showTransactionResult; self.protocolName = protocolName
    }
}


/// `pre_auth` (the vendor's samples): sale-shaped, no tip, no ISV; captured later.
public enum PreAuthAction: ActionDeclaration {
    public static let words = ActionWords(name: "pre-auth", answerLabel: "pre-authorisation",
                                          approved: "The amount is reserved on the card: capture it when the customer settles.",
                                          done: ("APPROVED", "PRE-AUTHORISED"), notDone: "NOT AUTHORISED")
    public static let reportRole = ReportRole.preAuth
    public static let startsPayment = true
    public static let capturable = true
    public static let requestCase = RequestCase<PreAuthRequest>(.preAuth, { .preAuth($0) }) { if case .preAuth(let f) = $0 { f } else { nil } }
    public static func clientTransactionId(_ p: PreAuthRequest) -> String? { p.clientTransactionId }
    public static func asked(_ p: PreAuthRequest) -> AskedMoney { AskedMoney(amount: p.amount) }

    public static func write(_ p: PreAuthRequest, to w: inout FieldWriter) {
        w.add("amount", p.amount); w.add("clientTransactionId", p.clientTransactionId)
        w.add("paymentMethod", p.paymentMethod?.rawValue)
        w.add("show_receipt", p.showReceipt); w.add("show_rating", p.showRating)
        w.add("show_transaction_result", p.showTransactionResult); w.add("protocol", p.protocolName)
    }

    public static func read(_ r: RequestReader) throws(RequestParseError) -> PreAuthRequest {
        let amount = try r.requiredMoney("amount")
        return PreAuthRequest(amount: amount, clientTransactionId: r.text("clientTransactionId"),
                              paymentMethod: try r.paymentMethod(), showReceipt: try r.bool("show_receipt"), showRating: try r.bool("show_rating"),
                              showTransactionResult: try r.bool("show_transaction_result"), protocolName: r.text("protocol"))
    }

    public static func check(_ p: PreAuthRequest, _ c: inout RequestChecker) {
        c.amount("amount", p.amount, label: "The amount", required: true)
        c.clientId("clientTransactionId", p.clientTransactionId)
        c.text("protocol", p.protocolName, label: "The protocol")
    }

    public static func refusalEcho(_ p: PreAuthRequest, to w: inout FieldWriter) {
        w.add("clientTransactionId", p.clientTransactionId ?? ""); w.add("amount", String(p.amount.cents))
    }

    public static func summary(_ p: PreAuthRequest, _ c: SummaryContext) -> String {
        "Pre-auth " + c.money(p.amount) + (p.paymentMethod.map { $0 == .cardPresent ? "" : " by " + $0.rawValue } ?? "")
    }
}
