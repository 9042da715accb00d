import Foundation
import Testing
import TillProtocol
@testable import TillSimulator

// Issue 12: the simulator answers the sample apps' actions with their field names, and follows the
// pages (or real terminals, by style) where till was found to differ. Answers byte for byte.

private let cb = "interapp-callback://result?"

@Suite("The sample apps' actions: the simulator's answers")
struct SampleActionSimTests {
    @Test func printingSettingsAreKeptAndAnsweredWithTheSamplesNames() throws {
        let h = Harness(instant)
        h.send("getPrintingSettings")
        #expect(h.transcript.last == cb + "status=success&message=Printing%20settings&action=getPrintingSettings"
            + "&isCustomerReceiptEnabled=true&isMerchantReceiptEnabled=true&isPrintingReceiptEnabled=true"
            + "&printLogoOnMerchantReceipt=false&printVATOnMerchantReceipt=false&isBarcodeEnabled=false"
            + "&printAddressOnReceipt=false&businessDescriptionEnabled=false&businessDescriptionType=businessName")
        h.send("set_printing_settings&isCustomerReceiptEnabled=false&printLogoOnMerchantReceipt=true&businessDescriptionType=tradeName")
        let changed = "&isCustomerReceiptEnabled=false&isMerchantReceiptEnabled=true&isPrintingReceiptEnabled=true"
            + "&printLogoOnMerchantReceipt=true&printVATOnMerchantReceipt=false&isBarcodeEnabled=false"
            + "&printAddressOnReceipt=false&businessDescriptionEnabled=false&businessDescriptionType=tradeName"
        #expect(h.transcript.last == cb + "status=success&message=Printing%20settings%20saved&action=set_printing_settings" + changed)
        // Kept across a restart (the state file).
        let restarted = Harness(instant, state: try StateCoding.decode(try StateCoding.encode(h.sim.state)))
        restarted.send("getPrintingSettings")
        #expect(restarted.transcript.last == cb + "status=success&message=Printing%20settings&action=getPrintingSettings" + changed)
        // A value the sample never sends is refused, the settings untouched.
        let bad = try #require(h.send("set_printing_settings&isBarcodeEnabled=maybe").first)
        #expect(bad.status == .fail && bad.message == "(-40) INVALID_REQUEST")
        #expect(h.sim.state.setup.printing.barcode == false)
    }

    @Test func sendLogs() {
        let h = Harness(instant)
        h.send("sendLogs")
        #expect(h.transcript.last == cb + "status=success&message=Logs%20sent&action=sendLogs")
        #expect(h.sim.state.setup.logsSent == 1)
    }

    @Test func activationByCodeThenByKey() throws {
        let h = Harness(instant)
        let act = "vivapayclient://pay/v1?callback=interapp-callback&appId=com.example.till&action="
        let code = try #require(h.send(act + "getActivationCode").first?["activationCode"])
        #expect(isDigits(code, 8))
        #expect(h.transcript.last == cb + "status=success&message=Activation%20code&action=getActivationCode&activationCode=" + code)
        // A wrong code is refused; the right one activates, once.
        #expect(h.send(act + "activatePos&activationCode=00000000&sourceID=Default").first?.message == "(-48) ACTIVATION_FAILED")
        h.send(act + "activatePos&activationCode=\(code)&sourceID=Default&pinCode=1234&lockRefund=true&activateMoto=false")
        #expect(h.transcript.last == cb + "status=success&message=POS%20activated&action=activatePos&sourceTerminalId=16016684&sourceID=Default")
        #expect(h.sim.state.setup.flags == ["lockRefund": true, "activateMoto": false])
        #expect(h.send(act + "activatePos&activationCode=\(code)").first?.status == .fail)
        // By API key and secret (the sample's other section).
        #expect(h.send(act + "activatePos&apikey=k&apiSecret=s").first?.isApproved == true)
        // The answer never echoes a secret.
        for url in h.transcript { #expect(!url.contains("1234") && !url.contains("apiSecret")) }
    }

    @Test func reprintByOrderCodeLatestAndUnknown() throws {
        let h = Harness(instant)
        let sale = try #require(h.completedSale("sale&amount=1200"))
        let order = try #require(sale.orderCode)
        h.send("reprintTransaction&orderCode=\(order)")
        #expect(h.transcript.last == cb + "status=success&message=Receipt%20printed&action=reprintTransaction&orderCode=\(order)"
            + "&transactionId=\(sale.transactionId!)")
        h.send("reprintTransaction")
        #expect(h.transcript.last == cb + "status=success&message=Receipt%20printed&action=reprintTransaction&orderCode=\(order)"
            + "&transactionId=\(sale.transactionId!)")
        h.send("reprintTransaction&orderCode=1234567890123456")
        #expect(h.transcript.last == cb + "status=fail&message=%28-30%29%20TRANSACTION_NOT_FOUND&action=reprintTransaction&orderCode=1234567890123456")
        #expect(h.sim.state.setup.reprints == 2)
    }

    @Test func administrativeActionsWaitForTheSaleInProgress() {
        let h = Harness(realTime)
        #expect(h.send("sale&amount=100").isEmpty)
        for action in ["getPrintingSettings", "sendLogs", "reprintTransaction"] {
            #expect(h.send(action).first?.message == "(-20) TRANSACTION_IN_PROGRESS")
        }
    }

    @Test func detailsWithSourceTerminalId() throws {
        let h = Harness(instant)
        _ = h.completedSale("sale&amount=100&clientTransactionId=d-1")
        let here = try #require(h.send("transactionDetails&clientTransactionId=d-1&sourceTerminalId=16016684").first)
        #expect(here.isApproved && here["sourceTerminalId"] == "16016684")
        h.send("transactionDetails&clientTransactionId=d-1&sourceTerminalId=99999999")
        #expect(h.transcript.last == cb + "status=fail&message=%28-30%29%20TRANSACTION_NOT_FOUND&action=transactionDetails"
            + "&clientTransactionId=d-1&sourceTerminalId=99999999")
    }

    @Test func paymentMethods() throws {
        let h = Harness(instant)
        let moto = try #require(h.completedSale("sale&amount=100&paymentMethod=MOTO"))
        #expect(moto.isApproved && moto.verificationMethod == "MANUAL ENTRY")
        #expect(h.sim.state.transactions.last?.paymentMethod == .moto)
        // abort.txt:15: no abort "when the user has selected to pay via QR code".
        let r = Harness(realTime)
        #expect(r.send("sale&amount=100&paymentMethod=QrDefault").isEmpty)
        #expect(r.send("abort").isEmpty)
        #expect(r.sim.state.pending != nil)
        // An unknown method is refused.
        #expect(h.send("sale&amount=100&paymentMethod=Cash").first?.message == "(-40) INVALID_REQUEST")
    }
}

