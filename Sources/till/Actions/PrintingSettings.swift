import ArgumentParser
import TillModel
import TillProtocol

/// `till printing-settings get|set` and `till url printing-settings get|set`.
enum PrintingSettingsCommands: ActionCommands {
    static var urlCommand: any ParsableCommand.Type { URLPrintingSettingsCommand.self }
    static var headlessCommand: any ParsableCommand.Type { PrintingSettingsCommand.self }
}

struct URLPrintingSettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "printing-settings", abstract: "Read (get: getPrintingSettings) or change (set: set_printing_settings) the terminal's printing settings.",
        subcommands: [PrintingSettingsGetOptions.urlCommand, PrintingSettingsOptions.urlCommand])
}

struct PrintingSettingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "printing-settings", abstract: "Read or change the terminal's printing settings.",
        subcommands: [PrintingSettingsGetOptions.headlessCommand, PrintingSettingsOptions.headlessCommand])
}

/// `get`: no options.
struct PrintingSettingsGetOptions: FieldlessActionCommandLine {
    static let request = Request.getPrintingSettings
    static let help = ActionHelp("get", url: "action=getPrintingSettings", abstract: "Show the terminal's printing settings.")
    init() {}
}

/// `set`: each setting `true|false`; `--business-description` also takes a source of the name.
struct PrintingSettingsOptions: ActionCommandLine {
    static let help = ActionHelp(
        "set", title: "Printing settings", url: "action=set_printing_settings with the settings given (the others are left as they are).",
        abstract: "Change the terminal's printing settings (only those given).",
        discussion: "Example: till printing-settings set --customer-receipt false --logo true\n" + adminExitCodesHelp)

    @Option(help: ArgumentHelp("Print the customer's receipt (isCustomerReceiptEnabled).", valueName: boolValueName))
    var customerReceipt: String?
    @Option(help: ArgumentHelp("Print the merchant's receipt (isMerchantReceiptEnabled).", valueName: boolValueName))
    var merchantReceipt: String?
    @Option(help: ArgumentHelp("Print receipts at all (isPrintingReceiptEnabled).", valueName: boolValueName))
    var printing: String?
    @Option(help: ArgumentHelp("The logo on the merchant's receipt (printLogoOnMerchantReceipt).", valueName: boolValueName))
    var logo: String?
    @Option(help: ArgumentHelp("The VAT number on the merchant's receipt (printVATOnMerchantReceipt).", valueName: boolValueName))
    var vat: String?
    @Option(help: ArgumentHelp("The order code as a barcode (isBarcodeEnabled).", valueName: boolValueName))
    var barcode: String?
    @Option(help: ArgumentHelp("The address on receipts (printAddressOnReceipt).", valueName: boolValueName))
    var address: String?
    @Option(help: ArgumentHelp("The business description (businessDescriptionEnabled): false, true, or where the name comes from: \(BusinessDescriptionType.names) (businessDescriptionType; turns it on).",
                               valueName: "true|false|type"))
    var businessDescription: String?

    init() {}

    func draft() -> RequestDraft {
        var r = TypedText()
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
                var inner = TypedText()
                p.businessDescription = inner.bool(text, field: "businessDescriptionEnabled", label: "Business description")
                if p.businessDescription == nil {
                    r.fail("businessDescriptionEnabled",
                              "Business description: '\(text)' is not true, false or one of \(BusinessDescriptionType.names).")
                }
            }
        }
        // A setting typed but unreadable still counts as given (no "say which setting" on top).
        if !r.unreadable.isEmpty { r.unreadable.insert("set_printing_settings") }
        return RequestDraft(request: .setPrintingSettings(p), errors: r.errors, unreadable: r.unreadable)
    }
}
