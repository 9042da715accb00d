import Testing
import TillModel
import TillProtocol
@testable import TillUI

/// Issue 34, money at risk: no digit, nor a digit and Enter, ever answers a box that moves money or gives a payment up
/// (a refund, "Earlier payment UNKNOWN", closing with unknown outcomes). `y` does; on the keypad keymap `+` does (after
/// the choice's digit where there are several). A cashier types amounts all day: "1 Enter" is an amount.
@Suite struct MoneyBoxTests {
    static let keypad = try! Keymap.parse(ShippedResources.keymaps["keypad"]!, file: "keypad.toml", name: "keypad")

    func box(_ s: AppState) -> TillUI.Confirmation? {
        if case .confirm(let c)? = s.overlay { return c }
        return nil
    }
    func moves(_ cmds: [Command]) -> Bool {
        cmds.contains {
            switch $0 {
            case .perform, .performConfirmed, .resolve: return true
            default: return false
            }
        }
    }

    /// F7, F5 on a sale's row, Enter: the Refund? box, as the issue's keys open it.
    func refundBoxFromTheJournal(_ keymap: Keymap) -> AppState {
        var s = readyState(keymap: keymap)
        press(&s, .f(7))
        _ = update(&s, .journalLoaded([entry(3, cents: 300, response: approvedSaleResponse)]))
        press(&s, .f(5))
        #expect(s.screen == .refund)
        enterFinding(&s, s.journal.entries)
        #expect(box(s)?.title == "Refund?")
        return s
    }

    @Test func oneThenEnterNeverRefunds() {
        var s = refundBoxFromTheJournal(.standard)
        #expect(!moves(press(&s, .char("1"), .enter)))
        #expect(!moves(press(&s, .char("1"), .enter, .enter)))
        #expect(box(s) != nil && s.notice?.contains("y to refund") == true, "\(s.notice ?? "")")
        // The screen names only the letter: no "/1" that invites a digit.
        #expect(view(s, size: s.size).contains("[y] refund"))
        #expect(moves(press(&s, .char("y"))))
    }

    @Test func oneThenEnterNeverChargesAfterAnUnknownOutcome() {
        var s = readyState()
        _ = update(&s, .unresolvedLoaded([entry(4, cents: 909, state: .unknown, note: "no answer")], recovered: false))
        type(&s, "12"); press(&s, .enter)
        #expect(box(s)?.title == "Earlier payment UNKNOWN")
        #expect(!moves(press(&s, .char("1"), .enter)))
        #expect(!moves(press(&s, .char("1"), .enter)))
        #expect(box(s) != nil)
        #expect(moves(press(&s, .char("y"))))
    }

    @Test func aDigitThenEnterNeverClosesWithUnknownOutcomes() {
        var s = readyState()
        _ = update(&s, .unresolvedLoaded([entry(4, cents: 909, state: .unknown, note: "no answer")], recovered: false))
        press(&s, .f(6), .ctrl("k"))
        #expect(box(s)?.title == "Close batch with unknown outcomes?")
        for d in ["1", "2"] {
            let cmds = press(&s, .char(Character(d)), .enter)
            #expect(!cmds.contains { if case .perform = $0 { return true }; return false }, "\(d) Enter: \(cmds)")
            #expect(box(s) != nil, "\(d) Enter closed the box")
        }
        // y, first as in every other box.
        #expect(box(s)?.choices.first?.key == "y")
        #expect(press(&s, .char("y")).contains { if case .perform(.batch(let b), _) = $0 { return b.command == .close }; return false })
    }

    @Test func onTheKeypadPlusRefundsAndADigitThenEnterDoesNot() {
        var s = refundBoxFromTheJournal(Self.keypad)
        #expect(!moves(press(&s, .char("1"), .enter)))
        #expect(box(s) != nil && s.notice?.contains("+") == true, "\(s.notice ?? "")")
        let shown = view(s, size: s.size)
        #expect(shown.contains("[+] refund") && shown.contains("[-] cancel"), "\(shown.text)")
        #expect(!shown.contains("Esc"))
        #expect(moves(press(&s, .char("+"))))
    }

