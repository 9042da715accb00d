import Testing
@testable import TillProtocol

// Every request example in the vendor's pages (docs/), reproduced from typed values.
// Where a page shows only code, the URL is what that code builds with the page's own constants.

private let demo = Caller(callback: "interapp-callback", merchantKey: "SG23323424EXS3", appId: "com.vivawallet.InterAppDemo")
private let head = "vivapayclient://pay/v1?callback=interapp-callback&merchantKey=SG23323424EXS3&appId=com.vivawallet.InterAppDemo"

@Suite("Golden requests from the pages")
struct GoldenRequestTests {
    /// sale.txt, "Request example".
    @Test func saleTxtExample() throws {
        let r = TerminalRequest(caller: demo, request: .sale(SaleRequest(
            amount: Money(cents: 1200), tipAmount: Money(cents: 200), withInstallments: false,
            showReceipt: false, showRating: true)))
        #expect(r.url == head + "&action=sale&amount=1200&tipAmount=200&withInstallments=false&show_receipt=false&show_rating=true")
        #expect(r.validationErrors().isEmpty)
        #expect(try TerminalRequest.parse(r.url) == r)
    }

    /// overview-sale-cancel.txt: createSaleRequest(amount: 12.00, tipAmount: 2.00, numberOfInstallments: nil, clientTransactionId: nil).
    @Test func overviewSaleFromItsCode() throws {
        let r = TerminalRequest(caller: demo, request: .sale(SaleRequest(
            amount: try Money.parse("12.00"), tipAmount: try Money.parse("2.00"), withInstallments: false)))
        #expect(r.url == head + "&action=sale&amount=1200&tipAmount=200&withInstallments=false")
        #expect(try TerminalRequest.parse(r.url) == r)
    }

