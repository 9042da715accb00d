import Testing
import TillModel
import TillProtocol
@testable import TillUI

@Suite struct UpdateTests {
    @Test func startAsksForRecoveryAndBatchAndShowsUnresolvedFirst() {
        var s = AppState(nowMs: fixedNow)
        let cmds = initialCommands(&s)
        #expect(cmds == [.recover, .loadBatch, .loadStoreSync])
        #expect(s.screen == .unresolved)
        #expect(s.unresolved.recovering)
        let unknown = entry(3, state: .unknown, note: "no answer in 90 s")
        _ = update(&s, .unresolvedLoaded([unknown], recovered: true))
        #expect(s.screen == .unresolved)
        #expect(s.unresolved.entries == [unknown])
        #expect(!s.unresolved.recovering)
    }

    @Test func startWithNothingToRecoverGoesToSale() {
        let s = readyState()
        #expect(s.screen == .sale)
        #expect(s.batch == openBatch)
    }

    @Test func saleAmountEnterSendsTypedRequest() {
        var s = readyState()
        type(&s, "12,5")
        #expect(s.form[.amount] == "12,5")
        let cmds = press(&s, .enter)
        let req = Request.sale(SaleRequest(amount: Money(cents: 1250), withInstallments: false, protocolName: "int_default"))
        #expect(cmds == [.perform(req, summary: "Sale € 12.50")])
        #expect(s.pending?.summary == "Sale € 12.50")
        #expect(s.pending?.startedAtMs == fixedNow)
    }

    @Test func tipPercentageIsAddedOnTop() {
        var s = readyState()
        type(&s, "12.50")
        press(&s, .ctrl("t"), .ctrl("t"))   // tip 10 %
        #expect(s.form[.tipAmount] == "10%")
        let cmds = press(&s, .enter)
        guard case .perform(.sale(let sale), _)? = cmds.first else { Issue.record("no sale sent: \(cmds)"); return }
        #expect(sale.amount == Money(cents: 1250))
        #expect(sale.tipAmount == Money(cents: 125))
    }

    @Test func tipAmountAndInstallmentsAndReference() {
        var s = readyState()
        type(&s, "100")
        press(&s, .tab); type(&s, "5.5")
        press(&s, .tab); type(&s, "3")
        press(&s, .tab); type(&s, "order-42")
        let cmds = press(&s, .enter)
        let want = SaleRequest(amount: Money(cents: 10000), tipAmount: Money(cents: 550), clientTransactionId: "order-42",
                               withInstallments: true, preferredInstallments: 3, protocolName: "int_default")
        #expect(cmds == [.perform(.sale(want), summary: "Sale € 100.00 + tip 5.50")])
    }

    @Test func tipAboveAmountIsRefusedAtTheField() {
        var s = readyState()
        type(&s, "10")
        press(&s, .tab); type(&s, "11")
        let cmds = press(&s, .enter)
        #expect(cmds.isEmpty)
        #expect(s.pending == nil)
        #expect(s.form.errors[.tipAmount]?.contains("more than the amount") == true)
        #expect(s.form.focused?.id == .tipAmount)
    }

    @Test func badAmountUsesMoneyParseMessage() {
        var s = readyState()
        type(&s, "12.345")
        let cmds = press(&s, .enter)
        #expect(cmds.isEmpty)
        #expect(s.form.errors[.amount] == MoneyError.tooManyDecimals("12.345").description)
        press(&s, .backspace)
        #expect(s.form[.amount] == "12.34")
        #expect(s.form.errors[.amount] == nil)
    }

    @Test func emptyAndZeroAmountsAreRefused() {
        var s = readyState()
        press(&s, .enter)
        #expect(s.form.errors[.amount] == MoneyError.empty.description)
        type(&s, "0")
        press(&s, .enter)
        #expect(s.form.errors[.amount] == "The amount must be more than 0.")
    }

    @Test func lettersAreRefusedInAmountField() {
        var s = readyState()
        type(&s, "1x")
        // Refused, never dropped: the character stays in sight with the reason, and Enter sends nothing.
        #expect(s.form[.amount] == "1x")
        #expect(s.form.errors[.amount] != nil)
        #expect(press(&s, .enter).isEmpty)
    }

