import ArgumentParser
import TillModel
import TillProtocol

/// `--order-code`: the transaction whose receipt to print again; `--latest` for the terminal's latest.
struct ReprintOptions: ActionCommandLine {
    static let help = ActionHelp(
        "reprint", title: "Reprint", url: "Reprint a receipt (action=reprintTransaction) by --order-code, or --latest.",
        abstract: "Print a transaction's receipt again on the terminal.",
        discussion: "Example: till reprint --order-code 1091166300000136\n" + adminExitCodesHelp)

    @Option(help: ArgumentHelp("The order code of the transaction (10 to 20 digits, as `till journal` shows it).", valueName: "code"))
    var orderCode: String?

    @Flag(help: "Reprint the terminal's latest receipt (sends no order code, as the iOS sample can).")
    var latest = false

    init() {}

    func draft() -> RequestDraft {
        var r = TypedText()
        if orderCode == nil && !latest {
            r.fail("orderCode", "Say which receipt to reprint: give --order-code, or --latest for the terminal's latest.")
        }
        if orderCode != nil && latest {
            r.fail("orderCode", "Give either --order-code or --latest, not both.")
        }
        return RequestDraft(request: .reprint(ReprintRequest(orderCode: orderCode)), errors: r.errors, unreadable: r.unreadable)
    }
}