    /// sale.txt's code with every default (show_* default true) and installments and ISV details.
    @Test func saleTxtCodeWithInstallmentsAndISV() throws {
        let isv = ISVFields(amount: Money(cents: 10), clientId: "auyf99x03sachvn3f5ogldykz8214c2o4vl8cvvs97p19.apps.vivapayments.com",
                            clientSecret: "qwerty123456", sourceCode: "Default")
        let r = TerminalRequest(caller: demo, request: .sale(SaleRequest(
            amount: Money(cents: 1200), tipAmount: Money(cents: 200), withInstallments: true, preferredInstallments: 10,
            showReceipt: true, showRating: true, showTransactionResult: true, isv: isv, protocolName: "int_default")))
        #expect(r.url == head + "&action=sale&amount=1200&tipAmount=200&withInstallments=true&preferredInstallments=10"
            + "&ISV_clientId=auyf99x03sachvn3f5ogldykz8214c2o4vl8cvvs97p19.apps.vivapayments.com&ISV_amount=10"
            + "&ISV_clientSecret=qwerty123456&ISV_sourceCode=Default"
            + "&show_receipt=true&show_rating=true&show_transaction_result=true&protocol=int_default")
        #expect(r.validationErrors().isEmpty)
        #expect(try TerminalRequest.parse(r.url) == r)
        #expect(r.redactedURL.contains("ISV_clientSecret=%5Bredacted%5D"))
        #expect(r.redactedURL.contains("merchantKey=%5Bredacted%5D"))
        #expect(!r.redactedURL.contains("qwerty123456"))
        #expect(!r.redactedURL.contains("SG23323424EXS3"))
    }

    /// abort.txt, "Example".
    @Test func abortExample() throws {
        let r = TerminalRequest(caller: demo, request: .abort)
        #expect(r.url == "vivapayclient://pay/v1?callback=interapp-callback&merchantKey=SG23323424EXS3&appId=com.vivawallet.InterAppDemo&action=abort")
        #expect(r.validationErrors().isEmpty)
        #expect(try TerminalRequest.parse(r.url) == r)
    }

    /// overview-sale-cancel.txt: createCancelRequest(reference: "60646").
    /// The page's STAN has five digits; till's rule is six, so the URL is reproduced but flagged.
    @Test func overviewCancelWithReferenceNumber() throws {
        let r = TerminalRequest(caller: demo, request: .cancel(CancelRequest(finder: TransactionFinder(referenceNumber: "60646"))))
        #expect(r.url == head + "&action=cancel&referenceNumber=60646")
        #expect(try TerminalRequest.parse(r.url) == r)
        #expect(r.validationErrors().map(\.field) == ["referenceNumber"])
        let six = TerminalRequest(caller: demo, request: .cancel(CancelRequest(finder: TransactionFinder(referenceNumber: "060646"))))
        #expect(six.validationErrors().isEmpty)
    }

    /// overview-sale-cancel.txt: createCancelRequest(reference: nil): no referenceNumber at all.
    @Test func overviewCancelWithoutReference() throws {
        let r = TerminalRequest(caller: demo, request: .cancel(CancelRequest()))
        #expect(r.url == head + "&action=cancel")
        #expect(r.validationErrors().isEmpty)
        #expect(try TerminalRequest.parse(r.url) == r)
    }

    /// batch.txt: createBatchRequest(command: "open", batchName: "morningShift", batchUUID: nil).
    @Test func batchOpen() throws {
        let r = TerminalRequest(caller: demo, request: .batch(BatchRequest(command: .open, batchName: "morningShift")))
        #expect(r.url == head + "&action=batch&command=open&batchName=morningShift")
        #expect(r.validationErrors().isEmpty)
        #expect(try TerminalRequest.parse(r.url) == r)
    }

    /// batch.txt: close by the page's UUID; and close with neither (closes the active batch).
    @Test func batchClose() throws {
        let byId = TerminalRequest(caller: demo, request: .batch(BatchRequest(command: .close, batchId: "7885F4F1-59CA-42C2-81BB-6DB48AA138A6")))
        #expect(byId.url == head + "&action=batch&command=close&batchId=7885F4F1-59CA-42C2-81BB-6DB48AA138A6")
        #expect(byId.validationErrors().isEmpty)
        #expect(try TerminalRequest.parse(byId.url) == byId)
        let active = TerminalRequest(caller: demo, request: .batch(BatchRequest(command: .close)))
        #expect(active.url == head + "&action=batch&command=close")
        #expect(try TerminalRequest.parse(active.url) == active)
    }

    /// capture-preauth.txt: createCapturePreauthRequest(captureAmount: 5, shortOrderCode: "1091139195",
    /// dateFrom: "2021-03-29T00:00:00.000+0300", dateTo: nil), show_* defaulting to true; the date percent-encoded.
    @Test func captureWithShortOrderCodeAndDateFrom() throws {
        let r = TerminalRequest(caller: demo, request: .capturePreAuth(CaptureRequest(
            amount: try Money.parse("5"),
            finder: TransactionFinder(shortOrderCode: "1091139195", txnDateFrom: "2021-03-29T00:00:00.000+0300"),
            showReceipt: true, showTransactionResult: true)))
        #expect(r.url == head + "&action=capture_pre_auth&amount=500&shortOrderCode=1091139195"
            + "&txnDateFrom=2021-03-29T00%3A00%3A00.000%2B0300&show_receipt=true&show_transaction_result=true")
        #expect(r.validationErrors().isEmpty)
        #expect(try TerminalRequest.parse(r.url) == r)
    }

    /// capture-preauth.txt's field examples: from and to, order code, STAN.
    @Test func captureWithWindowOrderCodeAndStan() throws {
        let r = TerminalRequest(caller: demo, request: .capturePreAuth(CaptureRequest(
            amount: Money(cents: 600),
            finder: TransactionFinder(referenceNumber: "833121", orderCode: "109113919500020",
                                      txnDateFrom: "2021-03-29T00:00:00.000+0300", txnDateTo: "2021-03-30T00:00:00.000+0300"),
            protocolName: "int_default")))
        #expect(r.url == head + "&action=capture_pre_auth&amount=600&referenceNumber=833121&orderCode=109113919500020"
            + "&txnDateFrom=2021-03-29T00%3A00%3A00.000%2B0300&txnDateTo=2021-03-30T00%3A00%3A00.000%2B0300&protocol=int_default")
        #expect(r.validationErrors().isEmpty)
        #expect(try TerminalRequest.parse(r.url) == r)
    }

    /// The digest's further actions: pre_auth and transactionDetails.
    @Test func preAuthAndDetails() throws {
        let p = TerminalRequest(caller: demo, request: .preAuth(PreAuthRequest(amount: Money(cents: 5000), clientTransactionId: "order-17",
                                                                                showReceipt: false, protocolName: "int_default")))
        #expect(p.url == head + "&action=pre_auth&amount=5000&clientTransactionId=order-17&show_receipt=false&protocol=int_default")
        #expect(try TerminalRequest.parse(p.url) == p)
        let d = TerminalRequest(caller: demo, request: .transactionDetails(DetailsRequest(clientTransactionId: "order 17/b")))
        #expect(d.url == head + "&action=transactionDetails&clientTransactionId=order%2017%2Fb")
        #expect(try TerminalRequest.parse(d.url) == d)
    }
}

