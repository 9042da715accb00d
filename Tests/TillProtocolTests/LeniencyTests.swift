import Testing
@testable import TillProtocol

// Each leniency of the callback decoder, and each way it refuses an input that cannot be an answer.

private func decode(_ s: String) throws -> CallbackResponse { try CallbackResponse.decode(s) }

@Suite("Decoder leniency")
struct LeniencyTests {
    @Test func strayWhitespaceAroundAmpersandsAndValues() throws {
        let r = try decode("cb://result?status=success &  action = sale&amount= 1200 & tid=%20%2016016684&orderCode=%209256110059000200 ")
        #expect(r.isApproved)
        #expect(r.action == .sale)
        #expect(r.amount == Money(cents: 1200))
        #expect(r.tid == "16016684")
        #expect(r.orderCode == "9256110059000200")
        for f in ["status", "action", "amount", "tid", "orderCode"] {
            #expect(r.warnings.contains(.strayWhitespace(field: f)), "\(f)")
        }
    }

    @Test func tabsAndLineEndsAroundTheWholeLine() throws {
        let r = try decode("\t cb://result?status=success&action=sale\r\n")
        #expect(r.target == "cb://result")
        #expect(r.action == .sale)
        #expect(r.warnings.isEmpty)
    }

    @Test func unescapedSpacesInsideValues() throws {
        let r = try decode("cb://result?status=fail&cardType=Visa Credit&verificationMethod=MANUAL ENTRY")
        #expect(r.cardType == "Visa Credit")
        #expect(r.verificationMethod == "MANUAL ENTRY")
        #expect(r.warnings == [.unescapedSpace(field: "cardType"), .unescapedSpace(field: "verificationMethod")])
    }

    @Test func plusIsLiteral() throws {
        let r = try decode("cb://result?status=success&transactionDate=2019-09-13T12:14:19.8703452+03:00&cardType=A+B")
        #expect(r.transactionDate?.offsetMinutes == 180)
        #expect(r["transactionDate"] == "2019-09-13T12:14:19.8703452+03:00")
        #expect(r.cardType == "A+B")
        #expect(r.warnings.isEmpty)
        let escaped = try decode("cb://result?status=success&transactionDate=2019-09-13T12:14:19.8703452%2B03:00")
        #expect(escaped.transactionDate == r.transactionDate)
    }

    @Test(arguments: ["2019-09-13T12:14:19.8703452 03:00", "2019-09-13T12:14:19.8703452%2003:00"])
    func aSpaceWhereThePlusWasDecodedAway(date: String) throws {
        let r = try decode("cb://result?status=success&transactionDate=" + date)
        #expect(r["transactionDate"] == "2019-09-13T12:14:19.8703452+03:00")
        #expect(r.transactionDate?.text == "2019-09-13T12:14:19.8703452+03:00")
        #expect(r.transactionDate?.offsetMinutes == 180)
        #expect(r.warnings == [.spaceForPlusInDate(field: "transactionDate")])
    }

    @Test(arguments: [
        ("2019-09-13T12:14:19+03:00", 0), ("2019-09-13T12:14:19.8+03:00", 8_000_000),
        ("2019-09-13T12:14:19.87+03:00", 8_700_000), ("2019-09-13T12:14:19.870345+03:00", 8_703_450),
        ("2019-09-13T12:14:19.8703452+03:00", 8_703_452),
    ])
    func upToSevenFractionalDigits(date: String, ticks: Int64) throws {
        let r = try decode("cb://result?status=success&transactionDate=" + date)
        let d = try #require(r.transactionDate)
        #expect(d.instant % TerminalDate.ticksPerSecond == ticks)
        #expect(r.warnings.isEmpty)
    }

