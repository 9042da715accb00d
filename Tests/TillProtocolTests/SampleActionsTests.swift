import Testing
@testable import TillProtocol

// Issue 12: every action of the vendor's sample apps, and the mismatches with the pages.
// Request URLs byte for byte; field names as the iOS sample (InterAppDemo) and the Android sample send them.

private let demo = Caller(callback: "interapp-callback", merchantKey: "SG23323424EXS3", appId: "com.vivawallet.InterAppDemo")
private let head = "vivapayclient://pay/v1?callback=interapp-callback&merchantKey=SG23323424EXS3&appId=com.vivawallet.InterAppDemo"
/// The iOS sample's `activationBaseUrlString`: no merchantKey.
private let activationHead = "vivapayclient://pay/v1?callback=interapp-callback&appId=com.vivawallet.InterAppDemo"

private func request(_ r: Request) -> TerminalRequest { TerminalRequest(caller: demo, request: r) }
private func fields(_ r: Request) -> [String] { request(r).validationErrors().map(\.field) }

@Suite("The sample apps' actions: requests")
struct SampleActionRequestTests {
    @Test func reprintByOrderCodeAndLatest() throws {
        let r = request(.reprint(ReprintRequest(orderCode: "1091166300000136")))
        #expect(r.url == head + "&action=reprintTransaction&orderCode=1091166300000136")
        #expect(r.validationErrors().isEmpty)
        #expect(try TerminalRequest.parse(r.url) == r)
        // The iOS sample's "send without transaction order id".
        let latest = request(.reprint(ReprintRequest()))
        #expect(latest.url == head + "&action=reprintTransaction")
        #expect(try TerminalRequest.parse(latest.url) == latest)
        #expect(fields(.reprint(ReprintRequest(orderCode: "12ab"))) == ["orderCode"])
    }