@Suite("The simulator against the pages")
struct PageFaithfulSimTests {
    /// sale.txt:28: "If the number is 0 or > max allowed number of installments then the user will be prompt
    /// to enter the number in the app": the cardholder picks, nothing is refused.
    @Test func installmentsAboveTheMaximumArePromptedNotRefused() throws {
        let h = Harness(instant)
        let r = try #require(h.completedSale("sale&amount=5000&withInstallments=true&preferredInstallments=48"))
        #expect(r.isApproved)
        let n = try #require(r.installments)
        #expect((2...12).contains(n))
        let exact = try #require(h.completedSale("sale&amount=5000&withInstallments=true&preferredInstallments=36"))
        #expect(exact.installments == 36)
    }

    /// batch.txt:10: "a batch remains open for 48 hours before automatically being closed and a new one
    /// being started": a plain close afterwards closes the new one (it used to fail, BATCH_NOT_FOUND).
    @Test func aPlainCloseAfterTheAutoCloseClosesTheNewBatch() throws {
        let h = Harness(instant)
        _ = h.send("batch&command=open&batchName=friday")
        _ = h.advance(to: T0 + 50 * hour)
        let r = try #require(h.send("batch&command=close").first)
        #expect(r.isApproved && r.batchName == "Batch 2")
        #expect(h.sim.state.closedBatches.map(\.closedBy) == [.autoClose, .command])
        // Days off: one new batch at the last 48-hour mark, not one per 48 hours.
        let off = Harness(instant)
        _ = off.send("batch&command=open&batchName=a")
        _ = off.advance(to: T0 + 10 * 24 * hour)
        #expect(off.sim.state.closedBatches.count == 1)
        #expect(off.sim.state.activeBatch?.openedMs == T0 + 5 * 48 * hour)
    }

