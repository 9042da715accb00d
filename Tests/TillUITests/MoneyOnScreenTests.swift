import Foundation
import Testing
import TillModel
import TillProtocol
@testable import TillUI

// Issue 9's screen guarantees: what was shown is what was sent, nothing silently re-sent,
// nothing left "busy" forever. Each test reproduces a trap the old screen fell into.

private func sentRequest(_ cmds: [Command]) -> Request? {
    for c in cmds {
        if case .perform(let r, _) = c { return r }
        if case .performConfirmed(let r, _, _) = c { return r }
    }
    return nil
}

@Suite struct MoneyOnScreenTests {
    // MARK: the tip style

    // With `tip = "included"` the terminal reads the amount as the total, so the screen sends goods + tip. (That its
    // URL is the one `till url sale --tip-style included` prints is in TillCommandTests' ScreenAndCommandLineURLTests,
    // where the command line's code runs in process.)
    @Test(arguments: [("20", "2"), ("100", "10%"), ("12,50", "")])
    func withTheTipIncludedTheScreenSendsTheTotal(_ amount: String, _ tip: String) throws {
        var s = readyState()
        s.tipStyle = .included
        type(&s, amount)
        press(&s, .tab); type(&s, tip)
        let r = try #require(sentRequest(press(&s, .enter)))
        guard case .sale(let sale) = r else { Issue.record("not a sale: \(r)"); return }
        let goods = try Money.parse(amount)
        let tipMoney: Money? = tip.isEmpty ? nil : try tipValue(tip, amount: goods).get()
        #expect(sale.amount == goods + (tipMoney ?? .zero), "the amount sent is what the card pays")
    }

    // Found by attack: with the tip included, "tip ≤ amount" compared the tip with goods + tip, so it never fired:
    // 0.00 + 5.00 tip was charged 5.00, 1.00 + 100.00 tip 101.00. The tip is now checked against the goods.
    @Test(arguments: [("0", "5"), ("1", "100"), ("10", "150%")])
    func withTheTipIncludedATipLargerThanTheGoodsIsRefused(_ amount: String, _ tip: String) {
        var s = readyState()
        s.tipStyle = .included
        type(&s, amount)
        press(&s, .tab); type(&s, tip)
        #expect(sentRequest(press(&s, .enter)) == nil, "\(amount) + \(tip) was sent")
    }

    // MARK: what was shown is what was sent

    // Found by the whole-system test on a fresh clone: a kept amount 3.3, F8, F2, "-3", Enter charged 3.33.
    @Test func aRefusedKeyAlsoReplacesAKeptAmount() {
        var s = readyState()
        type(&s, "3.3"); press(&s, .f(8), .f(2))
        type(&s, "-3")
        #expect(s.form[.amount] == "-3" && s.form.errors[.amount] != nil)
        #expect(sentRequest(press(&s, .enter)) == nil)
    }

    @Test func keysAfterComingBackToSaleLandInTheAmount() {
        // F2 10 Tab Tab F7 F2 13.13 Enter charged 10.00 in 13 installments. Now the keys go where the cursor
        // is shown, on the amount, and coming back from another screen the amount left there is replaced by what is
        // typed (the screen says so): what is sent is what the cashier typed and sees.
        var s = readyState()
        press(&s, .f(2)); type(&s, "10"); press(&s, .tab, .tab, .f(7), .f(2))
        #expect(s.notice?.contains("typing replaces it") == true)
        type(&s, "13.13")
        #expect(s.form.focused?.id == .amount && s.form[.amount] == "13.13" && s.form[.preferredInstallments] == "")
        let r = sentRequest(press(&s, .enter))
        guard case .sale(let sale)? = r else { Issue.record("no sale: \(String(describing: r))"); return }
        #expect(sale.amount == Money(cents: 1313))
        #expect(sale.preferredInstallments == nil)
    }

    @Test func aMinusIsRefusedWithAMessageAndBlocksEnter() {
        // -3 Enter charged 3.00.
        var s = readyState()
        type(&s, "-3")
        #expect(s.form.errors[.amount]?.contains("'-'") == true)
        #expect(sentRequest(press(&s, .enter)) == nil)
        #expect(s.pending == nil)
        #expect(view(s, size: s.size).contains("'-'"))
        // Correcting the field (Backspace until the '-' is gone) lifts the block.
        #expect(s.form[.amount] == "-3")
        press(&s, .backspace)
        #expect(sentRequest(press(&s, .enter)) == nil)
        press(&s, .backspace)
        type(&s, "3")
        #expect(sentRequest(press(&s, .enter)) == .sale(SaleRequest(amount: Money(cents: 300), withInstallments: false, protocolName: "int_default")))
    }

    @Test func aRefusedCharacterInAnyFieldBlocksEnter() {
        var s = readyState()
        type(&s, "10"); press(&s, .tab, .tab); type(&s, "1.5")
        #expect(s.form.errors[.preferredInstallments] != nil)
        #expect(sentRequest(press(&s, .enter)) == nil)
        #expect(s.form.focused?.id == .preferredInstallments)
    }