    @Test func printingSettingsGetAndSet() throws {
        let get = request(.getPrintingSettings)
        #expect(get.url == head + "&action=getPrintingSettings")
        #expect(try TerminalRequest.parse(get.url) == get)
        let all = PrintingSettings(customerReceipt: true, merchantReceipt: false, printing: true, logo: false, vat: true,
                                   barcode: false, address: true, businessDescription: true, businessDescriptionType: .storeName)
        let set = request(.setPrintingSettings(all))
        #expect(set.url == head + "&action=set_printing_settings&isCustomerReceiptEnabled=true&isMerchantReceiptEnabled=false"
            + "&isPrintingReceiptEnabled=true&printLogoOnMerchantReceipt=false&printVATOnMerchantReceipt=true&isBarcodeEnabled=false"
            + "&printAddressOnReceipt=true&businessDescriptionEnabled=true&businessDescriptionType=storeName")
        #expect(set.validationErrors().isEmpty)
        #expect(try TerminalRequest.parse(set.url) == set)
        let one = request(.setPrintingSettings(PrintingSettings(customerReceipt: false)))
        #expect(one.url == head + "&action=set_printing_settings&isCustomerReceiptEnabled=false")
        // Nothing to set is refused in words.
        let none = request(.setPrintingSettings(PrintingSettings())).validationErrors()
        #expect(none.count == 1 && none[0].message.hasPrefix("Say which printing setting"))
    }

    @Test func sendLogs() throws {
        let r = request(.sendLogs)
        #expect(r.url == head + "&action=sendLogs")
        #expect(try TerminalRequest.parse(r.url) == r)
    }

    @Test func activationIsBuiltWithoutMerchantKeyAsTheSampleDoes() throws {
        let code = request(.getActivationCode)
        #expect(code.url == activationHead + "&action=getActivationCode")
        #expect(code.validationErrors().isEmpty)
        let a = ActivationRequest(activationCode: "12345678", sourceId: "Default", pinCode: "1234",
                                  flags: ["lockRefund": true, "activateMoto": false, "forceCardPresentmentForRefund": true])
        let r = request(.activatePos(a))
        // The sample's order (ActivationPOSViewModel.currentRequest).
        #expect(r.url == activationHead + "&action=activatePos&activationCode=12345678&sourceID=Default&pinCode=1234"
            + "&activateMoto=false&lockRefund=true&forceCardPresentmentForRefund=true")
        #expect(r.validationErrors().isEmpty)
        var back = try TerminalRequest.parse(r.url)
        back.caller.merchantKey = demo.merchantKey   // not sent: the parse reads it as empty
        #expect(back == r)
        // Even an empty merchant key is fine for activation (it is not sent).
        #expect(TerminalRequest(caller: Caller(callback: "interapp-callback", merchantKey: "", appId: "a"), request: .getActivationCode)
            .validationErrors().isEmpty)
    }

    @Test func activationSecretsAreRedactedLikeTheMerchantKey() {
        let a = ActivationRequest(apiKey: "KEY-abc", apiSecret: "SECRET-xyz", sourceId: "Default", pinCode: "9876")
        let r = request(.activatePos(a))
        #expect(r.url.contains("apikey=KEY-abc&apiSecret=SECRET-xyz"))
        let shown = r.redactedURL
        for secret in ["KEY-abc", "SECRET-xyz", "9876"] { #expect(!shown.contains(secret), "\(secret) in \(shown)") }
        #expect(shown.contains("apikey=%5Bredacted%5D&apiSecret=%5Bredacted%5D"))
        #expect(shown.contains("pinCode=%5Bredacted%5D"))
        // A bad PIN is refused without echoing it.
        let bad = request(.activatePos(ActivationRequest(activationCode: "1", pinCode: "12x4"))).validationErrors()
        #expect(bad.map(\.field) == ["pinCode"])
        #expect(!bad[0].message.contains("12x4"))
    }

    @Test func activationNeedsACodeOrKeyAndSecret() {
        #expect(fields(.activatePos(ActivationRequest())) == ["activationCode"])
        #expect(fields(.activatePos(ActivationRequest(apiKey: "k"))) == ["apiSecret"])
        #expect(fields(.activatePos(ActivationRequest(apiSecret: "s"))) == ["apikey"])
        #expect(fields(.activatePos(ActivationRequest(apiKey: "k", apiSecret: "s"))).isEmpty)
        #expect(fields(.activatePos(ActivationRequest(activationCode: "c", flags: ["lockEverything": true]))) == ["lockEverything"])
    }

    @Test func paymentMethodOnSaleAndPreAuth() throws {
        for m in PaymentMethod.allCases {
            let s = request(.sale(SaleRequest(amount: Money(cents: 1200), withInstallments: false, paymentMethod: m)))
            #expect(s.url == head + "&action=sale&amount=1200&withInstallments=false&paymentMethod=" + m.rawValue)
            #expect(try TerminalRequest.parse(s.url) == s)
            let p = request(.preAuth(PreAuthRequest(amount: Money(cents: 500), paymentMethod: m)))
            #expect(p.url == head + "&action=pre_auth&amount=500&paymentMethod=" + m.rawValue)
            #expect(try TerminalRequest.parse(p.url) == p)
        }
        // The iOS sample's names (PaymentMethod.swift).
        #expect(PaymentMethod.names == "CardPresent|MOTO|QrDefault|Payconiq|AliPay|Paypal|Klarna")
        #expect(PaymentMethod(typed: "moto") == .moto && PaymentMethod(typed: "card-present") == .cardPresent)
        #expect(PaymentMethod(typed: "cash") == nil)
    }

    @Test func isvCurrencyCodeAndSourceTerminalId() throws {
        let isv = ISVFields(amount: Money(cents: 10), clientId: "c", clientSecret: "s", merchantId: "m", currencyCode: "978")
        let s = request(.sale(SaleRequest(amount: Money(cents: 1200), withInstallments: false, isv: isv)))
        #expect(s.url == head + "&action=sale&amount=1200&withInstallments=false&ISV_clientId=c&ISV_amount=10&ISV_clientSecret=s"
            + "&ISV_merchantId=m&ISV_currencyCode=978")
        #expect(s.validationErrors().isEmpty)
        #expect(try TerminalRequest.parse(s.url) == s)
        var wrong = isv; wrong.currencyCode = "EURO"
        #expect(fields(.sale(SaleRequest(amount: Money(cents: 1200), isv: wrong))) == ["ISV_currencyCode"])
        var alone = isv; alone.merchantId = nil
        #expect(fields(.sale(SaleRequest(amount: Money(cents: 1200), isv: alone))) == ["ISV_currencyCode"])
        let d = request(.transactionDetails(DetailsRequest(clientTransactionId: "x-1", sourceTerminalId: "16016684")))
        #expect(d.url == head + "&action=transactionDetails&clientTransactionId=x-1&sourceTerminalId=16016684")
        #expect(try TerminalRequest.parse(d.url) == d)
    }
}

