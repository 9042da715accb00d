/// The actions the card-terminal app understands.
public enum Action: String, CaseIterable, Sendable, Codable, Hashable {
    case sale
    case preAuth = "pre_auth"
    case cancel
    case abort
    case batch
    case capturePreAuth = "capture_pre_auth"
    case transactionDetails
    // The vendor's sample apps' other actions (issue 12).
    case reprintTransaction
    case getPrintingSettings
    case setPrintingSettings = "set_printing_settings"
    case sendLogs
    case getActivationCode
    case activatePos

    /// Whether the action moves money (or may): sale, pre-auth, refund, capture.
    public var movesMoney: Bool {
        switch self {
        case .sale, .preAuth, .cancel, .capturePreAuth: return true
        default: return false
        }
    }

    /// The terminal's own settings and set-up (printing, logs, activation, reprint): never money,
    /// never a batch.
    public var isAdministrative: Bool {
        switch self {
        case .reprintTransaction, .getPrintingSettings, .setPrintingSettings, .sendLogs, .getActivationCode, .activatePos: return true
        default: return false
        }
    }

    /// Reads an action name exactly as the pages spell it, without building strings (the decoder's hot path).
    public init?(exact text: String) {
        var copy = text
        guard let a = copy.withUTF8({ Action(exactBytes: $0) }) else { return nil }
        self = a
    }

    /// `init(exact:)` on the bytes of a text.
    init?(exactBytes p: UnsafeBufferPointer<UInt8>) {
        let a: Action? = {
            switch p.count {
            case 4: return KnownField.eq(p, "sale") ? .sale : nil
            case 5: return KnownField.eq(p, "abort") ? .abort : KnownField.eq(p, "batch") ? .batch : nil
            case 6: return KnownField.eq(p, "cancel") ? .cancel : nil
            case 8: return KnownField.eq(p, "pre_auth") ? .preAuth : KnownField.eq(p, "sendLogs") ? .sendLogs : nil
            case 11: return KnownField.eq(p, "activatePos") ? .activatePos : nil
            case 16: return KnownField.eq(p, "capture_pre_auth") ? .capturePreAuth : nil
            case 17: return KnownField.eq(p, "getActivationCode") ? .getActivationCode : nil
            case 18: return KnownField.eq(p, "transactionDetails") ? .transactionDetails
                : KnownField.eq(p, "reprintTransaction") ? .reprintTransaction : nil
            case 19: return KnownField.eq(p, "getPrintingSettings") ? .getPrintingSettings : nil
            case 21: return KnownField.eq(p, "set_printing_settings") ? .setPrintingSettings : nil
            default: return nil
            }
        }()
        guard let a else { return nil }
        self = a
    }

    /// Reads an action name leniently: terminals send `ABORT` in upper case.
    public init?(lenient text: String) {
        if let a = Action(rawValue: text) { self = a; return }
        let lower = text.lowercased()
        if let a = Action.allCases.first(where: { $0.rawValue.lowercased() == lower }) { self = a; return }
        return nil
    }
}

/// The four fields every request starts with, in this order.
public struct Caller: Sendable, Hashable, Codable {
    /// The scheme (or full URI) the terminal answers to, e.g. `interapp-callback`.
    public var callback: String
    public var merchantKey: String
    public var appId: String
    public init(callback: String, merchantKey: String, appId: String) {
        self.callback = callback; self.merchantKey = merchantKey; self.appId = appId
    }
}