    @Test func typingPastTheFieldLengthBlocksEnter() {
        var s = readyState()
        type(&s, "10"); press(&s, .tab, .tab); type(&s, "123")
        #expect(s.form[.preferredInstallments] == "12" && s.form.errors[.preferredInstallments] != nil)
        #expect(sentRequest(press(&s, .enter)) == nil)
    }

    // MARK: settled events and recovery

    @Test func aSettledEventClearsTheLookUpInFlight() {
        // After a restart whose recovery asked the terminal, the screen stayed busy on `details` for ever.
        var s = readyState()
        let lookUp = entry(40, .transactionDetails, cents: nil, state: .sent)
        _ = update(&s, .event(.inFlight(InFlight(entry: lookUp, startedAtMs: fixedNow, deadlineMs: fixedNow + 15_000))))
        #expect(s.pending != nil)
        var done = lookUp; done.state = .approved
        _ = update(&s, .event(.settled(.answered(done))))
        #expect(s.pending == nil)
        #expect(s.result == nil)   // a look-up is not a payment
        type(&s, "5")
        #expect(sentRequest(press(&s, .enter)) != nil)
    }

    @Test func aSettledEventForAnotherEntryLeavesTheOwnSaleWaiting() {
        var s = readyState()
        type(&s, "5"); press(&s, .enter)
        _ = update(&s, .event(.inFlight(InFlight(entry: entry(41, cents: 500, state: .sent), startedAtMs: fixedNow, deadlineMs: fixedNow + 90_000))))
        _ = update(&s, .event(.settled(.answered(entry(7, .transactionDetails, cents: nil)))))
        #expect(s.pending != nil)
    }

    @Test func whatRecoveryFoundIsShownAsAResult() {
        var s = readyState()
        let sale = entry(12, cents: 1313, state: .approved, note: "settled by recovery")
        _ = update(&s, .event(.recovered(sale)))
        let buf = view(s, size: s.size)
        #expect(buf.contains("WAS CHARGED"))
        #expect(buf.contains("13.13"))
    }

    // MARK: after OUTCOME UNKNOWN

    @Test func aNewSaleAfterAnUnknownOneAsksFirstAndNamesIt() {
        var s = readyState()
        type(&s, "13.13"); press(&s, .enter)
        let unknown = entry(3, cents: 1313, state: .unknown, note: "no answer in 90 s")
        _ = update(&s, .performed(.unknown(unknown), summary: "Sale € 13.13"))
        #expect(s.form[.amount] == "")
        type(&s, "13.13")
        #expect(sentRequest(press(&s, .enter)) == nil)
        guard case .confirm(let c)? = s.overlay else { Issue.record("no confirmation"); return }
        #expect(c.lines.joined(separator: " ").contains("13.13 at 11:00 may have been charged: check the terminal before charging again"))
        // Enter alone does not charge again.
        #expect(sentRequest(press(&s, .enter)) == nil)
        #expect(s.overlay != nil)
        let confirmed = press(&s, .char("y"))
        #expect(confirmed.contains { if case .performConfirmed(_, _, let ids) = $0 { return ids == [3] }; return false })
    }

    @Test func noQuestionOnceTheUnknownSaleIsResolved() {
        var s = readyState()
        type(&s, "13.13"); press(&s, .enter)
        _ = update(&s, .performed(.unknown(entry(3, cents: 1313, state: .unknown)), summary: "Sale € 13.13"))
        _ = update(&s, .unresolvedLoaded([], recovered: false))
        type(&s, "2")
        #expect(sentRequest(press(&s, .enter)) != nil)
    }

    @Test func resolvingHasNoDefaultThatCharges() {
        var s = readyState()
        _ = update(&s, .unresolvedLoaded([entry(3, cents: 1313, state: .unknown)], recovered: false))
        press(&s, .f(8))
        press(&s, .enter)
        guard case .confirm = s.overlay else { Issue.record("no confirmation"); return }
        #expect(press(&s, .enter).isEmpty)
        #expect(press(&s, .char("x")) == [.resolve(entryId: 3, charged: false, note: "")])
    }

    @Test func unresolvedCanAskTheTerminalAgain() {
        var s = readyState()
        _ = update(&s, .unresolvedLoaded([entry(3, cents: 1313, state: .unknown)], recovered: false))
        press(&s, .f(8))
        #expect(press(&s, .char("a")) == [.recover])
    }

    @Test func theCashierCanStopWaiting() {
        var s = readyState()
        type(&s, "9.09"); press(&s, .enter)
        press(&s, .ctrl("w"))
        guard case .confirm(let c)? = s.overlay else { Issue.record("no confirmation"); return }
        #expect(c.lines.joined(separator: " ").contains("UNKNOWN"))
        #expect(press(&s, .char("y")) == [.stopWaiting])
        _ = update(&s, .performed(.unknown(entry(4, cents: 909, state: .unknown, note: "The cashier stopped waiting.")), summary: "Sale € 9.09"))
        #expect(s.pending == nil)
        #expect(s.unresolved.entries.map(\.id) == [4])
    }
}