    @Test func eightFractionalDigitsIsABadDateKeptRaw() throws {
        let r = try decode("cb://result?status=success&transactionDate=2019-09-13T12:14:19.87034521+03:00")
        #expect(r.transactionDate == nil)
        #expect(r["transactionDate"] == "2019-09-13T12:14:19.87034521+03:00")
        #expect(r.warnings == [.badDate(field: "transactionDate", value: "2019-09-13T12:14:19.87034521+03:00")])
    }

    @Test(arguments: [
        ("2021-03-29T00:00:00.000+0300", 180), ("2021-03-29T00:00:00Z", 0), ("2021-03-29T00:00:00.000-05:00", -300),
        ("2021-03-29t00:00:00z", 0),
    ])
    func offsetForms(date: String, minutes: Int) throws {
        let d = try #require(TerminalDate.parse(date))
        #expect(d.offsetMinutes == minutes)
    }

    @Test(arguments: ["2021-02-29T00:00:00Z", "2021-13-01T00:00:00Z", "2021-03-29T24:00:00Z", "2021-03-29T00:00:00",
                      "2021-03-29", "29/03/2021", "", "2021-03-29T00:00:00.Z", "2021-03-29T00:00:00+3:00"])
    func badDates(date: String) {
        #expect(TerminalDate.parse(date) == nil)
    }

    @Test func leapDayAndFormatRoundTrip() throws {
        let d = try #require(TerminalDate.parse("2024-02-29T23:59:59.9999999-01:30"))
        #expect(TerminalDate.format(instant: d.instant, offsetMinutes: d.offsetMinutes) == "2024-02-29T23:59:59.9999999-01:30")
        #expect(TerminalDate.format(instant: d.instant, offsetMinutes: 0) == "2024-03-01T01:29:59.9999999+00:00")
        #expect(TerminalDate.parse("1970-01-01T00:00:00Z")?.instant == 0)
    }

    @Test(arguments: ["Abort", "abORT", "SALE", "Capture_Pre_Auth", "TRANSACTIONDETAILS"])
    func actionInAnyCase(action: String) throws {
        let r = try decode("cb://result?status=fail&action=" + action)
        #expect(r.action != nil)
        #expect(r.rawAction == action)
        #expect(r.warnings == [.actionCase(action)])
    }

    /// Real terminals send `action=ABORT` (the digest's evidence): read without a warning.
    @Test func upperCaseAbortIsTheTerminalsOwnForm() throws {
        let r = try decode("cb://result?status=fail&message=(-57) ABORTED&action=ABORT")
        #expect(r.action == .abort)
        #expect(r.rawAction == "ABORT")
        #expect(r.warnings == [.unescapedSpace(field: "message")])
    }

    @Test func unknownActionIsKeptRaw() throws {
        // (set_printing_settings was unknown here until the sample apps' actions came: issue 12.)
        let r = try decode("cb://result?status=success&action=set_lights")
        #expect(r.action == nil)
        #expect(r.rawAction == "set_lights")
        #expect(r.warnings == [.unknownAction("set_lights")])
    }

    @Test(arguments: [
        ("success", CallbackStatus.success), ("SUCCESS", .success), ("fail", .fail), ("failed", .fail), ("Failure", .fail),
        ("pending", .other("pending")), ("ok", .other("ok")), ("true", .other("true")),
    ])
    func statuses(raw: String, status: CallbackStatus) throws {
        let r = try decode("cb://result?status=" + raw)
        #expect(r.status == status)
        #expect(r.isApproved == (status == .success))
    }

    @Test(arguments: [
        ("(-57) ABORTED", -57, "ABORTED"), ("(-4)%20USER_CANCEL", -4, "USER_CANCEL"),
        ("(-62) RESELLER_ORDER_DECLINED", -62, "RESELLER_ORDER_DECLINED"), ("( -12 )TRANSACTION_DECLINED_BY_SERVER", -12, "TRANSACTION_DECLINED_BY_SERVER"),
        ("(7) SEVEN", 7, "SEVEN"),
    ])
    func messagesWithCodes(message: String, code: Int, name: String) throws {
        let r = try decode("cb://result?status=fail&message=" + message)
        #expect(r.messageCode == code)
        #expect(r.messageName == name)
    }

