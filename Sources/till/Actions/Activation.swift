import ArgumentParser
import TillIO
import TillModel
import TillProtocol

/// `till activation-code`: no options.
struct ActivationCodeOptions: FieldlessActionCommandLine {
    static let request = Request.getActivationCode
    static let help = ActionHelp(
        "activation-code", url: "Ask the terminal app for an activation code (action=getActivationCode; no merchantKey, as the sample).",
        abstract: "Ask the terminal app for an activation code.",
        discussion: "Then: till activate --activation-code CODE --source-id ID --pin-code PIN\n" + adminExitCodesHelp)
    init() {}
}

/// `activatePos`: `--activation-code` (from `till activation-code`) or `--api-key` with `--api-secret`,
/// `--source-id`, `--pin-code`, and the iOS sample's flags, each `true|false`.
struct ActivationOptions: ActionCommandLine {
    static let help = ActionHelp(
        "activate", title: "Activation",
        url: "Activate the terminal app (action=activatePos; no merchantKey, as the sample): --activation-code or --api-key/--api-secret, --source-id, --pin-code, flags.",
        abstract: "Activate the terminal app, by activation code or API key and secret.",
        discussion: "Example: till activate --activation-code 12345678 --source-id Default --pin-code 1234\n"
            + "The API key and secret and the PIN are secrets: never printed, never journaled.\n" + adminExitCodesHelp)

    @Option(help: ArgumentHelp("The activation code (from `till activation-code`).", valueName: "code"))
    var activationCode: String?
    @Option(help: ArgumentHelp("The API key (apikey), instead of an activation code (default: $TILL_API_KEY); a secret, never printed or journaled.", valueName: "key"))
    var apiKey: String?
    @Option(help: ArgumentHelp("The API secret (apiSecret), with the API key (default: $TILL_API_SECRET); a secret.", valueName: "secret"))
    var apiSecret: String?
    @Option(help: ArgumentHelp("The payment source (sourceID) the terminal takes payments for.", valueName: "id"))
    var sourceId: String?
    @Option(help: ArgumentHelp("The terminal's PIN (pinCode), 4 to 8 digits (default: $TILL_PIN_CODE); a secret.", valueName: "digits"))
    var pinCode: String?

    @Option(help: ArgumentHelp("Allow MOTO (phone orders) on the terminal (activateMoto).", valueName: boolValueName)) var activateMoto: String?
    @Option(help: ArgumentHelp("Allow QR code payments (activateQRCodes).", valueName: boolValueName)) var activateQrCodes: String?
    @Option(help: ArgumentHelp("Forbid typing the amount on the terminal (disableManualAmountEntry).", valueName: boolValueName))
    var disableManualAmountEntry: String?
    @Option(help: ArgumentHelp("Lock refunds on the terminal (lockRefund).", valueName: boolValueName)) var lockRefund: String?
    @Option(help: ArgumentHelp("Lock the transactions list (lockTransactionsList).", valueName: boolValueName)) var lockTransactionsList: String?
    @Option(help: ArgumentHelp("Lock MOTO (lockMoto).", valueName: boolValueName)) var lockMoto: String?
    @Option(help: ArgumentHelp("Lock pre-authorisations (lockPreauth).", valueName: boolValueName)) var lockPreauth: String?
    @Option(help: ArgumentHelp("Lock captures (lockCapture).", valueName: boolValueName)) var lockCapture: String?
    @Option(help: ArgumentHelp("Refunds need the card presented (forceCardPresentmentForRefund).", valueName: boolValueName))
    var forceCardPresentmentForRefund: String?

    init() {}

    /// The environment variables the secrets may come from instead of the command line (which `ps` shows).
    static let apiKeyVariable = "TILL_API_KEY", apiSecretVariable = "TILL_API_SECRET", pinCodeVariable = "TILL_PIN_CODE"

    func draft() -> RequestDraft { draft(environment: .process) }

    func draft(environment: Environment) -> RequestDraft {
        let apiKey = self.apiKey ?? environment.nonEmpty(ActivationOptions.apiKeyVariable)
        let apiSecret = self.apiSecret ?? environment.nonEmpty(ActivationOptions.apiSecretVariable)
        let pinCode = self.pinCode ?? environment.nonEmpty(ActivationOptions.pinCodeVariable)
        var r = TypedText()
        var flags: [String: Bool] = [:]
        let typed: [(String, String?)] = [
            ("activateMoto", activateMoto), ("activateQRCodes", activateQrCodes),
            ("disableManualAmountEntry", disableManualAmountEntry), ("lockRefund", lockRefund),
            ("lockTransactionsList", lockTransactionsList), ("lockMoto", lockMoto), ("lockPreauth", lockPreauth),
            ("lockCapture", lockCapture), ("forceCardPresentmentForRefund", forceCardPresentmentForRefund),
        ]
        for (name, text) in typed { if let v = r.bool(text, field: name, label: name) { flags[name] = v } }
        // The screen's reading of the same fields (RequestDraft.activation), with the switches' problems.
        let d = RequestDraft.activation(activationCode: activationCode, apiKey: apiKey, apiSecret: apiSecret, sourceId: sourceId,
                                        pinCode: pinCode, flags: flags)
        return RequestDraft(request: d.request, errors: r.errors, unreadable: r.unreadable)
    }
}
