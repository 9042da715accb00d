import Testing
import TillModel
import TillProtocol
@testable import TillUI

/// The cashier's intent through `update`: nothing typed is charged by surprise, no box moves money on a reflex.
/// Each test is a trap a cashier fell into at the till (the tmux tests in CashierIntentE2ETests repeat them on the
/// real binary).
@Suite struct CashierIntentTests {
    /// The amount of the sale a command sends, if it sends one.
    func saleAmount(_ cmds: [Command]) -> Money? {
        for c in cmds {
            switch c {
            case .perform(.sale(let r), _), .performConfirmed(.sale(let r), _, _): return r.amount
            default: continue
            }
        }
        return nil
    }

    func sends(_ cmds: [Command]) -> Bool {
        cmds.contains { if case .perform = $0 { return true }; if case .performConfirmed = $0 { return true }; return false }
    }

    func approved(_ id: Int64, cents: Int, _ action: Action = .sale) -> ActionOutcome {
        .answered(entry(id, action, cents: cents, response: response("status=success&message=Transaction successful.&action=\(action.rawValue)&amount=\(cents)&referenceNumber=00000\(id)")))
    }

    // MARK: typing ahead

    @Test func typingWhileThePaymentIsWithTheTerminalIsTheNextCustomersAmountAlone() {
        var s = readyState()
        type(&s, "4")
        #expect(saleAmount(press(&s, .enter)) == Money(cents: 400))
        // The form is fresh the moment the request is sent; the in-flight pane shows what was sent.
        #expect(s.form[.amount] == "" && s.form.life == .fresh)
        type(&s, "7")
        #expect(s.form[.amount] == "7" && s.form.life == .nextCustomer)
        #expect(view(s, size: s.size).contains("Sale € 4.00"))
        _ = update(&s, .performed(approved(1, cents: 400), summary: "Sale € 4.00"))
        // Kept after the verdict, as the next customer's amount, alone.
        #expect(s.form[.amount] == "7")
        #expect(saleAmount(press(&s, .enter)) == Money(cents: 700))
    }

    @Test func withNothingTypedAheadTheFormIsBlankAfterTheVerdict() {
        var s = readyState()
        type(&s, "4"); press(&s, .enter)
        _ = update(&s, .performed(approved(1, cents: 400), summary: "Sale € 4.00"))
        #expect(s.form[.amount] == "")
        #expect(!sends(press(&s, .enter)))
    }

    /// Found in a shift by hand: Enter pressed twice by habit sent the sale, then marked the fresh form "✗ Enter an
    /// amount", which still stood under the approved verdict. Nothing typed while the terminal works is not a mistake.
    @Test func enterTwiceByHabitMarksNothingWrong() {
        var s = readyState()
        type(&s, "15"); press(&s, .ctrl("t"), .ctrl("t"))
        #expect(sends(press(&s, .enter)))
        #expect(!sends(press(&s, .enter)))
        #expect(s.form.errors.isEmpty && s.form.message == nil, "\(s.form.errors)")
        #expect(s.notice?.contains("is in flight") == true, "\(s.notice ?? "")")
        _ = update(&s, .performed(approved(1, cents: 1650), summary: "Sale € 16.50"))
        #expect(!view(s, size: s.size).contains("Enter an amount"))
    }

    @Test func aSaleNotSentComesBackKeptSoTypingReplacesIt() {
        var s = readyState()
        type(&s, "4"); press(&s, .enter)
        _ = update(&s, .performed(.otherTillBusy("another till is waiting"), summary: "Sale € 4.00"))
        #expect(s.form[.amount] == "4" && s.form.life == .kept && s.form.fields[0].selected)
        type(&s, "7")
        #expect(s.form[.amount] == "7")
    }

    @Test func openingAShiftFromTheSaleBoxThenTypingReplacesTheAmount() {
        var s = readyState()
        _ = update(&s, .batchLoaded(BatchInfo()))
        type(&s, "5"); press(&s, .enter)
        let cmds = press(&s, .char("o"))
        guard case .perform(.batch, _)? = cmds.first else { Issue.record("no shift opened: \(cmds)"); return }
        // While the shift opens, a 7 is typed: it replaces the 5 (kept and selected), never makes 57.
        type(&s, "7")
        #expect(s.form[.amount] == "7")
        _ = update(&s, .performed(approved(1, cents: 0, .batch), summary: "Open batch"))
        #expect(saleAmount(press(&s, .enter)) == Money(cents: 700))
    }

    /// The box's `o` opens the shift and charges the sale it interrupted: one key, and the sale cannot be forgotten.
    @Test func openingAShiftFromTheSaleBoxChargesTheSaleItInterrupted() {
        var s = readyState()
        _ = update(&s, .batchLoaded(BatchInfo()))
        type(&s, "5"); press(&s, .enter)
        #expect(view(s, size: s.size).contains("charge € 5.00"))
        press(&s, .char("o"))
        let cmds = update(&s, .performed(approved(1, cents: 0, .batch), summary: "Open batch"))
        #expect(saleAmount(cmds) == Money(cents: 500), "\(cmds)")
        #expect(s.pending?.action == .sale)
    }

    /// `12.50 Enter Enter 6.66 Enter`: Enter by habit in the no-shift box opened the shift only, the pane said
    /// BATCH OPENED, and the next customer's 6.66 replaced 12.50, which was never charged. The box moves money now:
    /// neither Enter nor digits answer it, and the 12.50 stays until the cashier answers it.
    @Test func enterByHabitInTheNoShiftBoxNeitherOpensNorLosesTheSale() {
        var s = readyState()
        _ = update(&s, .batchLoaded(BatchInfo()))
        type(&s, "12.50"); press(&s, .enter)
        #expect(!sends(press(&s, .enter)))
        type(&s, "6.66")
        #expect(!sends(press(&s, .enter)))
        guard case .confirm(let box)? = s.overlay else { Issue.record("the box went: \(String(describing: s.overlay))"); return }
        #expect(box.title == "No shift open")
        #expect(s.forms[.sale]?[.amount] == "12.50")
    }

    /// A shift that does not open charges nothing: the amount stays, and the cashier is told.
    @Test func aShiftThatDoesNotOpenChargesNothing() {
        var s = readyState()
        _ = update(&s, .batchLoaded(BatchInfo()))
        type(&s, "5"); press(&s, .enter); press(&s, .char("o"))
        let declined = ActionOutcome.answered(entry(1, .batch, cents: 0, state: .declined,
            response: response("status=fail&message=Batch error.&action=batch")))
        let cmds = update(&s, .performed(declined, summary: "Open batch"))
        #expect(saleAmount(cmds) == nil)
        #expect(s.form[.amount] == "5")
        #expect(s.notice?.contains("not charged") == true, "\(String(describing: s.notice))")
    }

    // MARK: Esc clear on Sale

    /// The sale a command sends, if it sends one.
    func sale(_ cmds: [Command]) -> SaleRequest? {
        for c in cmds {
            switch c {
            case .perform(.sale(let r), _), .performConfirmed(.sale(let r), _, _): return r
            default: continue
            }
        }
        return nil
    }