    /// overview-sale-cancel.txt:131: "status=failed&message=Transaction%20declined%20by%20host.", no STAN,
    /// no authorisation code (the decline style `page`).
    @Test func theDeclineOfThePage() throws {
        let h = Harness(SimulatorConfig(speed: 0, declineStyle: .page))
        let r = try #require(h.completedSale("sale&amount=666&tipAmount=100&clientTransactionId=d-9"))
        let url = try #require(h.transcript.last)
        #expect(url.hasPrefix(cb + "status=failed&message=Transaction%20declined%20by%20host.&action=sale&clientTransactionId=d-9&amount=666&tipAmount=100&"))
        #expect(url.contains("&referenceNumber=&authorisationCode=&tid=16016684&"))
        #expect(r.status == .fail && !r.isApproved)
        // The default stays the real terminals' form.
        let t = Harness(instant)
        #expect(t.completedSale("sale&amount=666")?.message == "(-12) TRANSACTION_DECLINED_BY_SERVER")
    }

    /// overview-sale-cancel.txt:148: with no STAN "the app will provide a list of the last 3 transactions
    /// made with the presented card, allowing the user to select": among that card's last three, never older,
    /// and not always the latest.
    @Test func aCancelWithNoKeyPicksAmongTheCardsLastThree() throws {
        var picked = Set<Int>()
        for seed in UInt64(1)...24 {
            let h = Harness(SimulatorConfig(seed: seed, speed: 0))
            for cents in [1001, 1002, 1003, 1004, 1005] { _ = h.completedSale("sale&amount=\(cents)") }
            var s = h.sim.state
            for i in 0..<5 { s.transactions[i].accountNumber = "479275******1111" }   // one card, five sales
            let same = Harness(SimulatorConfig(seed: seed, speed: 0), state: try StateCoding.decode(try StateCoding.encode(s)), now: h.now)
            let r = try #require(same.send("cancel").first)
            #expect(r.isApproved)
            let cents = try #require(r.amount?.cents)
            #expect([1003, 1004, 1005].contains(cents), "seed \(seed) refunded \(cents): older than the card's last three")
            picked.insert(cents)
            // Three full refunds use up the card's last three; the older ones are never offered.
            _ = same.send("cancel"); _ = same.send("cancel")
            #expect(same.send("cancel").first?.message == "(-30) TRANSACTION_NOT_FOUND")
        }
        #expect(picked.count > 1, "always the same pick: the cardholder never chooses")
    }
}

@Suite("Abort styles")
struct AbortStyleSimTests {
    private func started(_ style: AbortStyle) -> Harness {
        let h = Harness(SimulatorConfig(seed: 1, speed: 1, abortStyle: style))
        #expect(h.send("sale&amount=1000&tipAmount=150&clientTransactionId=ab-1").isEmpty)
        h.now += 1500
        return h
    }

    /// Real terminals: one `action=ABORT&status=fail&message=(-57) ABORTED` that settles the sale too.
    @Test func terminal() {
        let h = started(.terminal)
        h.send("abort")
        #expect(h.transcript == [cb + "status=fail&message=%28-57%29%20ABORTED&action=ABORT&amount=1000&tipAmount=150&clientTransactionId=ab-1"])
        #expect(h.advance(by: 24 * hour).isEmpty)
    }