    @Test func minusThreeNeverChargesThree() {
        var s = readyState()
        type(&s, "-3")
        #expect(s.form[.amount] == "-3" && s.form.errors[.amount] != nil)
        #expect(press(&s, .enter).isEmpty, "'-3' must never charge 3.00")
        press(&s, .ctrl("u")); type(&s, "3")
        #expect(press(&s, .enter) == [.perform(.sale(SaleRequest(amount: Money(cents: 300), withInstallments: false, protocolName: "int_default")),
                                               summary: "Sale € 3.00")])
    }

    @Test func secondSendWhileInFlightIsRefused() {
        var s = readyState()
        type(&s, "5")
        press(&s, .enter)
        press(&s, .f(3)); type(&s, "7")
        let cmds = press(&s, .enter)
        #expect(cmds.isEmpty)
        #expect(s.noticeIsError)
    }

    @Test func escWhileInFlightAbortsOnce() {
        var s = readyState()
        type(&s, "9.09")
        press(&s, .enter)
        #expect(press(&s, .esc) == [.abort])
        #expect(s.pending?.abortRequested == true)
        #expect(press(&s, .esc).isEmpty)
        _ = update(&s, .aborted(.noAnswer))
        #expect(s.pending?.abortRequested == false)
    }

    @Test func controllerInFlightEventSetsDeadlineAndTickMovesClock() {
        var s = readyState()
        type(&s, "7.77"); press(&s, .enter)
        let inflight = InFlight(entry: entry(9, cents: 777, state: .sent), startedAtMs: fixedNow, deadlineMs: fixedNow + 90_000)
        _ = update(&s, .event(.inFlight(inflight)))
        #expect(s.pending?.deadlineMs == fixedNow + 90_000)
        #expect(s.pending?.summary == "Sale € 7.77")
        _ = update(&s, .tick(nowMs: fixedNow + 7_000))
        let buf = view(s, size: s.size)
        #expect(buf.contains("elapsed      00:07"))
        #expect(buf.contains("times out in 01:23"))
        #expect(buf.contains("Press Esc to abort"))
    }

    @Test func approvedResultClearsFormAndShowsVerdict() {
        var s = readyState()
        type(&s, "12.50"); press(&s, .enter)
        let e = entry(1, cents: 1250, tip: 125, response: approvedSaleResponse)
        let cmds = update(&s, .performed(.answered(e), summary: "Sale € 12.50"))
        #expect(cmds == [.loadReport(batch: .current, show: false)])   // the running report follows every payment
        #expect(s.pending == nil)
        #expect(s.form[.amount] == "")
        let buf = view(s, size: s.size)
        #expect(buf.contains("✓ SALE APPROVED € 13.75"))
        #expect(buf.contains("654321"))
        #expect(buf.contains("CONTACTLESS"))
    }

    @Test func declinedKeepsTheAmountSelectedForAnotherCard() {
        // Issue 34: the amount went, and another card meant typing it again. Nothing was charged: kept, selected.
        var s = readyState()
        type(&s, "6.66"); press(&s, .enter)
        _ = update(&s, .performed(.answered(entry(2, cents: 666, state: .declined, response: declinedSaleResponse)), summary: "Sale € 6.66"))
        #expect(s.form[.amount] == "6.66" && s.form.hasSelection)
        #expect(s.form.focused?.id == .amount)
        #expect(view(s, size: s.size).contains("✗ NOT CHARGED"))
    }

    /// A sale left for review counts on the status line at once, and Unresolved is read again.
    @Test func reviewOutcomeCountsAtOnceAndReloadsUnresolved() {
        var s = readyState()
        type(&s, "9.09"); press(&s, .enter)
        let e = entry(3, cents: 909, state: .review, note: "The terminal approved a payment of this amount without naming it")
        let cmds = update(&s, .performed(.answered(e), summary: "Sale € 9.09"))
        #expect(cmds.contains(.loadUnresolved))
        #expect(view(s, size: s.size).text.split(separator: "\n").last?.contains("1 unresolved") == true)
    }

    @Test func unknownOutcomeReloadsUnresolved() {
        var s = readyState()
        type(&s, "9.09"); press(&s, .enter)
        let cmds = update(&s, .performed(.unknown(entry(3, cents: 909, state: .unknown, note: "no answer in 3 s")), summary: "Sale € 9.09"))
        #expect(cmds == [.loadReport(batch: .current, show: false), .loadUnresolved])
        #expect(view(s, size: s.size).contains("? CHECK THE TERMINAL"))
    }

    @Test func serviceValidationErrorsLandOnFields() {
        var s = readyState()
        type(&s, "5"); press(&s, .enter)
        _ = update(&s, .performed(.invalid([ValidationError(field: "amount", message: "Nope.")]), summary: "Sale € 5.00"))
        #expect(s.form.errors[.amount] == "Nope.")
        #expect(s.result == nil)
    }

    @Test func everyScreenIsOneKeyAway() {
        var s = readyState()
        let keys: [(Key, Screen)] = [(.f(3), .preAuth), (.f(4), .capture), (.f(5), .refund), (.f(6), .batch), (.f(7), .journal),
                                     (.f(8), .unresolved), (.f(2), .sale), (.alt("j"), .journal), (.alt("b"), .batch), (.alt("s"), .sale)]
        for (k, screen) in keys {
            press(&s, k)
            #expect(s.screen == screen, "\(k)")
        }
        #expect(press(&s, .f(7)) == [.loadJournal(JournalFilter(scope: .currentBatch))])
        #expect(press(&s, .f(6)) == [.loadBatch])
    }

    @Test func refundAsksBeforeMoneyMovesBack() {
        var s = readyState()
        press(&s, .f(5))
        press(&s, .enter)
        #expect(s.form.errors[.referenceNumber] != nil)
        type(&s, "654321")
        for _ in 0..<5 { press(&s, .tab) }
        type(&s, "5")
        #expect(enterFinding(&s).isEmpty)
        guard case .confirm(let c)? = s.overlay else { Issue.record("no confirmation"); return }
        #expect(c.lines.joined(separator: " ").contains("STAN 654321"))
        // n cancels, nothing sent
        #expect(press(&s, .char("n")).isEmpty)
        #expect(s.overlay == nil)
        enterFinding(&s)
        #expect(press(&s, .enter).isEmpty)   // Enter alone never refunds
        let cmds = press(&s, .char("y"))
        let want = CancelRequest(amount: Money(cents: 500), finder: TransactionFinder(referenceNumber: "654321"))
        #expect(cmds == [.perform(.cancel(want), summary: "Refund € 5.00, STAN 654321")])
    }

    /// Found while changing this test: after "Say which pre-authorisation to use" on the blank STAN, the short code
    /// typed below it was refused ("correct STAN first") until the cashier typed something into the STAN.
    @Test func captureNeedsAFinderAndAnyOfItsKeysAnswersIt() {
        var s = readyState()
        press(&s, .f(4))
        press(&s, .enter)
        #expect(s.form.errors[.referenceNumber]?.contains("Say which") == true)
        press(&s, .tab, .tab); type(&s, "1234567890")
        press(&s, .tab); type(&s, "2026-11-20")
        #expect(enterFinding(&s).isEmpty)   // a capture is confirmed first
        #expect(press(&s, .enter).isEmpty)   // by a deliberate key, never Enter alone
        let cmds = press(&s, .char("y"))
        let want = CaptureRequest(finder: TransactionFinder(shortOrderCode: "1234567890", txnDateFrom: "2026-11-20T00:00:00.000+01:00"),
                                  protocolName: RequestDraft.defaultProtocol)   // as the command line sends it
        #expect(cmds == [.perform(.capturePreAuth(want), summary: "Capture in full, short code 1234567890")])
    }

    /// The receipt's STAN 000123 typed as 123 is looked up as 000123, not refused.
    @Test func aShortStanIsLookedUpWithZerosInFront() {
        var s = readyState()
        press(&s, .f(4))
        type(&s, "123")
        let cmds = press(&s, .enter)
        #expect(s.form.errors.isEmpty, "\(s.form.errors)")
        guard case .findPayment(_, let finder)? = cmds.first else { Issue.record("not looked up: \(cmds)"); return }
        #expect("\(finder)".contains("000123"), "\(finder)")
    }

    /// Found by a cashier in tmux: a name typed on the Batch screen and Enter opened a new shift, closing the active
    /// one, with no word of the unknown outcomes its Z report cannot settle (closing it with Ctrl-k says so).
    @Test func openingAShiftThatClosesTheActiveOneWarnsAsClosingDoes() {
        var s = readyState()
        _ = update(&s, .unresolvedLoaded([entry(7, cents: 777, state: .unknown)], recovered: false))
        press(&s, .f(6)); type(&s, "Evening"); press(&s, .enter)
        guard case .confirm(let c)? = s.overlay else { Issue.record("no confirmation"); return }
        #expect(c.lines.joined(separator: " ").contains("1 transaction has an UNKNOWN outcome"), "\(c.lines)")
        var flying = readyState()
        type(&flying, "4"); press(&flying, .enter)
        press(&flying, .f(6)); type(&flying, "Evening"); press(&flying, .enter)
        #expect(flying.overlay == nil && flying.notice?.contains("in flight") == true, "\(flying.notice ?? "")")
    }

    @Test func batchOpenAndCloseConfirmSayWhatHappens() {
        var s = readyState()
        press(&s, .f(6))
        type(&s, "Evening")
        press(&s, .enter)
        guard case .confirm(let c)? = s.overlay else { Issue.record("no confirmation"); return }
        #expect(c.lines.joined(separator: " ").contains("'Morning' is closed first (its Z report kept)"))
        // It ends a shift, as closing does: never Enter alone.
        #expect(press(&s, .enter).isEmpty && s.overlay != nil)
        let cmds = press(&s, .char("y"))
        #expect(cmds == [.perform(.batch(BatchRequest(command: .open, batchName: "Evening")), summary: "Open batch 'Evening'")])
        _ = update(&s, .performed(.answered(entry(5, .batch, cents: nil)), summary: "Open batch 'Evening'"))
        // close by id
        s.pending = nil
        press(&s, .tab)
        type(&s, "7885F4F1-59CA-42C2-81BB-6DB48AA138A6")
        press(&s, .enter)
        let closeCmds = press(&s, .char("y"))
        #expect(closeCmds == [.perform(.batch(BatchRequest(command: .close, batchId: "7885F4F1-59CA-42C2-81BB-6DB48AA138A6")),
                                       summary: "Close batch 7885F4F1-59CA-42C2-81BB-6DB48AA138A6")])
    }

    @Test func closeActiveBatchKey() {
        var s = readyState()
        press(&s, .f(6), .ctrl("k"))
        guard case .confirm(let c)? = s.overlay else { Issue.record("no confirmation"); return }
        #expect(c.lines.first?.contains("'Morning'") == true)
        #expect(press(&s, .enter).isEmpty)   // never Enter alone: it may be the Enter meant for a sale
        #expect(press(&s, .char("y")) == [.perform(.batch(BatchRequest(command: .close)), summary: "Close batch active")])
    }

    /// The Close field reads a batch as `till report --batch` does (`BatchKey(text:)`): `current` and `last` are the
    /// active batch (they were sent to the terminal as a batch *named* "current"), other text is a name, a UUID an id.
    @Test func closeFieldReadsTheBatchAsTheCommandLineDoes() {
        for (typed, want) in [("current", BatchRequest(command: .close)), ("last", BatchRequest(command: .close)),
                              ("Evening", BatchRequest(command: .close, batchName: "Evening"))] {
            var s = readyState()
            press(&s, .f(6), .tab)
            type(&s, typed)
            press(&s, .enter)
            guard case .confirm(let c)? = s.overlay, case .send(let r)? = c.choices.first?.action else {
                Issue.record("no confirmation for '\(typed)'"); continue
            }
            #expect(r == .batch(want), "typed '\(typed)'")
        }
    }

    @Test func batchResultReloadsBatch() {
        var s = readyState()
        press(&s, .f(6), .ctrl("k"), .enter)
        let cmds = update(&s, .performed(.answered(entry(6, .batch, cents: nil)), summary: "Close batch active"))
        #expect(cmds.contains(.loadBatch))
        #expect(cmds.contains(.loadJournal(JournalFilter(scope: .currentBatch))) == false)
    }

    @Test func quitWhileInFlightAsks() {
        var s = readyState()
        type(&s, "8.08"); press(&s, .enter)
        #expect(press(&s, .f(10)).isEmpty)
        #expect(!s.quit)
        #expect(press(&s, .esc).isEmpty)
        #expect(s.overlay == nil)
        press(&s, .f(10))
        #expect(press(&s, .char("y")) == [.quit])
        #expect(s.quit)
    }

    @Test func quitWhenIdleQuits() {
        var s = readyState()
        #expect(press(&s, .alt("q")) == [.quit])
        #expect(s.quit)
    }

    @Test func journalFilterScrollDetailAndScope() {
        var s = readyState()
        press(&s, .f(7))
        let entries = (1...40).map { entry(Int64($0), cents: $0 * 100) }
        _ = update(&s, .journalLoaded(entries))
        #expect(s.visibleJournal.count == 40)
        press(&s, .pageDown)
        #expect(s.journal.selected == journalRows(s.size))
        #expect(s.journal.top > 0)
        press(&s, .enter)
        #expect(s.journal.detail?.id == Int64(journalRows(s.size) + 1))
        press(&s, .esc)
        #expect(s.journal.detail == nil)
        type(&s, "12.00")
        #expect(s.visibleJournal.map(\.id) == [12])
        #expect(s.journal.selected == 0)
        #expect(press(&s, .ctrl("a")) == [.loadJournal(JournalFilter(scope: .all))])
        #expect(s.journal.allBatches)
    }

    @Test func resolveFromUnresolvedList() {
        var s = AppState(nowMs: fixedNow)
        _ = initialCommands(&s)
        _ = update(&s, .unresolvedLoaded([entry(3, state: .unknown), entry(4, state: .review)], recovered: true))
        press(&s, .down)
        #expect(s.unresolved.selected == 1)
        press(&s, .enter)
        guard case .confirm? = s.overlay else { Issue.record("no confirmation"); return }
        let cmds = press(&s, .char("x"))
        #expect(cmds == [.resolve(entryId: 4, charged: false, note: "")])
        let after = update(&s, .resolved(entryId: 4, charged: false, error: nil))
        #expect(after == [.loadUnresolved])
    }

    /// "Nothing to abort" while the sale is still in flight: the payment goes on, and the pane stops saying the abort
    /// is requested.
    @Test func nothingToAbortLeavesThePaymentInFlightWithoutAbortRequested() throws {
        var s = readyState()
        s.pending = Pending(summary: "Sale € 13.13", action: .sale, startedAtMs: fixedNow, abortRequested: true)
        let r = try CallbackResponse.decode("interapp-callback://result?status=success&action=abort&message=nothing%20to%20abort")
        _ = update(&s, .aborted(.answered(.nothingToAbort, r)))
        #expect(s.pending?.abortRequested == false)
        #expect(s.notice == "The terminal had nothing to abort: the payment goes on. Wait for its result.")
        #expect(!view(s, size: s.size).contains("Abort requested"))
    }

    /// issue 33: the terminal answered the abort ABORTED and till asks it whether the card was charged all the same:
    /// the pane says so, never "aborted" or "not charged" before the terminal's record does.
    @Test func anAbortAnsweredAbortedSaysTillIsAskingTheTerminal() {
        var s = readyState()
        type(&s, "8.08"); press(&s, .enter)
        let e = JournalEntry(id: 8, requestId: "r8", action: .sale, clientTransactionId: "c8", amount: Money(cents: 808), tipAmount: nil,
                             requestURL: "", state: .sent, createdAtMs: fixedNow, updatedAtMs: fixedNow)
        _ = update(&s, .event(.inFlight(InFlight(entry: e, startedAtMs: fixedNow, deadlineMs: fixedNow + 90_000))))
        press(&s, .esc)
        _ = update(&s, .event(.inFlight(InFlight(entry: e, startedAtMs: fixedNow, deadlineMs: fixedNow + 15_000, abortRequested: true,
                                                 askingAfterAbort: true))))
        let screen = view(s, size: s.size)
        #expect(screen.contains("Aborting — asking the terminal"), "\(screen)")
        #expect(!screen.contains("Abort requested") && screen.contains("asking it whether the card was charged"), "\(screen)")
    }

    /// Ctrl-k closes the shift from any screen, as the help lists it: the Batch screen, the close to confirm.
    @Test func closeTheShiftFromAnyScreen() {
        for screen in [Screen.sale, .capture, .journal] {
            var s = readyState()
            _ = go(&s, screen)
            press(&s, .ctrl("k"))
            guard case .confirm(let c)? = s.overlay else { Issue.record("\(screen): no confirmation"); continue }
            #expect(s.screen == .batch && c.lines.joined(separator: " ").contains("Close the active batch"), "\(screen): \(c.lines)")
        }
    }

    /// The payment's own answer overturning a person's mark is said as such, not as one more recovery.
    @Test func theOwnAnswerChangingAMarkIsSaidAsSuch() {
        var s = readyState()
        let e = entry(5, cents: 666, state: .declined, response: declinedSaleResponse)
        _ = update(&s, .event(.changed(e)))
        #expect(s.notice?.hasPrefix("CHECK THE TERMINAL: its own answer changed a mark: Sale € 6.66 at") == true && s.notice?.contains("was NOT charged") == true, "[\(s.notice ?? "")]")
        #expect(s.noticeIsError)
    }

    /// The result pane's CHECK THE TERMINAL about a payment gives way once that payment is marked.
    @Test func theResultPaneForgetsAnUnknownOnceItIsMarked() {
        var s = readyState()
        let e = entry(5, cents: 4000, state: .unknown)
        _ = update(&s, .performed(.unknown(e), summary: "Sale € 40.00"))
        #expect(view(s, size: s.size).contains("CHECK THE TERMINAL"))
        _ = update(&s, .resolved(entryId: 5, charged: true, error: nil))
        let text = view(s, size: s.size).text
        #expect(!text.contains("CHECK THE TERMINAL") && text.contains("Ready for the next customer."), "\(text)")
    }

    @Test func helpOverlayListsKeymapAndClosesOnAnyKey() {
        var s = readyState()
        press(&s, .f(1))
        #expect(s.overlay == .help)
        let buf = view(s, size: s.size)
        #expect(buf.contains("F2 Alt-s"))
        #expect(buf.contains("Ctrl-t") && buf.contains("Tip 5/10/15%, none"))
        press(&s, .char("x"))
        #expect(s.overlay == nil)
        #expect(s.form[.amount] == "")
    }

    @Test func keypadKeymapActsOnlyWhereTheFieldRefusesTheCharacter() throws {
        let text = """
        [keys]
        next = ["+", "tab"]
        journal = ["F7", "/"]
        """
        let km = try Keymap.parse(text, file: "keypad.toml", name: "keypad")
        var s = readyState(keymap: km)
        type(&s, "5+")
        #expect(s.form.focused?.id == .tipAmount)
        press(&s, .char("/"))
        #expect(s.screen == .journal)
        type(&s, "a/b")   // the journal filter is a text field: / types
        #expect(s.form[.filter] == "a/b")
    }

}