/// Fields only ISV partners send with a sale.
public struct ISVFields: Sendable, Hashable, Codable {
    public var amount: Money?
    public var clientId: String?
    public var clientSecret: String?
    public var sourceCode: String?
    public var merchantId: String?
    public var merchantSourceCode: String?
    public var customerTrns: String?
    public var clientTransactionId: String?
    /// `ISV_currencyCode`: the currency of the merchant switched to (the Android sample sends it with
    /// `ISV_merchantId`), ISO 4217: three digits (`978`) or three letters (`EUR`).
    public var currencyCode: String?
    public init(amount: Money? = nil, clientId: String? = nil, clientSecret: String? = nil, sourceCode: String? = nil,
                merchantId: String? = nil, merchantSourceCode: String? = nil, customerTrns: String? = nil,
                clientTransactionId: String? = nil, currencyCode: String? = nil) {
        self.amount = amount; self.clientId = clientId; self.clientSecret = clientSecret; self.sourceCode = sourceCode
        self.merchantId = merchantId; self.merchantSourceCode = merchantSourceCode
        self.customerTrns = customerTrns; self.clientTransactionId = clientTransactionId; self.currencyCode = currencyCode
    }
    var isEmpty: Bool { self == ISVFields() }
}

/// How the customer pays (`paymentMethod`, the vendor's samples: sale and pre-auth). Absent: card present.
public enum PaymentMethod: String, Sendable, Hashable, Codable, CaseIterable {
    case cardPresent = "CardPresent"
    /// Mail or telephone order: the card number is keyed in, no card present.
    case moto = "MOTO"
    case qrDefault = "QrDefault"
    case payconiq = "Payconiq"
    case aliPay = "AliPay"
    case paypal = "Paypal"
    case klarna = "Klarna"

    /// Reads a method as typed: its protocol name in any case (`moto`, `CardPresent`, `card-present`).
    public init?(typed text: String) {
        let t = text.trimmingWhitespace().lowercased().filter { $0 != "-" && $0 != "_" && $0 != " " }
        guard let m = PaymentMethod.allCases.first(where: { $0.rawValue.lowercased() == t }) else { return nil }
        self = m
    }

    /// The names, as `--payment-method` lists them.
    public static var names: String { allCases.map(\.rawValue).joined(separator: "|") }
}

public struct SaleRequest: Sendable, Hashable, Codable {
    public var amount: Money
    public var tipAmount: Money?
    public var clientTransactionId: String?
    public var withInstallments: Bool?
    public var preferredInstallments: Int?
    public var paymentMethod: PaymentMethod?
    public var showReceipt: Bool?
    public var showRating: Bool?
    public var showTransactionResult: Bool?
    public var isv: ISVFields?
    /// The `protocol` field; the pages say to always pass `int_default`.
    public var protocolName: String?
    public init(amount: Money, tipAmount: Money? = nil, clientTransactionId: String? = nil,
                withInstallments: Bool? = nil, preferredInstallments: Int? = nil, paymentMethod: PaymentMethod? = nil,
                showReceipt: Bool? = nil, showRating: Bool? = nil, showTransactionResult: Bool? = nil,
                isv: ISVFields? = nil, protocolName: String? = nil) {
        self.amount = amount; self.tipAmount = tipAmount; self.clientTransactionId = clientTransactionId
        self.withInstallments = withInstallments; self.preferredInstallments = preferredInstallments
        self.paymentMethod = paymentMethod
        self.showReceipt = showReceipt; self.showRating = showRating; self.showTransactionResult = showTransactionResult
        self.isv = isv; self.protocolName = protocolName
    }

    /// `withInstallments` and `preferredInstallments` for N instalments as the vendor's code sends them
    /// (sale.txt:77-83): `true` and N for more than one; one instalment is none (`false`, no N).
    /// 0 keeps the pages' meaning, "the user will be prompted" (sale.txt:28): `true` and 0. Nil: none.
    public static func installmentFields(_ n: Int?) -> (withInstallments: Bool, preferredInstallments: Int?) {
        guard let n, n != 1 else { return (false, nil) }
        return (true, n)
    }
}

