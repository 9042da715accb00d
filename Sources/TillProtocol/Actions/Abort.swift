/// `abort` (abort.txt): stop the transaction in progress; no fields of its own.
public enum AbortAction: ActionDeclaration {
    public static let words = ActionWords(name: "abort", answerLabel: "abort", approved: "Aborted on the terminal: no money was taken.",
                                          done: ("ABORTED", "ABORTED"), notDone: "NOT ABORTED")
    public static let aboutAnotherRequest = true
    public static let requestCase = RequestCase(Request.abort)
    public static func summary(_ f: NoFields, _ c: SummaryContext) -> String { "Abort" }
}

extension AbortOutcome {
    /// What an answer says of an abort, once its message was read for the two words (`NOTHING_TO_ABORT`, `ABORTED`,
    /// upper-cased, a space read as `_`): the one rule `CallbackResponse.abortOutcome` and `till decode`'s fast reader
    /// both end in. The codes say it without the words; an abort's answer that says neither is `.other`, any other
    /// answer none.
    public init?(nothingToAbort: Bool, aborted: Bool, messageCode: Int?, action: Action?) {
        if nothingToAbort || messageCode == -55 { self = .nothingToAbort }
        else if aborted || messageCode == -57 { self = .aborted }
        else if action == .abort { self = .other }
        else { return nil }
    }
}

/// The forms an abort's answer takes (abort.txt:59-71), each of which a client must settle the sale by. It lives with
/// the protocol, as `TipStyle` does, because both the built-in simulator (which answers in the one chosen) and till's
/// config (`sim_abort_style`, read without the simulator) name it.
public enum AbortStyle: String, Sendable, Hashable, Codable, CaseIterable {
    /// Real terminals: one answer, `action=ABORT&status=fail&message=(-57) ABORTED` (with the sale's
    /// amount and client transaction id), which settles the sale too. The default.
    case terminal
    /// The page's form: `action=abort&status=success&message=aborted` (or `nothing to abort`), then the
    /// sale's own answer, aborted.
    case page
    /// No abort answer while a sale is running (abort.txt:61): only the sale's own answer, aborted.
    case saleOnly = "sale-only"

    public static var names: String { allCases.map(\.rawValue).joined(separator: "|") }
}
