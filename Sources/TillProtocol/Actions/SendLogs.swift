/// `sendLogs`: the terminal app sends its logs to the vendor's support; no fields.
public enum SendLogsAction: ActionDeclaration {
    public static let action = Action.sendLogs
    public static let words = ActionWords(name: "send logs", answerLabel: "logs sent to support")
    public static var isAdministrative: Bool { true }
    public static func request(_ f: NoFields) -> Request { .sendLogs }
    public static func fields(of r: Request) -> NoFields? { if case .sendLogs = r { NoFields() } else { nil } }
    public static func read(_ r: RequestReader) throws(RequestParseError) -> NoFields { NoFields() }
    public static func summary(_ f: NoFields, _ c: SummaryContext) -> String { "Send logs" }
}
