import Testing
import TillModel
import TillProtocol
@testable import TillUI

/// Issue 12's UI: payment method on Sale / Pre-auth, the instalments notice, reprint from a journal
/// row, the admin screen (printing settings, logs, activation). Keys → state → commands.
@Suite struct PaymentMethodUITests {
    /// The request a list of commands sends (one `.perform`).
    func sent(_ cmds: [Command]) -> Request? {
        for c in cmds { if case .perform(let r, _) = c { return r }; if case .performConfirmed(let r, _, _) = c { return r } }
        return nil
    }
    func method(_ r: Request?) -> PaymentMethod? {
        switch r {
        case .sale(let s)?: return s.paymentMethod ?? .cardPresent
        case .preAuth(let p)?: return p.paymentMethod ?? .cardPresent
        default: return nil
        }
    }

    @Test func cardPresentByDefaultAndSentAsTheProtocolsDefault() throws {
        var s = readyState()
        #expect(s.paymentMethod(.sale) == .cardPresent)
        #expect(view(s, size: s.size).text.contains("Paid by        Card present"))
        type(&s, "12.50")
        let r = sent(press(&s, .enter))
        guard case .sale(let sale)? = r else { Issue.record("no sale sent"); return }
        // Absent means card present (Requests.swift), and `till sale` without --payment-method sends the same URL.
        #expect(sale.paymentMethod == nil)
    }

    @Test func oneKeyPicksMOTOForAPhoneOrderAndTheRequestCarriesIt() throws {
        var s = readyState()
        type(&s, "30")
        press(&s, .alt("m"))
        #expect(s.paymentMethod(.sale) == .moto)
        let shown = view(s, size: s.size).text
        #expect(shown.contains("Paid by        MOTO (phone/mail order)"))
        let cmds = press(&s, .enter)
        #expect(method(sent(cmds)) == .moto)
        #expect(s.pending?.summary == "Sale € 30.00 by MOTO")
        if case .sale(let sale)? = sent(cmds) {
            #expect(TerminalRequest(caller: validationCaller, request: .sale(sale)).url.contains("&paymentMethod=MOTO"))
        }
    }

    /// What is shown is what is sent, for every method reachable by the key, on Sale and on Pre-auth.
    @Test(arguments: [Screen.sale, .preAuth]) func everyMethodShownIsTheMethodSent(_ screen: Screen) throws {
        for presses in 0..<PaymentMethod.allCases.count {
            var s = readyState()
            if screen == .preAuth { press(&s, .f(3)) }
            type(&s, "5")
            for _ in 0..<presses { press(&s, .f(12)) }
            let shownName = paymentMethodName(s.paymentMethod(screen))
            let screenText = view(s, size: s.size).text
            #expect(screenText.contains(shownName), "\(presses) presses: \(shownName) not on screen")
            let r = sent(press(&s, .enter))
            #expect(method(r) == s.lastRequest.flatMap { method($0) })
            #expect(method(r).map(paymentMethodName) == shownName, "\(presses) presses")
        }
        // Every method is reachable: the key cycles through all of them and back.
        var s = readyState()
        var seen: Set<PaymentMethod> = []
        for _ in 0..<PaymentMethod.allCases.count { seen.insert(s.paymentMethod(.sale)); press(&s, .alt("m")) }
        #expect(seen == Set(PaymentMethod.allCases))
        #expect(s.paymentMethod(.sale) == .cardPresent)
    }

    /// A phone order's MOTO never sticks to the next customer: after the result, card present again.
    @Test func theNextCustomerIsCardPresentAgain() {
        var s = readyState()
        type(&s, "30"); press(&s, .alt("m")); press(&s, .enter)
        _ = update(&s, .performed(.answered(entry(1, cents: 3000, response: approvedSaleResponse)), summary: "Sale € 30.00 by MOTO"))
        #expect(s.paymentMethod(.sale) == .cardPresent)
        type(&s, "4")
        #expect(method(sent(press(&s, .enter))) == .cardPresent)
    }

