import TillProtocol
import TillModel

// What the controller says (events, outcomes, recovery) as changes to the state.

func handleEvent(_ state: inout AppState, _ e: ControllerEvent) -> [Command] {
    switch e {
    case .inFlight(let f):
        if var p = state.pending, p.own, p.entryId == nil || p.entryId == f.entry.id {
            // Our own request, now journaled and sent.
            p.entryId = f.entry.id; p.startedAtMs = f.startedAtMs; p.deadlineMs = f.deadlineMs
            p.abortRequested = p.abortRequested || f.abortRequested
            let askingNow = f.askingAfterAbort && !p.askingAfterAbort
            p.askingAfterAbort = f.askingAfterAbort
            state.pending = p
            // "Aborted" is not proof (the card may have been read): the line says what till does, not "aborted".
            if askingNow { setFlightNotice(&state, "The terminal answered ABORTED; asking it whether the card was charged all the same.") }
        } else if state.pending == nil || state.pending?.entryId == f.entry.id {
            // Something this screen did not send (start-up recovery asking the terminal, another process).
            state.pending = Pending(summary: Format.inFlightSummary(f.entry, currency: state.currency), action: f.entry.action,
                                    startedAtMs: f.startedAtMs, deadlineMs: f.deadlineMs, abortRequested: f.abortRequested,
                                    entryId: f.entry.id, own: false)
        }
        return []
    case .recovered(let e):
        return recoveredEvent(&state, e)
    case .changed(let e):
        // As a recovery, then said for what it is: the terminal overturned what was journaled (a person's mark).
        let cmds = recoveredEvent(&state, e)
        setNotice(&state, "CHECK THE TERMINAL: its own answer changed a mark: \(Format.entryName(e, currency: state.currency, offsetMinutes: state.tzOffsetMinutes)) "
                  + CashierWording.foundWords(e) + ".", error: true)
        return cmds
    case .journalProblem(let m):
        setNotice(&state, m, error: true)
        return []
    case .settled(let outcome):
        return settledEvent(&state, outcome)
    case .unmatchedAnswer(let r, let note):
        // In the cashier's words: what the answer was about and what it said, never its message or action names
        // (the note, with the journal's own words, is on the entry in the journal and on Unresolved).
        _ = note
        setNotice(&state, "Unexpected answer: " + strayAnswerWords(r, state.currency) + ". See Unresolved (\(state.keymap.hint(.unresolved))).",
                  error: true)
        // The verdict on the pane said nothing moved; an approval of the same kind right after it may be that money.
        if r.isApproved, var res = state.result, let e = res.outcome.entry, e.action == r.action,
           [.declined, .aborted, .resolved].contains(e.state) {
            res.approvalAfter = strayAnswerWords(r, state.currency)
            state.result = res
            // The declined amount kept for another card may have been charged after all: Enter must not send it again.
            if e.action.startsPayment, case let screen = e.action.screen,
               let f = state.forms[screen], f.life == .kept, f.hasSelection {
                state.forms[screen] = Form.blank(screen)
            }
        }
        return [.loadUnresolved]
    case .transportProblem(let m):
        state.connection = .problem(m)
        setNotice(&state, m, error: true)
        return []
    case .rejectedAnswer(let file, let reason):
        setNotice(&state, "Rejected answer \(file): \(reason)", error: true)
        return []
    case .transportReady(let m):
        // Said when the link comes back after a problem; the start's own "ready" (which may arrive after recovery's
        // notice, or a theme file's warning) says nothing the status line does not already show.
        let was = state.connection
        state.connection = .ready
        if case .problem = was { setNotice(&state, m) }
        return []
    }
}

/// An answer that matched nothing, in words: "it checked an earlier payment", "a sale of € 6.66, declined".
func strayAnswerWords(_ r: CallbackResponse, _ currency: String) -> String {
    let said = TerminalMessage(r)
    let outcome = r.isApproved ? "approved" : said == .userCancel ? "cancelled on the terminal" : said == .terminalBusy ? "terminal busy" : "declined"
    switch r.action {
    case let a? where a.isLookUp: return "it checked an earlier payment"
    case let a? where a.movesMoney:
        return "a " + Format.actionName(a) + (r.amount.map { " of " + Format.money($0, currency) } ?? "") + ", " + outcome
    case let a?: return Format.actionName(a) + ", " + (r.isApproved ? "done" : "not done")
    case nil: return "an answer naming no request, " + (r.isApproved ? "approved" : "not approved")
    }
}

