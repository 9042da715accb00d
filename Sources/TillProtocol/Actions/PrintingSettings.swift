// The vendor's sample apps' administrative actions: field names exactly as the iOS sample
// (VivaPayments/mobile-ios-cardterminal-interapp-sample) sends them; the order is the sample's where it has one.

/// What the merchant's name on a receipt is taken from (`businessDescriptionType`).
public enum BusinessDescriptionType: String, Sendable, Hashable, Codable, CaseIterable {
    case businessName, tradeName, storeName

    public static var names: String { allCases.map(\.rawValue).joined(separator: "|") }
}

/// `set_printing_settings` (and the answer of `getPrintingSettings`): every setting optional, only
/// those given are sent (the terminal keeps the others).
public struct PrintingSettings: Sendable, Hashable, Codable {
    public var customerReceipt: Bool?
    public var merchantReceipt: Bool?
    public var printing: Bool?
    public var logo: Bool?
    public var vat: Bool?
    public var barcode: Bool?
    public var address: Bool?
    public var businessDescription: Bool?
    public var businessDescriptionType: BusinessDescriptionType?

    public init(customerReceipt: Bool? = nil, merchantReceipt: Bool? = nil, printing: Bool? = nil, logo: Bool? = nil,
                vat: Bool? = nil, barcode: Bool? = nil, address: Bool? = nil, businessDescription: Bool? = nil,
                businessDescriptionType: BusinessDescriptionType? = nil) {
        self.customerReceipt = customerReceipt; self.merchantReceipt = merchantReceipt; self.printing = printing
        self.logo = logo; self.vat = vat; self.barcode = barcode; self.address = address
        self.businessDescription = businessDescription; self.businessDescriptionType = businessDescriptionType
    }

    /// The protocol names of the switches, in the order they are sent, with their key paths.
    public static var switches: [(name: String, path: WritableKeyPath<PrintingSettings, Bool?>)] { [
        ("isCustomerReceiptEnabled", \.customerReceipt), ("isMerchantReceiptEnabled", \.merchantReceipt),
        ("isPrintingReceiptEnabled", \.printing), ("printLogoOnMerchantReceipt", \.logo),
        ("printVATOnMerchantReceipt", \.vat), ("isBarcodeEnabled", \.barcode), ("printAddressOnReceipt", \.address),
        ("businessDescriptionEnabled", \.businessDescription),
    ] }
    public static let typeField = "businessDescriptionType"

    /// Every field name, in order.
    public static var fieldNames: [String] { switches.map(\.name) + [typeField] }

    public var isEmpty: Bool { self == PrintingSettings() }

    /// The fields given, in order.
    public var fields: [(String, String)] {
        var f: [(String, String)] = []
        for (name, path) in PrintingSettings.switches { if let v = self[keyPath: path] { f.append((name, v ? "true" : "false")) } }
        if let t = businessDescriptionType { f.append((PrintingSettings.typeField, t.rawValue)) }
        return f
    }

    /// These settings with `other`'s given ones applied on top.
    public func applying(_ other: PrintingSettings) -> PrintingSettings {
        var s = self
        for (_, path) in PrintingSettings.switches { if let v = other[keyPath: path] { s[keyPath: path] = v } }
        if let t = other.businessDescriptionType { s.businessDescriptionType = t }
        return s
    }
}

/// `getPrintingSettings`: the terminal answers with its settings (`PrintingSettings.fields`).
public enum GetPrintingSettingsAction: ActionDeclaration {
    public static let words = ActionWords(name: "print settings", answerLabel: "printing settings")
    public static var isAdministrative: Bool { true }
    public static let requestCase = RequestCase(Request.getPrintingSettings)
    public static func summary(_ f: NoFields, _ c: SummaryContext) -> String { "Printing settings" }
}

/// `set_printing_settings`: only the settings given are sent; the terminal keeps the others.
public enum SetPrintingSettingsAction: ActionDeclaration {
    public static let words = ActionWords(name: "set printing", answerLabel: "printing settings change")
    public static var isAdministrative: Bool { true }
    public static let requestCase = RequestCase<PrintingSettings>(.setPrintingSettings, { .setPrintingSettings($0) }) { if case .setPrintingSettings(let f) = $0 { f } else { nil } }
    public static func write(_ p: PrintingSettings, to w: inout FieldWriter) { w.add(p.fields) }

    public static func read(_ r: RequestReader) throws(RequestParseError) -> PrintingSettings {
        var p = PrintingSettings()
        for (name, path) in PrintingSettings.switches { p[keyPath: path] = try r.bool(name) }
        if let t = r.text(PrintingSettings.typeField) {
            guard let type = BusinessDescriptionType(rawValue: t) else {
                throw RequestParseError(field: PrintingSettings.typeField,
                                        "businessDescriptionType must be one of \(BusinessDescriptionType.names): '\(t)'")
            }
            p.businessDescriptionType = type
        }
        return p
    }

    public static func check(_ p: PrintingSettings, _ c: inout RequestChecker) {
        if p.isEmpty {
            c.fail("set_printing_settings", "Say which printing setting to change (customer receipt, merchant receipt, printing, logo, VAT, barcode, address or business description).")
        }
    }

    public static func summary(_ f: PrintingSettings, _ c: SummaryContext) -> String { "Change printing settings" }
}
