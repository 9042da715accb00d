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

    /// The show_* options, read from typed text (the rest is `RequestDraft.refund` / `.capture`'s, as the screen's).
    func readShows() -> (showReceipt: Bool?, showResult: Bool?, reader: TypedTextReader) {
        var r = TypedTextReader()
        let receipt = r.bool(showReceipt, field: "show_receipt", label: "Show receipt")
        let result = r.bool(showTransactionResult, field: "show_transaction_result", label: "Show transaction result")
        return (receipt, result, r)
    }

    /// A draft and the show_* options' problems together.
    static func merged(_ d: RequestDraft, _ r: TypedTextReader) -> RequestDraft {
        RequestDraft(request: d.request, errors: d.errors + r.errors, unreadable: d.unreadable.union(r.unreadable))
    }

    /// As a refund (`action=cancel`).
    var refund: RefundOptionsView { RefundOptionsView(options: self) }
    /// As a capture of a pre-authorisation (`action=capture_pre_auth`).
    var capture: CaptureOptionsView { CaptureOptionsView(options: self) }

    /// The refund (cancel) request; throws problems with the typed text.
    func cancelRequest() throws(ValidationFailure) -> Request { try refund.request() }
    /// The capture request; throws problems with the typed text.
    func captureRequest() throws(ValidationFailure) -> Request { try capture.request() }
}

/// `FinderOptions` read as a refund. Not parsed itself: get it from `finderOptions.refund`.
struct RefundOptionsView: RequestDraftSource {
    var options: FinderOptions
    func draft() -> RequestDraft {
        let o = options, x = options.readShows()
        return FinderOptions.merged(RequestDraft.refund(amount: o.amount, reference: o.reference, orderCode: o.orderCode,
                                                        shortOrderCode: o.shortOrderCode, from: o.from, to: o.to,
                                                        showReceipt: x.showReceipt, showResult: x.showResult,
                                                        offsetMinutes: tillZoneOffsetMinutes), x.reader)
    }
}

/// `FinderOptions` read as a capture. Not parsed itself: get it from `finderOptions.capture`.
struct CaptureOptionsView: RequestDraftSource {
    var options: FinderOptions
    func draft() -> RequestDraft {
        let o = options, x = options.readShows()
        // capture-preauth.txt:36 lists `protocol` (int_default), as for a sale.
        return FinderOptions.merged(RequestDraft.capture(amount: o.amount, reference: o.reference, orderCode: o.orderCode,
                                                         shortOrderCode: o.shortOrderCode, from: o.from, to: o.to,
                                                         showReceipt: x.showReceipt, showResult: x.showResult,
                                                         protocolName: o.noProtocol ? nil : RequestDraft.defaultProtocol,
                                                         offsetMinutes: tillZoneOffsetMinutes), x.reader)
    }
}

/// `till url refund` and `till refund` (action=cancel).
struct RefundOptions: ActionCommandLine {
    static let help = ActionHelp(
        "refund", title: "Refund", url: "A refund (action=cancel): --reference STAN, or --order-code / --short-order-code, optional --amount.",
        urlDiscussion: "With no --reference, order code or short order code the terminal app lets the cardholder pick one of the card's last 3 payments.",
        urlAliases: ["cancel"], abstract: "Refund (cancel) a payment, in full or in part.",
        discussion: "Example: till refund --reference 000001 --amount 5\n" + headlessExitCodesHelp, aliases: ["cancel"])
    @OptionGroup var finder: FinderOptions
    init() {}
    func draft() -> RequestDraft { finder.refund.draft() }
}