    @Test func escClearOnSaleClearsTheWholeFormNotOnlyTheAmount() {
        var s = readyState()
        type(&s, "30"); press(&s, .ctrl("t"), .ctrl("t")); press(&s, .tab, .tab); type(&s, "6"); press(&s, .alt("m"))
        #expect(view(s, size: s.size).contains("Esc clear"))
        press(&s, .esc)
        // Nothing of this customer's is left for the next one: tip, installments, reference and the payment method go
        // with the amount, and the cursor is back on the amount.
        #expect(!s.form.hasText && s.form.life == .fresh, "\(s.form.fields.map(\.text))")
        #expect(s.paymentMethod(.sale) == .cardPresent)
        #expect(s.form.focused?.id == .amount)
        let screen = view(s, size: s.size).text
        #expect(!screen.contains("10%_") && !screen.contains("MOTO"), "\(screen)")
        press(&s, .esc)
        type(&s, "10")
        let sent = sale(press(&s, .enter))
        #expect(sent?.amount == Money(cents: 1000))
        #expect(sent?.tipAmount == nil && sent?.preferredInstallments == nil && sent?.withInstallments != true && sent?.paymentMethod == nil,
                "\(String(describing: sent))")
    }

    @Test func escClearOnPreAuthClearsTheWholeFormTooThenGoesBack() {
        var s = readyState()
        press(&s, .f(3)); type(&s, "50"); press(&s, .tab); type(&s, "ROOM-12"); press(&s, .alt("m"))
        #expect(view(s, size: s.size).contains("Esc clear"))
        press(&s, .esc)
        #expect(s.screen == .preAuth && !s.form.hasText && s.paymentMethod(.preAuth) == .cardPresent)
        #expect(view(s, size: s.size).contains("Esc back"))
        press(&s, .esc)
        #expect(s.screen == .sale)
    }

    // MARK: a form left and come back to

    @Test func aPreAuthAmountLeftAndComeBackToIsReplacedNotAppended() {
        var s = readyState()
        press(&s, .f(3)); type(&s, "50")
        press(&s, .f(2)); press(&s, .f(3))
        #expect(s.form.life == .kept && s.form.fields[0].selected)
        #expect(s.notice?.contains("typing replaces it") == true)
        type(&s, "50")
        #expect(s.form[.amount] == "50")
    }

    @Test func aSaleAmountAfterACancelledBoxIsReplacedNotAppended() {
        var s = readyState()
        _ = update(&s, .batchLoaded(BatchInfo()))
        type(&s, "20"); press(&s, .enter)
        #expect(s.overlay != nil)
        press(&s, .esc)
        #expect(s.notice?.contains("typing replaces it") == true)
        type(&s, "20")
        #expect(s.form[.amount] == "20")
    }

    @Test func backspaceOnAKeptAmountDeletesItAll() {
        var s = readyState()
        press(&s, .f(3)); type(&s, "50"); press(&s, .f(2)); press(&s, .f(3))
        press(&s, .backspace)
        #expect(s.form[.amount] == "")
        type(&s, "5")
        #expect(s.form[.amount] == "5")
    }

    /// Found by an outside cashier: "Amount € 25 kept … Enter sends it" stayed on the status line while the field showed
    /// the 37 typed over it.
    @Test func theKeptNoticeGoesWhenTypingReplacesTheAmount() {
        var s = readyState()
        type(&s, "25"); press(&s, .f(7)); press(&s, .f(2))
        #expect(s.notice?.contains("Amount € 25 kept") == true, "\(s.notice ?? "")")
        type(&s, "37")
        #expect(s.form[.amount] == "37" && s.notice?.contains("kept") != true, "\(s.notice ?? "")")
    }

    @Test func aTipPresetOnAKeptSaleIsNotASelection() {
        var s = readyState()
        type(&s, "20"); press(&s, .ctrl("t"), .ctrl("t")); press(&s, .f(7)); press(&s, .f(2))
        #expect(s.form.fields.first { $0.id == .tipAmount }?.selected == true)
        press(&s, .ctrl("t"))
        #expect(s.form[.tipAmount] == "15%" && s.form.fields.first { $0.id == .tipAmount }?.selected == false)
        #expect(s.form.fields[0].selected)   // the amount is still kept, selected
    }

    @Test func aKeptAmountIsDrawnSelected() {
        var s = readyState()
        press(&s, .f(3)); type(&s, "50"); press(&s, .f(2)); press(&s, .f(3))
        let buf = view(s, size: s.size)
        guard let y = (0..<buf.size.height).first(where: { buf.line($0).contains("€ 50") }),
              let r = buf.line(y).range(of: "€ 50") else { Issue.record("no amount on screen"); return }
        let x = buf.line(y).distance(from: buf.line(y).startIndex, to: r.lowerBound)
        #expect(buf.cells[y * buf.size.width + x + 2].role == .selection)
        // Where it is not kept, the amount is not drawn selected.
        type(&s, "5")
        #expect(!(0..<buf.size.width).contains { view(s, size: s.size).cells[y * buf.size.width + $0].role == .selection })
    }

    // MARK: boxes that move money

    func journalWithSale(_ s: inout AppState) {
        press(&s, .f(7))
        _ = update(&s, .journalLoaded([entry(1, cents: 1250, tip: 125, response: approvedSaleResponse)]))
    }

    @Test func theRefundBoxNeverAnswersEnterAlone() {
        var s = readyState()
        journalWithSale(&s)
        press(&s, .f(5))
        #expect(s.screen == .refund)
        enterFinding(&s, s.journal.entries)
        guard case .confirm(let c)? = s.overlay else { Issue.record("no refund box"); return }
        #expect(c.selected == nil)
        #expect(!sends(press(&s, .enter)))
        // An amount typed by habit, then Enter: nothing.
        #expect(!sends(type(&s, "15") + press(&s, .enter)))
        #expect(s.overlay != nil)
        let cmds = press(&s, .char("y"))
        guard case .perform(.cancel, _)? = cmds.first else { Issue.record("y did not refund: \(cmds)"); return }
    }

    @Test func everyBoxThatMovesMoneyHasNoEnterDefault() {
        let money: [ConfirmAction] = [.send(.sale(SaleRequest(amount: Money(cents: 100)))),
                                      .send(.cancel(CancelRequest(amount: nil, finder: TransactionFinder(referenceNumber: "000001")))),
                                      .send(.capturePreAuth(CaptureRequest(amount: nil, finder: TransactionFinder(referenceNumber: "000001")))),
                                      .stopWaiting]
        for a in money {
            let c = Confirmation(title: "t", lines: [], choices: [ConfirmChoice(key: "y", label: "do", action: a)], enterPicksFirst: true)
            #expect(c.selected == nil && !c.enterPicksFirst, "\(a)")
        }
    }

    @Test func theCaptureBoxNeverAnswersEnterAlone() {
        var s = readyState()
        press(&s, .f(4)); type(&s, "000001"); enterFinding(&s)
        #expect(s.overlay != nil)
        #expect(!sends(press(&s, .enter)))
        #expect(!sends(press(&s, .char("1")) + press(&s, .char("5")) + press(&s, .enter)))
    }

    // MARK: quit

    @Test func enterDoesNotQuitWhileAPaymentIsWaiting() {
        var s = readyState()
        type(&s, "4"); press(&s, .enter)
        press(&s, .f(10))
        #expect(!press(&s, .enter).contains(.quit))
        #expect(!s.quit)
        #expect(press(&s, .char("y")).contains(.quit))
    }

    @Test func quittingWithAnAmountTypedAsksFirst() {
        var s = readyState()
        type(&s, "12.50")
        #expect(!press(&s, .ctrl("c")).contains(.quit))
        guard case .confirm(let c)? = s.overlay else { Issue.record("no question"); return }
        #expect(c.lines.joined(separator: " ").contains("€ 12.50"))
        press(&s, .esc)
        #expect(s.form[.amount] == "12.50" && !s.quit)
        #expect(!press(&s, .f(10)).contains(.quit))
        #expect(press(&s, .char("y")).contains(.quit))
    }

    @Test func quittingWithNothingTypedIsOneKey() {
        var s = readyState()
        #expect(press(&s, .f(10)) == [.quit])
    }

    // MARK: found charged after unknown

    @Test func afterAskAgainFindsThePaymentChargedEnterDoesNotChargeItAgain() {
        var s = readyState()
        let unknown = entry(5, cents: 1313, state: .unknown, note: "No answer.")
        _ = update(&s, .unresolvedLoaded([unknown], recovered: false))
        type(&s, "13.13"); press(&s, .enter)
        #expect(s.overlay != nil)
        press(&s, .char("u"))
        #expect(s.screen == .unresolved)
        press(&s, .char("a"))
        var charged = unknown; charged.state = .approved
        _ = update(&s, .event(.recovered(charged)))
        _ = update(&s, .unresolvedLoaded([], recovered: true))
        press(&s, .f(2))
        // The amount is cleared: one Enter charges nobody.
        #expect(s.form[.amount] == "")
        #expect(!sends(press(&s, .enter)))
        // The same amount typed again asks first, naming when it was charged; Enter alone does not charge.
        type(&s, "13.13")
        #expect(!sends(press(&s, .enter)))
        guard case .confirm(let c)? = s.overlay else { Issue.record("no question"); return }
        #expect(c.lines.joined(separator: " ").contains("€ 13.13 was charged at 11:00"))
        #expect(!sends(press(&s, .enter)))
        #expect(saleAmount(press(&s, .char("y"))) == Money(cents: 1313))
    }

    // MARK: a busy terminal

    @Test func aBusyTerminalIsNotADecline() {
        var s = readyState()
        type(&s, "5"); press(&s, .enter)
        let busy = entry(2, cents: 500, state: .declined, response: response("status=fail&message=(-20) TRANSACTION_IN_PROGRESS&action=sale"))
        _ = update(&s, .performed(.answered(busy), summary: "Sale € 5.00"))
        let text = view(s, size: s.size)
        #expect(text.contains("TERMINAL BUSY — NOT CHARGED"))
        #expect(text.contains("press Enter to send"))
        let v = CashierWording.verdict(for: busy, tipStyle: .onTop)
        #expect(v.word == "BUSY")
        // As the journal settles it: not charged (resolved), never a decline.
        var settled = busy
        settled.state = .resolved
        #expect(CashierWording.verdict(for: settled, tipStyle: .onTop).headline == "TERMINAL BUSY — NOT CHARGED")
        // Nothing was charged: the same customer's amount is back, to try again.
        #expect(s.form[.amount] == "5")
        // A (-20) by a name this build does not list is busy for the journal (settled not charged): so on the screen.
        var renamed = entry(3, cents: 500, state: .resolved, response: response("status=fail&message=(-20) SOME_NEW_NAME&action=sale"))
        #expect(CashierWording.verdict(for: renamed, tipStyle: .onTop).headline == "TERMINAL BUSY — NOT CHARGED")
        renamed.state = .declined
        #expect(CashierWording.verdict(for: renamed, tipStyle: .onTop).word == "BUSY")
        for o: ActionOutcome in [.otherTillBusy("x"), .transportError(nil, "no link")] {
            #expect(CashierWording.verdict(for: o, tipStyle: .onTop).word != "DECLINED")
        }
        #expect(TerminalMessage(message: "Terminal is busy") == .terminalBusy)
    }

    @Test func aBusyTerminalSettledAsTheJournalSettlesItGivesTheSaleBackSelected() {
        var s = readyState()
        type(&s, "5"); press(&s, .alt("m")); press(&s, .enter)
        // The journal settles a busy answer as not charged (resolved), with its note: that is what `performed` brings.
        let busy = entry(2, cents: 500, state: .resolved, response: response("status=fail&message=(-20) TRANSACTION_IN_PROGRESS&action=sale"),
                         note: "The terminal was busy with another transaction and did not start this one: nothing was charged. Try again.")
        _ = update(&s, .performed(.answered(busy), summary: "Sale € 5.00 by MOTO"))
        #expect(view(s, size: s.size).contains("TERMINAL BUSY — NOT CHARGED"))
        // As it was sent, to try again: the amount selected (typing replaces it), the method as it was.
        #expect(s.form[.amount] == "5" && s.form.life == .kept && s.form.fields[0].selected, "\(s.form)")
        #expect(s.paymentMethod(.sale) == .moto)
        type(&s, "6")
        #expect(s.form[.amount] == "6")
    }

    /// In the "Earlier payment UNKNOWN" box, a number selects only when Enter follows at once: "1 Alt-3 Enter", a
    /// sale with a tip typed by habit, never charges; nor does a sale left for review with an approval skip the box.
    @Test func aNumberThenAnotherKeyThenEnterNeverAnswersTheBox() throws {
        var s = readyState()
        var review = entry(4, cents: 2000, state: .review, response: response("status=success&message=Transaction successful.&action=sale&amount=2000"))
        review.note = "The terminal approved a payment of this amount without naming it"
        _ = update(&s, .unresolvedLoaded([review], recovered: true))
        press(&s, .f(2)); type(&s, "0.99")
        #expect(!sends(press(&s, .enter)))
        guard case .confirm? = s.overlay else { Issue.record("no box"); return }
        type(&s, "1")
        press(&s, .ctrl("t"), .ctrl("t"), .ctrl("t"))
        #expect(!sends(press(&s, .enter)))
        // Cancelled, then Enter again opens the box again: the "Cancelled" notice does not stay under it.
        press(&s, .esc)
        #expect(s.notice?.hasPrefix("Cancelled") == true)
        #expect(!sends(press(&s, .enter)))
        guard case .confirm? = s.overlay else { Issue.record("no box again"); return }
        #expect(s.notice?.hasPrefix("Cancelled") != true, "\(s.notice ?? "")")
    }

    /// Found by an outside cashier in tmux: with a sale in flight, the next customer's `15` typed, Esc to clear it aborted
    /// the sale at the terminal. Esc clears what is typed first; with nothing typed, it aborts.
    @Test func escClearsTheNextAmountBeforeItAbortsTheSaleInFlight() {
        var s = readyState()
        type(&s, "8.08")
        #expect(sends(press(&s, .enter)))
        type(&s, "15")
        #expect(press(&s, .esc).isEmpty)
        #expect(s.form[.amount] == "" && s.pending?.abortRequested == false)
        #expect(s.notice?.contains("still in flight") == true && s.notice?.contains("with nothing typed aborts it") == true, "\(s.notice ?? "")")
        #expect(press(&s, .esc) == [.abort])
    }

    /// Esc then "8.08" within the escape delay arrives as Alt-8, ".08": read as Esc then 8, the amount is 8.08, not
    /// 0.08. Found by an outside cashier in tmux: with the tips on Alt-1, Alt-2, Alt-3 (the default until then),
    /// `30`, then `Esc 2 5` typed quickly (one send over SSH) set a 10 % tip on 30 and added 5: 305.00 + 30.50 charged
    /// for 25.00. No digit is an Alt key by default: Esc then any digit is always Esc, then the digit.
    @Test(arguments: Array("0123456789"))
    func aKeyRightAfterEscIsNeverLost(digit: Character) {
        var s = readyState()
        press(&s, .f(2)); type(&s, "30")
        press(&s, .alt(digit)); type(&s, "5")
        #expect(s.form[.amount] == "\(digit)5" && s.form[.tipAmount] == "", "\(s.form[.amount]) + \(s.form[.tipAmount])")
        // The tips in turn, on one control key.
        press(&s, .ctrl("t"))
        #expect(s.form[.tipAmount] == "5%")
        press(&s, .ctrl("t"), .ctrl("t"), .ctrl("t"))
        #expect(s.form[.tipAmount] == "")
    }

    // MARK: typed ahead at start

    /// Found by a cashier in tmux: a sale typed as the till started was sent; then start-up recovery's list came back
    /// with it (read while it was with the terminal), and the screen jumped to Unresolved under the cashier's fingers,
    /// the sale listed as "in progress on another till", "1 unresolved" for good, the next sale asked about it.
    @Test func aListThatComesBackLaterNeverTakesTheCashierOffTheirScreen() {
        var s = AppState(nowMs: fixedNow, tzOffsetMinutes: 60)
        _ = initialCommands(&s)
        _ = update(&s, .unresolvedLoaded([], recovered: true))   // the first frame's glance: nothing
        _ = update(&s, .batchLoaded(openBatch))
        #expect(s.screen == .sale)
        type(&s, "2.03")
        let cmds = press(&s, .enter)
        #expect(sends(cmds))
        let mine = entry(8, cents: 203, state: .sent)
        _ = update(&s, .unresolvedLoaded([mine], recovered: true))   // start-up recovery's answer
        #expect(s.screen == .sale, "\(s.screen)")
        _ = update(&s, .performed(.answered(entry(8, cents: 203, state: .approved, response: approvedSaleResponse)), summary: "Sale € 2.03"))
        #expect(s.unresolved.entries.isEmpty)
        #expect(!view(s, size: s.size).contains("unresolved"))
        type(&s, "7")
        #expect(sends(press(&s, .enter)), "the next sale asked about one already approved")
    }

    /// Found by a cashier in tmux: with an unknown payment from an earlier run the till starts on Unresolved; a sale
    /// typed at once lost its digits, and `1 Enter` typed again answered the resolve box: the old payment marked charged.
    @Test func digitsTypedOnTheUnresolvedScreenAreTheNextSale() {
        var s = AppState(nowMs: fixedNow, tzOffsetMinutes: 60)
        _ = initialCommands(&s)
        _ = update(&s, .batchLoaded(openBatch))
        let old = entry(2, cents: 909, state: .unknown, note: "Outcome unknown.")
        _ = update(&s, .unresolvedLoaded([old], recovered: true))
        #expect(s.screen == .unresolved)
        type(&s, "1")
        #expect(s.screen == .sale && s.form[.amount] == "1", "\(s.screen) \(s.form[.amount])")
        let cmds = press(&s, .enter)
        // The sale asks first about the unknown one; nothing marks it.
        #expect(!cmds.contains { if case .resolve = $0 { return true }; return false })
        guard case .confirm(let c)? = s.overlay else { Issue.record("no box: \(cmds)"); return }
        #expect(c.title.contains("UNKNOWN"), "\(c.title)")
    }

    /// Found by an outside cashier: with an unknown payment from an earlier run the till starts on Unresolved; an Enter
    /// typed ahead opened the resolve box and "1 Enter" marked the payment charged. The list the till came up on by
    /// itself takes a first Enter as a question; the cashier's own F8 does not.
    @Test func aStrayEnterOnTheListTheTillStartedOnOpensNoBox() {
        var s = AppState(nowMs: fixedNow, tzOffsetMinutes: 60)
        _ = initialCommands(&s)
        _ = update(&s, .batchLoaded(openBatch))
        _ = update(&s, .unresolvedLoaded([entry(2, cents: 909, state: .unknown, note: "Outcome unknown.")], recovered: true))
        #expect(s.screen == .unresolved)
        press(&s, .enter)
        #expect(s.overlay == nil && s.notice?.contains("Enter again to resolve Sale € 9.09 at") == true, "\(s.notice ?? "")")
        type(&s, "1")
        let cmds = press(&s, .enter)
        #expect(!cmds.contains { if case .resolve = $0 { return true }; return false }, "\(cmds)")
        #expect(s.screen == .sale)
        // Chosen with F8, Enter opens the box at once.
        _ = update(&s, .key(.esc)); press(&s, .f(8))
        press(&s, .enter)
        guard case .confirm(let c)? = s.overlay else { Issue.record("no box"); return }
        #expect(c.title.hasPrefix("Resolve Sale € 9.09 at"), "\(c.title)")
        // Settled meanwhile (recovery, another till): the box goes.
        _ = update(&s, .unresolvedLoaded([], recovered: false))
        #expect(s.overlay == nil && s.notice?.contains("was settled meanwhile") == true, "\(s.notice ?? "")")
    }

    /// Found by an outside cashier: a "charged" mark the service refused (the sale was still in flight) was remembered,
    /// and the next sale of that amount, after the sale was aborted, asked "€ 8.08 was charged … Charge again?".
    @Test func aRefusedChargedMarkLeavesNoTrace() {
        var s = readyState()
        let e = entry(12, cents: 808, state: .unknown, note: "Outcome unknown.")
        _ = update(&s, .unresolvedLoaded([e], recovered: false))
        press(&s, .f(8)); press(&s, .enter)
        let cmds = press(&s, .char("c"))
        #expect(cmds.contains(.resolve(entryId: 12, charged: true, note: "")), "\(cmds)")
        _ = update(&s, .resolved(entryId: 12, charged: true, error: "Entry 12 is in flight; wait or abort."))
        #expect(s.foundCharged.isEmpty)
        _ = update(&s, .unresolvedLoaded([], recovered: false))
        press(&s, .f(2)); type(&s, "8.08")
        #expect(sends(press(&s, .enter)), "asked about a charge that was never marked")
    }

    /// Found by an outside cashier: a second till showed the first till's sale as "in progress on another till" long
    /// after it was approved. While the list holds a payment another till is sending, it is read again every 5 s.
    @Test func aPaymentAnotherTillSendsIsReadAgainUntilItLeavesTheList() {
        var s = readyState()
        _ = update(&s, .unresolvedLoaded([entry(5, cents: 4000, state: .sent)], recovered: false))
        #expect(s.tickPeriodMs == 5_000)
        #expect(update(&s, .tick(nowMs: fixedNow + 5_000)).contains(.loadUnresolved))
        _ = update(&s, .unresolvedLoaded([], recovered: false))
        #expect(s.tickPeriodMs == 60_000)
    }

    // MARK: recovery that could not ask

    /// A till whose start-up recovery could not ask the terminal about an earlier sale of `cents` (entry 7).
    static func startedWhileRecoveryCouldNotAsk(cents: Int) -> AppState {
        var s = AppState(nowMs: fixedNow, tzOffsetMinutes: 60)
        _ = initialCommands(&s)
        _ = update(&s, .batchLoaded(openBatch))
        let left = entry(7, cents: cents, state: .unknown, note: "Outcome unknown: the terminal could not be asked. Check the terminal.")
        _ = update(&s, .event(.recovered(left)))
        _ = update(&s, .unresolvedLoaded([left], recovered: true))
        return s
    }

    @Test func aSaleRefusedWhileRecoveryAsksTheTerminalComesBackSelected() {
        var s = Self.startedWhileRecoveryCouldNotAsk(cents: 2500)
        press(&s, .f(2)); type(&s, "25")
        #expect(!sends(press(&s, .enter)))
        #expect(s.notice?.contains("Not sent: asking the terminal about Sale € 25.00") == true, "\(s.notice ?? "")")
        // Given back as every form not sent is: selected, so the next amount replaces it (never 253).
        #expect(s.form.life == .kept && s.form.fields[0].selected)
        type(&s, "3")
        #expect(s.form[.amount] == "3")
    }

    /// Every way a sale is not sent gives its form back alike (`giveBack`): as typed, its method as shown, its text selected.
    @Test func everySaleNotSentComesBackTheSameWay() {
        func typed(_ s: inout AppState) { type(&s, "12"); press(&s, .tab); type(&s, "1"); press(&s, .alt("m")) }
        func given(_ s: AppState, _ why: String) {
            #expect(s.form[.amount] == "12" && s.form[.tipAmount] == "1", "\(why): \(s.form.fields.map(\.text))")
            #expect(s.form.life == .kept && s.form.fields[0].selected && s.form.fields[1].selected, "\(why)")
            #expect(s.paymentMethod(.sale) == .moto, "\(why)")
        }
        let busyAnswer = entry(2, cents: 1200, tip: 100, state: .resolved, response: response("status=fail&message=(-20) TRANSACTION_IN_PROGRESS&action=sale"))
        let other = InFlight(entry: entry(9, cents: 700, state: .sent), startedAtMs: fixedNow, deadlineMs: fixedNow + 60_000)
        let outcomes: [(String, ActionOutcome)] = [("another till", .otherTillBusy("x")), ("in flight", .busy(other)),
                                                   ("not sent", .transportError(nil, "no link")), ("busy answer", .answered(busyAnswer))]
        for (why, outcome) in outcomes {
            var s = readyState()
            typed(&s); press(&s, .enter)
            _ = update(&s, .performed(outcome, summary: "Sale € 13.00 by MOTO"))
            given(s, why)
        }
        // Refused before it left: another request in flight.
        var s = readyState()
        press(&s, .f(3)); type(&s, "50"); press(&s, .enter); press(&s, .f(2))
        typed(&s)
        #expect(!sends(press(&s, .enter)))
        given(s, "wait")
    }

    @Test func untilRecoveryHasAskedTheTillSaysAskingAndRefusesTheSameAmount() {
        var s = Self.startedWhileRecoveryCouldNotAsk(cents: 777)
        #expect(view(s, size: s.size).contains("ASKING THE TERMINAL"))
        // How long asking may still take, counted down (a look-up with no answer waited 90 s in silence).
        #expect(view(s, size: s.size).contains("01:00"), "\(view(s, size: s.size).text)")
        #expect(s.screen == .unresolved && view(s, size: s.size).contains("Asking the terminal…"))
        #expect(!view(s, size: s.size).contains("could not be asked"))
        press(&s, .f(2)); type(&s, "7.77")
        #expect(!sends(press(&s, .enter)))
        #expect(s.overlay == nil)
        #expect(s.notice?.contains("asking the terminal") == true)
        // The till asks again by itself, without moving the cashier: its clock ticks each second while it asks.
        #expect(s.tickPeriodMs == 1_000)
        #expect(update(&s, .tick(nowMs: fixedNow + 5_000)) == [.recover])
        #expect(view(s, size: s.size).contains("00:55"), "\(view(s, size: s.size).text)")
        var charged = s.unresolved.entries[0]; charged.state = .approved
        _ = update(&s, .event(.recovered(charged)))
        _ = update(&s, .unresolvedLoaded([], recovered: true))
        #expect(s.screen == .sale)
        #expect(s.form[.amount] == "")
        #expect(update(&s, .tick(nowMs: fixedNow + 12_000)).isEmpty)
        #expect(s.tickPeriodMs == 60_000)
    }

    /// Found by a cashier in tmux: once asking had ended, the status line went on saying "asking the terminal…", and
    /// the pane said "No answer from the terminal" where the terminal had answered that it has no record of the sale.
    @Test func whenAskingEndsTheTillSaysSoAndWhatTheTerminalSaid() {
        var s = AppState(nowMs: fixedNow, tzOffsetMinutes: 60)
        _ = initialCommands(&s)
        _ = update(&s, .batchLoaded(openBatch))
        let left = entry(7, cents: 1212, state: .unknown, note: "Outcome unknown: the terminal has no record of it. Check the terminal.")
        _ = update(&s, .event(.recovered(left)))
        _ = update(&s, .unresolvedLoaded([left], recovered: true))
        #expect(view(s, size: s.size).contains("ASKING THE TERMINAL"))
        // Asked again every 5 s; the look-ups change nothing (no event), until asking ends.
        var now = fixedNow
        while now < fixedNow + UnresolvedState.askingForMs {
            now += UnresolvedState.askAgainEveryMs
            if update(&s, .tick(nowMs: now)).contains(.recover) { _ = update(&s, .unresolvedLoaded([left], recovered: true)) }
        }
        #expect(!update(&s, .tick(nowMs: now + 1_000)).contains(.recover))
        #expect(s.notice?.contains("Sale € 12.12") == true && s.notice?.contains("outcome still unknown; check the terminal") == true,
                "\(s.notice ?? "")")
        let screen = view(s, size: s.size)
        #expect(!screen.contains("asking the terminal") && !screen.contains("No answer from the terminal"), "\(screen)")
        let pane = NothingCutTests.pane(s)
        #expect(pane.contains("Sale € 12.12 at 11:00: still unknown after asking the terminal.") && pane.contains("Note Outcome unknown: the"), "\(pane)")
    }

    /// An idle till wakes once a minute (its clock shows hours and minutes), ten times a second while a payment is in
    /// flight (the spinner and the time-out counting down), and its clock says the time.
    @Test func theClockTicksAsOftenAsTheScreenChanges() {
        var s = AppState(nowMs: fixedNow)
        _ = update(&s, .batchLoaded(openBatch))
        #expect(s.tickPeriodMs == 60_000)
        let clock = Format.hoursMinutesOfDay(fixedNow, offsetMinutes: s.tzOffsetMinutes)
        let statusLine = view(s, size: s.size).text.split(separator: "\n").last.map(String.init) ?? ""
        #expect(statusLine.trimmingCharacters(in: .whitespaces).hasSuffix(" " + clock), "\(statusLine)")
        #expect(!statusLine.contains(Format.clock(fixedNow, offsetMinutes: s.tzOffsetMinutes)), "\(statusLine)")
        type(&s, "7.00")
        #expect(sends(press(&s, .enter)))
        #expect(s.tickPeriodMs == 100)
    }

    @Test func theStartsReadyDoesNotHideAWarning() {
        var s = AppState(nowMs: fixedNow)
        s.startupWarnings = ["broken.toml:4: not a value"]
        _ = initialCommands(&s)
        _ = update(&s, .unresolvedLoaded([], recovered: true))
        _ = update(&s, .event(.transportReady("simulator")))
        #expect(s.notice == "broken.toml:4: not a value")
        _ = update(&s, .event(.transportProblem("bridge died")))
        _ = update(&s, .event(.transportReady("bridge back")))
        #expect(s.notice == "bridge back")
    }

    @Test func theStartIsNotReadyWhileTheTerminalCannotBeReached() {
        var s = AppState(nowMs: fixedNow)
        s.startupWarnings = ["broken.toml:4: not a value"]
        _ = initialCommands(&s)
        _ = update(&s, .event(.transportProblem("The simulated terminal cannot start.")))
        _ = update(&s, .unresolvedLoaded([], recovered: true))
        #expect(s.notice == "The simulated terminal cannot start.")
        let screen = view(s, size: s.size).text
        #expect(!screen.contains("Ready."), "\(screen)")
    }

    // MARK: the journal

    @Test func theJournalOpensOnItsNewestRowWithAnEmptyFilter() {
        var s = readyState()
        press(&s, .f(7))
        _ = update(&s, .journalLoaded([entry(2, cents: 2000, response: approvedSaleResponse), entry(1, cents: 1250, response: approvedSaleResponse)]))
        press(&s, .down)
        type(&s, "12")
        press(&s, .esc); press(&s, .esc)
        #expect(s.screen == .sale)
        press(&s, .f(7))
        #expect(s.forms[.journal]?[.filter] == "")
        _ = update(&s, .journalLoaded([entry(3, cents: 3000, response: approvedSaleResponse), entry(2, cents: 2000, response: approvedSaleResponse),
                                       entry(1, cents: 1250, response: approvedSaleResponse)]))
        #expect(s.journalRow?.id == 3)
        press(&s, .f(5))
        #expect(s.refund.origin?.id == 3)
    }

    @Test func refundFromTheJournalWithNoRowSaysWhy() {
        // Issue 34: the form opens blank, its STAN to type (never the journal's filter), saying why.
        var s = readyState()
        press(&s, .f(7))
        press(&s, .f(5))
        // F7 F5 typed ahead: the newest row is meant; it stays, saying so.
        #expect(s.screen == .journal)
        #expect(s.notice?.contains("still loading") == true)
        _ = update(&s, .journalLoaded([]))
        press(&s, .f(4))
        #expect(s.screen == .capture && s.form[.referenceNumber] == "")
        #expect(s.notice?.contains("No transactions") == true)
    }

    // MARK: a refund or capture by a typed STAN names the payment

    @Test func aRefundByTypedStanNamesTheJournaledPaymentAndWarnsAboveWhatIsLeft() {
        var s = readyState()
        press(&s, .f(5)); type(&s, "654321")
        for _ in 0..<5 { press(&s, .tab) }
        type(&s, "20")
        let cmds = press(&s, .enter)
        let finder = TransactionFinder(referenceNumber: "654321")
        #expect(cmds == [.findPayment(screen: .refund, finder: finder)])
        #expect(s.overlay == nil)
        var refund = entry(2, .cancel, cents: 500, response: response("status=success&message=Transaction successful.&action=cancel&amount=500&referenceNumber=654322"))
        refund.requestURL = "vivapayclient://pay/v1?action=cancel&amount=500&referenceNumber=654321"
        _ = update(&s, .paymentsFound(screen: .refund, finder: finder, entries: [refund, entry(1, cents: 1250, tip: 125, response: approvedSaleResponse)]))
        guard case .confirm(let c)? = s.overlay else { Issue.record("no box"); return }
        let text = c.lines.joined(separator: " ")
        #expect(text.contains("sale of € 13.75 at 11:00"))
        #expect(text.contains("card Visa 478212******7417"))
        #expect(text.contains("€ 5.00 already refunded (€ 8.75 left)"))
        #expect(text.contains("MORE THAN IS LEFT: € 20.00 > € 8.75"))
    }

    /// A refund the core refused to send while an earlier refund of the payment is unknown (the screen had not known
    /// it was): the box asked "Charge again?" and offered "checked: charge" for a refund.
    @Test func aRefundRefusedForAnUnknownEarlierRefundAsksInARefundsWords() {
        var s = readyState()
        let refund = Request.cancel(CancelRequest(amount: Money(cents: 800), finder: TransactionFinder(referenceNumber: "654321")))
        s.lastRequest = refund
        var earlier = entry(2, .cancel, cents: 800, state: .unknown)
        earlier.requestURL = "vivapayclient://pay/v1?action=cancel&amount=800&referenceNumber=654321"
        _ = update(&s, .performed(.needsConfirmation([earlier]), summary: "Refund € 8.00"))
        guard case .confirm(let c)? = s.overlay else { Issue.record("no box"); return }
        let text = ([c.title] + c.lines + c.choices.map(\.label)).joined(separator: " ")
        #expect(c.title == "Refund again?", "\(text)")
        #expect(text.contains("may have been refunded") && text.contains("before you refund again") && text.contains("checked: refund"), "\(text)")
        #expect(!text.lowercased().contains("charge"), "\(text)")
    }

    /// Found by a cashier in tmux with a peer that declines and then approves naming nothing: the pane kept reading
    /// "NOT CHARGED … ask for another card" under the notice of an unexpected approval. The customer is asked for
    /// another card while the first may have been charged. The verdict now says to check the terminal.
    @Test func anApprovalRightAfterADeclineTurnsTheVerdictToCheckTheTerminal() {
        var s = readyState()
        type(&s, "10")
        _ = press(&s, .enter)
        _ = update(&s, .performed(.answered(entry(1, cents: 1000, state: .declined, response: declinedSaleResponse)), summary: "Sale € 10.00"))
        #expect(view(s, size: s.size).text.contains("NOT CHARGED"))
        _ = update(&s, .event(.unmatchedAnswer(approvedSaleResponse, note: "An answer that matches nothing this till sent or is waiting for.")))
        let text = view(s, size: s.size).text
        #expect(text.contains("CHECK THE TERMINAL") && !text.contains("NOT CHARGED") && !text.contains("another card"), "\(text)")
    }

    /// Found by an outside tester: a flood of approvals kept for review made the next sale ask about all of them, and
    /// the box named three with nothing said of the rest.
    @Test func theAgainBoxSaysHowManyMoreItDoesNotName() {
        var s = readyState()
        s.lastRequest = .sale(SaleRequest(amount: Money(cents: 1000)))
        let strays = (1...5).map { entry(Int64($0), cents: 1000, state: .review) }
        _ = update(&s, .performed(.needsConfirmation(strays), summary: "Sale € 10.00"))
        guard case .confirm(let c)? = s.overlay else { Issue.record("no box"); return }
        #expect(c.lines.filter { $0.contains("may have been charged") }.count == 3, "\(c.lines)")
        #expect(c.lines.contains("and 2 more (F8 Unresolved lists them):"), "\(c.lines)")
    }

    /// Found by an outside cashier: F5 on a sale marked charged by hand said "Only an approved sale or capture can be
    /// refunded" of an approved sale; what it lacks is a STAN to find it by.
    @Test func aRowWithoutAStanSaysSoOnF5() {
        var s = readyState()
        let marked = entry(1, cents: 909, state: .approved, note: "Marked charged by the cashier.")
        press(&s, .f(7))
        _ = update(&s, .journalLoaded([marked]))
        press(&s, .f(5))
        #expect(s.screen == .journal)
        #expect(s.notice?.contains("Sale € 9.09 at") == true && s.notice?.contains("has no STAN") == true && s.notice?.contains("refund it on the terminal") == true, "\(s.notice ?? "")")
    }

    /// Found by a cashier in tmux: a STAN typed into the refund's Amount field (`000009`) was read as 9.00, and a busy
    /// cashier presses y on the box. An amount that begins with 0 is refused on its field; nothing is looked up or sent.
    @Test func aStanTypedIntoTheAmountIsRefusedOnItsField() {
        var s = readyState()
        press(&s, .f(5)); type(&s, "654321")
        for _ in 0..<5 { press(&s, .tab) }
        type(&s, "000009")
        #expect(press(&s, .enter) == [])
        #expect(s.overlay == nil)
        #expect(s.forms[.refund]?.errors[.amount]?.contains("'000009' begins with 0") == true, "\(String(describing: s.forms[.refund]?.errors))")
    }

    /// Found by a cashier in tmux: F5 on a journal row, refunded 10.00; F5 on the same row again showed the box from
    /// the journal screen's rows as first loaded ("Refund the FULL amount of the payment", nothing about the 10.00
    /// already back). The box is made from the journal as it is when Enter is pressed.
    @Test func aRefundFromAJournalRowAsksTheJournalAgain() {
        var s = readyState()
        let sale = entry(1, cents: 3000, response: approvedSaleResponse)
        press(&s, .f(7))
        _ = update(&s, .journalLoaded([sale]))
        press(&s, .f(5))
        #expect(s.refund.origin?.id == 1)
        let cmds = press(&s, .enter)
        guard case .findPayment(let screen, let finder)? = cmds.first else { Issue.record("not looked up: \(cmds)"); return }
        var refund = entry(2, .cancel, cents: 1000, response: response("status=success&message=Transaction successful.&action=cancel&amount=1000&referenceNumber=654322"))
        refund.requestURL = "vivapayclient://pay/v1?action=cancel&amount=1000&referenceNumber=" + (sale.response?.referenceNumber ?? "")
        _ = update(&s, .paymentsFound(screen: screen, finder: finder, entries: [refund, sale]))
        guard case .confirm(let c)? = s.overlay else { Issue.record("no box"); return }
        #expect(c.lines.joined(separator: " ").contains("€ 10.00 already refunded (€ 3.75 left)"), "\(c.lines)")
    }

    /// Found by a cashier in tmux: a refund whose outcome was unknown could be sent again with nothing said (sales ask
    /// first); both went through, and the card got 16.00 back for an 8.00 refund. The box says so.
    @Test(arguments: [EntryState.unknown, .sent, .review])
    func aRefundOfAPaymentWithARefundOfUnknownOutcomeSaysSo(state: EntryState) {
        var s = readyState()
        press(&s, .f(5)); type(&s, "654321")
        for _ in 0..<5 { press(&s, .tab) }
        type(&s, "8")
        let finder = TransactionFinder(referenceNumber: "654321")
        #expect(press(&s, .enter) == [.findPayment(screen: .refund, finder: finder)])
        var earlier = entry(2, .cancel, cents: 800, state: state)
        earlier.requestURL = "vivapayclient://pay/v1?action=cancel&amount=800&referenceNumber=654321"
        _ = update(&s, .paymentsFound(screen: .refund, finder: finder, entries: [earlier, entry(1, cents: 2000, response: approvedSaleResponse)]))
        guard case .confirm(let c)? = s.overlay else { Issue.record("no box"); return }
        let text = c.lines.joined(separator: " ")
        #expect(text.contains("⚠ A refund of it (€ 8.00 at") && text.contains("UNKNOWN outcome") && text.contains("before refunding again"), "\(c.lines)")
        // y answers for the earlier refund too: the core does not ask again what the cashier just answered.
        guard case .performConfirmed(_, _, let ids)? = press(&s, .char("y")).first else { Issue.record("y sent nothing confirmed"); return }
        #expect(ids == [2])
    }

    /// Found by a cashier in tmux: with 5.00 of 12.97 refunded and no amount typed the box said "Refund the FULL
    /// amount"; with all of it refunded it offered the refund with "(€ 0.00 left)" and no warning.
    @Test(arguments: [(500, "Refund what is left, € 8.75, of the payment", false), (1375, "Refund the rest of the payment", true)])
    func aRefundWithNoAmountSaysWhatIsLeft(refunded: Int, first: String, warns: Bool) {
        var s = readyState()
        press(&s, .f(5)); type(&s, "654321")
        let finder = TransactionFinder(referenceNumber: "654321")
        #expect(press(&s, .enter) == [.findPayment(screen: .refund, finder: finder)])
        var refund = entry(2, .cancel, cents: refunded, response: response("status=success&message=Transaction successful.&action=cancel&amount=\(refunded)&referenceNumber=654322"))
        refund.requestURL = "vivapayclient://pay/v1?action=cancel&amount=\(refunded)&referenceNumber=654321"
        _ = update(&s, .paymentsFound(screen: .refund, finder: finder, entries: [refund, entry(1, cents: 1250, tip: 125, response: approvedSaleResponse)]))
        guard case .confirm(let c)? = s.overlay else { Issue.record("no box"); return }
        #expect(c.lines.first == first, "\(c.lines)")
        #expect(c.lines.contains { $0.contains("ALREADY REFUNDED IN FULL") } == warns, "\(c.lines)")
    }

    @Test func aRefundByAStanTheJournalDoesNotKnowSaysSo() {
        var s = readyState()
        press(&s, .f(5)); type(&s, "999999"); press(&s, .enter)
        _ = update(&s, .paymentsFound(screen: .refund, finder: TransactionFinder(referenceNumber: "999999"),
                                      entries: [entry(1, cents: 1250, tip: 125, response: approvedSaleResponse)]))
        guard case .confirm(let c)? = s.overlay else { Issue.record("no box"); return }
        #expect(c.lines.joined(separator: " ").contains("The journal knows no payment with this key"))
    }

    @Test func aLateAnswerAboutAnotherKeyIsDropped() {
        var s = readyState()
        press(&s, .f(5)); type(&s, "999999"); press(&s, .enter)
        press(&s, .esc)   // clears the STAN
        type(&s, "654321")
        _ = update(&s, .paymentsFound(screen: .refund, finder: TransactionFinder(referenceNumber: "999999"), entries: []))
        #expect(s.overlay == nil)
    }

    @Test func aCaptureAboveThePreAuthIsWarnedAbout() {
        var s = readyState()
        press(&s, .f(4)); type(&s, "654321")
        for _ in 0..<5 { press(&s, .tab) }
        type(&s, "40")
        let finder = TransactionFinder(referenceNumber: "654321")
        #expect(press(&s, .enter) == [.findPayment(screen: .capture, finder: finder)])
        let pre = entry(1, .preAuth, cents: 3000, response: response("status=success&message=Transaction successful.&action=pre_auth&amount=3000&referenceNumber=654321"))
        _ = update(&s, .paymentsFound(screen: .capture, finder: finder, entries: [pre]))
        guard case .confirm(let c)? = s.overlay else { Issue.record("no box"); return }
        let text = c.lines.joined(separator: " ")
        #expect(text.contains("MORE THAN THE PRE-AUTH: € 40.00 > € 30.00"), "\(text)")
    }

    @Test func aSecondCaptureIsWarnedAbout() {
        var s = readyState()
        press(&s, .f(4)); type(&s, "654321"); press(&s, .enter)
        let finder = TransactionFinder(referenceNumber: "654321")
        let pre = entry(1, .preAuth, cents: 5000, response: response("status=success&message=Transaction successful.&action=pre_auth&amount=5000&referenceNumber=654321"))
        var cap = entry(2, .capturePreAuth, cents: 4200, response: response("status=success&message=Transaction successful.&action=capture_pre_auth&amount=4200&referenceNumber=654322"))
        cap.requestURL = "vivapayclient://pay/v1?action=capture_pre_auth&amount=4200&referenceNumber=654321"
        _ = update(&s, .paymentsFound(screen: .capture, finder: finder, entries: [cap, pre]))
        guard case .confirm(let c)? = s.overlay else { Issue.record("no box"); return }
        let text = c.lines.joined(separator: " ")
        #expect(text.contains("pre-auth of € 50.00"))
        #expect(text.contains("ALREADY CAPTURED (€ 42.00"))
    }
}

