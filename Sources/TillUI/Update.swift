import TillProtocol
import TillModel

/// The caller used only to validate a request in the UI; the service fills in the real one.
let validationCaller = Caller(callback: "till", merchantKey: "till", appId: "till")

/// The commands to run at start: recover unfinished transactions, learn the batch.
public func initialCommands(_ state: inout AppState) -> [Command] {
    state.unresolved.recovering = true
    state.screen = .unresolved
    state.storeSyncReadAtMs = state.nowMs
    return [.recover, .loadBatch, .loadStoreSync]
}

/// Applies one message to the state and returns the commands it asks for. Pure: no I/O, no clock.
public func update(_ state: inout AppState, _ msg: Msg) -> [Command] {
    switch msg {
    case .key(let key):
        return handleKey(&state, key)
    case .tick(let now):
        state.nowMs = now
        var cmds = askAgainIfDue(&state)
        // The store's cell: read again every 15 s (a small file and one indexed read).
        if now - state.storeSyncReadAtMs >= 15_000 { state.storeSyncReadAtMs = now; cmds.append(.loadStoreSync) }
        return cmds
    case .storeSyncLoaded(let s):
        state.storeSync = s
        return []
    case .resize(let size):
        state.size = size
        clampJournal(&state)
        if Layout(size).fits, state.keysNotTaken > 0 {
            let n = state.keysNotTaken
            state.keysNotTaken = 0
            setNotice(&state, "\(n) key\(n == 1 ? "" : "s") typed while the window was too small \(n == 1 ? "was" : "were") not taken: type again.",
                      error: true)
        }
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
            setFlightNotice(&state, "Too late to abort: the payment goes on. Wait for its result.", error: true)
            state.pending?.abortRequested = false
        case .transportError(let m):
            setNotice(&state, "Abort could not be sent: " + m, error: true)
            state.pending?.abortRequested = false
        }
        return []
    case .journalLoaded(let entries):
        // While the journal is open, the highlight stays on the entry it was on, not on the row number: a payment
        // journaled meanwhile comes in at the top, and F5 must refund the sale the cashier picked. (Opening the
        // journal starts with no rows, so it opens on the newest.)
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
    case .paymentsFound(let screen, let finder, let entries):
        return FinderScreen.found(&state, screen, finder, entries)
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
        let stillOpen = Set(list.map(\.id))
        state.unresolved.asking = state.unresolved.asking.filter { stillOpen.contains($0.key) }
        if recovered, state.unresolved.askingQuietly {
            // The till asked again by itself: what it learned came as results; the cashier stays where they are.
            state.unresolved.recovering = false
            state.unresolved.askingQuietly = false
        } else if recovered {
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
    s.noticeEndsWithFlight = false
}

/// A notice about the request in flight: it is cleared when that request ends (a "Wait: … in flight" left after the
/// approval says something no longer true).
func setFlightNotice(_ s: inout AppState, _ text: String, error: Bool = false) {
    setNotice(&s, text, error: error)
    s.noticeEndsWithFlight = true
}

/// The request in flight ended (answered, unknown, not sent, or seen to end): nothing waits any more, and a notice
/// about it goes with it.
func endFlight(_ s: inout AppState) {
    s.pending = nil
    if s.noticeEndsWithFlight { s.notice = nil; s.noticeIsError = false; s.noticeEndsWithFlight = false }
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
        // In the cashier's words: what the answer was about and what it said, never its message or action names
        // (the note, with the journal's own words, is on the entry in the journal and on Unresolved).
        _ = note
        setNotice(&state, "Unexpected answer: " + strayAnswerWords(r, state.currency) + ". See Unresolved (\(state.keymap.hint(.unresolved))).",
                  error: true)
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
    case .transactionDetails?: return "it checked an earlier payment"
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

/// Start-up recovery learned what became of a payment an earlier run left open: shown as a result
/// of its own ("Sale € 13.13 at 10:31 WAS CHARGED"), never only as a list that empties itself.
func recoveredEvent(_ state: inout AppState, _ e: JournalEntry) -> [Command] {
    if let p = state.pending, !p.own, p.action == .transactionDetails || p.entryId == e.id { endFlight(&state) }
    let what = Format.entrySummary(e, currency: state.currency) + " at " + Format.hoursMinutesOfDay(e.createdAtMs, offsetMinutes: state.tzOffsetMinutes)
    switch e.state {
    case .approved:
        setNotice(&state, "Recovered: \(what) WAS CHARGED (journal #\(e.id)).")
        state.unresolved.asking[e.id] = nil
        foundCharged(&state, e)
    case .declined, .aborted, .resolved:
        setNotice(&state, "Recovered: \(what) was NOT charged (journal #\(e.id)).")
        state.unresolved.asking[e.id] = nil
    default:
        if e.action == .sale || e.action == .preAuth, e.state.awaitsTerminal {
            // Not settled yet (the terminal could not be asked: busy, perhaps with this very payment): the till keeps
            // asking for a while and says so, rather than a verdict that invites charging again.
            let since = state.unresolved.asking[e.id] ?? state.nowMs
            if state.nowMs - since < UnresolvedState.askingForMs {
                state.unresolved.asking[e.id] = since
                state.unresolved.lastAskMs = state.nowMs
                setNotice(&state, "\(what) (journal #\(e.id)): asking the terminal… Do not charge it again meanwhile.", error: true)
            } else {
                state.unresolved.asking[e.id] = nil
                setNotice(&state, "\(what) (journal #\(e.id)): outcome still unknown; check the terminal.", error: true)
            }
        } else {
            setNotice(&state, "\(what) (journal #\(e.id)): outcome still unknown; check the terminal.", error: true)
        }
    }
    if e.action.movesMoney {
        state.result = ResultInfo(summary: Format.entrySummary(e, currency: state.currency),
                                  outcome: e.state.awaitsTerminal ? .unknown(e) : .answered(e), atMs: e.createdAtMs, recovered: true)
        state.verdicts += 1
    }
    var cmds: [Command] = [.loadUnresolved, .loadReport(batch: .current, show: false)]
    if state.screen == .journal { cmds.append(.loadJournal(journalFilter(state))) }
    return cmds
}

/// A payment once unknown is found CHARGED: its amount, if still in a form, is cleared (Enter must not charge that
/// customer again), and a new sale of the same amount soon after asks first.
func foundCharged(_ state: inout AppState, _ e: JournalEntry) {
    guard e.action == .sale || e.action == .preAuth else { return }
    state.foundCharged.removeAll { $0.entry.id == e.id || state.nowMs - $0.knownAtMs > AppState.chargedAgainWindowMs }
    state.foundCharged.append(FoundCharged(entry: e, knownAtMs: state.nowMs))
    let screen: Screen = e.action == .sale ? .sale : .preAuth
    if let f = state.forms[screen], let typed = try? Money.parse(f[.amount]), typed == e.amount {
        state.forms[screen] = Form.blank(screen)
    }
}

/// Asks the terminal again, by itself, about payments recovery could not settle yet (see `UnresolvedState.asking`).
func askAgainIfDue(_ state: inout AppState) -> [Command] {
    guard !state.unresolved.asking.isEmpty, !state.unresolved.recovering, state.pending == nil else { return [] }
    state.unresolved.asking = state.unresolved.asking.filter { state.nowMs - $0.value < UnresolvedState.askingForMs }
    guard !state.unresolved.asking.isEmpty, state.nowMs - state.unresolved.lastAskMs >= UnresolvedState.askAgainEveryMs else { return [] }
    state.unresolved.lastAskMs = state.nowMs
    state.unresolved.recovering = true
    state.unresolved.askingQuietly = true
    return [.recover]
}

func settle(_ state: inout AppState, _ outcome: ActionOutcome, summary: String) -> [Command] {
    let action = state.pending?.action
    let from = state.pending?.screen
    endFlight(&state)
    switch outcome {
    case .invalid(let errors):
        // Refused by the service: the form comes back as it was sent, with the messages on it.
        let screen = restoreUnsent(&state, action) ?? state.screen
        var f = state.forms[screen] ?? state.form
        for e in errors {
            if let id = FieldID(rawValue: e.field), let i = f.index(of: id) { f.errors[id] = e.message; f.fields[i].selected = false } else { f.message = e.message }
        }
        state.forms[screen] = f
        setNotice(&state, errors.first?.message ?? "Refused.", error: true)
        return []
    case .busy, .otherTillBusy:
        // Nothing was sent: a verdict of its own (never DECLINED), and the amount back to try again.
        restoreUnsent(&state, action)
        // The core's words name the other process (for the headless commands); a cashier needs only "another till".
        if case .otherTillBusy = outcome { setNotice(&state, "Not sent: another till is using the terminal. Try again when it is done.", error: true) }
        else { setNotice(&state, "Another request is in flight; nothing was sent.", error: true) }
        state.result = ResultInfo(summary: summary, outcome: outcome, atMs: state.nowMs)
        state.verdicts += 1
        return []
    case .needsConfirmation(let list):
        restoreUnsent(&state, action)
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
    if outcome.notStarted {
        // The terminal never started it (not sent, terminal busy): nothing was charged, the same customer tries again.
        restoreUnsent(&state, action)
    } else {
        // The form of a sale or pre-auth became fresh when it was sent; what is in it now is the next customer's.
        if let key = from.flatMap(PaymentScreen.stateKey) { state[keyPath: key].sent = nil }
    }
    if case .answered(let e) = outcome, e.state == .approved {
        // A sent form is done: clear it for the next customer.
        switch e.action {
        case .cancel: state.forms[.refund] = Form.blank(.refund)
        case .capturePreAuth: state.forms[.capture] = Form.blank(.capture)
        case .batch: state.forms[.batch] = Form.blank(.batch)
        default: break
        }
    } else if let from, from == .refund || from == .capture || from == .batch {
        // Not done: what was typed stays, selected, so typing replaces it (a STAN corrected is typed anew).
        keepForm(&state, from)
    }
    if case .unknown(let e) = outcome, !state.unresolved.entries.contains(where: { $0.id == e.id }) {
        // Known at once, before the reload: a new sale asks first.
        state.unresolved.entries.append(e)
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
    /// The outcome's journal entry (`journalEntry`), by its shorter name on the screens.
    var entry: JournalEntry? { journalEntry }
    var entryAction: Action? { entry?.action }

    /// The terminal never started it: not sent (the transport could not take it), or the terminal answered that it
    /// is busy with another transaction. Nothing was charged; it is not a decline.
    var notStarted: Bool {
        switch self {
        case .busy, .otherTillBusy: return true
        case .transportError(let e, _): return e?.state != .unknown
        case .answered(let e): return e.state == .declined && e.response.map { TerminalMessage($0) } == .terminalBusy
        case .invalid, .unknown, .needsConfirmation, .journalFailed: return false
        }
    }
}

func handleKey(_ state: inout AppState, _ key: Key) -> [Command] {
    // While the window is too small nothing can be seen: no key acts but quit (and only with nothing in flight).
    guard Layout(state.size).fits else {
        if state.keymap.action(for: key) == .quit, state.pending == nil { state.quit = true; return [.quit] }
        // Not acted on blind (the cashier cannot see what a key would do), and not lost in silence: counted, shown.
        state.keysNotTaken += 1
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
            if field.selected {
                state.form.fields[state.form.focus].selected = false
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
                choices: [ConfirmChoice(key: "y", label: "quit anyway", action: .quit)],
                // Abandons a payment with the terminal: a deliberate key, never Enter by reflex.
                enterPicksFirst: false))
            return []
        }
        let typed = Screen.allCases.filter { holdsTyping($0) && state.forms[$0]?.hasText == true }
        if !typed.isEmpty {
            // What was typed is lost on quitting: ask, naming where.
            let amount = typed.contains(.sale) ? state.forms[.sale]?[.amount] ?? "" : ""
            state.overlay = .confirm(Confirmation(
                title: "Quit?",
                lines: [(amount.isEmpty ? "Text typed on " + typed.map(\.title).joined(separator: ", ")
                         : "The amount \(state.currency) \(amount) typed on Sale") + " is lost",
                        "if you quit now; nothing was sent."],
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
    if from != screen { keepForm(&state, screen) }
    switch screen {
    case .sale:
        // F2 is a sale for the next customer: the cursor is on the amount.
        state.form.focus = state.form.index(of: .amount) ?? 0
        return []
    case .journal:
        // The journal opens on its newest row with an empty filter: F7 then F5 refunds the sale just made, never a row
        // picked (or a filter typed) the last time the journal was open. The rows come fresh: until they do, F4/F5
        // say the journal is loading.
        state.journal.detail = nil
        state.journal.loading = true
        if from != .journal {
            state.forms[.journal] = Form.blank(.journal)
            state.journal.entries = []
            state.journal.selected = 0
            state.journal.top = 0
        }
        return [.loadJournal(journalFilter(state))]
    case .batch: return [.loadBatch]
    case .unresolved: return [.loadUnresolved]
    case .admin:
        AdminScreen.syncFocus(&state)
        return []
    default: return []
    }
}

/// The screens whose form holds what the cashier typed for a request (not the journal's filter or the settings).
func holdsTyping(_ screen: Screen) -> Bool {
    switch screen {
    case .sale, .preAuth, .capture, .refund, .batch: return true
    case .journal, .unresolved, .admin: return false
    }
}

/// A form the cashier comes back to (from another screen, a cancelled box, a box that did something else) is kept:
/// its text selected, so the next key replaces it, and the screen says so. A form still fresh (blank, or filled from a
/// journal row) stays as it is.
func keepForm(_ state: inout AppState, _ screen: Screen) {
    guard holdsTyping(screen), var f = state.forms[screen], f.life != .fresh, f.hasText else { return }
    f.keep()
    state.forms[screen] = f
    guard f.hasSelection, state.screen == screen else { return }
    if let amount = f.fields.first(where: { $0.id == .amount && $0.selected })?.text {
        setNotice(&state, "Amount \(state.currency) \(amount) kept, selected: typing replaces it; Enter sends it.")
    } else {
        setNotice(&state, "What was typed here is kept, selected: typing replaces it; Enter sends it.")
    }
}

func send(_ state: inout AppState, _ r: Request, confirming: Set<Int64> = []) -> [Command] {
    if let p = state.pending {
        setFlightNotice(&state, "Wait: \(p.summary) is in flight (Esc aborts).", error: true)
        return []
    }
    let summary = Format.summary(r, currency: state.currency, tipStyle: state.tipStyle)
    state.pending = Pending(summary: summary, action: r.action, startedAtMs: state.nowMs)
    state.notice = nil
    state.lastRequest = r
    if let screen = paymentScreen(r), let key = PaymentScreen.stateKey(screen) {
        // The form is fresh the moment its payment is sent: what the cashier types while the terminal works is the
        // next customer's amount, alone (the in-flight pane shows what was sent). The next customer pays by card
        // unless the cashier picks otherwise again (a phone order's MOTO never sticks).
        state[keyPath: key].sent = state.forms[screen]
        state[keyPath: key].sentMethod = state[keyPath: key].method
        state.forms[screen] = Form.blank(screen)
        state[keyPath: key].method = .cardPresent
    }
    if !confirming.isEmpty { return [.performConfirmed(r, summary: summary, confirming: confirming)] }
    return [.perform(r, summary: summary)]
}

/// The payment screen a request is sent from (Sale, Pre-auth); nil for other requests.
func paymentScreen(_ r: Request) -> Screen? {
    switch r {
    case .sale: return .sale
    case .preAuth: return .preAuth
    default: return nil
    }
}

/// A payment sent from Sale or Pre-auth was not sent after all: its form comes back as it was sent, kept (selected,
/// so typing replaces it), unless the cashier has typed the next customer's amount meanwhile. Returns that screen.
@discardableResult
func restoreUnsent(_ state: inout AppState, _ action: Action?) -> Screen? {
    guard let screen: Screen = action == .sale ? .sale : action == .preAuth ? .preAuth : nil,
          let key = PaymentScreen.stateKey(screen), let sent = state[keyPath: key].sent else { return nil }
    state[keyPath: key].sent = nil
    guard state.forms[screen]?.hasText != true else { return screen }
    var f = sent
    f.life = .typing
    f.keep()
    state.forms[screen] = f
    state[keyPath: key].method = state[keyPath: key].sentMethod
    return screen
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
            if state.pending!.abortRequested { setFlightNotice(&state, "Abort already requested; waiting for the terminal."); return [] }
            state.pending!.abortRequested = true
            setFlightNotice(&state, "Abort requested…")
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
            if let p = state.pending, p.own { setFlightNotice(&state, "\(p.summary) is in flight: Esc aborts it here.") }
            return cmds
        }
        state.notice = nil
        return []
    case .erase:
        if let f = state.form.focused {
            if entersCents(state, f), !f.selected {
                state.form.fields[state.form.focus].text = centsText(String(f.text.filter(\.isNumber).dropLast()))
            } else if !eraseSelection(&state), !f.text.isEmpty { state.form.fields[state.form.focus].text.removeLast() }
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
