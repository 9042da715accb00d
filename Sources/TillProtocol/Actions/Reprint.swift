// The vendor's sample apps' administrative actions: field names exactly as the iOS sample
// (VivaPayments/mobile-ios-cardterminal-interapp-sample) sends them; the order is the sample's where it has one.

/// `reprintTransaction`: `orderCode` of the transaction whose receipt to print again. The iOS sample
/// can send it without one ("send without transaction order id"): the terminal reprints its latest.
public struct ReprintRequest: Sendable, Hashable, Codable {
    public var orderCode: String?
    public init(orderCode: String? = nil) { self.orderCode = orderCode }
}

/// `reprintTransaction`: print a transaction's receipt again.
public enum ReprintAction: ActionDeclaration {
    public static let words = ActionWords(name: "reprint", answerLabel: "reprint of a receipt", approved: "The terminal reprints the receipt.")
    public static var isAdministrative: Bool { true }
    public static let requestCase = RequestCase<ReprintRequest>(.reprintTransaction, { .reprint($0) }) { if case .reprint(let f) = $0 { f } else { nil } }
    public static func write(_ f: ReprintRequest, to w: inout FieldWriter) { w.add("orderCode", f.orderCode) }
    public static func read(_ r: RequestReader) throws(RequestParseError) -> ReprintRequest { ReprintRequest(orderCode: r.text("orderCode")) }
    public static func check(_ f: ReprintRequest, _ c: inout RequestChecker) { c.orderCode(f.orderCode) }
    public static func refusalEcho(_ f: ReprintRequest, to w: inout FieldWriter) { w.add("orderCode", f.orderCode) }
    public static func summary(_ f: ReprintRequest, _ c: SummaryContext) -> String {
        "Reprint " + (f.orderCode.map { "order " + $0 } ?? "the latest receipt")
    }
}