@Suite("Percent-encoding of request values")
struct EncodingTests {
    private func url(batchName: String) -> String {
        TerminalRequest(caller: Caller(callback: "cb", merchantKey: "k", appId: "a"),
                        request: .batch(BatchRequest(command: .open, batchName: batchName))).url
    }

    @Test func aBatchNameCannotAddAParameter() throws {
        let u = url(batchName: "a&action=sale")
        #expect(u.hasSuffix("&action=batch&command=open&batchName=a%26action%3Dsale"))
        let parsed = try TerminalRequest.parse(u)
        #expect(parsed.request == .batch(BatchRequest(command: .open, batchName: "a&action=sale")))
        #expect(parsed.request.action == .batch)
    }

    @Test(arguments: [
        ("a b", "a%20b"), ("a+b", "a%2Bb"), ("100%", "100%25"), ("#1", "%231"), ("x=y", "x%3Dy"),
        ("Café", "Caf%C3%A9"), ("€", "%E2%82%AC"), ("a/b?c", "a%2Fb%3Fc"), ("~keep-._", "~keep-._"),
        ("\"'<>", "%22%27%3C%3E"), ("🙂", "%F0%9F%99%82"), ("*:", "%2A%3A"),
    ])
    func everyReservedByteIsEscaped(raw: String, encoded: String) throws {
        #expect(QueryCodec.encode(raw) == encoded)
        #expect(QueryCodec.decode(encoded) == raw)
        let u = url(batchName: raw)
        #expect(u.hasSuffix("batchName=" + encoded))
        #expect(try TerminalRequest.parse(u).request == .batch(BatchRequest(command: .open, batchName: raw)))
    }

    @Test func onlyUnreservedBytesAppearInEncodedValues() {
        var all = ""
        for v in 1...0x7F { all.unicodeScalars.append(Unicode.Scalar(UInt8(v))) }
        all += "é€🙂"
        let e = QueryCodec.encode(all)
        for b in e.utf8 {
            #expect(QueryCodec.isUnreserved(b) || b == 0x25)
        }
        #expect(QueryCodec.decode(e) == all)
    }

    @Test func callerValuesAreEncodedToo() {
        let r = TerminalRequest(caller: Caller(callback: "my cb://result", merchantKey: "k&action=sale", appId: "a=b"), request: .abort)
        #expect(r.url == "vivapayclient://pay/v1?callback=my%20cb%3A%2F%2Fresult&merchantKey=k%26action%3Dsale&appId=a%3Db&action=abort")
    }

    @Test func callbackValuesKeepStarsColonsAndPlus() {
        let u = CallbackResponse.url(callback: "interapp-callback", fields: [
            ("status", "success"), ("message", "Transaction successful."), ("accountNumber", "479275******9999"),
            ("transactionDate", "2019-09-13T12:14:19.8703452+03:00"), ("cardType", "Visa & Co")])
        #expect(u == "interapp-callback://result?status=success&message=Transaction%20successful.&accountNumber=479275******9999"
            + "&transactionDate=2019-09-13T12:14:19.8703452+03:00&cardType=Visa%20%26%20Co")
        #expect(CallbackResponse.url(callback: "mycallbackscheme://result", fields: [("status", "fail")]) == "mycallbackscheme://result?status=fail")
    }

    @Test func redactionHidesOnlySecrets() {
        let r = TerminalRequest(caller: Caller(callback: "cb", merchantKey: "SECRET-KEY", appId: "a"),
                                request: .sale(SaleRequest(amount: Money(cents: 100),
                                                           isv: ISVFields(amount: Money(cents: 1), clientId: "id", clientSecret: "s3cr3t"))))
        let red = r.redactedURL
        #expect(!red.contains("SECRET-KEY"))
        #expect(!red.contains("s3cr3t"))
        #expect(red.contains("ISV_clientId=id"))
        #expect(red.contains("amount=100"))
        #expect(Secrets.redact(url: "no query here") == "no query here")
    }
}