@Suite struct ReportFlowTests {
    @Test func closingTheBatchShowsItsZReportFullScreen() {
        var s = readyState()
        press(&s, .f(6), .ctrl("k"), .char("y"))
        #expect(s.pending?.action == .batch)
        let closed = entry(9, .batch, cents: nil, response: response("status=success&message=Batch closed&action=batch&command=close&batchName=Morning&batchId=7885F4F1-59CA-42C2-81BB-6DB48AA138A6"))
        let cmds = update(&s, .performed(.answered(closed), summary: "Close batch"))
        #expect(cmds.contains(.loadReport(batch: .id("7885F4F1-59CA-42C2-81BB-6DB48AA138A6"), show: true)))
        _ = update(&s, .reportLoaded(sampleReport(kind: .closing), show: true))
        guard case .report(let panel)? = s.overlay else { Issue.record("no report overlay"); return }
        #expect(panel.report.kind == .closing)
        #expect(view(s, size: s.size).contains("NET TOTAL"))
        // Ctrl-E exports this batch; Esc closes the report.
        #expect(press(&s, .ctrl("e")) == [.exportReport(batch: .id("7885F4F1-59CA-42C2-81BB-6DB48AA138A6"), format: s.reportFormat)])
        _ = update(&s, .exported(paths: ["/x/exports/a-report.csv", "/x/exports/a-transactions.csv"], error: nil))
        #expect(view(s, size: s.size).contains("Saved 2 CSV files in /x/exports/"))
        press(&s, .esc)
        #expect(s.overlay == nil)
    }

