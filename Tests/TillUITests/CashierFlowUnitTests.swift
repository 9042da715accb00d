import Testing
import TillModel
import TillProtocol
@testable import TillUI

/// Issue 10's flows at the level of `update` and `view` (the tmux tests repeat the traps end to end).
@Suite struct CashierFlowUnitTests {
    @Test func escAbortsOnlyOnTheScreenThatSentThePayment() {
        var s = readyState()
        type(&s, "8.08"); press(&s, .enter)
        press(&s, .f(7))
        // On the journal, Esc is "back" (to Sale), never an abort.
        #expect(!press(&s, .esc).contains(.abort))
        #expect(s.screen == .sale)
        #expect(s.pending?.abortRequested == false)
        #expect(press(&s, .esc) == [.abort])
    }

    @Test func escOnAnotherScreenGoesBackAndTheFooterSaysSo() {
        var s = readyState()
        press(&s, .f(6))
        #expect(view(s, size: s.size).contains("Esc back"))
        press(&s, .esc)
        #expect(s.screen == .sale)
        type(&s, "5")
        #expect(view(s, size: s.size).contains("Esc clear"))
        press(&s, .enter)
        #expect(view(s, size: s.size).contains("Esc abort"))
        press(&s, .f(7))
        #expect(view(s, size: s.size).contains("Esc aborts on Sale (F2)"))
    }

    @Test func whileTheWindowIsTooSmallKeysDoNothing() {
        var s = readyState()
        _ = update(&s, .resize(Size(width: 60, height: 20)))
        #expect(type(&s, "12").isEmpty)
        #expect(press(&s, .enter).isEmpty)
        #expect(press(&s, .f(7)).isEmpty)
        #expect(s.screen == .sale && s.form[.amount] == "" && s.pending == nil)
        #expect(view(s, size: s.size).contains("F10 quits"))
        #expect(press(&s, .f(10)) == [.quit])
    }

    @Test func theMinimumSizeIsTheOneTheCashierGuidePromises() {
        #expect(minimumSize == Size(width: 80, height: 24))
        #expect(view(readyState(size: Size(width: 79, height: 24)), size: Size(width: 79, height: 24)).contains("enlarge"))
        #expect(!view(readyState(), size: Size(width: 80, height: 24)).contains("enlarge"))
    }

    @Test func theSimulatorSaysTraining() {
        let s = readyState()
        #expect(view(s, size: s.size).contains("TRAINING"))
        var real = AppState(nowMs: fixedNow, transport: "file:/srv/drop")
        _ = initialCommands(&real)
        _ = update(&real, .unresolvedLoaded([], recovered: true))
        #expect(!view(real, size: real.size).contains("TRAINING"))
        let wide = readyState(size: Size(width: 120, height: 40))
        #expect(view(wide, size: wide.size).line(0).contains("TRAINING"))
    }

    @Test func aShiftMustBeOpenToSellAndOneKeyOpensIt() {
        var s = readyState()
        s.cashier = "Ana"
        _ = update(&s, .batchLoaded(BatchInfo()))
        type(&s, "12.50")
        #expect(press(&s, .enter).isEmpty)
        guard case .confirm(let c)? = s.overlay else { Issue.record("no offer to open a shift"); return }
        #expect(c.lines.joined(separator: " ").contains("'Ana 2026-11-22'"))
        let cmds = press(&s, .char("o"))
        #expect(cmds.count == 1)
        guard case .perform(.batch(let b), _)? = cmds.first else { Issue.record("no batch open sent: \(cmds)"); return }
        #expect(b.command == .open && b.batchName == "Ana 2026-11-22")
        #expect(s.forms[.sale]?[.amount] == "12.50")   // the sale stays typed
    }

    @Test func withoutACashierNameTheShiftIsNamedByDate() {
        var s = readyState()
        _ = update(&s, .batchLoaded(BatchInfo()))
        type(&s, "1"); press(&s, .enter)
        guard case .confirm(let c)? = s.overlay else { Issue.record("no offer"); return }
        #expect(c.lines.joined(separator: " ").contains("'Shift 2026-11-22'"))
    }