@Suite("Mismatches with the pages")
struct PageMismatchTests {
    /// sale.txt:28: "If the number is 0 or > max allowed number of installments then the user will be prompt".
    @Test func installmentsAboveTheMaximumAreSentAndTheTerminalWillAsk() {
        let s = SaleRequest(amount: Money(cents: 1000), withInstallments: true, preferredInstallments: 48)
        #expect(fields(.sale(s)).isEmpty)
        #expect(s.terminalWillAskForInstallments)
        #expect(SaleRequest(amount: Money(cents: 1000), withInstallments: true, preferredInstallments: 0).terminalWillAskForInstallments)
        #expect(!SaleRequest(amount: Money(cents: 1000), withInstallments: true, preferredInstallments: 36).terminalWillAskForInstallments)
    }

    /// sale.txt:77-83: the vendor's code sends withInstallments=true only for more than one instalment.
    @Test func oneInstalmentIsNone() {
        #expect(SaleRequest.installmentFields(1) == (false, nil))
        #expect(SaleRequest.installmentFields(nil) == (false, nil))
        #expect(SaleRequest.installmentFields(2) == (true, 2))
        #expect(SaleRequest.installmentFields(0) == (true, 0))   // sale.txt:28: 0, the user is prompted
    }

    /// capture-preauth.txt:28 and :32: "The date should be in ISO 8601 format"; a date alone and a time
    /// without offset are ISO 8601 too: read in the till's zone, sent in full.
    @Test func searchDatesInTheTillsZone() {
        let athens: (Int64) -> Int = { _ in 180 }
        #expect(TerminalDate.requestDate("2021-03-29", endOfDay: false, offsetMinutes: athens) == "2021-03-29T00:00:00.000+03:00")
        #expect(TerminalDate.requestDate("2021-03-29", endOfDay: true, offsetMinutes: athens) == "2021-03-29T23:59:59.999+03:00")
        #expect(TerminalDate.requestDate("2021-03-29T10:30", endOfDay: false, offsetMinutes: athens) == "2021-03-29T10:30:00.000+03:00")
        #expect(TerminalDate.requestDate("2021-03-29T10:30:15.25", endOfDay: true, offsetMinutes: athens) == "2021-03-29T10:30:15.250+03:00")
        // A full date is sent as typed (capture-preauth.txt:29's own form).
        #expect(TerminalDate.requestDate("2021-03-29T00:00:00.000+0300", endOfDay: false, offsetMinutes: athens) == "2021-03-29T00:00:00.000+0300")
        // West of UTC, and a zone whose offset changes: the offset at that wall-clock time.
        #expect(TerminalDate.requestDate("2021-03-29", endOfDay: false, offsetMinutes: { _ in -300 }) == "2021-03-29T00:00:00.000-05:00")
        let dst: (Int64) -> Int = { $0 >= 1_616_893_200 ? 180 : 120 }   // Athens: 2021-03-28T01:00Z
        #expect(TerminalDate.requestDate("2021-03-27", endOfDay: false, offsetMinutes: dst) == "2021-03-27T00:00:00.000+02:00")
        #expect(TerminalDate.requestDate("2021-03-29", endOfDay: false, offsetMinutes: dst) == "2021-03-29T00:00:00.000+03:00")
        // What is not a date is left for validation to refuse.
        for bad in ["2021-02-30", "29/03/2021", "2021-03-29T25:00", "2021-03-29T10", "2021-03-29 10:30x", ""] {
            #expect(TerminalDate.requestDate(bad, endOfDay: false, offsetMinutes: athens) == nil, "\(bad)")
        }
        // The result always passes the strict check of what till sends.
        let sent = TerminalDate.requestDate("2021-03-29", endOfDay: false, offsetMinutes: athens)!
        let r = request(.capturePreAuth(CaptureRequest(finder: TransactionFinder(referenceNumber: "123456", txnDateFrom: sent))))
        #expect(r.validationErrors().isEmpty)
    }

