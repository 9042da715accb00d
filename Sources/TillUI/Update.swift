import TillProtocol
import TillModel

/// The caller used only to validate a request in the UI; the service fills in the real one.
let validationCaller = Caller(callback: "till", merchantKey: "till", appId: "till")

/// The commands to run at start: recover unfinished transactions, learn the batch.
public func initialCommands(_ state: inout AppState) -> [Command] {
    state.unresolved.recovering = true
    state.screen = .unresolved
    return [.recover, .loadBatch]
}

/// Applies one message to the state and returns the commands it asks for. Pure: no I/O, no clock.
public func update(_ state: inout AppState, _ msg: Msg) -> [Command] {
    switch msg {
    case .key(let key):
        return handleKey(&state, key)
    case .tick(let now):
        state.nowMs = now
        return []
    case .resize(let size):
        state.size = size
        clampJournal(&state)
        return []
    case .event(let e):
        return handleEvent(&state, e)
    case .performed(let outcome, let summary):
        return settle(&state, outcome, summary: summary)
    case .aborted(let r):
        switch r {
        case .nothingInFlight: setNotice(&state, "Nothing in flight to abort.")
        case .answered(let o, _):
            switch o {
            case .aborted: setNotice(&state, "Abort accepted by the terminal.")
            case .nothingToAbort: setNotice(&state, "The terminal had nothing to abort.")
            case .other: setNotice(&state, "The terminal answered the abort.")
            }
        case .noAnswer:
            setNotice(&state, "Too late to abort: the payment goes on. Wait for its result.", error: true)
            state.pending?.abortRequested = false
        case .transportError(let m):
            setNotice(&state, "Abort could not be sent: " + m, error: true)
            state.pending?.abortRequested = false
        }
        return []
    case .journalLoaded(let entries):
        // The highlight stays on the entry it was on, not on the row number: a payment journaled meanwhile comes in
        // at the top, and F5 must refund the sale the cashier picked (found by hand: after a refund, the rows had
        // moved and Enter opened another entry).
        let picked = state.visibleJournal.indices.contains(state.journal.selected) ? state.visibleJournal[state.journal.selected].id : nil
        state.journal.entries = entries
        if let picked, let i = state.visibleJournal.firstIndex(where: { $0.id == picked }) { state.journal.selected = i }
        state.journal.loading = false
        if let d = state.journal.detail, let fresh = entries.first(where: { $0.id == d.id }) { state.journal.detail = fresh }
        clampJournal(&state)
        return []
    case .batchLoaded(let b):
        state.batch = b
        return [.loadReport(batch: .current, show: false)]
    case .reportLoaded(let r, let show):
        state.batchScreen.runningReport = r
        if show {
            if let r { state.overlay = .report(ReportPanel(report: r)) }
            else { setNotice(&state, "No batch in the journal yet: open one on the Batch screen.", error: true) }
        } else if case .report(var panel)? = state.overlay, let r, r.batchId == panel.report.batchId {
            panel.report = r
            state.overlay = .report(panel)
        }
        return []
    case .stoppedWaiting(let error):
        if let error { setNotice(&state, "Could not stop waiting: " + error, error: true) }
        return []
    case .exported(let paths, let error):
        if let error { setNotice(&state, "Export failed: " + error, error: true); return [] }
        if case .report(var panel)? = state.overlay { panel.exported = paths; state.overlay = .report(panel) }
        setNotice(&state, "Exported: " + paths.joined(separator: ", "))
        return []
    case .unresolvedLoaded(let list, let recovered):
        state.unresolved.entries = list
        state.unresolved.selected = min(state.unresolved.selected, max(0, list.count - 1))
        if recovered {
            state.unresolved.recovering = false
            if list.isEmpty {
                if state.screen == .unresolved { state.screen = .sale }
                if let w = state.startupWarnings.first { setNotice(&state, w, error: true) }
                else { setNotice(&state, "Ready. No unfinished transactions in the journal.") }
            } else {
                state.screen = .unresolved
                setNotice(&state, "\(list.count) transaction\(list.count == 1 ? "" : "s") need\(list.count == 1 ? "s" : "") checking.", error: true)
            }
        }
        return []
    case .resolved(let id, let error):
        if let error { setNotice(&state, "Could not mark #\(id) resolved: " + error, error: true); return [] }
        setNotice(&state, "#\(id) marked resolved.")
        var cmds: [Command] = [.loadUnresolved]
        if state.screen == .journal { cmds.append(.loadJournal(journalFilter(state))) }
        return cmds
    }
}