    @Test(arguments: ["Transaction successful.", "(abc) NAME", "(-57", "-57 ABORTED", "()", ""])
    func messagesWithoutCodes(message: String) throws {
        let r = try decode("cb://result?status=fail&message=" + message)
        #expect(r.messageCode == nil)
        #expect(r.message == message)
    }

    @Test func codeWithoutName() throws {
        let r = try decode("cb://result?status=fail&message=(-99)")
        #expect(r.messageCode == -99)
        #expect(r.messageName == nil)
    }

    @Test func missingFieldsAreNil() throws {
        let r = try decode("cb://result?status=success")
        #expect(r.isApproved)
        #expect(r.action == nil && r.rawAction == nil && r.message == nil && r.amount == nil && r.tipAmount == nil)
        #expect(r.cardType == nil && r.accountNumber == nil && r.transactionDate == nil && r.installments == nil)
        #expect(r.fields == [QueryField(name: "status", value: "success")])
    }

    @Test(arguments: [
        ("4792751234569999", "479275******9999"), ("4792 7512 3456 9999", "479275******9999"),
        ("5374891234567891831", "537489*********1831"), ("479275*****569999", "479275*******9999"),
    ])
    func unmaskedCardNumbersAreMasked(raw: String, masked: String) throws {
        let r = try decode("cb://result?status=success&accountNumber=" + QueryCodec.encode(raw))
        #expect(r.accountNumber == masked)
        #expect(r["accountNumber"] == masked)
        #expect(r.warnings.contains(.unmaskedCardNumber))
        let digits = masked.filter(\.isNumber).count
        #expect(digits <= 10)
    }