    /// abort.txt:67-71: `action=abort`, `status=success`, `aborted`; then the sale's own answer, aborted.
    @Test func page() throws {
        let h = started(.page)
        let out = h.send("abort")
        try #require(out.count == 2)
        #expect(h.transcript[0] == cb + "status=success&message=aborted&action=abort")
        #expect(out[0].abortOutcome == .aborted && out[0].action == .abort)
        let t = try #require(h.sim.state.transactions.last)
        #expect(h.transcript[1] == cb + "status=fail&message=%28-57%29%20ABORTED&action=sale&clientTransactionId=ab-1&amount=1000&tipAmount=150"
            + "&verificationMethod=&rrn=&cardType=&accountNumber=&referenceNumber=&authorisationCode=&tid=16016684"
            + "&orderCode=\(t.orderCode)&shortOrderCode=\(t.shortOrderCode)&transactionDate=\(QueryCodec.encodeCallbackValue(t.transactionDate))"
            + "&transactionId=\(t.transactionId)")
        #expect(!out[1].isApproved && out[1].action == .sale)
        #expect(h.advance(by: 24 * hour).isEmpty)
        // Nothing to abort, the page's way: status success too (abort.txt:70-71); never an approval of money.
        h.send("abort")
        #expect(h.transcript.last == cb + "status=success&message=nothing%20to%20abort&action=abort")
        #expect(h.sim.state.transactions.filter(\.approved).isEmpty)
    }

    /// abort.txt:61: "you won't receive an abort response but you will receive the sale response".
    @Test func saleOnly() throws {
        let h = started(.saleOnly)
        let out = h.send("abort")
        try #require(out.count == 1)
        #expect(out[0].action == .sale && out[0].message == "(-57) ABORTED" && out[0].status == .fail)
        #expect(out[0].clientTransactionId == "ab-1" && out[0].amount == Money(cents: 1000))
        #expect(h.advance(by: 24 * hour).isEmpty)
        #expect(h.send("abort").first?.message == "(-55) NOTHING_TO_ABORT")
    }

    /// Past the card read no style answers the abort: the sale answers itself, approved.
    @Test(arguments: AbortStyle.allCases)
    func pastThePointOfNoReturn(style: AbortStyle) {
        let h = started(style)
        h.now += 2000   // the card is read at 3 s
        _ = h.advance(by: 0)
        #expect(h.send("abort").isEmpty)
        let out = h.advance(by: 2000)
        #expect(out.count == 1 && out.first?.isApproved == true)
    }

    /// A config saved before the styles existed still loads, with the defaults.
    @Test func oldConfigsDecode() throws {
        let old = #"{"seed":1,"speed":1,"cardWaitMs":3000,"hostRoundTripMs":1000,"giveUpAfterMs":60000,"tid":"16016684","utcOffsetMinutes":0}"#
        let c = try JSONDecoder().decode(SimulatorConfig.self, from: Data(old.utf8))
        #expect(c.abortStyle == .terminal && c.declineStyle == .terminal)
    }
}

/// `till simulate --abort-style` and `--decline-style`, as a bridge runs them.
@Suite struct StyleFlagProcessTests {
    @Test func abortAndDeclineStylesFromTheCommandLine() throws {
        try requireBinary()
        let p = try SimProcess(["--stdio", "--speed", "1", "--card-wait-ms", "600000", "--abort-style", "page", "--decline-style", "page"])
        p.watchdog(60)
        p.send(base + "sale&amount=1000&clientTransactionId=s-1")
        p.send(base + "abort")
        #expect(p.readLine() == cb + "status=success&message=aborted&action=abort")
        let sale = try #require(p.readLine())
        #expect(sale.hasPrefix(cb + "status=fail&message=%28-57%29%20ABORTED&action=sale&clientTransactionId=s-1&amount=1000&"))
        p.closeInput()
        _ = p.readToEnd()
        let d = try SimProcess(["--stdio", "--speed", "0", "--decline-style", "page"])
        d.watchdog(60)
        d.send(base + "sale&amount=666")
        #expect(try #require(d.readLine()).hasPrefix(cb + "status=failed&message=Transaction%20declined%20by%20host.&action=sale&"))
        d.closeInput()
        _ = d.readToEnd()
    }
}
