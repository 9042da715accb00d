import ArgumentParser
import TillModel
import TillProtocol

/// `--amount`, `--client-transaction-id`, the show_* screens and `--no-protocol`.
struct PreAuthOptions: PaymentCommandLine {
    static let help = ActionHelp(
        "preauth", title: "Pre-authorisation", url: "A pre-authorisation (action=pre_auth): --amount, show_* screens.",
        urlAliases: ["pre-auth", "pre_auth"], abstract: "Reserve an amount on a card (pre-authorisation), to capture later.",
        discussion: "Example: till preauth --amount 80\n" + headlessExitCodesHelp)

    @Option(parsing: .unconditional, help: ArgumentHelp("The amount to reserve, as typed: 12, 12.5, 12.50 or 12,50.", valueName: "amount"))
    var amount: String?

    @Option(help: ArgumentHelp("Your reference for the transaction (at most 64 characters).", valueName: "id"))
    var clientTransactionId: String?

    @Option(help: ArgumentHelp("How the customer pays: \(PaymentMethod.names) (default: the terminal's, card present).",
                               valueName: "method"))
    var paymentMethod: String?

    @OptionGroup var screens: ResultScreenOptions

    @Flag(help: "Leave out protocol=int_default (the pages say to always send it).")
    var noProtocol = false

    init() {}

    func draft() -> RequestDraft {
        var d = RequestDraft.preAuth(amount: amount, reference: clientTransactionId,
                                     protocolName: noProtocol ? nil : RequestDraft.defaultProtocol,
                                     missingAmount: "The amount is missing: give --amount, like --amount 12.50.")
        guard case .preAuth(var p) = d.request else { return d }
        var r = TypedText()
        p.paymentMethod = r.paymentMethod(paymentMethod)
        (p.showReceipt, p.showRating, p.showTransactionResult) = screens.read(&r)
        d.request = .preAuth(p)
        d.absorb(r)
        return d
    }
}