/// A second till's Unresolved screen listed a payment another till was still waiting on as SENT and let the cashier
/// mark it resolved. Pending or sent entries this till is not waiting for are another till's.
@Suite struct InProgressOnAnotherTillTests {
    @Test func aPaymentAnotherTillWaitsOnIsShownSoAndCannotBeSettled() {
        var s = readyState()
        _ = update(&s, .key(.f(8)))
        _ = update(&s, .unresolvedLoaded([entry(41, cents: 2100, state: .sent)], recovered: false))
        let text = view(s, size: s.size).text
        #expect(text.contains("IN PROGRESS") && text.contains("another till"), "\(text)")
        #expect(!text.contains(" SENT"))
        let cmds = update(&s, .key(.enter))
        #expect(s.overlay == nil && cmds.isEmpty, "a resolve box opened for another till's payment")
        #expect(s.notice?.contains("another till") == true)
    }
}

/// Card-terminal habit, as a config choice (`amount_entry = "cents"`): digits shift in from the right, as on many
/// terminals, and the screen says so where the amount is typed.
@Suite struct CentsEntryTests {
    func centsState() -> AppState { var s = readyState(); s.amountEntry = .cents; return s }

    @Test func digitsShiftInFromTheRight() {
        var s = centsState()
        type(&s, "1"); #expect(s.form[.amount] == "0.01")
        type(&s, "250"); #expect(s.form[.amount] == "12.50")
        press(&s, .backspace); #expect(s.form[.amount] == "1.25")
        type(&s, "0"); #expect(s.form[.amount] == "12.50")
        type(&s, "."); #expect(s.form[.amount] == "12.50")
        #expect(s.notice?.contains("in cents") == true)
        let cmds = press(&s, .enter)
        guard case .perform(.sale(let sale), _)? = cmds.first else { Issue.record("no sale: \(cmds)"); return }
        #expect(sale.amount == Money(cents: 1250))
    }