    /// A card number in free text (the message, the card type, a field till does not know) is masked there too, its
    /// spaces or dashes kept; the fields that are numbers of their own (order code, client transaction id) are not.
    @Test(arguments: [
        ("message", "Card 4782123456787417 approved", "Card 478212******7417 approved"),
        ("message", "(-12) DECLINED 4782-1234-5678-7417.", "(-12) DECLINED 4782-12**-****-7417."),
        ("cardType", "4782 1234 5678 7417", "4782 12** **** 7417"),
        ("verificationMethod", "PAN 5374891234567891831", "PAN 537489*********1831"),
        ("cardholderPan", "4782123456787417", "478212******7417"),
        ("message", "card 4782\u{202F}1234\u{00A0}5678\u{2009}7417", "card 4782\u{202F}12**\u{00A0}****\u{2009}7417"),
    ])
    func cardNumbersInFreeTextAreMasked(field: String, raw: String, masked: String) throws {
        let r = try decode("cb://result?status=success&\(field)=" + QueryCodec.encode(raw) + "&orderCode=4200822465840035"
                           + "&clientTransactionId=12345678901234567890")
        #expect(r[field] == masked)
        if field == "message" { #expect(r.message == masked) }
        #expect(r.warnings.contains(.unmaskedCardNumber))
        #expect(r.orderCode == "4200822465840035" && r.clientTransactionId == "12345678901234567890")
        // Shorter numbers stay: a STAN, an amount, a date.
        let plain = try decode("cb://result?status=success&message=" + QueryCodec.encode("STAN 000123, 12.50 on 2026-11-26 (123456789012)"))
        #expect(plain.message == "STAN 000123, 12.50 on 2026-11-26 (123456789012)" && !plain.warnings.contains(.unmaskedCardNumber))
    }

    @Test(arguments: ["479275******9999", "478*********7417", "************9999", "1234"])
    func maskedCardNumbersStayAsTheyAre(value: String) throws {
        let r = try decode("cb://result?status=success&accountNumber=" + value)
        #expect(r.accountNumber == value)
        #expect(!r.warnings.contains(.unmaskedCardNumber))
    }

    /// Found by an outside peer: `& amount=9999&amount=500` (spaces) gave `amount` twice, but `&amount%20=9999&amount=500`
    /// (the same space escaped) kept `amount ` apart, and the approval counted. A name's spaces are trimmed either way.
    @Test(arguments: ["amount%20", "%20amount", "amount%09", "amount%20%20"])
    func anEscapedSpaceAroundANameIsTrimmedAsASpaceIs(name: String) throws {
        let r = try decode("cb://result?status=success&\(name)=9999&amount=500")
        #expect(r.warnings.contains(.duplicateField(field: "amount")), "\(r.warnings)")
        #expect(r.fields.count == 2 && r.fields.allSatisfy { $0.name == "status" || $0.name == "amount" }, "\(r.fields)")
    }

    /// Found by an outside peer: a card number sent in an identifier field (rrn, authorisationCode, transactionDate,
    /// shortOrderCode, transactionId) was kept in clear in the journal, exports and output. One with a card number's
    /// length and check digit is masked; an identifier is left as it is (a UUID of digits, an RRN, a STAN).
    @Test(arguments: ["rrn", "referenceNumber", "authorisationCode", "tid", "shortOrderCode", "transactionId", "transactionDate"])
    func aCardNumberInAnIdentifierFieldIsMasked(field: String) throws {
        let r = try decode("cb://result?status=success&\(field)=4111111111111111")
        #expect(r[field] == "411111******1111", "\(r[field] ?? "nil")")
        #expect(r.warnings.contains(.unmaskedCardNumber))
        let spaced = try decode("cb://result?status=success&\(field)=4111%201111%201111%201111")
        #expect(spaced[field]?.contains("1111 1111 1111") == false, "\(spaced[field] ?? "nil")")
    }

    @Test(arguments: [("transactionId", "00000000-0000-4000-8000-000000000001"), ("rrn", "123456789012"), ("referenceNumber", "000123"),
                      ("transactionId", "4111111111111112"), ("orderCode", "4111111111111111")])
    func anIdentifierIsNotMasked(field: String, value: String) throws {
        let r = try decode("cb://result?status=success&\(field)=\(value)")
        #expect(r[field] == value)
    }

    @Test func duplicateFieldsKeepTheFirst() throws {
        let r = try decode("cb://result?status=fail&amount=100&status=success&amount=999")
        #expect(r.status == .fail)
        #expect(r.amount == Money(cents: 100))
        #expect(r.fields.count == 2)
        #expect(r.warnings == [.duplicateField(field: "status"), .duplicateField(field: "amount")])
    }

    @Test func unknownFieldsAreKeptRaw() throws {
        let r = try decode("cb://result?status=success&newField=hello%20world&ISV_thing=1")
        #expect(r["newField"] == "hello world")
        #expect(r["ISV_thing"] == "1")
        #expect(r.warnings.isEmpty)
    }

    @Test func badEscapesEmptyParametersAndBareNames() throws {
        let r = try decode("cb://result?status=success&&message=100%&cardType=%zzVISA&flag&x=%4")
        #expect(r.message == "100%")
        #expect(r.cardType == "%zzVISA")
        #expect(r["flag"] == "")
        #expect(r["x"] == "%4")
        #expect(r.warnings.contains(.emptyParameter))
        #expect(r.warnings.contains(.badEscape(field: "message")))
        #expect(r.warnings.contains(.badEscape(field: "cardType")))
        #expect(r.warnings.contains(.parameterWithoutValue(field: "flag")))
    }

    @Test func badNumbersAreKeptRawWithAWarning() throws {
        let r = try decode("cb://result?status=success&amount=12.00&tipAmount=-5&installments=three")
        #expect(r.amount == nil && r.tipAmount == nil && r.installments == nil)
        #expect(r["amount"] == "12.00")
        #expect(r.warnings == [.badNumber(field: "amount", value: "12.00"), .badNumber(field: "tipAmount", value: "-5"),
                               .badNumber(field: "installments", value: "three")])
    }

    @Test func emptyNumbersAreJustAbsent() throws {
        let r = try decode("cb://result?status=fail&amount=&tipAmount=&installments=&transactionDate=")
        #expect(r.amount == nil && r.tipAmount == nil && r.installments == nil && r.transactionDate == nil)
        #expect(r.warnings.isEmpty)
    }

    @Test func percentEncodedUnicodeAndInvalidUTF8() throws {
        let r = try decode("cb://result?status=success&cardType=Caf%C3%A9&tid=%FF%FE")
        #expect(r.cardType == "Café")
        #expect(r.tid == "\u{FFFD}\u{FFFD}")
        let raw = try decode("cb://result?status=success&cardType=Café 🙂")
        #expect(raw.cardType == "Café 🙂")
    }

    @Test func trailingAmpersandAndEmptyQuery() throws {
        let r = try decode("cb://result?status=success&")
        #expect(r.fields.count == 1)
        #expect(r.warnings.isEmpty)
    }
}

