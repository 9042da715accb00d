import ArgumentParser
import TillCore
import TillModel
import TillProtocol

/// `--amount 12.00 --tip 2.00 --installments 3 --client-transaction-id X`, the show_* screens,
/// the ISV partner fields and `--no-protocol`.
struct SaleOptions: PaymentCommandLine {
    static let help = ActionHelp(
        "sale", title: "Sale", url: "A sale: --amount, --tip, --installments, show_* screens, ISV fields.",
        abstract: "Take a card payment.", discussion: "Example: till sale --amount 12.50 --tip 1.00\n" + headlessExitCodesHelp)

    @Option(parsing: .unconditional, help: ArgumentHelp("The amount, as typed: 12, 12.5, 12.50 or 12,50.", valueName: "amount"))
    var amount: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The tip, added on top of the amount; at most the amount.", valueName: "amount"))
    var tip: String?

    @Option(name: .customLong("tip-style"),
            help: ArgumentHelp("How the terminal reads the tip: on-top (it is added to the amount) or included (the amount sent holds it). Default: the config's tip, else on-top.",
                               valueName: "style"))
    var tipStyle: TipStyle?

    @Option(parsing: .unconditional, help: ArgumentHelp("Pay in N installments. 1 is none (withInstallments=false, as the vendor's code); 0, or more than the terminal allows (36), makes the terminal ask the cardholder.",
                               valueName: "N"))
    var installments: String?

    @Option(help: ArgumentHelp("How the customer pays: \(PaymentMethod.names) (default: the terminal's, card present; MOTO for phone orders).",
                               valueName: "method"))
    var paymentMethod: String?

    @Option(help: ArgumentHelp("Your reference for the transaction (at most 64 characters).", valueName: "id"))
    var clientTransactionId: String?

    @OptionGroup var screens: ResultScreenOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("ISV partners: the ISV's fee, as typed.", valueName: "amount"))
    var isvAmount: String?
    @Option(help: ArgumentHelp("ISV partners: the ISV client id (needs --isv-amount and --isv-client-secret).", valueName: "id"))
    var isvClientId: String?
    @Option(help: ArgumentHelp("ISV partners: the ISV client secret.", valueName: "secret"))
    var isvClientSecret: String?
    @Option(help: ArgumentHelp("ISV partners: the ISV source code.", valueName: "code"))
    var isvSourceCode: String?
    @Option(help: ArgumentHelp("ISV partners: the merchant id, to switch merchants.", valueName: "id"))
    var isvMerchantId: String?
    @Option(help: ArgumentHelp("ISV partners: the merchant source code.", valueName: "code"))
    var isvMerchantSourceCode: String?
    @Option(help: ArgumentHelp("ISV partners: the transaction description for the customer.", valueName: "text"))
    var isvCustomerTrns: String?
    @Option(help: ArgumentHelp("ISV partners: the ISV's own transaction reference.", valueName: "id"))
    var isvClientTransactionId: String?
    @Option(help: ArgumentHelp("ISV partners, switching merchants: the merchant's currency, ISO 4217 (978 or EUR).", valueName: "code"))
    var isvCurrencyCode: String?

    @Flag(help: "Leave out protocol=int_default (the pages say to always send it).")
    var noProtocol = false

    init() {}

    /// `till url sale`: the tip read as `--tip-style` says (it reads no config), else on top.
    func draft() -> RequestDraft { draft(tipStyle: tipStyle ?? .onTop) }

    /// `till url sale`: built and checked with the same tip style (`--tip-style`, else on top).
    func terminalRequest(caller: Caller) throws(ValidationFailure) -> TerminalRequest {
        try terminalRequest(caller: caller, tipStyle: tipStyle ?? .onTop)
    }

    /// The sale with its caller, for a terminal that reads the tip as `tipStyle` says (config `tip`):
    /// the amount sent and the rules follow it. Throws every problem at once.
    func terminalRequest(caller: Caller, tipStyle: TipStyle) throws(ValidationFailure) -> TerminalRequest {
        let d = draft(tipStyle: tipStyle)
        let all = d.problems(caller: caller, tipStyle: tipStyle)
        if !all.isEmpty { throw ValidationFailure(errors: all) }
        return TerminalRequest(caller: caller, request: d.request)
    }

    /// The sale; `tipStyle` (config `tip`) says whether the amount sent includes the tip.
    func draft(tipStyle: TipStyle) -> RequestDraft {
        // Amount, tip (an amount or 10%), installments and reference: the one reading the cashier's screen uses too.
        var d = RequestDraft.sale(amount: amount, tip: tip, installments: installments, reference: clientTransactionId,
                                  tipStyle: tipStyle, protocolName: noProtocol ? nil : RequestDraft.defaultProtocol,
                                  missingAmount: "The amount is missing: give --amount, like --amount 12.50.")
        guard case .sale(var sale) = d.request else { return d }
        var r = TypedText()
        sale.paymentMethod = r.paymentMethod(paymentMethod)
        (sale.showReceipt, sale.showRating, sale.showTransactionResult) = screens.read(&r)
        let isvAmount = r.money(isvAmount, field: "ISV_amount", label: "ISV amount")
        var isv = ISVFields(amount: isvAmount, clientId: isvClientId, clientSecret: isvClientSecret,
                            sourceCode: isvSourceCode, merchantId: isvMerchantId, merchantSourceCode: isvMerchantSourceCode,
                            customerTrns: isvCustomerTrns, clientTransactionId: isvClientTransactionId,
                            currencyCode: isvCurrencyCode)
        // An ISV amount typed but unreadable still counts as given (no "needs the ISV amount" on top).
        if r.unreadable.contains("ISV_amount") { isv.amount = Money(cents: 1) }
        sale.isv = isv != ISVFields() ? isv : nil
        d.request = .sale(sale)
        d.absorb(r)
        return d
    }

    /// `till sale`: the amount sent as the terminal reads the tip: the settings' (--tip-style, else the config's `tip`,
    /// which the screen reads too).
    func headlessRequest(caller: Caller, settings: TillConfig) throws(ValidationFailure) -> TerminalRequest {
        try terminalRequest(caller: caller, tipStyle: settings.resolvedTip)
    }

    var tipStyleGiven: TipStyle? { tipStyle }
}

/// Which of the terminal's screens a sale or pre-auth shows before it returns: `--show-receipt`, `--show-rating`,
/// `--show-transaction-result`, each true or false.
struct ResultScreenOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Show the receipt screen before returning.", valueName: boolValueName))
    var showReceipt: String?

    @Option(help: ArgumentHelp("Show the rating screen before returning.", valueName: boolValueName))
    var showRating: String?

    @Option(help: ArgumentHelp("Show the transaction result screen before returning.", valueName: boolValueName))
    var showTransactionResult: String?

    /// The three as the request carries them (nil: not given, the terminal's default).
    func read(_ r: inout TypedText) -> (receipt: Bool?, rating: Bool?, result: Bool?) {
        (r.bool(showReceipt, field: "show_receipt", label: "Show receipt"),
         r.bool(showRating, field: "show_rating", label: "Show rating"),
         r.bool(showTransactionResult, field: "show_transaction_result", label: "Show transaction result"))
    }
}