    /// The protocol's amounts are 32-bit integers of cents (sale.txt:25 "an integer"): above that, a warning.
    @Test func decoderWarnsOnAmountsAboveTheIntegerRange() throws {
        let r = try CallbackResponse.decode("cb://result?status=success&action=sale&amount=2147483648&tipAmount=99999999999")
        #expect(r.warnings.contains(.amountOutOfRange(field: "amount", value: "2147483648")))
        #expect(r.warnings.contains(.amountOutOfRange(field: "tipAmount", value: "99999999999")))
        let ok = try CallbackResponse.decode("cb://result?status=success&action=sale&amount=2147483647&tipAmount=0")
        #expect(ok.warnings.isEmpty)
    }

    /// sale.txt:26 (request: "added on top of the amount") against sale.txt:129 (answer: "how much of the
    /// amount is considered as tip"): both readings, the answer's amounts the truth.
    @Test func tipStyles() {
        let goods = Money(cents: 1200), tip = Money(cents: 200)
        #expect(TipStyle.onTop.requestAmount(goods: goods, tip: tip) == goods)
        #expect(TipStyle.included.requestAmount(goods: goods, tip: tip) == Money(cents: 1400))
        #expect(TipStyle.onTop.charged(amount: goods, tip: tip) == Money(cents: 1400))
        #expect(TipStyle.included.charged(amount: Money(cents: 1400), tip: tip) == Money(cents: 1400))
        #expect(TipStyle.included.goods(amount: Money(cents: 1400), tip: tip) == goods)
        #expect(TipStyle(rawValue: "on-top") == .onTop && TipStyle(rawValue: "included") == .included)
        // The largest amount with a tip: over the top when added on top, fine when the amount holds it.
        let big = request(.sale(SaleRequest(amount: Money.maximum, tipAmount: Money(cents: 100))))
        #expect(big.validationErrors(tipStyle: .onTop).map(\.field) == ["amount"])
        #expect(big.validationErrors(tipStyle: .included).isEmpty)
    }
}

/// Issue 9: "Callback values that no terminal can answer (`a://b?c`, spaces, `&`) pass validation".
@Suite("Callbacks a terminal can answer")
struct CallbackValidationTests {
    @Test(arguments: ["a://b?c", "inter app", "cb&action=sale", "cb#x", "cb%20", "1scheme", "://result", "cb://a b/c", "é-cb"])
    func refused(callback: String) {
        let r = TerminalRequest(caller: Caller(callback: callback, merchantKey: "k", appId: "a"), request: .abort)
        let e = r.validationErrors()
        #expect(e.map(\.field) == ["callback"], "\(callback)")
        #expect(e.first?.message.contains("not an address a terminal can answer to") == true)
    }

    @Test(arguments: ["interapp-callback", "mycallbackscheme://result", "till+x.y-z", "cb://host/path_1"])
    func accepted(callback: String) {
        let r = TerminalRequest(caller: Caller(callback: callback, merchantKey: "k", appId: "a"), request: .abort)
        #expect(r.validationErrors().isEmpty)
    }

    /// One rule: what validation accepts the simulator answers, and the other way round.
    @Test func validationAndTheSimulatorShareTheRule() {
        for c in ["a://b?c", "interapp-callback", "x y", "cb://ok/path"] {
            let valid = TerminalRequest(caller: Caller(callback: c, merchantKey: "k", appId: "a"), request: .abort).validationErrors().isEmpty
            #expect(valid == CallbackAddress.isAddressable(c))
        }
    }
}
