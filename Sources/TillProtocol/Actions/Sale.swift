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


/// `sale` (sale.txt, overview-sale-cancel.txt).
public enum SaleAction: ActionDeclaration {
    public static let words = ActionWords(name: "sale", answerLabel: "sale", approved: "Paid: the card was charged.",
                                          done: ("APPROVED", "SALE APPROVED"), notDone: "NOT CHARGED")
    public static let reportRole = ReportRole.sale
    public static let startsPayment = true
    public static let refundable = true
    public static let takesTip = true
    public static let requestCase = RequestCase<SaleRequest>(.sale, { .sale($0) }) { if case .sale(let f) = $0 { f } else { nil } }
    public static func clientTransactionId(_ s: SaleRequest) -> String? { s.clientTransactionId }
    public static func asked(_ s: SaleRequest) -> AskedMoney { AskedMoney(amount: s.amount, tip: s.tipAmount) }

    public static func write(_ s: SaleRequest, to w: inout FieldWriter) {
        w.add("amount", s.amount); w.add("tipAmount", s.tipAmount); w.add("clientTransactionId", s.clientTransactionId)
        w.add("withInstallments", s.withInstallments); w.add("preferredInstallments", s.preferredInstallments)
        w.add("paymentMethod", s.paymentMethod?.rawValue)
        if let i = s.isv {
            w.add("ISV_clientId", i.clientId); w.add("ISV_amount", i.amount); w.add("ISV_clientSecret", i.clientSecret)
            w.add("ISV_sourceCode", i.sourceCode); w.add("ISV_merchantId", i.merchantId); w.add("ISV_currencyCode", i.currencyCode)
            w.add("ISV_merchantSourceCode", i.merchantSourceCode); w.add("ISV_customerTrns", i.customerTrns)
            w.add("ISV_clientTransactionId", i.clientTransactionId)
        }
        w.add("show_receipt", s.showReceipt); w.add("show_rating", s.showRating)
        w.add("show_transaction_result", s.showTransactionResult); w.add("protocol", s.protocolName)
    }

    public static func read(_ r: RequestReader) throws(RequestParseError) -> SaleRequest {
        let amount = try r.requiredMoney("amount")
        let isv = ISVFields(amount: try r.money("ISV_amount"), clientId: r.text("ISV_clientId"), clientSecret: r.text("ISV_clientSecret"),
                            sourceCode: r.text("ISV_sourceCode"), merchantId: r.text("ISV_merchantId"),
                            merchantSourceCode: r.text("ISV_merchantSourceCode"), customerTrns: r.text("ISV_customerTrns"),
                            clientTransactionId: r.text("ISV_clientTransactionId"), currencyCode: r.text("ISV_currencyCode"))
        return SaleRequest(amount: amount, tipAmount: try r.money("tipAmount"), clientTransactionId: r.text("clientTransactionId"),
                           withInstallments: try r.bool("withInstallments"), preferredInstallments: try r.int("preferredInstallments"),
                           paymentMethod: try r.paymentMethod(), showReceipt: try r.bool("show_receipt"), showRating: try r.bool("show_rating"),
                           showTransactionResult: try r.bool("show_transaction_result"),
                           isv: isv.isEmpty ? nil : isv, protocolName: r.text("protocol"))
    }