    @Test func reportScrollsWithinItsLines() {
        var s = readyState()
        _ = update(&s, .reportLoaded(sampleReport(kind: .closing), show: true))
        for _ in 0..<50 { press(&s, .down) }
        guard case .report(let p)? = s.overlay else { Issue.record("no overlay"); return }
        let lines = sampleReport(kind: .closing).lines(s.reportFormat).count
        #expect(p.scroll == max(0, lines - (s.size.height - 6)))
        press(&s, .pageUp, .pageUp, .pageUp)
        guard case .report(let q)? = s.overlay else { Issue.record("no overlay"); return }
        #expect(q.scroll == 0)
    }

    @Test func f9ShowsTheReportFromAnywhere() {
        var s = readyState()
        #expect(press(&s, .f(9)) == [.loadReport(batch: .current, show: true)])
        _ = update(&s, .reportLoaded(nil, show: true))
        #expect(s.overlay == nil)
        #expect(s.noticeIsError)
    }

    @Test func closingWithAnUnknownOutcomeAsksFirstAndEnterDoesNothing() {
        var s = readyState()
        _ = update(&s, .unresolvedLoaded([entry(4, cents: 909, state: .unknown, note: "no answer")], recovered: false))
        press(&s, .f(6), .ctrl("k"))
        guard case .confirm(let c)? = s.overlay else { Issue.record("no confirmation"); return }
        #expect(c.lines.joined(separator: " ").contains("UNKNOWN"))
        // Closing gives the unknown payment up: Enter answers nothing (issue 34); u goes to the list, nothing sent.
        #expect(press(&s, .enter).isEmpty && s.overlay != nil)
        #expect(press(&s, .char("u")).contains(.loadUnresolved))
        #expect(s.screen == .unresolved && s.pending == nil)
        // "y" closes anyway.
        press(&s, .f(6), .ctrl("k"))
        press(&s, .char("y"))
        #expect(s.pending?.action == .batch)
    }

    @Test func theBatchScreenShowsTheRunningReport() {
        var s = readyState()
        press(&s, .f(6))
        _ = update(&s, .reportLoaded(sampleReport(), show: false))
        let text = view(s, size: s.size).text
        #expect(text.contains("Running (X) report"))
        #expect(text.contains("NET TOTAL                   € 54.25"))   // 42.50 + 12.50 sales + 4.25 tips − 5.00 refunded
        #expect(text.contains("Sales approved (4)          € 55.00") && !text.contains("4 ×"))
    }
}

/// A mark that counts moves the running report (a sale counted) and maybe the shift (a batch close marked done): both
/// are read again, not left as they were until the next payment.
@Test func aMarkThatCountsReadsTheShiftAndItsReportAgain() {
    var s = readyState()
    let counted = update(&s, .resolved(entryId: 3, charged: true, error: nil))
    #expect(counted.contains(.loadBatch) && counted.contains(.loadReport(batch: .current, show: false)), "\(counted)")
    let notCounted = update(&s, .resolved(entryId: 4, charged: false, error: nil))
    #expect(!notCounted.contains(.loadBatch))
}
