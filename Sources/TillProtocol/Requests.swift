extension Action {
    /// Whether the action moves money (or may): sale, pre-auth, refund, capture.
    public var movesMoney: Bool { declaration.movesMoney }

    /// How an approved answer counts in a shift report.
    public var reportRole: ReportRole { declaration.reportRole }

    /// The terminal's own settings and set-up (printing, logs, activation, reprint): never money, never a batch.
    public var isAdministrative: Bool { declaration.isAdministrative }

    /// Facts the declaration states (`ActionDeclaration`): asked here so no caller names an action for them.
    public var startsPayment: Bool { declaration.startsPayment }
    public var findsEarlierPayment: EarlierPayment? { declaration.findsEarlierPayment }
    public var amountMayBeLess: Bool { declaration.amountMayBeLess }
    public var refundable: Bool { declaration.refundable }
    public var capturable: Bool { declaration.capturable }
    public var takesTip: Bool { declaration.takesTip }
    public var isLookUp: Bool { declaration.isLookUp }
    public var aboutAnotherRequest: Bool { declaration.aboutAnotherRequest }
    public var recovery: RecoveryRule { declaration.recovery }

    /// The action's words for a cashier.
    public var words: ActionWords { declaration.words }

    /// The wire names' bytes, for `init(exactBytes:)`.
    private static let wireNames: [(Action, [UInt8])] = allCases.map { ($0, Array($0.rawValue.utf8)) }

    /// Reads an action name exactly as the pages spell it, without building strings (the decoder's hot path).
    public init?(exact text: String) {
        var copy = text
        guard let a = copy.withUTF8({ Action(exactBytes: $0) }) else { return nil }
        self = a
    }

    /// `init(exact:)` on the bytes of a text.
    init?(exactBytes p: UnsafeBufferPointer<UInt8>) {
        for (a, name) in Action.wireNames where name.count == p.count && name.elementsEqual(p) {
            self = a
            return
        }
        return nil
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

extension TransactionFinder {
    /// The key as a cashier reads it after a summary: `, short code 1091139195`, `, STAN 833121`; empty for none.
    public var summary: String {
        switch key {
        case .shortOrderCode(let s)?: return ", short code " + s
        case .orderCode(let o)?: return ", order " + o
        case .referenceNumber(let r)?: return ", STAN " + r
        case nil: return ""
        }
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

extension Request {
    /// Whether the request carries `merchantKey`. The iOS sample builds activation requests
    /// (`activatePos`, `getActivationCode`) without it: the terminal is not a merchant's yet.
    public var sendsMerchantKey: Bool { action.declaration.sendsMerchantKey }

    /// The amount and tip the request asks for, as sent (the journal records them beside the request).
    public var asked: AskedMoney { action.declaration.asked(of: self) }

    /// The client transaction id the request carries, if its action has one.
    public var clientTransactionId: String? { action.declaration.clientTransactionId(of: self) }

    /// The action's own fields, in the order the pages show them (nil ones left out).
    public var fields: [(String, String)] { action.declaration.wireFields(of: self) }

    /// A one-line description for a cashier: `Sale € 12.00 + tip 2.00`, `Reprint the latest receipt`.
    public func summary(_ context: SummaryContext) -> String { action.declaration.summary(of: self, context) ?? "" }
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