    /// The confirmation after an unknown payment charges the method shown, too.
    @Test func chargingAfterAnUnknownCarriesTheMethod() {
        var s = readyState()
        _ = update(&s, .unresolvedLoaded([entry(4, cents: 909, state: .unknown)], recovered: false))
        type(&s, "9.09"); press(&s, .alt("m")); press(&s, .enter)
        guard case .confirm(let c)? = s.overlay else { Issue.record("no confirmation"); return }
        #expect(c.lines.last == "Charge Sale € 9.09 by MOTO now?")
        #expect(method(sent(press(&s, .char("y")))) == .moto)
    }

    /// sale.txt:28 `preferredInstallments`: "0 or above the maximum allowed: the user will be prompted".
    @Test func installmentsAbove36AreSentWithANotice() {
        var s = readyState()
        type(&s, "100"); press(&s, .tab, .tab); type(&s, "48")
        let text = view(s, size: s.size).text
        #expect(text.contains("Above 36: the terminal will ask"))
        let r = sent(press(&s, .enter))
        guard case .sale(let sale)? = r else { Issue.record("not sent: \(String(describing: s.form.errors))"); return }
        #expect(sale.preferredInstallments == 48 && sale.withInstallments == true)
        #expect(sale.terminalWillAskForInstallments)
        var t = readyState()
        type(&t, "100"); press(&t, .tab, .tab); type(&t, "36")
        #expect(!view(t, size: t.size).text.contains("the terminal will ask"))
        press(&t, .backspace, .backspace); type(&t, "0")
        #expect(view(t, size: t.size).text.contains("0: the terminal will ask"))
    }
}

@Suite struct ReprintUITests {
    let saleRow = entry(11, cents: 1250, tip: 125, response: approvedSaleResponse)

    func journal(_ entries: [JournalEntry]) -> AppState {
        var s = readyState()
        press(&s, .f(7))
        _ = update(&s, .journalLoaded(entries))
        return s
    }

    @Test func anApprovedSaleRowAsksNamingThePaymentThenSendsItsOrderCode() {
        var s = journal([saleRow])
        #expect(press(&s, .ctrl("p")).isEmpty)
        guard case .confirm(let c)? = s.overlay else { Issue.record("no confirmation"); return }
        #expect(c.lines[0].hasPrefix("Sale € 13.75 at "))
        #expect(c.lines[1] == "order code 1234567890123456")
        let cmds = press(&s, .char("p"))
        #expect(cmds == [.perform(.reprint(ReprintRequest(orderCode: "1234567890123456")), summary: "Reprint order 1234567890123456")])
        #expect(s.pending?.screen == .journal)
    }

    @Test func escOnTheConfirmationSendsNothing() {
        var s = journal([saleRow])
        press(&s, .ctrl("p"))
        #expect(press(&s, .esc).isEmpty)
        #expect(s.pending == nil && s.overlay == nil)
    }

    @Test(arguments: [Action.preAuth, .cancel, .capturePreAuth]) func otherPaymentsToo(_ a: Action) {
        var s = journal([entry(12, a, response: approvedSaleResponse)])
        press(&s, .ctrl("p"))
        guard case .confirm? = s.overlay else { Issue.record("no confirmation for \(a)"); return }
        #expect(press(&s, .enter) == [.perform(.reprint(ReprintRequest(orderCode: "1234567890123456")), summary: "Reprint order 1234567890123456")])
    }

    @Test func refusedWithAReasonOnOtherRows() {
        let rows: [(JournalEntry, String)] = [
            (entry(13, state: .declined, response: declinedSaleResponse), "only an approved payment"),
            (entry(14, .batch, cents: nil, response: response("status=success&message=ok&action=batch&command=open")), "only a sale, pre-auth"),
            (entry(15, state: .unknown), "only an approved payment"),
            (entry(16, response: response("status=success&message=ok&action=sale&amount=1250")), "no order code"),
        ]
        for (e, why) in rows {
            var s = journal([e])
            #expect(press(&s, .ctrl("p")).isEmpty)
            #expect(s.overlay == nil)
            #expect(s.noticeIsError && (s.notice ?? "").contains(why), "\(e.id): \(s.notice ?? "")")
        }
    }