    /// Found by a cashier in tmux: with cents entry the Amount read 1250 as 12.50 but the Tip read 500 as 500.00
    /// ("Charge EUR 1300.00" for a 5.00 tip). The tip's digits are cents too; `%` after them makes a percentage.
    @Test func theTipsDigitsAreCentsTooAndAPercentStaysAPercent() {
        var s = centsState()
        type(&s, "1250"); press(&s, .tab); type(&s, "500")
        #expect(s.form[.tipAmount] == "5.00")
        #expect(view(s, size: s.size).text.contains("Tip ¢"))
        var cmds = press(&s, .enter)
        guard case .perform(.sale(let sale), _)? = cmds.first else { Issue.record("no sale: \(cmds)"); return }
        #expect(sale.amount == Money(cents: 1250) && sale.tipAmount == Money(cents: 500))

        s = centsState()
        type(&s, "1250"); press(&s, .tab); type(&s, "10%")
        #expect(s.form[.tipAmount] == "10%")
        cmds = press(&s, .enter)
        guard case .perform(.sale(let pct), _)? = cmds.first else { Issue.record("no sale: \(cmds)"); return }
        #expect(pct.tipAmount == Money(cents: 125))
    }

    @Test func theScreenSaysAmountsAreInCents() {
        let s = centsState()
        #expect(view(s, size: s.size).text.contains("Amount ¢"))
        #expect(!view(readyState(), size: s.size).text.contains("Amount ¢"))
    }