    @Test func onTheKeypadADigitPicksAndPlusDoesIt() {
        var s = readyState(keymap: Self.keypad)
        _ = update(&s, .unresolvedLoaded([entry(4, cents: 909, state: .unknown, note: "no answer")], recovered: false))
        for c in "12" { press(&s, .char(c)) }
        press(&s, .enter)
        #expect(box(s)?.title == "Earlier payment UNKNOWN")
        // + with nothing picked, Enter, a digit and Enter: nothing.
        #expect(!moves(press(&s, .char("+"), .enter, .char("1"), .enter)))
        #expect(box(s) != nil)
        #expect(view(s, size: s.size).contains("[1 +] charge anyway"))
        #expect(moves(press(&s, .char("1"), .char("+"))))
    }
}

/// Issue 34: `F3 20 Enter`, its verdict, then `12 Enter` sent a second pre-auth: the next customer got a hold, not a
/// sale. After a pre-auth, capture or refund's verdict the screen goes back to Sale (the shop's usual payment, unless
/// its config says pre-auth), and each form's title says which action Enter sends.
@Suite struct BackToSaleTests {
    let preAuthApproved = entry(5, .preAuth, cents: 2000, response: response("status=success&message=Transaction successful.&action=pre_auth&amount=2000&referenceNumber=654399"))

    func sent(_ cmds: [Command]) -> Action? {
        for c in cmds { if case .perform(let r, _) = c { return r.action } }
        return nil
    }

    @Test func afterAPreAuthTheNextAmountAndEnterSell() {
        var s = readyState()
        press(&s, .f(3)); type(&s, "20")
        #expect(sent(press(&s, .enter)) == .preAuth)
        _ = update(&s, .performed(.answered(preAuthApproved), summary: "Pre-auth € 20.00"))
        #expect(s.screen == .sale)
        // The verdict is still shown, and the notice says where the cashier is now.
        #expect(view(s, size: s.size).contains("PRE-AUTH"))
        #expect(s.notice?.contains("back on Sale") == true, "\(s.notice ?? "")")
        type(&s, "12")
        #expect(sent(press(&s, .enter)) == .sale)
    }

    @Test func afterADeclinedRefundTheScreenIsSaleToo() {
        var s = readyState()
        press(&s, .f(5)); type(&s, "654321")
        enterFinding(&s, [entry(3, cents: 1250, response: approvedSaleResponse)])
        #expect(sent(press(&s, .char("y"))) == .cancel)
        let declined = entry(6, .cancel, cents: 1250, state: .declined, response: response("status=fail&message=(-12) TRANSACTION_DECLINED_BY_SERVER&action=cancel&amount=1250"))
        _ = update(&s, .performed(.answered(declined), summary: "Refund"))
        #expect(s.screen == .sale)
    }

    @Test func whereAPreAuthIsTheUsualPaymentTheScreenStays() {
        var s = readyState()
        s.homeScreen = .preAuth
        press(&s, .f(3)); type(&s, "20"); press(&s, .enter)
        _ = update(&s, .performed(.answered(preAuthApproved), summary: "Pre-auth € 20.00"))
        #expect(s.screen == .preAuth)
    }

    @Test func eachFormsTitleSaysWhatEnterSends() {
        var s = readyState()
        #expect(view(s, size: s.size).contains("Enter charges the card"))
        press(&s, .f(3))
        #expect(view(s, size: s.size).contains("PRE-AUTH: Enter HOLDS money"))
        press(&s, .f(5))
        #expect(view(s, size: s.size).contains("REFUND: Enter gives money BACK"))
        press(&s, .f(4))
        #expect(view(s, size: s.size).contains("CAPTURE: Enter charges a pre-auth"))
    }
}