/// A request ended: the one in flight it names is no longer in flight, whoever sent it (start-up
/// recovery's look-ups left the screen busy for ever). Our own request's result arrives with `.performed`.
func settledEvent(_ state: inout AppState, _ outcome: ActionOutcome) -> [Command] {
    guard let e = outcome.entry, let p = state.pending, p.entryId == e.id, !p.own else { return [] }
    endFlight(&state)
    return []
}

/// Recovery (at start, or asking the terminal again) or a late answer learned what became of a payment left open:
/// shown as a result of its own ("Sale € 13.13 at 10:31 WAS CHARGED"), never only as a list that empties itself.
func recoveredEvent(_ state: inout AppState, _ e: JournalEntry) -> [Command] {
    if let p = state.pending, !p.own, p.action.isLookUp || p.entryId == e.id { endFlight(&state) }
    let what = Format.entrySummary(e, currency: state.currency) + " at " + Format.hoursMinutesOfDay(e.createdAtMs, offsetMinutes: state.tzOffsetMinutes)
    switch e.state {
    case .approved:
        setNotice(&state, "Recovered: \(what) \(CashierWording.foundWords(e)).")
        state.unresolved.asking[e.id] = nil
        foundCharged(&state, e)
    case .declined, .aborted, .resolved:
        setNotice(&state, "Recovered: \(what) \(CashierWording.foundWords(e)).")
        state.unresolved.asking[e.id] = nil
    default:
        if e.action.startsPayment, e.state.awaitsTerminal {
            // Not settled yet (the terminal could not be asked: busy, perhaps with this very payment): the till keeps
            // asking for a while and says so, rather than a verdict that invites charging again.
            let since = state.unresolved.asking[e.id] ?? state.nowMs
            if state.nowMs - since < UnresolvedState.askingForMs {
                state.unresolved.asking[e.id] = since
                state.unresolved.lastAskMs = state.nowMs
                setNotice(&state, "\(what): asking the terminal… Do not charge it again meanwhile.", error: true)
            } else {
                state.unresolved.asking[e.id] = nil
                setNotice(&state, "\(what): outcome still unknown; check the terminal.", error: true)
            }
        } else {
            setNotice(&state, "\(what): outcome still unknown; check the terminal.", error: true)
        }
    }
    if e.action.movesMoney {
        state.result = ResultInfo(summary: Format.entrySummary(e, currency: state.currency),
                                  outcome: e.state.awaitsTerminal ? .unknown(e) : .answered(e), atMs: e.createdAtMs, recovered: true,
                                  foundAtStart: state.unresolved.atStart, foundAtMs: state.nowMs)
        state.verdicts += 1
    }
    var cmds: [Command] = [.loadUnresolved, .loadReport(batch: .current, show: false)]
    cmds += state.screen.component.journalChanged(state)
    return cmds
}

/// A payment once unknown is found CHARGED: its amount, if still in a form, is cleared (Enter must not charge that
/// customer again), and a new sale of the same amount soon after asks first.
func foundCharged(_ state: inout AppState, _ e: JournalEntry) {
    guard e.action.startsPayment else { return }
    state.foundCharged.removeAll { $0.entry.id == e.id || state.nowMs - $0.knownAtMs > AppState.chargedAgainWindowMs }
    state.foundCharged.append(FoundCharged(entry: e, knownAtMs: state.nowMs))
    let screen = e.action.screen
    if let f = state.forms[screen], let typed = try? Money.parse(f[.amount]), typed == e.amount {
        state.forms[screen] = Form.blank(screen)
    }
}

/// Asks the terminal again, by itself, about payments recovery could not settle yet (see `UnresolvedState.asking`).
func askAgainIfDue(_ state: inout AppState) -> [Command] {
    guard !state.unresolved.asking.isEmpty, !state.unresolved.recovering, state.pending == nil else { return [] }
    let expired = state.unresolved.asking.filter { state.nowMs - $0.value >= UnresolvedState.askingForMs }.keys
    state.unresolved.asking = state.unresolved.asking.filter { state.nowMs - $0.value < UnresolvedState.askingForMs }
    // Asking has ended without an answer: the status line no longer says "asking the terminal…".
    if let e = state.unresolved.entries.first(where: { expired.contains($0.id) && $0.state.awaitsTerminal }) {
        let what = Format.entrySummary(e, currency: state.currency) + " at " + Format.hoursMinutesOfDay(e.createdAtMs, offsetMinutes: state.tzOffsetMinutes)
        setNotice(&state, "\(what): outcome still unknown; check the terminal.", error: true)
    }
    guard !state.unresolved.asking.isEmpty, state.nowMs - state.unresolved.lastAskMs >= UnresolvedState.askAgainEveryMs else { return [] }
    state.unresolved.lastAskMs = state.nowMs
    state.unresolved.recovering = true
    state.unresolved.askingQuietly = true
    return [.recover]
}