    @Test func offByDefaultTheAmountReadsAsTyped() {
        var s = readyState()
        type(&s, "1250")
        #expect(s.form[.amount] == "1250")
    }
}

/// The chain's central store in one cell of the status line, never a box: nothing without a store; "sent 14:02";
/// "12 to send"; "offline since 13:40 · 37 to send", a warning after an hour; "store: needs set-up", an alert.
@Suite struct StoreCellTests {
    func line(_ sync: StoreSync?, now: Int64 = fixedNow, size: Size = Size(width: 120, height: 30)) -> (String, Role?) {
        var s = readyState(size: size)
        s.nowMs = now
        _ = update(&s, .storeSyncLoaded(sync))
        let text = view(s, size: s.size).text.components(separatedBy: "\n")[size.height - 1]
        return (text, storeCell(s)?.role)
    }

    @Test func at80ColumnsTheCellNeverCutsTheShiftOrItself() {
        let (text, _) = line(StoreSync(toSend: 37, failingSinceMs: fixedNow - 20 * 60_000), size: Size(width: 80, height: 24))
        #expect(text.contains("batch "), "\(text)")
        // Whole or short, never cut: "offline since 10:40 · 37 to send" does not fit beside the shift at 80 columns.
        #expect(text.contains("offline · 37 to send") || text.contains("37 unsent"), "\(text)")
    }