/// Convenience for tests: the functional form.
public func update(_ state: AppState, _ msg: Msg) -> (AppState, [Command]) {
    var s = state
    let c = update(&s, msg)
    return (s, c)
}

func setNotice(_ s: inout AppState, _ text: String, error: Bool = false) {
    s.notice = text
    s.noticeIsError = error
}

func handleEvent(_ state: inout AppState, _ e: ControllerEvent) -> [Command] {
    switch e {
    case .inFlight(let f):
        if var p = state.pending, p.own, p.entryId == nil || p.entryId == f.entry.id {
            // Our own request, now journaled and sent.
            p.entryId = f.entry.id; p.startedAtMs = f.startedAtMs; p.deadlineMs = f.deadlineMs
            p.abortRequested = p.abortRequested || f.abortRequested
            state.pending = p
        } else if state.pending == nil || state.pending?.entryId == f.entry.id {
            // Something this screen did not send (start-up recovery asking the terminal, another process).
            state.pending = Pending(summary: Format.inFlightSummary(f.entry, currency: state.currency), action: f.entry.action,
                                    startedAtMs: f.startedAtMs, deadlineMs: f.deadlineMs, abortRequested: f.abortRequested,
                                    entryId: f.entry.id, own: false)
        }
        return []
    case .recovered(let e):
        return recoveredEvent(&state, e)
    case .journalProblem(let m):
        setNotice(&state, m, error: true)
        return []
    case .settled(let outcome):
        return settledEvent(&state, outcome)
    case .unmatchedAnswer(let r, let note):
        setNotice(&state, "An answer matched nothing in flight (\(r.status), \(r.message ?? "no message")): \(note)", error: true)
        return [.loadUnresolved]
    case .transportProblem(let m):
        state.connection = .problem(m)
        setNotice(&state, m, error: true)
        return []
    case .rejectedAnswer(let file, let reason):
        setNotice(&state, "Rejected answer \(file): \(reason)", error: true)
        return []
    case .transportReady(let m):
        state.connection = .ready
        setNotice(&state, m)
        return []
    }
}

/// A request ended: the one in flight it names is no longer in flight, whoever sent it (start-up
/// recovery's look-ups left the screen busy for ever). Our own request's result arrives with `.performed`.
func settledEvent(_ state: inout AppState, _ outcome: ActionOutcome) -> [Command] {
    guard let e = outcome.entry, let p = state.pending, p.entryId == e.id, !p.own else { return [] }
    state.pending = nil
    return []
}

/// Start-up recovery learned what became of a payment an earlier run left open: shown as a result
/// of its own ("Sale € 13.13 at 10:31 WAS CHARGED"), never only as a list that empties itself.
func recoveredEvent(_ state: inout AppState, _ e: JournalEntry) -> [Command] {
    if let p = state.pending, !p.own, p.action == .transactionDetails || p.entryId == e.id { state.pending = nil }
    let what = Format.entrySummary(e, currency: state.currency) + " at " + Format.hoursMinutesOfDay(e.createdAtMs, offsetMinutes: state.tzOffsetMinutes)
    switch e.state {
    case .approved: setNotice(&state, "Recovered: \(what) WAS CHARGED (journal #\(e.id)).")
    case .declined, .aborted, .resolved: setNotice(&state, "Recovered: \(what) was NOT charged (journal #\(e.id)).")
    default: setNotice(&state, "\(what) (journal #\(e.id)): outcome still unknown; check the terminal.", error: true)
    }
    if Format.movesMoney(e.action) {
        state.result = ResultInfo(summary: Format.entrySummary(e, currency: state.currency),
                                  outcome: e.state.awaitsTerminal ? .unknown(e) : .answered(e), atMs: e.createdAtMs, recovered: true)
        state.verdicts += 1
    }
    var cmds: [Command] = [.loadUnresolved, .loadReport(batch: .current, show: false)]
    if state.screen == .journal { cmds.append(.loadJournal(journalFilter(state))) }
    return cmds
}