    public static func check(_ s: SaleRequest, _ c: inout RequestChecker) {
        c.amount("amount", s.amount, label: "The amount", required: true)
        if let tip = s.tipAmount {
            if tip.cents < 0 { c.fail("tipAmount", "The tip cannot be negative.") }
            else if tip > s.amount { c.fail("tipAmount", "The tip (\(tip)) is more than the amount (\(s.amount)).") }
            // Included: the amount holds the tip, so the rule is on the goods ("--amount 0 --tip 5" must not charge
            // 5.00 as a tip on nothing, nor "--amount 1 --tip 100" 101.00).
            else if c.tipStyle == .included, tip > s.amount - tip {
                c.fail("tipAmount", "The tip (\(tip)) is more than the amount (\(s.amount - tip)).")
            }
            // The tip is added on top of the amount: the total must fit too (included: the amount is the total).
            else if c.tipStyle == .onTop, s.amount.cents > 0, s.amount.cents <= Money.maximumCents,
                    s.amount.cents + tip.cents > Money.maximumCents {
                c.fail("amount", "The amount plus the tip (\(s.amount + tip)) is more than the largest amount the terminal takes (\(Money.maximum)).")
            }
        }
        c.clientId("clientTransactionId", s.clientTransactionId)
        if let n = s.preferredInstallments {
            if s.withInstallments != true { c.fail("preferredInstallments", "Installments need withInstallments=true.") }
            if !Limits.installments.contains(n) {
                c.fail("preferredInstallments", "Installments must be from \(Limits.installments.lowerBound) to \(Limits.installments.upperBound) (0 lets the cardholder choose).")
            }
        } else if s.withInstallments == true {
            c.fail("preferredInstallments", "Say how many installments (0 lets the cardholder choose).")
        }
        if let i = s.isv { checkISV(i, sale: s, &c) }
        c.text("protocol", s.protocolName, label: "The protocol")
    }

    static func checkISV(_ i: ISVFields, sale s: SaleRequest, _ c: inout RequestChecker) {
        if i.clientId != nil {
            if i.amount == nil { c.fail("ISV_amount", "An ISV client id needs the ISV amount too.") }
            if i.clientSecret == nil { c.fail("ISV_clientSecret", "An ISV client id needs the ISV client secret too.") }
        }
        if let a = i.amount {
            if a.cents < 0 { c.fail("ISV_amount", "The ISV amount cannot be negative.") }
            else if a > s.amount { c.fail("ISV_amount", "The ISV fee (\(a)) is more than the amount (\(s.amount)).") }
            if i.clientId == nil { c.fail("ISV_clientId", "An ISV amount needs the ISV client id.") }
        }
        if i.clientSecret != nil && i.clientId == nil { c.fail("ISV_clientId", "An ISV client secret needs the ISV client id.") }
        c.text("ISV_clientId", i.clientId, label: "The ISV client id", max: 256)
        c.text("ISV_clientSecret", i.clientSecret, label: "The ISV client secret", max: 256)
        c.text("ISV_sourceCode", i.sourceCode, label: "The ISV source code")
        c.text("ISV_merchantId", i.merchantId, label: "The ISV merchant id")
        c.text("ISV_merchantSourceCode", i.merchantSourceCode, label: "The ISV merchant source code")
        c.text("ISV_customerTrns", i.customerTrns, label: "The ISV customer description", max: 256)
        c.clientId("ISV_clientTransactionId", i.clientTransactionId)
        if let code = i.currencyCode {
            let u = Array(code.utf8)
            let digits = u.count == 3 && u.allSatisfy { $0 >= 48 && $0 <= 57 }
            let letters = u.count == 3 && u.allSatisfy { ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) }
            if !digits && !letters {
                c.fail("ISV_currencyCode", "The ISV currency code must be an ISO 4217 code: three digits like 978, or three letters like EUR (got '\(code)').")
            }
            if i.merchantId == nil {
                c.fail("ISV_currencyCode", "The ISV currency code goes with a merchant switch: give the ISV merchant id too.")
            }
        }
    }

    public static func refusalEcho(_ s: SaleRequest, to w: inout FieldWriter) {
        w.add("clientTransactionId", s.clientTransactionId ?? "")
        w.add("amount", String(s.amount.cents)); w.add("tipAmount", String(s.tipAmount?.cents ?? 0))
    }

    /// As the terminal reads the amount: the goods with the tip on top, or the total with the tip in it.
    public static func summary(_ s: SaleRequest, _ c: SummaryContext) -> String {
        var t = "Sale " + c.money(s.amount)
        if let tip = s.tipAmount, tip.cents > 0 { t += (c.tipStyle == .included ? " incl. tip " : " + tip ") + tip.formatted() }
        if let m = s.paymentMethod, m != .cardPresent { t += " by " + m.rawValue }
        return t
    }
}