    @Test func eachStateOfTheStoreReadsAsOneCell() {
        #expect(!line(nil).0.contains("store") && !line(nil).0.contains("to send"))
        #expect(line(StoreSync(toSend: 0, sentAtMs: fixedNow - 60_000)).0.contains("sent 10:59"), "\(line(StoreSync(toSend: 0, sentAtMs: fixedNow - 60_000)).0)")
        #expect(line(StoreSync(toSend: 12, sentAtMs: fixedNow - 60_000)).0.contains("12 to send"))
        let recent = line(StoreSync(toSend: 37, failingSinceMs: fixedNow - 20 * 60_000))
        #expect(recent.0.contains("offline since 10:40 · 37 to send") && recent.1 == .statusLine, "\(recent.0)")
        let long = line(StoreSync(toSend: 37, failingSinceMs: fixedNow - 2 * 3_600_000))
        #expect(long.1 == .warning)
        let setUp = line(StoreSync(toSend: 3, needsSetUp: true))
        #expect(setUp.0.contains("store: needs set-up") && setUp.1 == .statusAlert)
    }

    /// The Z report on screen says what the store does not hold yet; without a store, nothing about one.
    @Test func theZReportSaysWhatIsNotYetSent() {
        var s = readyState(size: Size(width: 80, height: 24))
        let z = Report(kind: .closing, batch: BatchInfo(id: "B-1", name: "Morning", openedAtMs: fixedNow - 3_600_000, isOpen: false),
                       closedAtMs: fixedNow, generatedAtMs: fixedNow, buckets: [])
        _ = update(&s, .reportLoaded(z, show: true))
        #expect(!view(s, size: s.size).text.contains("Central store"))
        _ = update(&s, .storeSyncLoaded(StoreSync(toSend: 12, sentAtMs: fixedNow - 60_000)))
        for _ in 0..<10 { _ = update(&s, .key(.pageDown)) }
        let screen = view(s, size: s.size).text
        #expect(screen.contains("Central store: 12 journal changes not yet sent"), "\(screen)")
        let offline = StoreSync(toSend: 1, failingSinceMs: fixedNow - 60_000).reportLine(ReportFormat())
        #expect(offline.kind == .warning && offline.text.contains("1 journal change not yet sent; offline since"), "\(offline.text)")
        #expect(StoreSync(toSend: 0, sentAtMs: fixedNow).reportLine(ReportFormat()).text.hasPrefix("Central store: everything sent"))
    }