@Suite("Decoder refusals: typed errors, never a crash")
struct DecodeRefusalTests {
    @Test(arguments: [
        ("", DecodeError.empty), ("   \r\n", .empty), ("status=success&action=sale", .notAURL),
        ("cb://result", .noQuery), ("://result?status=success", .notAURL),
        ("cb://result?status=success\u{0}", .controlCharacter(position: 26)),
        ("cb://result?status=success\nnext", .controlCharacter(position: 26)),
        ("cb://result?action=sale", .missingStatus), ("cb://result?status=&action=sale", .missingStatus),
        ("cb://result?", .missingStatus),
    ])
    func refusals(input: String, error: DecodeError) {
        #expect(throws: error) { try CallbackResponse.decode(input) }
    }

    @Test func tooLong() {
        let s = "cb://result?status=success&x=" + String(repeating: "a", count: 20_000)
        #expect(throws: DecodeError.tooLong(s.utf8.count)) { try CallbackResponse.decode(s) }
    }

    @Test func everyErrorHasAMessage() {
        for e: DecodeError in [.empty, .tooLong(99_999), .notAURL, .noQuery, .controlCharacter(position: 3), .missingStatus] {
            #expect(e.description.hasPrefix("The terminal's answer"))
        }
    }
}

@Suite("Decoder: many fields")
struct ManyFieldsTests {
    /// More fields than the decoder keeps inline: known fields far down the query are still typed,
    /// duplicates among many unknown names are still found.
    @Test func knownFieldsAfterFortyUnknownOnes() throws {
        var parts = (0..<40).map { "x\($0)=\($0)" }
        parts += ["x3=dup", "status=success", "action=ABORT", "amount=1200", "message=(-57)%20ABORTED",
                  "accountNumber=4792751234569999", "transactionDate=2019-09-13T12:14:19.8703452 03:00", "status=fail"]
        let r = try CallbackResponse.decode("cb://result?" + parts.joined(separator: "&"))
        #expect(r.fields.count == 46)
        #expect(r.status == .success)
        #expect(r.action == .abort)
        #expect(r.amount == Money(cents: 1200))
        #expect(r.messageCode == -57)
        #expect(r.accountNumber == "479275******9999")
        #expect(r["transactionDate"] == "2019-09-13T12:14:19.8703452+03:00")
        #expect(r["x3"] == "3")
        #expect(r.warnings.contains(.duplicateField(field: "x3")))
        #expect(r.warnings.contains(.duplicateField(field: "status")))
        #expect(r.abortOutcome == .aborted)
    }

    @Test func percentEncodedNamesAreRecognised() throws {
        let r = try CallbackResponse.decode("cb://result?st%61tus=success&%61mount=5&%zz=1")
        #expect(r.isApproved)
        #expect(r.amount == Money(cents: 5))
        #expect(r["%zz"] == "1")
        #expect(r.warnings.contains(.badEscape(field: "%zz")))
    }
}