    @Test func theVerdictIsInBlockLettersWithAMarkAndDimsWhenTheNextAmountIsTyped() {
        var s = readyState()
        type(&s, "12.50"); press(&s, .enter)
        let before = s.verdicts
        _ = update(&s, .performed(.answered(entry(1, cents: 1250, tip: 125, response: approvedSaleResponse)), summary: "Sale € 12.50"))
        #expect(s.verdicts == before + 1)   // the runtime rings the bell once
        var buf = view(s, size: s.size)
        #expect(buf.contains("✓ SALE APPROVED € 13.75"))
        #expect(buf.contains("█▀▄"))          // block letters
        let y = (0..<buf.size.height).first { buf.line($0).contains("✓ SALE APPROVED") }!
        let x = buf.line(y).distance(from: buf.line(y).startIndex, to: buf.line(y).firstIndex(of: "✓")!)
        #expect(buf[x, y].role == .approved)
        type(&s, "4")
        buf = view(s, size: s.size)
        #expect(buf[x, y].role == .dim)
    }

    @Test func refundFromAJournalRowNamesTheOriginalSale() {
        var s = readyState()
        press(&s, .f(7))
        _ = update(&s, .journalLoaded([entry(2, cents: 666, state: .declined, response: declinedSaleResponse),
                                       entry(1, cents: 1250, tip: 125, response: approvedSaleResponse)]))
        press(&s, .f(5))   // on the declined row: refused, the finder stays empty
        #expect(s.noticeIsError && s.forms[.refund]?[.referenceNumber] == "")
        press(&s, .f(7)); _ = update(&s, .journalLoaded([entry(2, cents: 666, state: .declined, response: declinedSaleResponse),
                                                         entry(1, cents: 1250, tip: 125, response: approvedSaleResponse)]))
        press(&s, .down, .f(5))
        #expect(s.screen == .refund && s.form[.referenceNumber] == "654321" && s.form.focused?.id == .amount)
        #expect(enterFinding(&s, s.journal.entries).isEmpty)
        guard case .confirm(let c)? = s.overlay else { Issue.record("no confirmation"); return }
        let text = c.lines.joined(separator: " ")
        #expect(text.contains("Refund the FULL amount") && text.contains("sale of € 13.75 at 11:00"))
        #expect(text.contains("card Visa 478212******7417") && text.contains("STAN 654321"))
        #expect(press(&s, .enter).isEmpty)   // never Enter alone: the cashier picks the refund
        #expect(press(&s, .char("y")) == [.perform(.cancel(CancelRequest(amount: nil, finder: TransactionFinder(referenceNumber: "654321"))),
                                               summary: "Refund in full, STAN 654321")])
    }

    // Found by attack: after F5 on a row, a short code typed too (which the terminal goes by first) refunded another
    // payment while the box still named the row's sale. The row is named only when the winning key is its own.
    @Test func aShortCodeTypedAfterF5IsNotTheRowsSale() {
        var s = readyState()
        press(&s, .f(7))
        _ = update(&s, .journalLoaded([entry(1, cents: 1250, tip: 125, response: approvedSaleResponse)]))
        press(&s, .f(5))
        #expect(s.screen == .refund && s.form[.referenceNumber] == "654321")
        s.forms[.refund]?[.shortOrderCode] = "9999999999"
        #expect(enterFinding(&s, s.journal.entries).isEmpty)
        guard case .confirm(let c)? = s.overlay else { Issue.record("no confirmation"); return }
        let text = c.lines.joined(separator: " ")
        #expect(!text.contains("sale of € 13.75") && text.contains("9999999999"), "\(text)")
        #expect(text.contains("The journal knows no payment with this key"))
    }

    @Test func aCaptureIsConfirmedShowingThePreAuth() {
        var s = readyState()
        press(&s, .f(4)); type(&s, "654321")
        for _ in 0..<5 { press(&s, .tab) }
        type(&s, "42")
        #expect(enterFinding(&s).isEmpty)
        guard case .confirm(let c)? = s.overlay else { Issue.record("no confirmation"); return }
        #expect(c.title == "Capture?" && c.lines.joined(separator: " ").contains("Capture € 42.00"))
        #expect(press(&s, .enter).isEmpty)   // never Enter alone
        #expect(press(&s, .char("1"), .enter).isEmpty)   // nor a digit and Enter (issue 34)
        #expect(press(&s, .char("y")).count == 1)
    }

    @Test func theJournalReadsLikeATillRoll() {
        var s = readyState()
        press(&s, .f(7))
        _ = update(&s, .journalLoaded([entry(3, .abort, cents: nil, state: .aborted), entry(2, .transactionDetails, cents: nil),
                                       entry(1, cents: 1250, tip: 125, response: approvedSaleResponse)]))
        #expect(s.visibleJournal.map(\.id) == [1])          // look-ups and aborts hidden
        #expect(view(s, size: s.size).contains("13.75"))    // amount + tip
        type(&s, "abort")
        #expect(s.visibleJournal.map(\.id) == [3])          // shown when asked for
    }
}
