public enum BatchCommand: String, Sendable, Hashable, Codable, CaseIterable { case open, close }

public struct BatchRequest: Sendable, Hashable, Codable {
    public var command: BatchCommand
    public var batchName: String?
    /// Close only: the UUID of the batch to close.
    public var batchId: String?
    public init(command: BatchCommand, batchName: String? = nil, batchId: String? = nil) {
        self.command = command; self.batchName = batchName; self.batchId = batchId
    }
}


extension BatchAction {
    /// The command (open or close) a journaled request asked for; nil for another action's request.
    public static func command(of action: Action, requestURL: String) -> BatchCommand? {
        guard action == self.action, let q = QueryFields(url: requestURL), let c = q.value(named: "command") else { return nil }
        return BatchCommand(rawValue: c.lowercased())
    }

    /// Whether `answer`, filed for a request of `action`, is a batch's close (approved or not: the entry's state
    /// says which).
    public static func closes(_ action: Action, answer: CallbackResponse?) -> Bool {
        action == self.action && answer?.batchCommand == .close
    }
}

/// `batch` (batch.txt): open or close a shift, by name or UUID.
public enum BatchAction: ActionDeclaration {
    public static let words = ActionWords(name: "batch", answerLabel: "batch", declinedWord: "FAILED")
    public static let requestCase = RequestCase<BatchRequest>(.batch, { .batch($0) }) { if case .batch(let f) = $0 { f } else { nil } }

    public static func write(_ b: BatchRequest, to w: inout FieldWriter) {
        w.add("command", b.command.rawValue); w.add("batchName", b.batchName); w.add("batchId", b.batchId)
    }

    public static func read(_ r: RequestReader) throws(RequestParseError) -> BatchRequest {
        let c = try r.required("command")
        guard let command = BatchCommand(rawValue: c.lowercased()) else { throw RequestParseError(field: "command", "command must be open or close: '\(c)'") }
        return BatchRequest(command: command, batchName: r.text("batchName"), batchId: r.text("batchId"))
    }

    public static func check(_ b: BatchRequest, _ c: inout RequestChecker) {
        c.text("batchName", b.batchName, label: "The batch name")
        if let id = b.batchId {
            if b.command == .open { c.fail("batchId", "A batch id can only be given when closing a batch.") }
            if !UUIDText.isValid(id) { c.fail("batchId", "The batch id '\(id)' is not a UUID like 7885F4F1-59CA-42C2-81BB-6DB48AA138A6.") }
        }
    }

    public static func refusalEcho(_ b: BatchRequest, to w: inout FieldWriter) { w.add("command", b.command.rawValue) }

    public static func summary(_ b: BatchRequest, _ c: SummaryContext) -> String {
        let which = b.batchName.map { "'\($0)'" } ?? b.batchId ?? (b.command == .open ? "" : "active")
        return (b.command == .open ? "Open batch " : "Close batch ") + which
    }
}