public struct PreAuthRequest: Sendable, Hashable, Codable {
    public var amount: Money
    public var clientTransactionId: String?
    public var paymentMethod: PaymentMethod?
    public var showReceipt: Bool?
    public var showRating: Bool?
    public var showTransactionResult: Bool?
    public var protocolName: String?
    public init(amount: Money, clientTransactionId: String? = nil, paymentMethod: PaymentMethod? = nil, showReceipt: Bool? = nil,
                showRating: Bool? = nil, showTransactionResult: Bool? = nil, protocolName: String? = nil) {
        self.amount = amount; self.clientTransactionId = clientTransactionId; self.paymentMethod = paymentMethod
        self.showReceipt = showReceipt
        self.showRating = showRating; self.showTransactionResult = showTransactionResult; self.protocolName = protocolName
    }
}

/// How cancel/refund and capture find the original transaction.
/// Precedence (the pages'): shortOrderCode, then orderCode, then referenceNumber.
public struct TransactionFinder: Sendable, Hashable, Codable {
    public var referenceNumber: String?
    public var orderCode: String?
    public var shortOrderCode: String?
    public var txnDateFrom: String?
    public var txnDateTo: String?
    public init(referenceNumber: String? = nil, orderCode: String? = nil, shortOrderCode: String? = nil,
                txnDateFrom: String? = nil, txnDateTo: String? = nil) {
        self.referenceNumber = referenceNumber; self.orderCode = orderCode; self.shortOrderCode = shortOrderCode
        self.txnDateFrom = txnDateFrom; self.txnDateTo = txnDateTo
    }
    public var hasKey: Bool { referenceNumber != nil || orderCode != nil || shortOrderCode != nil }

    /// The one key the terminal finds the payment by, in its order: the short order code, else the order code, else
    /// the STAN (capture.txt; the simulator's `find`). A lower key beside a higher one is not read. The refund links,
    /// the refund box and every text naming the payment go by this, so they name the payment the terminal takes.
    public var key: FinderKey? {
        if let s = shortOrderCode { return .shortOrderCode(s) }
        if let o = orderCode { return .orderCode(o) }
        if let r = referenceNumber { return .referenceNumber(r) }
        return nil
    }
}

/// A key a refund or capture names its payment by (`TransactionFinder.key`).
public enum FinderKey: Sendable, Hashable {
    case shortOrderCode(String), orderCode(String), referenceNumber(String)

    /// Whether this answer is of the payment the key names.
    public func names(_ r: CallbackResponse?) -> Bool {
        switch self {
        case .shortOrderCode(let s): return r?.shortOrderCode == s
        case .orderCode(let o): return r?.orderCode == o
        case .referenceNumber(let n): return r?.referenceNumber == n
        }
    }
}

/// Cancel (same day) or refund; `amount` absent means the full amount.
public struct CancelRequest: Sendable, Hashable, Codable {
    public var amount: Money?
    public var finder: TransactionFinder
    public var showReceipt: Bool?
    public var showTransactionResult: Bool?
    public var protocolName: String?
    public init(amount: Money? = nil, finder: TransactionFinder = .init(), showReceipt: Bool? = nil,
                showTransactionResult: Bool? = nil, protocolName: String? = nil) {
        self.amount = amount; self.finder = finder; self.showReceipt = showReceipt
        self.showTransactionResult = showTransactionResult; self.protocolName = protocolName
    }
}

/// Capture of a pre-authorisation; `amount` absent means the full pre-authorised amount.
public struct CaptureRequest: Sendable, Hashable, Codable {
    public var amount: Money?
    public var finder: TransactionFinder
    public var showReceipt: Bool?
    public var showTransactionResult: Bool?
    public var protocolName: String?
    public init(amount: Money? = nil, finder: TransactionFinder = .init(), showReceipt: Bool? = nil,
                showTransactionResult: Bool? = nil, protocolName: String? = nil) {
        self.amount = amount; self.finder = finder; self.showReceipt = showReceipt
        self.showTransactionResult = showTransactionResult; self.protocolName = protocolName
    }
}

public enum BatchCommand: String, Sendable, Hashable, Codable, CaseIterable { case open, close }

