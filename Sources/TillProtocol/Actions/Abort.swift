/// `abort` (abort.txt): stop the transaction in progress; no fields of its own.
public enum AbortAction: ActionDeclaration {
    public static let action = Action.abort
    public static let words = ActionWords(name: "abort", answerLabel: "abort", approved: "Aborted on the terminal: no money was taken.",
                                          done: ("ABORTED", "ABORTED"), notDone: "NOT ABORTED")
    public static func request(_ f: NoFields) -> Request { .abort }
    public static func fields(of r: Request) -> NoFields? { if case .abort = r { NoFields() } else { nil } }
    public static func read(_ r: RequestReader) throws(RequestParseError) -> NoFields { NoFields() }
    public static func summary(_ f: NoFields, _ c: SummaryContext) -> String { "Abort" }
}
