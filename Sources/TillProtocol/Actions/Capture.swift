/// Capture of a pre-authorisation; `amount` absent means the full pre-authorised amount.
public struct CaptureRequest: Sendable, Hashable, Codable {
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


/// `capture_pre_auth` (capture-preauth.txt): takes a pre-authorised amount, in full or in part.
public enum CaptureAction: ActionDeclaration {
    public static let action = Action.capturePreAuth
    public static let words = ActionWords(name: "capture", answerLabel: "capture of a pre-authorisation",
                                          approved: "Captured: the reserved amount was taken.",
                                          done: ("CAPTURED", "CAPTURED"), notDone: "NOT CAPTURED")
    public static let reportRole = ReportRole.capture
    public static func request(_ f: CaptureRequest) -> Request { .capturePreAuth(f) }
    public static func fields(of r: Request) -> CaptureRequest? { if case .capturePreAuth(let f) = r { f } else { nil } }

    public static func write(_ c: CaptureRequest, to w: inout FieldWriter) {
        w.add("amount", c.amount); w.add(c.finder)
        w.add("show_receipt", c.showReceipt); w.add("show_transaction_result", c.showTransactionResult)
        w.add("protocol", c.protocolName)
    }

    public static func read(_ r: RequestReader) throws(RequestParseError) -> CaptureRequest {
        CaptureRequest(amount: try r.money("amount"), finder: r.finder(), showReceipt: try r.bool("show_receipt"),
                       showTransactionResult: try r.bool("show_transaction_result"), protocolName: r.text("protocol"))
    }

    public static func check(_ x: CaptureRequest, _ c: inout RequestChecker) {
        c.amount("amount", x.amount, label: "The capture amount", required: false)
        c.finder(x.finder, requireKey: true, what: "pre-authorisation")
        c.text("protocol", x.protocolName, label: "The protocol")
    }

    public static func refusalEcho(_ x: CaptureRequest, to w: inout FieldWriter) {
        if let a = x.amount { w.add("amount", String(a.cents)) }
    }

    public static func summary(_ x: CaptureRequest, _ c: SummaryContext) -> String {
        "Capture " + (x.amount.map { c.money($0) } ?? "in full") + x.finder.summary
    }
}
