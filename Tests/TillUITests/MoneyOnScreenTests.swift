import Foundation
import Testing
import TillModel
import TillProtocol
@testable import TillUI

// Issue 9's screen guarantees: what was shown is what was sent, nothing silently re-sent,
// nothing left "busy" forever. Each test reproduces a trap the old screen fell into.

/// The caller `till url` is given below, so both URLs can be compared whole.
private let testCaller = Caller(callback: "till", merchantKey: "till", appId: "till")

private func tillURL(_ args: [String]) throws -> String {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let path = root.appendingPathComponent(".build/debug/till").path
    guard FileManager.default.isExecutableFile(atPath: path) else {
        throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "no till binary at \(path): swift build --product till first"])
    }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = args + ["--show-secrets", "--callback", "till", "--merchant-key", "till", "--app-id", "till"]
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
}

private func sentRequest(_ cmds: [Command]) -> Request? {
    for c in cmds {
        if case .perform(let r, _) = c { return r }
        if case .performConfirmed(let r, _, _) = c { return r }
    }
    return nil
}

@Suite struct MoneyOnScreenTests {
    // MARK: one reading of typed text for the screen and the CLI

    // With `tip = "included"` the terminal reads the amount as the total: the screen sent the goods alone (20.00
    // charged for 20.00 + 2.00 typed), and `till sale` did too. Both now read the tip style, and agree whole.
    @Test(arguments: [("20", "2"), ("100", "10%"), ("12,50", "")])
    func withTheTipIncludedTheScreenSendsTheTotalAsTheCLIDoes(_ amount: String, _ tip: String) throws {
        var s = readyState()
        s.tipStyle = .included
        type(&s, amount)
        press(&s, .tab); type(&s, tip)
        let r = try #require(sentRequest(press(&s, .enter)))
        guard case .sale(let sale) = r else { Issue.record("not a sale: \(r)"); return }
        let goods = try Money.parse(amount)
        let tipMoney: Money? = tip.isEmpty ? nil : try tipValue(tip, amount: goods).get()
        #expect(sale.amount == goods + (tipMoney ?? .zero), "the amount sent is what the card pays")
        var args = ["url", "sale", "--amount", amount, "--tip-style", "included"]
        if !tip.isEmpty { args += ["--tip", tip] }
        #expect(TerminalRequest(caller: testCaller, request: r).url == (try tillURL(args)))
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

    @Test(arguments: [
        ("12,5", "", "", ""),
        ("100", "10%", "3", "order-42"),
        ("12.50", "1,25", "0", ""),
    ])
    func screenAndCLIBuildTheIdenticalSaleURL(_ amount: String, _ tip: String, _ installments: String, _ reference: String) throws {
        var s = readyState()
        type(&s, amount)
        press(&s, .tab); type(&s, tip)
        press(&s, .tab); type(&s, installments)
        press(&s, .tab); type(&s, reference)
        let r = try #require(sentRequest(press(&s, .enter)))
        var args = ["url", "sale", "--amount", amount]
        if !tip.isEmpty { args += ["--tip", tip] }
        if !installments.isEmpty { args += ["--installments", installments] }
        if !reference.isEmpty { args += ["--client-transaction-id", reference] }
        let cli = try tillURL(args)
        #expect(TerminalRequest(caller: testCaller, request: r).url == cli)
        #expect(cli.contains("protocol=int_default"))
        #expect(cli.contains("withInstallments="))
    }

    @Test func screenAndCLIBuildTheIdenticalPreAuthURL() throws {
        var s = readyState()
        press(&s, .f(3))
        type(&s, "50,5")
        let r = try #require(sentRequest(press(&s, .enter)))
        #expect(TerminalRequest(caller: testCaller, request: r).url == (try tillURL(["url", "pre-auth", "--amount", "50,5"])))
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
