import ArgumentParser
import Foundation
import TillIO
import TillModel
import TillProtocol

// Option groups for the vendor's sample apps' administrative actions (issue 12): reprint, printing
// settings, activation. As in RequestOptions.swift, every value arrives as typed text and a typo becomes
// a readable `ValidationError` (exit 2), never a parser error.

// MARK: - Reprint

/// `--order-code`: the transaction whose receipt to print again; `--latest` for the terminal's latest.
struct ReprintOptions: RequestOptionGroup {
    @Option(help: ArgumentHelp("The order code of the transaction (10 to 20 digits, as `till journal` shows it).", valueName: "code"))
    var orderCode: String?

    @Flag(help: "Reprint the terminal's latest receipt (sends no order code, as the iOS sample can).")
    var latest = false

    init() {}

    func draft() -> RequestDraft {
        var r = TypedTextReader()
        if orderCode == nil && !latest {
            r.missing("orderCode", "Say which receipt to reprint: give --order-code, or --latest for the terminal's latest.")
        }
        if orderCode != nil && latest {
            r.missing("orderCode", "Give either --order-code or --latest, not both.")
        }
        return RequestDraft(request: .reprint(ReprintRequest(orderCode: orderCode)), errors: r.errors, unreadable: r.unreadable)
    }
}

// MARK: - Printing settings

/// `set`: each setting `true|false`; `--business-description` also takes a source of the name.
struct PrintingSettingsOptions: RequestOptionGroup {
    @Option(help: ArgumentHelp("Print the customer's receipt (isCustomerReceiptEnabled).", valueName: "true|false"))
    var customerReceipt: String?
    @Option(help: ArgumentHelp("Print the merchant's receipt (isMerchantReceiptEnabled).", valueName: "true|false"))
    var merchantReceipt: String?
    @Option(help: ArgumentHelp("Print receipts at all (isPrintingReceiptEnabled).", valueName: "true|false"))
    var printing: String?
    @Option(help: ArgumentHelp("The logo on the merchant's receipt (printLogoOnMerchantReceipt).", valueName: "true|false"))
    var logo: String?
    @Option(help: ArgumentHelp("The VAT number on the merchant's receipt (printVATOnMerchantReceipt).", valueName: "true|false"))
    var vat: String?
    @Option(help: ArgumentHelp("The order code as a barcode (isBarcodeEnabled).", valueName: "true|false"))
    var barcode: String?
    @Option(help: ArgumentHelp("The address on receipts (printAddressOnReceipt).", valueName: "true|false"))
    var address: String?
    @Option(help: ArgumentHelp("The business description (businessDescriptionEnabled): false, true, or where the name comes from: \(BusinessDescriptionType.names) (businessDescriptionType; turns it on).",
                               valueName: "true|false|type"))
    var businessDescription: String?

    init() {}

    func draft() -> RequestDraft {
        var r = TypedTextReader()
        var p = PrintingSettings()
        p.customerReceipt = r.bool(customerReceipt, field: "isCustomerReceiptEnabled", label: "Customer receipt")
        p.merchantReceipt = r.bool(merchantReceipt, field: "isMerchantReceiptEnabled", label: "Merchant receipt")
        p.printing = r.bool(printing, field: "isPrintingReceiptEnabled", label: "Printing")
        p.logo = r.bool(logo, field: "printLogoOnMerchantReceipt", label: "Logo")
        p.vat = r.bool(vat, field: "printVATOnMerchantReceipt", label: "VAT")
        p.barcode = r.bool(barcode, field: "isBarcodeEnabled", label: "Barcode")
        p.address = r.bool(address, field: "printAddressOnReceipt", label: "Address")
        if let text = businessDescription {
            let t = text.trimmingWhitespace()
            if let type = BusinessDescriptionType.allCases.first(where: { $0.rawValue.lowercased() == t.lowercased() }) {
                p.businessDescription = true
                p.businessDescriptionType = type
            } else {
                var inner = TypedTextReader()
                p.businessDescription = inner.bool(text, field: "businessDescriptionEnabled", label: "Business description")
                if p.businessDescription == nil {
                    r.missing("businessDescriptionEnabled",
                              "Business description: '\(text)' is not true, false or one of \(BusinessDescriptionType.names).")
                }
            }
        }
        // A setting typed but unreadable still counts as given (no "say which setting" on top).
        if !r.unreadable.isEmpty { r.unreadable.insert("set_printing_settings") }
        return RequestDraft(request: .setPrintingSettings(p), errors: r.errors, unreadable: r.unreadable)
    }
}

// MARK: - Activation

/// `activatePos`: `--activation-code` (from `till activation-code`) or `--api-key` with `--api-secret`,
/// `--source-id`, `--pin-code`, and the iOS sample's flags, each `true|false`.
struct ActivationOptions: RequestOptionGroup {
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

    @Option(help: ArgumentHelp("Allow MOTO (phone orders) on the terminal (activateMoto).", valueName: "true|false")) var activateMoto: String?
    @Option(help: ArgumentHelp("Allow QR code payments (activateQRCodes).", valueName: "true|false")) var activateQrCodes: String?
    @Option(help: ArgumentHelp("Forbid typing the amount on the terminal (disableManualAmountEntry).", valueName: "true|false"))
    var disableManualAmountEntry: String?
    @Option(help: ArgumentHelp("Lock refunds on the terminal (lockRefund).", valueName: "true|false")) var lockRefund: String?
    @Option(help: ArgumentHelp("Lock the transactions list (lockTransactionsList).", valueName: "true|false")) var lockTransactionsList: String?
    @Option(help: ArgumentHelp("Lock MOTO (lockMoto).", valueName: "true|false")) var lockMoto: String?
    @Option(help: ArgumentHelp("Lock pre-authorisations (lockPreauth).", valueName: "true|false")) var lockPreauth: String?
    @Option(help: ArgumentHelp("Lock captures (lockCapture).", valueName: "true|false")) var lockCapture: String?
    @Option(help: ArgumentHelp("Refunds need the card presented (forceCardPresentmentForRefund).", valueName: "true|false"))
    var forceCardPresentmentForRefund: String?

    init() {}

    /// The environment variables the secrets may come from instead of the command line (which `ps` shows).
    static let apiKeyVariable = "TILL_API_KEY", apiSecretVariable = "TILL_API_SECRET", pinCodeVariable = "TILL_PIN_CODE"

    func draft() -> RequestDraft { draft(environment: .process) }

    func draft(environment: Environment) -> RequestDraft {
        func env(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let apiKey = self.apiKey ?? env(ActivationOptions.apiKeyVariable)
        let apiSecret = self.apiSecret ?? env(ActivationOptions.apiSecretVariable)
        let pinCode = self.pinCode ?? env(ActivationOptions.pinCodeVariable)
        var r = TypedTextReader()
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

/// An action with no fields of its own (`getPrintingSettings`, `sendLogs`, `getActivationCode`).
struct PlainRequestSource: RequestDraftSource {
    var request: Request
    func draft() -> RequestDraft { RequestDraft(request: request) }
}