    @Test func theCellIsReadAgainOnTheClockNotOnEveryTick() {
        var s = AppState(nowMs: fixedNow)
        #expect(initialCommands(&s).contains(.loadStoreSync))
        #expect(!update(&s, .tick(nowMs: fixedNow + 1_000)).contains(.loadStoreSync))
        #expect(update(&s, .tick(nowMs: fixedNow + 15_000)).contains(.loadStoreSync))
    }
}

/// Found by a cashier in tmux: boxes that asked about something no longer true stayed open.
@Suite struct StaleBoxTests {
    /// "Quit while waiting?" stayed up after the sale was approved, still saying it waits.
    @Test func theQuitBoxOfAPaymentAnsweredMeanwhileCloses() {
        var s = readyState()
        type(&s, "4"); press(&s, .enter)
        press(&s, .f(10))
        guard case .confirm(let c)? = s.overlay, c.title == "Quit while waiting?" else { Issue.record("no quit box: \(String(describing: s.overlay))"); return }
        _ = update(&s, .performed(.answered(entry(1, cents: 400, response: response("status=success&message=Transaction successful.&action=sale&amount=400&tipAmount=0&referenceNumber=000001"))), summary: "Sale € 4.00"))
        #expect(s.overlay == nil)
        #expect(s.notice?.contains("answered meanwhile") == true, "\(s.notice ?? "")")
    }

