// The vendor's sample apps' administrative actions: field names exactly as the iOS sample
// (VivaPayments/mobile-ios-cardterminal-interapp-sample) sends them; the order is the sample's where it has one.

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

/// `getActivationCode`: sent without `merchantKey` (the terminal is not a merchant's yet).
public enum GetActivationCodeAction: ActionDeclaration {
    public static let words = ActionWords(name: "activation code", answerLabel: "activation code")
    public static var isAdministrative: Bool { true }
    public static var sendsMerchantKey: Bool { false }
    public static let requestCase = RequestCase(Request.getActivationCode)
    public static func summary(_ f: NoFields, _ c: SummaryContext) -> String { "Get an activation code" }
}

/// `activatePos`: by activation code, or API key and secret; without `merchantKey`, as the sample.
public enum ActivatePosAction: ActionDeclaration {
    public static let words = ActionWords(name: "activate", answerLabel: "activation of the terminal")
    public static var isAdministrative: Bool { true }
    public static var sendsMerchantKey: Bool { false }
    public static let requestCase = RequestCase<ActivationRequest>(.activatePos, { .activatePos($0) }) { if case .activatePos(let f) = $0 { f } else { nil } }
    public static func write(_ a: ActivationRequest, to w: inout FieldWriter) { w.add(a.fields) }

    public static func read(_ r: RequestReader) throws(RequestParseError) -> ActivationRequest {
        var flags: [String: Bool] = [:]
        for n in ActivationRequest.flagNames { if let v = try r.bool(n) { flags[n] = v } }
        return ActivationRequest(apiKey: r.text("apikey"), apiSecret: r.text("apiSecret"), activationCode: r.text("activationCode"),
                                 sourceId: r.text("sourceID"), pinCode: r.text("pinCode"), flags: flags)
    }

    public static func check(_ a: ActivationRequest, _ c: inout RequestChecker) {
        c.text("apikey", a.apiKey, label: "The API key", max: 256)
        c.text("apiSecret", a.apiSecret, label: "The API secret", max: 256)
        c.text("activationCode", a.activationCode, label: "The activation code")
        c.text("sourceID", a.sourceId, label: "The source id")
        if a.apiKey != nil && a.apiSecret == nil { c.fail("apiSecret", "An API key needs its API secret too.") }
        if a.apiSecret != nil && a.apiKey == nil { c.fail("apikey", "An API secret needs its API key too.") }
        if a.activationCode == nil && a.apiKey == nil && a.apiSecret == nil {
            c.fail("activationCode", "Say how to activate: give the activation code (from getActivationCode), or the API key and secret.")
        }
        if let pin = a.pinCode, !((4...8).contains(pin.utf8.count) && pin.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }) {
            // Never echo a PIN back: it is a secret.
            c.fail("pinCode", "The PIN must be 4 to 8 digits.")
        }
        for k in a.flags.keys where !ActivationRequest.flagNames.contains(k) {
            c.fail(k, "'\(k)' is not an activation setting (known: \(ActivationRequest.flagNames.joined(separator: ", "))).")
        }
    }

    public static func summary(_ f: ActivationRequest, _ c: SummaryContext) -> String { "Activate the terminal" }
}