func settle(_ state: inout AppState, _ outcome: ActionOutcome, summary: String) -> [Command] {
    // The payment the no-shift box interrupted goes (or is said not to) with the answer about its shift, whatever it is.
    let interrupted = state.pending?.action == .batch ? state.sendOnceShiftOpens : nil
    if interrupted != nil { state.sendOnceShiftOpens = nil }
    var cmds = settleOutcome(&state, outcome, summary: summary)
    if let interrupted { cmds += PaymentScreen.shiftOpened(&state, interrupted, opened: state.batch?.isOpen == true) }
    return cmds
}

private func settleOutcome(_ state: inout AppState, _ outcome: ActionOutcome, summary: String) -> [Command] {
    let action = state.pending?.action
    let from = state.pending?.screen
    endFlight(&state)
    switch outcome {
    case .invalid(let errors):
        // Refused by the service: the form comes back as it was sent, with the messages on it.
        notSent(&state, action, from: from, errors: errors)
        setNotice(&state, errors.first?.message ?? "Refused.", error: true)
        return []
    case .busy, .otherTillBusy:
        // Nothing was sent: a verdict of its own (never DECLINED), and the amount back to try again.
        notSent(&state, action, from: from)
        // The core's words name the other process (for the headless commands); a cashier needs only "another till".
        if case .otherTillBusy = outcome { setNotice(&state, "Not sent: another till is using the terminal. Try again when it is done.", error: true) }
        else { setNotice(&state, "Another request is in flight; nothing was sent.", error: true) }
        state.result = ResultInfo(summary: summary, outcome: outcome, atMs: state.nowMs)
        state.verdicts += 1
        return []
    case .needsConfirmation(let list):
        notSent(&state, action, from: from)
        guard let r = state.lastRequest else { setNotice(&state, "Check the unknown payments first.", error: true); return [.loadUnresolved] }
        // In the words of what is sent again: a refund is refunded, not charged.
        let role = r.action.reportRole
        let lines = list.prefix(3).map { e in
            "\(Format.money(Format.total(e), state.currency)) at \(Format.clock(e.createdAtMs, offsetMinutes: state.tzOffsetMinutes)) may have been \(e.action.reportRole.moneyVerb):"
        } + (list.count > 3 ? ["and \(list.count - 3) more (\(state.keymap.hint(.unresolved)) Unresolved lists them):"] : [])
          + ["check the terminal before you \(role.moneyVerbToDo) again."]
        state.overlay = .confirm(Confirmation(
            title: role.moneyVerbToDo.capitalizedFirst + " again?", lines: lines,
            choices: [ConfirmChoice(key: "y", label: "checked: \(role.moneyVerbToDo) \(Format.summary(r, currency: state.currency, tipStyle: state.tipStyle))",
                                    action: .sendConfirmingUnknown(r, Set(list.map(\.id))))],
            enterPicksFirst: false))
        return [.loadUnresolved]
    default:
        break
    }
    state.result = ResultInfo(summary: summary, outcome: outcome, atMs: state.nowMs)
    state.verdicts += 1
    if case .answered(let e) = outcome { e.action.screen.component.answered(&state, e) }
    var cmds: [Command] = []
    if outcome.notStarted || outcome.declinedNothingMoved {
        // The terminal never started it (not sent, terminal busy), or declined it: nothing was charged, the same
        // customer tries again (another card): the amount comes back selected, Enter sends it again, typing replaces it.
        notSent(&state, action, from: from)
        if outcome.declinedNothingMoved, state.screen == from, state.form.hasSelection {
            setKeptNotice(&state, keptWords(state.form, state) + " kept: Enter sends it again for another card; typing replaces it.")
        }
    }
    if case .answered(let e) = outcome, e.state == .approved, let done = e.action.formDoneWhenApproved {
        // A sent form is done: clear it for the next customer.
        state.forms[done] = Form.blank(done)
    }
    if let from { cmds += from.component.settled(&state, outcome) }
    if let from, from.component.leavesAfterVerdict, from != state.homeScreen, state.screen == from,
       !outcome.notStarted, state.overlay == nil {
        // Done with it (whatever the verdict, shown in the pane): back to the usual payment, so the next amount and
        // Enter, typed by habit, are a sale, never a second hold or refund. The cashier did not choose to come back:
        // an amount left there from before (a decline's, kept for another card) goes, so Enter by habit charges nothing.
        if let f = state.forms[state.homeScreen], f.life == .kept { state.forms[state.homeScreen] = Form.blank(state.homeScreen) }
        // The next customer's amount typed on Pre-auth while it was with the terminal goes with the cashier, as typed
        // (not selected: the next digit goes on): left behind, Enter on an empty Sale did nothing and F3 later found it.
        let ahead = from == .preAuth ? state.forms[.preAuth].flatMap { $0.life == .nextCustomer && !$0[.amount].isEmpty ? $0 : nil } : nil
        if ahead != nil { state.forms[.preAuth] = Form.blank(.preAuth) }
        cmds += go(&state, state.homeScreen)
        if let ahead, state.forms[state.homeScreen]?.hasText != true {
            var f = Form.blank(state.homeScreen)
            f[.amount] = ahead[.amount]
            f[.clientTransactionId] = ahead[.clientTransactionId]
            f.life = .nextCustomer
            f.focus = f.index(of: .amount) ?? 0
            state.forms[state.homeScreen] = f
        }
        let done = from.title
        let typed = ahead.map { " with the \(state.currency) \($0[.amount]) typed meanwhile" } ?? ""
        // Said while it is true: it goes once the cashier leaves the screen or types there (`setKeptNotice`).
        setKeptNotice(&state, "\(done) done: back on \(state.homeScreen.title)\(typed). Enter sends a \(state.homeScreen == .sale ? "SALE" : "PRE-AUTH").")
    }
    let needsAttention = outcome.journalEntry.map { $0.state.needsAttention } ?? false
    let listed = outcome.journalEntry.map { e in state.unresolved.entries.contains { $0.id == e.id } } ?? false
    if let e = outcome.journalEntry, needsAttention, !listed {
        // Known at once, before the reload (unknown, or left for review): a new sale asks first, the status line counts it.
        state.unresolved.entries.append(e)
    } else if let e = outcome.journalEntry, !needsAttention, listed {
        // Listed while it was with the terminal (a list read meanwhile): settled now, so off the list and its count.
        state.unresolved.entries.removeAll { $0.id == e.id }
    }
    if action == .batch || outcome.entryAction == .batch {
        if case .answered(let e) = outcome, e.state == .approved, e.response?.batchCommand != .close {
            // Open at once, not only after the reload: the Enter that follows "shift opened" sells.
            var b = state.batch ?? BatchInfo()
            b.isOpen = true
            // The journal's key for it (the terminal's id, or till's own when the terminal gave none or reused one).
            b.id = e.batchId ?? e.response?.batchId ?? b.id
            b.name = e.response?.batchName ?? e.batchName ?? b.name
            b.openedAtMs = state.nowMs
            state.batch = b
        }
        cmds.append(.loadBatch)
        if case .answered(let e) = outcome, e.state == .approved, e.response?.batchCommand == .close {
            // The shift is over: its Z report, full screen, ready to export.
            // The batch it was sent in is the one it closed (the journal's key; the terminal's id may be one it reused).
            cmds.append(.loadReport(batch: e.batchId.map(BatchKey.id) ?? .last, show: true))
        }
    } else {
        cmds.append(.loadReport(batch: .current, show: false))
    }
    if needsAttention || listed { cmds.append(.loadUnresolved) }
    cmds += state.screen.component.journalChanged(state)
    return cmds
}

