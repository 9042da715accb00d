import Testing
@testable import TillProtocol

@Test func saleExampleFromThePagesIsReproduced() throws {
    let r = TerminalRequest(caller: Caller(callback: "interapp-callback", merchantKey: "SG23323424EXS3", appId: "com.vivawallet.InterAppDemo"),
                            request: .sale(SaleRequest(amount: Money(cents: 1200), tipAmount: Money(cents: 200), withInstallments: false, showReceipt: false, showRating: true)))
    #expect(r.url == "vivapayclient://pay/v1?callback=interapp-callback&merchantKey=SG23323424EXS3&appId=com.vivawallet.InterAppDemo&action=sale&amount=1200&tipAmount=200&withInstallments=false&show_receipt=false&show_rating=true")
    #expect(try TerminalRequest.parse(r.url) == r)
}

@Test func sloppyDeclineDecodes() throws {
    let u = "interapp-callback://result?accountNumber=478*********7417&action=sale&amount=50&cardType=Visa Credit&message=(-12) TRANSACTION_DECLINED_BY_SERVER&status=fail&tid=16001184&transactionDate=2023-01-17T12:46:19.0640821+02:00&verificationMethod=CONTACTLESS - NO CVM"
    let r = try CallbackResponse.decode(u)
    #expect(r.status == .fail)
    #expect(r.messageCode == -12)
    #expect(r.messageName == "TRANSACTION_DECLINED_BY_SERVER")
    #expect(r.cardType == "Visa Credit")
    #expect(r.transactionDate?.offsetMinutes == 120)
    #expect(r.amount == Money(cents: 50))
}

@Test func pagesApprovedAndStrayspaces() throws {
    let u = "mycallbackscheme://result?status=success&message=Transaction%20successful.&action=cancel&amount=1200 &cardType=VISA&accountNumber=4792751234569999&tid=16016684&transactionDate=2019-09-13T12:14:19.8703452 03:00&transactionId=a78e045c-49c3-4743-9071-f1e0ed71810c"
    let r = try CallbackResponse.decode(u)
    #expect(r.isApproved)
    #expect(r.amount == Money(cents: 1200))
    #expect(r.accountNumber == "479275******9999")
    #expect(r["transactionDate"] == "2019-09-13T12:14:19.8703452+03:00")
    #expect(r.warnings.contains(.unmaskedCardNumber))
    #expect(r.warnings.contains(.spaceForPlusInDate(field: "transactionDate")))
    #expect(!r.warnings.contains(.unescapedSpace(field: "transactionDate")))
}

@Test func moneyParsing() throws {
    #expect(try Money.parse("12,5").cents == 1250)
    #expect(try Money.parse("12").cents == 1200)
    #expect(throws: MoneyError.negative("-3")) { try Money.parse("-3") }
    #expect(throws: MoneyError.exponent("1e9")) { try Money.parse("1e9") }
    #expect(throws: MoneyError.tooManyDecimals("12.345")) { try Money.parse("12.345") }
    #expect(TerminalDate.format(instant: TerminalDate.parse("2019-09-13T12:14:19.8703452+03:00")!.instant, offsetMinutes: 180) == "2019-09-13T12:14:19.8703452+03:00")
}

@Test func batchNameCannotInjectParameters() throws {
    let r = TerminalRequest(caller: Caller(callback: "cb", merchantKey: "k", appId: "a"), request: .batch(BatchRequest(command: .open, batchName: "a&action=sale")))
    #expect(r.url.hasSuffix("&action=batch&command=open&batchName=a%26action%3Dsale"))
    #expect(try TerminalRequest.parse(r.url) == r)
}
