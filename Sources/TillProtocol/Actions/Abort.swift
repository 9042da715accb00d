/// `abort` (abort.txt): stop the transaction in progress; no fields of its own.
public enum AbortAction: ActionDeclaration {
    public static let words = ActionWords(name: "abort", answerLabel: "abort", approved: "Aborted on the terminal: no money was taken.",
                                          done: ("ABORTED", "ABORTED"), notDone: "NOT ABORTED")
    public static let requestCase = RequestCase(Request.abort)
    public static func summary(_ f: NoFields, _ c: SummaryContext) -> String { "Abort" }
}