    @Test func fromTheDetailViewToo() {
        var s = journal([saleRow])
        press(&s, .enter)
        #expect(s.journal.detail?.id == 11)
        press(&s, .ctrl("p"))
        guard case .confirm? = s.overlay else { Issue.record("no confirmation"); return }
    }
}

@Suite struct AdminScreenUITests {
    func admin() -> AppState {
        var s = readyState()
        #expect(press(&s, .f(11)).isEmpty)
        guard case .confirm(let c)? = s.overlay else { Issue.record("no confirmation"); return s }
        #expect(c.title == "Terminal settings")
        press(&s, .char("o"))
        #expect(s.screen == .admin)
        return s
    }

    func row(_ s: inout AppState, _ r: AdminRow) {
        while AdminScreen.rows[s.admin.row] != r { press(&s, .down) }
    }

    @Test func behindAConfirmationEscLeavesNothingOpened() {
        var s = readyState()
        press(&s, .alt("a"))
        press(&s, .esc)
        #expect(s.screen == .sale && s.overlay == nil)
        s = admin()
        #expect(s.screen == .admin)
    }

    @Test func getShowToggleAndSetThePrintingSettings() {
        var s = admin()
        #expect(press(&s, .enter) == [.perform(.getPrintingSettings, summary: "Printing settings")])
        let answer = response("status=success&message=Printing settings&action=getPrintingSettings&isCustomerReceiptEnabled=true&isMerchantReceiptEnabled=false&isPrintingReceiptEnabled=true&printLogoOnMerchantReceipt=true&printVATOnMerchantReceipt=false&isBarcodeEnabled=false&printAddressOnReceipt=true&businessDescriptionEnabled=true&businessDescriptionType=tradeName")
        _ = update(&s, .performed(.answered(entry(20, .getPrintingSettings, cents: nil, response: answer)), summary: "Printing settings"))
        let known = PrintingSettings(customerReceipt: true, merchantReceipt: false, printing: true, logo: true, vat: false, barcode: false,
                                     address: true, businessDescription: true, businessDescriptionType: .tradeName)
        #expect(s.admin.printing == known && s.admin.terminalPrinting == known)
        #expect(view(s, size: s.size).text.contains("Merchant receipt  off"))
        // Toggle the merchant receipt (Enter) and the barcode (Space), cycle the business name's source.
        row(&s, .printingSwitch(1)); press(&s, .enter)
        row(&s, .printingSwitch(5)); press(&s, .char(" "))
        row(&s, .descriptionType); press(&s, .enter)
        #expect(view(s, size: s.size).text.contains("on (changed)"))
        row(&s, .setPrinting)
        var want = known
        want.merchantReceipt = true; want.barcode = true; want.businessDescriptionType = .storeName
        #expect(press(&s, .enter) == [.perform(.setPrintingSettings(want), summary: "Change printing settings")])
    }

    @Test func saveWithNothingKnownIsRefusedInWords() {
        var s = admin()
        row(&s, .setPrinting)
        #expect(press(&s, .enter).isEmpty)
        #expect(s.noticeIsError && (s.notice ?? "").contains("Say which printing setting"))
    }

    @Test func sendLogsAndTheActivationCode() {
        var s = admin()
        row(&s, .sendLogs)
        #expect(press(&s, .enter) == [.perform(.sendLogs, summary: "Send logs")])
        _ = update(&s, .performed(.answered(entry(21, .sendLogs, cents: nil, response: response("status=success&message=Logs sent&action=sendLogs"))), summary: "Send logs"))
        #expect(view(s, size: s.size).text.contains("vendor's support"))
        row(&s, .getCode)
        #expect(press(&s, .enter) == [.perform(.getActivationCode, summary: "Get an activation code")])
        _ = update(&s, .performed(.answered(entry(22, .getActivationCode, cents: nil, response: response("status=success&message=Activation code&action=getActivationCode&activationCode=48151623"))), summary: "Get an activation code"))
        #expect(s.admin.activationCode == "48151623")
        #expect(s.forms[.admin]?[.activationCode] == "48151623")
        #expect(view(s, size: s.size).text.contains("Activation code    48151623"))
    }