/// Issue 34: `F5 1 S-Tab 50 Enter Esc F2 … F5 2 Enter` refunded 2.00: the kept refund form came back with the cursor on
/// Amount, so the STAN typed went into the amount. A form that comes back has the cursor on the field typed first and
/// says what it kept; that notice goes with the text it names.
@Suite struct KeptFormTests {
    @Test func aKeptRefundFormComesBackOnItsStan() {
        var s = readyState()
        press(&s, .f(5)); type(&s, "1"); press(&s, .backTab); type(&s, "50")
        #expect(s.form[.referenceNumber] == "1" && s.form[.amount] == "50")
        enterFinding(&s)
        press(&s, .esc, .f(2), .f(5))
        #expect(s.form.focused?.id == .referenceNumber)
        #expect(s.notice?.contains("STAN 1") == true && s.notice?.contains("€ 50") == true, "\(s.notice ?? "")")
        type(&s, "2")
        #expect(s.form[.referenceNumber] == "2" && s.form[.amount] == "50")
        // The notice named STAN 1, which is gone: so is the notice.
        #expect(s.notice == nil || s.notice?.contains("kept") == false, "\(s.notice ?? "")")
    }

    @Test func theCancelledNoticeGoesWithTheAmountItNames() {
        var s = readyState()
        s.confirmAbove = Money(cents: 1000)
        type(&s, "20"); press(&s, .enter)
        press(&s, .esc)
        #expect(s.notice?.contains("€ 20 kept") == true, "\(s.notice ?? "")")
        type(&s, "5")
        #expect(s.form[.amount] == "5")
        #expect(s.notice?.contains("€ 20") != true, "\(s.notice ?? "")")
    }
}

/// Issue 34: after a decline the amount was gone, and trying another card meant typing it again. Nothing was charged:
/// it is kept, selected (Enter sends it again, typing replaces it).
@Suite struct DeclineKeepsTheAmountTests {
    @Test func theDeclinedAmountIsKeptSelected() {
        var s = readyState()
        type(&s, "6.66")
        press(&s, .enter)
        _ = update(&s, .performed(.answered(entry(7, cents: 666, state: .declined, response: declinedSaleResponse)), summary: "Sale € 6.66"))
        #expect(s.form[.amount] == "6.66" && s.form.fields[0].selected)
        #expect(s.notice?.contains("€ 6.66 kept: Enter sends it again") == true, "\(s.notice ?? "")")
        #expect(press(&s, .enter).contains { if case .perform(.sale, _) = $0 { return true }; return false })
    }

    @Test func typingReplacesIt() {
        var s = readyState()
        type(&s, "6.66"); press(&s, .enter)
        _ = update(&s, .performed(.answered(entry(7, cents: 666, state: .declined, response: declinedSaleResponse)), summary: "Sale € 6.66"))
        type(&s, "5")
        #expect(s.form[.amount] == "5")
    }
}

/// Issue 34: the list said `48 entries`, a filter `22 of 61 match`, and showed look-up rows the list hides; `13`
/// matched order codes and card numbers and only `000013` found the sale.
@Suite struct JournalFilterTests {
    let sale13 = entry(1, cents: 500, response: response("status=success&action=sale&amount=500&referenceNumber=000013&orderCode=9999999999999999"),
                       at: fixedNow - 50 * 60_000)
    let other = entry(2, cents: 700, response: response("status=success&action=sale&amount=700&referenceNumber=000200&orderCode=1313131313131313"),
                      at: fixedNow - 20 * 60_000)
    let lookUp = entry(3, .transactionDetails, cents: nil, response: response("status=fail&action=transactionDetails&message=13 not found"),
                       at: fixedNow - 10 * 60_000)

    @Test func aNumberLikeAStanFindsThatStanFirstAndLookUpsStayHidden() {
        var s = JournalRollTests.journal([lookUp, other, sale13])
        #expect(view(s, size: s.size).contains("2 entries"))
        type(&s, "13")
        #expect(s.visibleJournal.map(\.id) == [1, 2], "\(s.visibleJournal.map(\.id))")
        #expect(view(s, size: s.size).contains("2 of 2 match"))
        press(&s, .f(5))
        #expect(s.screen == .refund && s.form[.referenceNumber] == "000013")
    }