extension ActionOutcome {
    /// The outcome's journal entry (`journalEntry`), by its shorter name on the screens.
    var entry: JournalEntry? { journalEntry }
    var entryAction: Action? { entry?.action }

    /// Declined by the terminal (the card refused): nothing was charged, the customer may try another card.
    var declinedNothingMoved: Bool {
        if case .answered(let e) = self { return e.state == .declined && e.action.startsPayment }
        return false
    }

    /// The terminal never started it: not sent (the transport could not take it), or the terminal answered that it
    /// is busy with another transaction. Nothing was charged; it is not a decline.
    var notStarted: Bool {
        switch self {
        case .busy, .otherTillBusy: return true
        case .transportError(let e, _): return e?.state != .unknown
        case .answered(let e): return e.terminalWasBusy
        case .invalid, .unknown, .needsConfirmation, .journalFailed: return false
        }
    }
}

extension JournalEntry {
    /// The terminal answered that it was busy and never started this request, by the journal's own rule
    /// (`AnswerRules.terminalWasBusy`), which settles such an answer as not charged (`resolved`; `declined` where it was
    /// journaled before that rule): the BUSY verdict and the form given back to try again read the same test.
    var terminalWasBusy: Bool {
        (state == .declined || state == .resolved) && response.map(AnswerRules.terminalWasBusy) == true
    }
}