public struct BatchRequest: Sendable, Hashable, Codable {
    public var command: BatchCommand
    public var batchName: String?
    /// Close only: the UUID of the batch to close.
    public var batchId: String?
    public init(command: BatchCommand, batchName: String? = nil, batchId: String? = nil) {
        self.command = command; self.batchName = batchName; self.batchId = batchId
    }
}

public struct DetailsRequest: Sendable, Hashable, Codable {
    public var clientTransactionId: String
    /// `sourceTerminalId` (the Android sample): the terminal the transaction was made on.
    public var sourceTerminalId: String?
    public init(clientTransactionId: String, sourceTerminalId: String? = nil) {
        self.clientTransactionId = clientTransactionId; self.sourceTerminalId = sourceTerminalId
    }
}

/// One typed request, whatever its action.
public enum Request: Sendable, Hashable, Codable {
    case sale(SaleRequest)
    case preAuth(PreAuthRequest)
    case cancel(CancelRequest)
    case abort
    case batch(BatchRequest)
    case capturePreAuth(CaptureRequest)
    case transactionDetails(DetailsRequest)
    /// `reprintTransaction`: print a transaction's receipt again.
    case reprint(ReprintRequest)
    /// `getPrintingSettings`.
    case getPrintingSettings
    /// `set_printing_settings`.
    case setPrintingSettings(PrintingSettings)
    /// `sendLogs`: the terminal app sends its logs to the vendor's support.
    case sendLogs
    /// `getActivationCode`.
    case getActivationCode
    /// `activatePos`: activate the terminal app (by activation code, or API key and secret).
    case activatePos(ActivationRequest)

    public var action: Action {
        switch self {
        case .sale: return .sale
        case .preAuth: return .preAuth
        case .cancel: return .cancel
        case .abort: return .abort
        case .batch: return .batch
        case .capturePreAuth: return .capturePreAuth
        case .transactionDetails: return .transactionDetails
        case .reprint: return .reprintTransaction
        case .getPrintingSettings: return .getPrintingSettings
        case .setPrintingSettings: return .setPrintingSettings
        case .sendLogs: return .sendLogs
        case .getActivationCode: return .getActivationCode
        case .activatePos: return .activatePos
        }
    }

    /// Whether the request carries `merchantKey`. The iOS sample builds activation requests
    /// (`activatePos`, `getActivationCode`) without it: the terminal is not a merchant's yet.
    public var sendsMerchantKey: Bool { action != .activatePos && action != .getActivationCode }

    /// The client transaction id the request carries, if its action has one.
    public var clientTransactionId: String? {
        switch self {
        case .sale(let s): return s.clientTransactionId
        case .preAuth(let p): return p.clientTransactionId
        case .transactionDetails(let d): return d.clientTransactionId
        default: return nil
        }
    }

