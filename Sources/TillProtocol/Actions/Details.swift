public struct DetailsRequest: Sendable, Hashable, Codable {
    public var clientTransactionId: String
    /// `sourceTerminalId` (the Android sample): the terminal the transaction was made on.
    public var sourceTerminalId: String?
    public init(clientTransactionId: String, sourceTerminalId: String? = nil) {
        self.clientTransactionId = clientTransactionId; self.sourceTerminalId = sourceTerminalId
    }
}


/// `transactionDetails`: what the terminal knows of a transaction, by its client transaction id.
public enum DetailsAction: ActionDeclaration {
    public static let words = ActionWords(name: "details", answerLabel: "transaction details", entryTitle: "Check of an earlier payment",
                                          approved: "The terminal found the transaction.",
                                          done: ("FOUND", "TRANSACTION FOUND"), notDone: "NOT FOUND",
                                          declinedWord: "FAILED")
    public static let isLookUp = true
    public static let requestCase = RequestCase<DetailsRequest>(.transactionDetails, { .transactionDetails($0) }) { if case .transactionDetails(let f) = $0 { f } else { nil } }
    public static func clientTransactionId(_ d: DetailsRequest) -> String? { d.clientTransactionId }

    public static func write(_ d: DetailsRequest, to w: inout FieldWriter) {
        w.add("clientTransactionId", d.clientTransactionId); w.add("sourceTerminalId", d.sourceTerminalId)
    }

    public static func read(_ r: RequestReader) throws(RequestParseError) -> DetailsRequest {
        DetailsRequest(clientTransactionId: try r.required("clientTransactionId"), sourceTerminalId: r.text("sourceTerminalId"))
    }

    public static func check(_ d: DetailsRequest, _ c: inout RequestChecker) {
        c.text("clientTransactionId", d.clientTransactionId, label: "The client transaction id", required: true,
               max: Limits.maxClientTransactionIdLength)
        c.text("sourceTerminalId", d.sourceTerminalId, label: "The source terminal id")
    }

    public static func refusalEcho(_ d: DetailsRequest, to w: inout FieldWriter) { w.add("clientTransactionId", d.clientTransactionId) }

    public static func summary(_ d: DetailsRequest, _ c: SummaryContext) -> String { "Details of " + d.clientTransactionId }
}