func settle(_ state: inout AppState, _ outcome: ActionOutcome, summary: String) -> [Command] {
    let action = state.pending?.action
    state.pending = nil
    switch outcome {
    case .invalid(let errors):
        // Refused by the service: put the messages back on the form.
        var f = state.form
        for e in errors {
            if f.index(of: e.field) != nil { f.errors[e.field] = e.message } else { f.message = e.message }
        }
        state.form = f
        setNotice(&state, errors.first?.message ?? "Refused.", error: true)
        return []
    case .busy:
        setNotice(&state, "Another request is in flight; nothing was sent.", error: true)
        return []
    case .otherTillBusy(let m):
        setNotice(&state, "Not sent: " + m, error: true)
        return []
    case .needsConfirmation(let list):
        guard let r = state.lastRequest else { setNotice(&state, "Check the unknown payments first.", error: true); return [.loadUnresolved] }
        let lines = list.prefix(3).map { e in
            "\(Format.money(Format.total(e), state.currency)) at \(Format.clock(e.createdAtMs, offsetMinutes: state.tzOffsetMinutes)) may have been charged:"
        } + ["check the terminal before charging again."]
        state.overlay = .confirm(Confirmation(
            title: "Charge again?", lines: lines,
            choices: [ConfirmChoice(key: "y", label: "checked: charge \(Format.summary(r, currency: state.currency, tipStyle: state.tipStyle))",
                                    action: .sendConfirmingUnknown(r, Set(list.map(\.id))))],
            enterPicksFirst: false))
        return [.loadUnresolved]
    default:
        break
    }
    state.result = ResultInfo(summary: summary, outcome: outcome, atMs: state.nowMs)
    state.verdicts += 1
    if case .answered(let e) = outcome { AdminScreen.answered(&state, e) }
    var cmds: [Command] = []
    if action == .sale || outcome.entryAction == .sale {
        // A fresh sale for the next customer after every result: tip, installments and reference cleared; the amount
        // too, unless the cashier typed a new one while the terminal worked (that is the next customer's amount).
        // The cursor is on Amount.
        var fresh = Form.blank(.sale)
        if let old = state.forms[.sale], old["amount"] != state.sale.sentAmountText { fresh["amount"] = old["amount"] }
        state.forms[.sale] = fresh
        // The next customer pays by card unless the cashier picks otherwise again (a phone order's MOTO never sticks).
        state.sale.method = .cardPresent
    }
    if action == .preAuth || outcome.entryAction == .preAuth {
        // The same for a pre-auth: a fresh form, keeping only an amount typed while the terminal worked.
        var fresh = Form.blank(.preAuth)
        if let old = state.forms[.preAuth], old["amount"] != state.preAuth.sentAmountText { fresh["amount"] = old["amount"] }
        state.forms[.preAuth] = fresh
        state.preAuth.method = .cardPresent
    }
    if case .unknown(let e) = outcome, !state.unresolved.entries.contains(where: { $0.id == e.id }) {
        // Known at once, before the reload: a new sale asks first.
        state.unresolved.entries.append(e)
    }
    if case .answered(let e) = outcome, e.state == .approved {
        // A sent form is done: clear it for the next customer.
        switch e.action {
        case .cancel: state.forms[.refund] = Form.blank(.refund)
        case .capturePreAuth: state.forms[.capture] = Form.blank(.capture)
        case .batch: state.forms[.batch] = Form.blank(.batch)
        default: break
        }
    }
    if action == .batch || outcome.entryAction == .batch {
        if case .answered(let e) = outcome, e.state == .approved, e.response?.batchCommand != .close {
            // Open at once, not only after the reload: the Enter that follows "shift opened" sells.
            var b = state.batch ?? BatchInfo()
            b.isOpen = true
            b.id = e.response?.batchId ?? b.id
            b.name = e.response?.batchName ?? e.batchName ?? b.name
            b.openedAtMs = state.nowMs
            state.batch = b
        }
        cmds.append(.loadBatch)
        if case .answered(let e) = outcome, e.state == .approved, e.response?.batchCommand == .close {
            // The shift is over: its Z report, full screen, ready to export.
            cmds.append(.loadReport(batch: e.response?.batchId.map(BatchKey.id) ?? .last, show: true))
        }
    } else {
        cmds.append(.loadReport(batch: .current, show: false))
    }
    if case .unknown = outcome { cmds.append(.loadUnresolved) }
    if state.screen == .journal { cmds.append(.loadJournal(journalFilter(state))) }
    return cmds
}

extension ActionOutcome {
    var entry: JournalEntry? {
        switch self {
        case .answered(let e), .unknown(let e): return e
        case .transportError(let e, _): return e
        case .busy(let f): return f.entry
        case .journalFailed(let e, _): return e
        case .invalid, .otherTillBusy, .needsConfirmation: return nil
        }
    }
    var entryAction: Action? { entry?.action }
}