    /// `1` in the journal's filter matched every row of the shift "Shift 2026-11-29" (the batch name on each row) and
    /// every note with a digit: a number typed is a STAN, an amount, a code or a card's digits, never a date or a note.
    @Test func aNumberMatchesNumbersOnlyNotTheShiftsNameOrANote() {
        var named = other
        named.batchName = "Shift 2026-11-29"
        var noted = entry(4, cents: 800, state: .unknown, note: "No answer within 15 s", at: fixedNow - 5 * 60_000)
        noted.batchName = "Shift 2026-11-29"
        var s = JournalRollTests.journal([noted, named, sale13])
        type(&s, "1")
        #expect(s.visibleJournal.map(\.id) == [2, 1], "\(s.visibleJournal.map(\.id))")
        press(&s, .backspace)
        type(&s, "shift")
        #expect(s.visibleJournal.count == 2, "a word still finds the shift's name: \(s.visibleJournal.map(\.id))")
    }

    @Test func aFilterNamingLookUpsShowsThem() {
        var s = JournalRollTests.journal([lookUp, other, sale13])
        type(&s, "details")
        #expect(s.visibleJournal.map(\.id) == [3])
        #expect(view(s, size: s.size).contains("1 of 3 match"))
    }
}

/// Issue 34: after ABORTED (no money taken: what now?) and TERMINAL BUSY the pane said no next step.
@Suite struct NextStepTests {
    @Test func abortedSaysWhatToDoNext() {
        let e = entry(8, cents: 808, state: .aborted, response: response("status=fail&message=(-57) ABORTED&action=sale&amount=808"))
        let v = CashierWording.verdict(for: e, tipStyle: .onTop)
        // Shown on every screen (on Refund, "type the amount and press Enter" refunded): it names where to do it.
        #expect(v.sentence.contains("type it again on Sale and press Enter"), "\(v.sentence)")
    }

    @Test func terminalBusySaysWhatToDoNext() {
        let e = entry(9, cents: 500, state: .declined, response: response("status=fail&message=(-22) TERMINAL_BUSY&action=sale&amount=500"))
        let v = CashierWording.verdict(for: e, tipStyle: .onTop)
        #expect(v.headline.hasPrefix("TERMINAL BUSY"), "\(v.headline)")
        #expect(v.sentence.contains("Look at the terminal") && v.sentence.contains("press Enter to send this again"), "\(v.sentence)")
    }
}

/// Found working a shift by hand (issue 34): a declined 6.66 kept on Sale, then a pre-auth: back on Sale the 6.66 was
/// still there, selected, and Enter by habit would have charged it.
@Suite struct BackToSaleClearsWhatWasKeptTests {
    @Test func anAmountKeptFromADeclineGoesWhenThePreAuthBringsTheCashierBack() {
        var s = readyState()
        type(&s, "6.66"); press(&s, .enter)
        _ = update(&s, .performed(.answered(entry(7, cents: 666, state: .declined, response: declinedSaleResponse)), summary: "Sale € 6.66"))
        #expect(s.form[.amount] == "6.66")
        press(&s, .f(3)); type(&s, "20"); press(&s, .enter)
        let pre = entry(8, .preAuth, cents: 2000, response: response("status=success&message=Transaction successful.&action=pre_auth&amount=2000&referenceNumber=654399"))
        _ = update(&s, .performed(.answered(pre), summary: "Pre-auth € 20.00"))
        #expect(s.screen == .sale && s.form[.amount] == "")
        #expect(press(&s, .enter).allSatisfy { if case .perform = $0 { return false }; return true })
        // "back on Sale" is said only while it is true: not on the next screen (seen by hand: F7, F5 on a row).
        press(&s, .f(7))
        _ = update(&s, .journalLoaded([entry(3, cents: 300, response: approvedSaleResponse)]))
        press(&s, .f(5))
        #expect(s.screen == .refund)
        #expect(s.notice?.contains("back on Sale") != true, "\(s.notice ?? "")")
    }
}
