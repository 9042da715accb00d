/// `sendLogs`: the terminal app sends its logs to the vendor's support; no fields.
public enum SendLogsAction: ActionDeclaration {
    public static let words = ActionWords(name: "send logs", answerLabel: "logs sent to support")
    public static var isAdministrative: Bool { true }
    public static let requestCase = RequestCase(Request.sendLogs)
    public static func summary(_ f: NoFields, _ c: SummaryContext) -> String { "Send logs" }
}