func handleKey(_ state: inout AppState, _ key: Key) -> [Command] {
    // While the window is too small nothing can be seen: no key acts but quit (and only with nothing in flight).
    guard Layout(state.size).fits else {
        if state.keymap.action(for: key) == .quit, state.pending == nil { state.quit = true; return [.quit] }
        return []
    }
    // Overlays take the keys first.
    if let overlay = state.overlay {
        switch overlay {
        case .help:
            state.overlay = nil
            if let a = state.keymap.action(for: key), a.isGlobal, a != .help { return globalAction(&state, a) }
            if state.keymap.action(for: key) == .menu { return openMenu(&state) }
            return []
        case .confirm(let c):
            return handleConfirm(&state, c, key)
        case .report(let panel):
            return handleReportKey(&state, panel, key)
        case .menu(let m):
            return handleMenuKey(&state, m, key)
        }
    }
    // The menu key opens the menu from any field (a keypad's `/` never types), but on Terminal settings, where
    // the shop owner types secrets that may hold one.
    if state.keymap.action(for: key) == .menu, !(state.screen == .admin && key.isPrintable && state.form.focused != nil) {
        return openMenu(&state)
    }
    // A printable character goes into the focused field when that field takes it.
    if case .char(let ch) = key, let field = state.form.focused, field.kind.accepts(ch), !(state.screen == .journal && state.journal.detail != nil) {
        type(&state, ch)
        return []
    }
    if state.screen == .unresolved, case .char(let ch) = key, let cmds = unresolvedChar(&state, ch) { return cmds }
    if state.screen == .journal, case .char(let ch) = key, let cmds = JournalScreen.char(&state, ch) { return cmds }
    if state.screen == .admin, state.form.focused == nil, case .char(let ch) = key, let cmds = AdminScreen.char(&state, ch) { return cmds }
    guard let action = state.keymap.action(for: key) else {
        if case .char(let ch) = key, let field = state.form.focused {
            // Refused, never dropped: the character stays in sight with the reason (where the field has room), and
            // Enter is blocked until the cashier corrects it (`-3` must never charge 3.00).
            // A kept amount the screen said typing replaces is replaced by a refused key too (never "-3" → 3.33).
            if state.form.replaceOnType {
                state.form.replaceOnType = false
                state.form.fields[state.form.focus].text = ""
            }
            if field.kind != .text, state.form.fields[state.form.focus].text.count < field.maxLength {
                state.form.fields[state.form.focus].text.append(ch)
            }
            refuse(&state, field, refusal(field, ch))
        }
        return []
    }
    if action.isGlobal { return globalAction(&state, action) }
    return screenAction(&state, action, key: key)
}

func globalAction(_ state: inout AppState, _ action: KeyAction) -> [Command] {
    switch action {
    case .help:
        state.overlay = .help
        return []
    case .report:
        return [.loadReport(batch: .current, show: true)]
    case .admin:
        guard state.screen != .admin else { return [] }
        state.overlay = .confirm(Confirmation(
            title: "Terminal settings",
            lines: ["For the shop owner: printing settings, logs to",
                    "the vendor's support, activation of the terminal.",
                    "No payment is taken there."],
            choices: [ConfirmChoice(key: "o", label: "open the terminal settings", action: .goTo(.admin))]))
        return []
    case .quit:
        if let p = state.pending {
            state.overlay = .confirm(Confirmation(
                title: "Quit while waiting?",
                lines: ["\(p.summary) is still waiting for the terminal.",
                        "If you quit now its outcome stays UNKNOWN and is",
                        "shown for checking at the next start."],
                choices: [ConfirmChoice(key: "y", label: "quit anyway", action: .quit)]))
            return []
        }
        state.quit = true
        return [.quit]
    default:
        guard let screen = Screen.allCases.first(where: { $0.action == action }) else { return [] }
        if state.screen == .journal, screen == .refund || screen == .capture, !startFromJournalRow(&state, screen) { return [] }
        return go(&state, screen)
    }
}

func go(_ state: inout AppState, _ screen: Screen) -> [Command] {
    if screen != state.screen, screen == .preAuth, var f = state.forms[screen] {
        // Back on a payment screen: the cursor is on Amount, so no key lands in a field the cashier cannot see.
        f.focus = 0
        state.forms[screen] = f
    }
    let from = state.screen
    state.screen = screen
    switch screen {
    case .sale:
        // F2 is a sale for the next customer: the cursor is on the amount. Coming from another screen, an amount
        // left there (a sale not sent) is replaced by what is typed next, and the screen says so: typing "5" must
        // never make "55" (found by hand: an amount kept from a sale the cashier did not send).
        state.form.focus = state.form.index(of: "amount") ?? 0
        let kept = state.form["amount"]
        if from != .sale, !kept.isEmpty, state.form.errors["amount"] == nil {
            state.form.replaceOnType = true
            setNotice(&state, "Amount \(state.currency) \(kept) kept from before: type to replace it, or Enter to charge it.")
        }
        return []
    case .journal:
        state.journal.detail = nil
        state.journal.loading = true
        return [.loadJournal(journalFilter(state))]
    case .batch: return [.loadBatch]
    case .unresolved: return [.loadUnresolved]
    case .admin:
        AdminScreen.syncFocus(&state)
        return []
    default: return []
    }
}

