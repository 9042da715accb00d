// The vendor's sample apps' administrative actions (issue 12): reprint, printing settings, send logs,
// activation. Field names exactly as the iOS sample (VivaPayments/mobile-ios-cardterminal-interapp-sample)
// sends them; the order is the sample's where it has one.

/// `reprintTransaction`: `orderCode` of the transaction whose receipt to print again. The iOS sample
/// can send it without one ("send without transaction order id"): the terminal reprints its latest.
public struct ReprintRequest: Sendable, Hashable, Codable {
    public var orderCode: String?
    public init(orderCode: String? = nil) { self.orderCode = orderCode }
}

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

/// `activatePos`: by `activationCode` (from `getActivationCode`), or by `apikey` and `apiSecret`;
/// `sourceID`, `pinCode` and the sample's flags. The API key, secret and PIN are secrets (`Secrets`).
public struct ActivationRequest: Sendable, Hashable, Codable {
    public var apiKey: String?
    public var apiSecret: String?
    public var activationCode: String?
    public var sourceId: String?
    public var pinCode: String?
    /// The sample's true/false flags by protocol name (`activateMoto`, `lockRefund`, …); see `flagNames`.
    public var flags: [String: Bool]

    public init(apiKey: String? = nil, apiSecret: String? = nil, activationCode: String? = nil, sourceId: String? = nil,
                pinCode: String? = nil, flags: [String: Bool] = [:]) {
        self.apiKey = apiKey; self.apiSecret = apiSecret; self.activationCode = activationCode
        self.sourceId = sourceId; self.pinCode = pinCode; self.flags = flags
    }

    /// The iOS sample's flags, in the order it sends them.
    public static let flagNames = ["activateMoto", "activateQRCodes", "disableManualAmountEntry", "lockRefund",
                                   "lockTransactionsList", "lockMoto", "lockPreauth", "lockCapture",
                                   "forceCardPresentmentForRefund"]

    /// The fields given, in the sample's order.
    public var fields: [(String, String)] {
        var f: [(String, String)] = []
        func add(_ k: String, _ v: String?) { if let v { f.append((k, v)) } }
        add("apikey", apiKey); add("apiSecret", apiSecret); add("activationCode", activationCode)
        add("sourceID", sourceId); add("pinCode", pinCode)
        for n in ActivationRequest.flagNames { if let v = flags[n] { f.append((n, v ? "true" : "false")) } }
        return f
    }
}
