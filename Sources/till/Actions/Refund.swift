import ArgumentParser
import TillIO
import TillModel
import TillProtocol

/// How refund (cancel) and capture find the original transaction: `--amount` (absent: the full
/// amount), `--reference` (STAN), `--order-code`, `--short-order-code`, `--from`, `--to`, and the
/// show_* screens.
struct FinderOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("The amount, as typed (absent: the full amount).", valueName: "amount"))
    var amount: String?

    @Option(help: ArgumentHelp("The STAN (referenceNumber) of the original transaction: six digits.", valueName: "stan"))
    var reference: String?

    @Option(help: ArgumentHelp("The order code of the original transaction (10 to 20 digits).", valueName: "code"))
    var orderCode: String?

    @Option(help: ArgumentHelp("The short order code (ten digits; same terminal only).", valueName: "code"))
    var shortOrderCode: String?

    @Option(help: ArgumentHelp("Search from this date: ISO 8601 (2021-03-29T00:00:00.000+03:00), a day (2021-03-29: from its start) or a time without offset (the till's zone).", valueName: "date"))
    var from: String?

    @Option(help: ArgumentHelp("Search until this date (needs --from; absent: until now); a day alone means until its end.", valueName: "date"))
    var to: String?

    @Option(help: ArgumentHelp("Show the receipt screen before returning.", valueName: boolValueName))
    var showReceipt: String?

    @Option(help: ArgumentHelp("Show the transaction result screen before returning.", valueName: boolValueName))
    var showTransactionResult: String?

    @Flag(help: "Capture only: leave out protocol=int_default (capture-preauth.txt lists it; a refund never sends it).")
    var noProtocol = false

    init() {}

    /// The refund (`action=cancel`) or the capture these options say, read as the screen reads them
    /// (`RequestDraft.refund`, `.capture`), with the show_* options' problems added.
    func draft(capture: Bool) -> RequestDraft {
        var r = TypedText()
        let receipt = r.bool(showReceipt, field: "show_receipt", label: "Show receipt")
        let result = r.bool(showTransactionResult, field: "show_transaction_result", label: "Show transaction result")
        // capture-preauth.txt:36 lists `protocol` (int_default) for a capture, as for a sale; a refund never sends it.
        var d = capture
            ? RequestDraft.capture(amount: amount, reference: reference, orderCode: orderCode, shortOrderCode: shortOrderCode, from: from, to: to,
                                   showReceipt: receipt, showResult: result, protocolName: noProtocol ? nil : RequestDraft.defaultProtocol,
                                   offsetMinutes: tillZoneOffsetMinutes)
            : RequestDraft.refund(amount: amount, reference: reference, orderCode: orderCode, shortOrderCode: shortOrderCode, from: from, to: to,
                                  showReceipt: receipt, showResult: result, offsetMinutes: tillZoneOffsetMinutes)
        d.absorb(r)
        return d
    }
}

/// `till url refund` and `till refund` (action=cancel).
struct RefundOptions: PaymentCommandLine {
    static let help = ActionHelp(
        "refund", title: "Refund", url: "A refund (action=cancel): --reference STAN, or --order-code / --short-order-code, optional --amount.",
        urlDiscussion: "With no --reference, order code or short order code the terminal app lets the cardholder pick one of the card's last 3 payments.",
        urlAliases: ["cancel"], abstract: "Refund (cancel) a payment, in full or in part.",
        discussion: "Example: till refund --reference 000001 --amount 5\n" + headlessExitCodesHelp, aliases: ["cancel"])
    @OptionGroup var finder: FinderOptions
    init() {}
    func draft() -> RequestDraft { finder.draft(capture: false) }
}