    /// "Earlier payment UNKNOWN" stayed up after recovery found that payment charged; its "go to Unresolved" led to an
    /// empty screen.
    @Test func theUnknownBoxOfAPaymentFoundSettledCloses() {
        var s = readyState()
        let unknown = entry(7, cents: 777, state: .unknown)
        _ = update(&s, .unresolvedLoaded([unknown], recovered: false))
        s.screen = .sale
        type(&s, "2"); press(&s, .enter)
        guard case .confirm(let c)? = s.overlay, c.title == "Earlier payment UNKNOWN" else { Issue.record("no box: \(String(describing: s.overlay))"); return }
        _ = update(&s, .unresolvedLoaded([], recovered: false))
        #expect(s.overlay == nil)
        #expect(s.notice?.contains("settled now") == true, "\(s.notice ?? "")")
        #expect(s.form[.amount] == "2")
    }
}

/// Found by a cashier in tmux: on an UNKNOWN refund the box offered "charged / not charged" and "ask the terminal
/// again", and `a` did nothing and said nothing: a refund carries no reference to look it up by.
@Test func anUnknownRefundIsSettledInItsOwnWordsAndSaysWhereToLookForIt() {
    var s = readyState()
    var refund = entry(13, .cancel, cents: 300, state: .unknown)
    refund.requestURL = "vivapayclient://pay/v1?action=cancel&amount=300&referenceNumber=000023"
    _ = update(&s, .unresolvedLoaded([refund], recovered: false))
    _ = go(&s, .unresolved)
    #expect(press(&s, .char("a")).isEmpty)
    #expect(s.notice?.contains("cannot be looked up") == true && s.notice?.contains("STAN 000023") == true, "\(s.notice ?? "")")
    press(&s, .char("c"))
    guard case .confirm(let c)? = s.overlay else { Issue.record("no box"); return }
    #expect(c.choices.map(\.label) == ["mark refunded (it went through)", "mark not refunded"], "\(c.choices.map(\.label))")
    #expect(c.lines.joined(separator: " ").contains("by STAN 000023"))
}

/// Found by a cashier in tmux: away from the payment's screen the refusal said "(Esc aborts)", where Esc does
/// something else (on Batch it clears the name). It names the screen where Esc aborts the payment.
@Test func aSendRefusedElsewhereSaysWhereEscAbortsThePayment() {
    var s = readyState()
    type(&s, "4"); press(&s, .enter)
    press(&s, .f(5)); type(&s, "654321")
    let finder = TransactionFinder(referenceNumber: "654321")
    _ = press(&s, .enter)
    _ = update(&s, .paymentsFound(screen: .refund, finder: finder, entries: [entry(1, cents: 1250, tip: 125, response: approvedSaleResponse)]))
    #expect(press(&s, .char("y")).isEmpty)
    #expect(s.notice?.contains("Esc aborts it on Sale, F2") == true, "\(s.notice ?? "")")
    press(&s, .f(2)); type(&s, "5"); press(&s, .enter)
    #expect(s.notice?.hasSuffix("(Esc aborts).") == true, "\(s.notice ?? "")")
}

/// F4 right after a pre-auth's verdict: the capture of that pre-auth, its STAN filled in, as F7 F4 on its row does.
/// It took the journal, the STAN typed in its filter and F4 (issue 34's whole shift: 12 keys for a capture).
@Suite struct CaptureAfterPreAuthTests {
    func preAuthApproved() -> AppState {
        var s = readyState()
        press(&s, .f(3))
        type(&s, "50"); press(&s, .enter)
        let r = response("status=success&message=Transaction successful.&action=pre_auth&amount=5000&referenceNumber=000007")
        _ = update(&s, .performed(.answered(entry(7, .preAuth, cents: 5000, response: r)), summary: "Pre-auth € 50.00"))
        return s
    }

    @Test func f4AfterAPreAuthCapturesIt() {
        var s = preAuthApproved()
        #expect(s.screen == .sale)
        press(&s, .f(4))
        #expect(s.screen == .capture)
        #expect(s.form[.referenceNumber] == "000007")
        #expect(s.form.focused?.id == .amount)
        #expect(s.capture.origin?.id == 7)
        #expect(view(s, size: s.size).contains("STAN 000007"))
    }

    /// The habit of F4 then the STAN: the STAN is filled in and the cursor is on Amount, so the digits typed by habit
    /// go into the amount. Refused on its field (an amount never begins with 0), nothing looked up or sent.
    @Test func theStanTypedByHabitIntoTheAmountIsRefused() {
        var s = preAuthApproved()
        press(&s, .f(4))
        type(&s, "000007")
        #expect(press(&s, .enter) == [])
        #expect(s.overlay == nil && s.pending == nil)
        #expect(s.form.errors[.amount]?.contains("begins with 0") == true, "\(s.form.errors)")
    }

    @Test func f4OnceTheNextAmountIsTypedOpensABlankCapture() {
        var s = preAuthApproved()
        type(&s, "3")
        press(&s, .f(4))
        #expect(s.screen == .capture && s.form[.referenceNumber] == "" && s.capture.origin == nil)
    }

    @Test func f4AfterASaleOpensABlankCapture() {
        var s = readyState()
        type(&s, "5"); press(&s, .enter)
        let r = response("status=success&message=Transaction successful.&action=sale&amount=500&referenceNumber=000003")
        _ = update(&s, .performed(.answered(entry(3, .sale, cents: 500, response: r)), summary: "Sale € 5.00"))
        press(&s, .f(4))
        #expect(s.screen == .capture && s.form[.referenceNumber] == "")
    }
}

/// The shift's one-key name: a second shift the same day is not named as the first.
@Suite struct ShiftNameTests {
    @Test func theNextShiftOfTheDayIsNumbered() {
        var s = readyState()
        s.cashier = "Ana"
        let base = "Ana " + Format.day(s.nowMs, offsetMinutes: s.tzOffsetMinutes)
        _ = update(&s, .batchLoaded(BatchInfo()))
        #expect(s.defaultShiftName == base)
        _ = update(&s, .batchLoaded(BatchInfo(id: "b1", name: base, openedAtMs: s.nowMs, isOpen: false)))
        #expect(s.defaultShiftName == base + " (2)")
        _ = update(&s, .batchLoaded(BatchInfo(id: "b2", name: base + " (2)", openedAtMs: s.nowMs, isOpen: false)))
        #expect(s.defaultShiftName == base + " (3)")
        _ = update(&s, .batchLoaded(BatchInfo(id: "b3", name: "Bob yesterday", openedAtMs: s.nowMs, isOpen: false)))
        #expect(s.defaultShiftName == base)
    }
}

/// Installments in one key from anywhere on the Sale form (Alt-i), as Ctrl-t sets the tip: "40 Tab Tab 6" took two
/// Tabs past the tip.
@Suite struct InstallmentsKeyTests {
    @Test func altIGoesToInstallmentsAndTypingReplacesThem() {
        var s = readyState()
        type(&s, "40")
        press(&s, .alt("i"))
        #expect(s.form.focused?.id == .preferredInstallments)
        type(&s, "6")
        #expect(s.form[.preferredInstallments] == "6" && s.form[.amount] == "40")
        press(&s, .alt("i"))
        type(&s, "3")
        #expect(s.form[.preferredInstallments] == "3", "what was there is replaced, never 63")
    }
}