    /// The action's own fields, in the order the pages show them (nil ones left out).
    public var fields: [(String, String)] {
        var f: [(String, String)] = []
        func add(_ k: String, _ v: String?) { if let v { f.append((k, v)) } }
        func add(_ k: String, _ v: Bool?) { if let v { f.append((k, v ? "true" : "false")) } }
        func add(_ k: String, _ v: Money?) { if let v { f.append((k, String(v.cents))) } }
        func add(_ k: String, _ v: Int?) { if let v { f.append((k, String(v))) } }
        func finder(_ x: TransactionFinder) {
            add("referenceNumber", x.referenceNumber); add("orderCode", x.orderCode)
            add("shortOrderCode", x.shortOrderCode); add("txnDateFrom", x.txnDateFrom); add("txnDateTo", x.txnDateTo)
        }
        switch self {
        case .sale(let s):
            add("amount", s.amount); add("tipAmount", s.tipAmount); add("clientTransactionId", s.clientTransactionId)
            add("withInstallments", s.withInstallments); add("preferredInstallments", s.preferredInstallments)
            add("paymentMethod", s.paymentMethod?.rawValue)
            if let i = s.isv {
                add("ISV_clientId", i.clientId); add("ISV_amount", i.amount); add("ISV_clientSecret", i.clientSecret)
                add("ISV_sourceCode", i.sourceCode); add("ISV_merchantId", i.merchantId); add("ISV_currencyCode", i.currencyCode)
                add("ISV_merchantSourceCode", i.merchantSourceCode); add("ISV_customerTrns", i.customerTrns)
                add("ISV_clientTransactionId", i.clientTransactionId)
            }
            add("show_receipt", s.showReceipt); add("show_rating", s.showRating)
            add("show_transaction_result", s.showTransactionResult); add("protocol", s.protocolName)
        case .preAuth(let p):
            add("amount", p.amount); add("clientTransactionId", p.clientTransactionId)
            add("paymentMethod", p.paymentMethod?.rawValue)
            add("show_receipt", p.showReceipt); add("show_rating", p.showRating)
            add("show_transaction_result", p.showTransactionResult); add("protocol", p.protocolName)
        case .cancel(let c):
            add("amount", c.amount); finder(c.finder)
            add("show_receipt", c.showReceipt); add("show_transaction_result", c.showTransactionResult)
            add("protocol", c.protocolName)
        case .capturePreAuth(let c):
            add("amount", c.amount); finder(c.finder)
            add("show_receipt", c.showReceipt); add("show_transaction_result", c.showTransactionResult)
            add("protocol", c.protocolName)
        case .abort:
            break
        case .batch(let b):
            add("command", b.command.rawValue); add("batchName", b.batchName); add("batchId", b.batchId)
        case .transactionDetails(let d):
            add("clientTransactionId", d.clientTransactionId); add("sourceTerminalId", d.sourceTerminalId)
        case .reprint(let r):
            add("orderCode", r.orderCode)
        case .getPrintingSettings, .sendLogs, .getActivationCode:
            break
        case .setPrintingSettings(let p):
            for (k, v) in p.fields { f.append((k, v)) }
        case .activatePos(let a):
            for (k, v) in a.fields { f.append((k, v)) }
        }
        return f
    }
}

/// A request with its caller: everything a request URL carries.
public struct TerminalRequest: Sendable, Hashable, Codable {
    public static let base = "vivapayclient://pay/v1"
    public var caller: Caller
    public var request: Request
    public init(caller: Caller, request: Request) { self.caller = caller; self.request = request }

    /// The request URL, every value percent-encoded:
    /// `vivapayclient://pay/v1?callback=…&merchantKey=…&appId=…&action=…&…`
    public var url: String {
        var s = TerminalRequest.base + "?callback=" + QueryCodec.encode(caller.callback)
        if request.sendsMerchantKey { s += "&merchantKey=" + QueryCodec.encode(caller.merchantKey) }
        s += "&appId=" + QueryCodec.encode(caller.appId)
        s += "&action=" + request.action.rawValue
        for (k, v) in request.fields { s += "&" + k + "=" + QueryCodec.encode(v) }
        return s
    }

    /// The URL with secrets (`merchantKey`, `ISV_clientSecret`, activation's `apikey`, `apiSecret`, `pinCode`) replaced, safe to store or show.
    public var redactedURL: String { Secrets.redact(url: url) }
}

/// Which fields are secret, and how they are hidden.
public enum Secrets {
    public static let fieldNames: Set<String> = ["merchantKey", "ISV_clientSecret", "apikey", "apiSecret", "pinCode"]
    public static let placeholder = "[redacted]"

    /// Replaces the values of secret fields in a URL's query with a placeholder.
    public static func redact(url: String) -> String {
        guard let q = url.firstIndex(of: "?") else { return url }
        let head = url[..<q]
        let parts = url[url.index(after: q)...].split(separator: "&", omittingEmptySubsequences: false)
        let redacted = parts.map { part -> String in
            let name = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first
                .map { String($0).trimmingWhitespace() } ?? ""
            return fieldNames.contains(name) ? name + "=" + QueryCodec.encode(placeholder) : String(part)
        }
        return head + "?" + redacted.joined(separator: "&")
    }
}