    @Test func activateSendsCodeSourcePinAndFlagsAndNeverShowsThePin() {
        var s = admin()
        row(&s, .field(.activationCode)); type(&s, "48151623")
        press(&s, .enter); type(&s, "shop-7")
        press(&s, .enter); type(&s, "2468")
        #expect(!view(s, size: s.size).text.contains("2468"))
        #expect(view(s, size: s.size).text.contains("••••"))
        row(&s, .flag("activateMoto")); press(&s, .enter)
        row(&s, .flag("lockRefund")); press(&s, .enter, .enter)
        row(&s, .activate)
        let cmds = press(&s, .enter)
        let want = ActivationRequest(activationCode: "48151623", sourceId: "shop-7", pinCode: "2468", flags: ["activateMoto": true, "lockRefund": false])
        #expect(cmds == [.perform(.activatePos(want), summary: "Activate the terminal")])
        // Handed over: the PIN is gone from the screen's memory.
        #expect(s.forms[.admin]?[.pinCode] == "")
    }

    @Test func apiKeyAndSecretAreMaskedAndAKeyAloneIsRefused() {
        var s = admin()
        row(&s, .field(.apikey)); type(&s, "KEY-very-secret")
        #expect(!view(s, size: s.size).text.contains("very-secret"))
        row(&s, .activate)
        #expect(press(&s, .enter).isEmpty)
        #expect(s.form.errors[.apiSecret] == "An API key needs its API secret too.")
        #expect(AdminScreen.rows[s.admin.row] == .field(.apiSecret))
        type(&s, "SECRET-xyz")
        #expect(!view(s, size: s.size).text.contains("SECRET-xyz"))
        row(&s, .activate)
        #expect(press(&s, .enter) == [.perform(.activatePos(ActivationRequest(apiKey: "KEY-very-secret", apiSecret: "SECRET-xyz")), summary: "Activate the terminal")])
        #expect(s.forms[.admin]?[.apikey] == "" && s.forms[.admin]?[.apiSecret] == "")
    }

    @Test func aBadPinIsRefusedWithoutEchoingIt() {
        var s = admin()
        row(&s, .field(.activationCode)); type(&s, "1")
        row(&s, .field(.pinCode)); type(&s, "12")
        row(&s, .activate)
        #expect(press(&s, .enter).isEmpty)
        #expect(s.form.errors[.pinCode] == "The PIN must be 4 to 8 digits.")
        #expect(!(s.notice ?? "").contains("12"))
    }

    /// A refused keystroke in the PIN (a ninth digit, a letter) is refused without echoing it.
    @Test func aRefusedPinKeystrokeIsNeverEchoed() {
        var s = admin()
        row(&s, .field(.pinCode)); type(&s, "24681357"); type(&s, "9")
        #expect(s.forms[.admin]?[.pinCode] == "24681357")
        #expect(s.notice?.contains("9") == false && s.notice?.contains("refused") == true)
        press(&s, .backspace, .backspace); type(&s, "x")
        #expect(s.notice?.contains("x") == false && s.notice?.contains("refused") == true)
        #expect(!view(s, size: s.size).text.contains("2468"))
    }

    @Test func theVerdictIsInCashierWords() {
        var s = admin()
        row(&s, .activate)
        _ = update(&s, .performed(.answered(entry(23, .activatePos, cents: nil, state: .declined, response: response("status=fail&message=(-48) ACTIVATION_FAILED&action=activatePos"))), summary: "Activate the terminal"))
        #expect(view(s, size: s.size).text.contains("could not be"))
    }

    @Test func typingOnAButtonRowTypesNowhere() {
        var s = admin()
        type(&s, "abc")
        #expect(s.forms[.admin]!.fields.allSatisfy { $0.text.isEmpty })
    }
}