func send(_ state: inout AppState, _ r: Request, confirming: Set<Int64> = []) -> [Command] {
    if let p = state.pending {
        setNotice(&state, "Wait: \(p.summary) is in flight (Esc aborts).", error: true)
        return []
    }
    let summary = Format.summary(r, currency: state.currency, tipStyle: state.tipStyle)
    state.pending = Pending(summary: summary, action: r.action, startedAtMs: state.nowMs)
    state.notice = nil
    state.lastRequest = r
    if case .sale = r { state.sale.sentAmountText = state.forms[.sale]?["amount"] }
    if case .preAuth = r { state.preAuth.sentAmountText = state.forms[.preAuth]?["amount"] }
    if !confirming.isEmpty { return [.performConfirmed(r, summary: summary, confirming: confirming)] }
    return [.perform(r, summary: summary)]
}

/// A sale or pre-auth above the configured amount (`confirm_above`) asks first, showing the amount the card
/// is charged; only `y` sends it (an Enter pressed by habit does not). Anything else is sent at once.
func sendAskingAbove(_ state: inout AppState, _ r: Request, confirming ids: Set<Int64> = []) -> [Command] {
    // What the card is charged, read with the tip style (the amount holds the tip when it is included).
    guard let total = Format.charged(r, state.tipStyle) else { return send(&state, r, confirming: ids) }
    guard let limit = state.confirmAbove, limit < total else { return send(&state, r, confirming: ids) }
    let what = r.action == .preAuth ? "Reserve" : "Charge"
    state.overlay = .confirm(Confirmation(
        title: "Check the amount",
        lines: [Format.summary(r, currency: state.currency, tipStyle: state.tipStyle),
                "\(what) \(Format.money(total, state.currency)) on the card?",
                "(Above \(Format.money(limit, state.currency)) the till asks first.)"],
        choices: [ConfirmChoice(key: "y", label: "\(what.lowercased()) \(Format.money(total, state.currency))", action: .sendChecked(r, ids))],
        enterPicksFirst: false))
    return []
}

func screenAction(_ state: inout AppState, _ action: KeyAction, key: Key) -> [Command] {
    switch action {
    case .stopWaiting:
        guard let p = state.pending else { setNotice(&state, "Nothing is waiting for the terminal."); return [] }
        state.overlay = .confirm(Confirmation(
            title: "Stop waiting?",
            lines: ["\(p.summary) is still with the terminal.",
                    "If you stop waiting its outcome is UNKNOWN: it may",
                    "still be charged. It goes to Unresolved (\(state.keymap.hint(.unresolved)))",
                    "to check on the terminal."],
            choices: [ConfirmChoice(key: "y", label: "stop waiting", action: .stopWaiting)], enterPicksFirst: false))
        return []
    case .cancel:
        // Esc aborts the payment in flight only on the screen that sent it; everywhere else it is "back".
        if state.escAborts {
            if state.pending!.abortRequested { setNotice(&state, "Abort already requested; waiting for the terminal."); return [] }
            state.pending!.abortRequested = true
            setNotice(&state, "Abort requested…")
            return [.abort]
        }
        if state.screen == .journal, state.journal.detail != nil { state.journal.detail = nil; return [] }
        if let f = state.form.focused, !f.text.isEmpty, state.screen != .journal {
            state.form.fields[state.form.focus].text = ""
            corrected(&state, f.id)
            return []
        }
        if state.screen != .sale {
            let cmds = go(&state, .sale)
            if let p = state.pending, p.own { setNotice(&state, "\(p.summary) is in flight: Esc aborts it here.") }
            return cmds
        }
        state.notice = nil
        return []
    case .erase:
        if let f = state.form.focused {
            if !f.text.isEmpty { state.form.fields[state.form.focus].text.removeLast() }
            corrected(&state, f.id)
        }
        return []
    case .clear:
        if let f = state.form.focused {
            state.form.fields[state.form.focus].text = ""
            corrected(&state, f.id)
        }
        return []
    case .submit:
        return state.screen.component.submit(&state)
    default:
        return state.screen.component.update(&state, action)
    }
}
