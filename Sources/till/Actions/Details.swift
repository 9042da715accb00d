import ArgumentParser
import TillModel
import TillProtocol

/// `--client-transaction-id`: which transaction to fetch the details of.
struct DetailsOptions: ActionCommandLine {
    static let help = ActionHelp(
        "details", title: "Details", url: "Fetch a transaction's details (action=transactionDetails) by --client-transaction-id.",
        urlAliases: ["transactionDetails"], abstract: "Ask the terminal for a transaction's details, by client transaction id.",
        discussion: "Example: till details --client-transaction-id 5f0c…\n" + headlessExitCodesHelp)

    @Option(help: ArgumentHelp("The client transaction id of the transaction to look up.", valueName: "id"))
    var clientTransactionId: String?

    @Option(help: ArgumentHelp("The terminal the transaction was made on (sourceTerminalId).", valueName: "id"))
    var sourceTerminalId: String?

    init() {}

    func draft() -> RequestDraft {
        var r = TypedText()
        if clientTransactionId == nil {
            r.fail("clientTransactionId", "The client transaction id is missing: give --client-transaction-id.")
        }
        return RequestDraft(request: .transactionDetails(DetailsRequest(clientTransactionId: clientTransactionId ?? "?",
                                                                        sourceTerminalId: sourceTerminalId)),
                            errors: r.errors, unreadable: r.unreadable)
    }
}
