import TillProtocol
import TillModel

/// The caller used only to validate a request in the UI; the service fills in the real one.
let validationCaller = Caller(callback: "till", merchantKey: "till", appId: "till")

/// The commands to run at start: recover unfinished transactions, learn the batch.
public func initialCommands(_ state: inout AppState) -> [Command] {
    state.recovering = true
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
        state.journal.entries = entries
        state.journal.loading = false
        if let d = state.journal.detail, let fresh = entries.first(where: { $0.id == d.id }) { state.journal.detail = fresh }
        clampJournal(&state)
        return []
    case .batchLoaded(let b):
        state.batch = b
        return [.loadReport(batch: "current", show: false)]
    case .reportLoaded(let r, let show):
        state.report = r
        if show {
            if let r { state.overlay = .report(ReportPanel(report: r)) }
            else { setNotice(&state, "No batch in the journal yet: open one on the Batch screen.", error: true) }
        } else if case .report(var panel)? = state.overlay, let r, r.batchId == panel.report.batchId {
            panel.report = r
            state.overlay = .report(panel)
        }
        return []
    case .exported(let paths, let error):
        if let error { setNotice(&state, "Export failed: " + error, error: true); return [] }
        if case .report(var panel)? = state.overlay { panel.exported = paths; state.overlay = .report(panel) }
        setNotice(&state, "Exported: " + paths.joined(separator: ", "))
        return []
    case .unresolvedLoaded(let list, let recovered):
        state.unresolved = list
        state.unresolvedSelected = min(state.unresolvedSelected, max(0, list.count - 1))
        if recovered {
            state.recovering = false
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

func journalFilter(_ s: AppState) -> JournalFilter {
    JournalFilter(scope: s.journal.allBatches ? .all : .currentBatch)
}

// MARK: - Controller events and outcomes

func handleEvent(_ state: inout AppState, _ e: ControllerEvent) -> [Command] {
    switch e {
    case .inFlight(let f):
        let summary = state.pending?.summary ?? Format.actionName(f.entry.action)
        state.pending = Pending(summary: summary, action: f.entry.action, startedAtMs: f.startedAtMs,
                                deadlineMs: f.deadlineMs, abortRequested: f.abortRequested || (state.pending?.abortRequested ?? false))
        return []
    case .settled(let outcome):
        // `perform` returns the same outcome for the UI's own requests; the result pane is updated from there. A
        // settled request the UI did not send (start-up recovery's look-ups) must not leave the screen busy.
        if let p = state.pending, p.action == .transactionDetails || outcome.entryAction == .transactionDetails,
           outcome.entryAction == p.action {
            state.pending = nil
        }
        return []
    case .recovered(let e):
        if state.pending?.action == .transactionDetails { state.pending = nil }
        let what = "\(Format.actionName(e.action)) \(Format.money(e.amount, state.currency))"
        switch e.state {
        case .approved: setNotice(&state, "Recovered: \(what) WAS CHARGED (journal #\(e.id)).")
        case .declined, .aborted, .resolved: setNotice(&state, "Recovered: \(what) was NOT charged (journal #\(e.id)).")
        default: setNotice(&state, "\(what) (journal #\(e.id)): outcome still unknown; check the terminal.", error: true)
        }
        return [.loadUnresolved, .loadReport(batch: "current", show: false)]
    case .journalProblem(let m):
        setNotice(&state, m, error: true)
        return []
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
            "\(Format.money(e.amount, state.currency)) at \(Format.clock(e.createdAtMs, offsetMinutes: state.tzOffsetMinutes)) may have been charged:"
        } + ["check the terminal before charging again."]
        state.overlay = .confirm(Confirmation(
            title: "Charge again?", lines: lines,
            choices: [ConfirmChoice(key: "y", label: "checked: charge \(Format.summary(r, currency: state.currency))",
                                    action: .sendConfirmingUnknown(r, Set(list.map(\.id))))],
            enterPicksFirst: false))
        return [.loadUnresolved]
    default:
        break
    }
    state.result = ResultInfo(summary: summary, outcome: outcome, atMs: state.nowMs)
    var cmds: [Command] = []
    if action == .sale || outcome.entryAction == .sale {
        // A fresh sale for the next customer after every result: tip, instalments and reference cleared; the amount
        // too, unless the cashier typed a new one while the terminal worked (that is the next customer's amount).
        var fresh = Form.blank(.sale)
        if let old = state.forms[.sale], old["amount"] != state.sentAmountText { fresh["amount"] = old["amount"] }
        state.forms[.sale] = fresh
    }
    if case .answered(let e) = outcome, e.state == .approved {
        // A sent form is done: clear it for the next customer.
        switch e.action {
        case .sale: state.forms[.sale] = Form.blank(.sale)
        case .preAuth: state.forms[.preAuth] = Form.blank(.preAuth)
        case .cancel: state.forms[.refund] = Form.blank(.refund)
        case .capturePreAuth: state.forms[.capture] = Form.blank(.capture)
        case .batch: state.forms[.batch] = Form.blank(.batch)
        default: break
        }
    }
    if action == .batch || outcome.entryAction == .batch {
        cmds.append(.loadBatch)
        if case .answered(let e) = outcome, e.state == .approved, e.response?.command?.lowercased() == "close" {
            // The shift is over: its Z report, full screen, ready to export.
            cmds.append(.loadReport(batch: e.response?.batchId ?? "last", show: true))
        }
    } else {
        cmds.append(.loadReport(batch: "current", show: false))
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

// MARK: - Keys

func handleKey(_ state: inout AppState, _ key: Key) -> [Command] {
    // Overlays take the keys first.
    if let overlay = state.overlay {
        switch overlay {
        case .help:
            state.overlay = nil
            if let a = state.keymap.action(for: key), a.isGlobal, a != .help { return globalAction(&state, a) }
            return []
        case .confirm(let c):
            return handleConfirm(&state, c, key)
        case .report(let panel):
            return handleReportKey(&state, panel, key)
        }
    }
    // A printable character goes into the focused field when that field takes it.
    if case .char(let ch) = key, let field = state.form.focused, field.kind.accepts(ch), !(state.screen == .journal && state.journal.detail != nil) {
        type(&state, ch)
        return []
    }
    guard let action = state.keymap.action(for: key) else {
        if case .char(let ch) = key, let field = state.form.focused, field.kind != .text, field.text.count < field.maxLength {
            // Refused, never dropped: the character stays on screen with the reason, and Enter is blocked until the
            // cashier corrects it (`-3` must never charge 3.00).
            state.form.fields[state.form.focus].text.append(ch)
            state.form.errors[field.id] = refusal(field)
        } else if case .char = key, let field = state.form.focused {
            state.form.errors[field.id] = refusal(field)
        }
        return []
    }
    if action.isGlobal { return globalAction(&state, action) }
    return screenAction(&state, action, key: key)
}

func refusal(_ f: Field) -> String {
    switch f.kind {
    case .money: return "Digits only, with one . or , for cents."
    case .tip: return "Digits (with . or ,) or a percentage like 10%."
    case .integer, .digits: return "Digits only."
    case .date: return "A date like 2026-11-22."
    case .text: return "That character is not allowed here."
    }
}

func type(_ state: inout AppState, _ ch: Character) {
    var f = state.form
    guard let field = f.focused else { return }
    if field.text.count >= field.maxLength { f.errors[field.id] = "At most \(field.maxLength) characters."; state.form = f; return }
    f.fields[f.focus].text.append(ch)
    // A refused character still in the field keeps its error; any other error goes once the field is edited.
    if !f.fields[f.focus].text.contains(where: { !field.kind.accepts($0) }) { f.errors[field.id] = nil }
    f.message = nil
    state.form = f
    if state.screen == .journal { state.journal.selected = 0; state.journal.top = 0 }
}

func globalAction(_ state: inout AppState, _ action: KeyAction) -> [Command] {
    switch action {
    case .help:
        state.overlay = .help
        return []
    case .report:
        return [.loadReport(batch: "current", show: true)]
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
        return go(&state, screen)
    }
}

/// Keys on a full-screen report: scroll, export, close.
func handleReportKey(_ state: inout AppState, _ panel: ReportPanel, _ key: Key) -> [Command] {
    var p = panel
    let lines = p.report.lines(state.reportFormat).count
    let page = max(1, state.size.height - 6)
    let maxScroll = max(0, lines - page)
    let action = state.keymap.action(for: key)
    switch action {
    case .down?, .next?: p.scroll = min(maxScroll, p.scroll + 1)
    case .up?, .previous?: p.scroll = max(0, p.scroll - 1)
    case .pageDown?: p.scroll = min(maxScroll, p.scroll + page)
    case .pageUp?: p.scroll = max(0, p.scroll - page)
    case .export?:
        state.overlay = .report(p)
        setNotice(&state, "Exporting…")
        return [.exportReport(batch: p.batchKey, format: state.reportFormat)]
    case .cancel?, .submit?, .report?:
        state.overlay = nil
        return []
    default:
        if case .char(let c) = key, c == "e" || c == "E" {
            state.overlay = .report(p)
            setNotice(&state, "Exporting…")
            return [.exportReport(batch: p.batchKey, format: state.reportFormat)]
        }
        if let a = action, a.isGlobal {
            state.overlay = nil
            return globalAction(&state, a)
        }
    }
    state.overlay = .report(p)
    return []
}

func go(_ state: inout AppState, _ screen: Screen) -> [Command] {
    state.screen = screen
    switch screen {
    case .sale:
        // F2 is a sale for the next customer: the cursor is on the amount.
        state.form.focus = state.form.index(of: "amount") ?? 0
        return []
    case .journal:
        state.journal.detail = nil
        state.journal.loading = true
        return [.loadJournal(journalFilter(state))]
    case .batch: return [.loadBatch]
    case .unresolved: return [.loadUnresolved]
    default: return []
    }
}

func handleConfirm(_ state: inout AppState, _ c: Confirmation, _ key: Key) -> [Command] {
    var choice: ConfirmChoice?
    switch key {
    case .enter: choice = c.enterPicksFirst ? c.choices.first : nil
    case .esc: state.overlay = nil; setNotice(&state, "Cancelled: nothing was done."); return []
    case .char(let ch):
        let lower = Character(ch.lowercased())
        if lower == "n" && !c.choices.contains(where: { $0.key == "n" }) {
            state.overlay = nil; setNotice(&state, "Cancelled: nothing was done."); return []
        }
        choice = c.choices.first { $0.key == lower }
    default:
        if state.keymap.action(for: key) == .cancel { state.overlay = nil; return [] }
    }
    guard let choice else { return [] }
    state.overlay = nil
    switch choice.action {
    case .quit:
        state.quit = true
        return [.quit]
    case .send(let r):
        return send(&state, r)
    case .resolve(let id, let charged, let note):
        return [.resolve(entryId: id, charged: charged, note: note)]
    case .goTo(let screen):
        return go(&state, screen)
    case .sendConfirmingUnknown(let r, let ids):
        return send(&state, r, confirming: ids)
    }
}

func send(_ state: inout AppState, _ r: Request, confirming: Set<Int64> = []) -> [Command] {
    if let p = state.pending {
        setNotice(&state, "Wait: \(p.summary) is in flight (Esc aborts).", error: true)
        return []
    }
    let summary = Format.summary(r, currency: state.currency)
    state.pending = Pending(summary: summary, action: r.action, startedAtMs: state.nowMs)
    state.notice = nil
    state.lastRequest = r
    if case .sale = r { state.sentAmountText = state.forms[.sale]?["amount"] }
    if !confirming.isEmpty { return [.performConfirmed(r, summary: summary, confirming: confirming)] }
    return [.perform(r, summary: summary)]
}

func screenAction(_ state: inout AppState, _ action: KeyAction, key: Key) -> [Command] {
    switch action {
    case .cancel:
        if state.pending != nil {
            if state.pending!.abortRequested { setNotice(&state, "Abort already requested; waiting for the terminal."); return [] }
            state.pending!.abortRequested = true
            setNotice(&state, "Abort requested…")
            return [.abort]
        }
        if state.screen == .journal, state.journal.detail != nil { state.journal.detail = nil; return [] }
        if state.form.focused.map({ !$0.text.isEmpty }) ?? false {
            state.form.fields[state.form.focus].text = ""
            state.form.errors = [:]; state.form.message = nil
            return []
        }
        state.notice = nil
        return []
    case .erase:
        if let f = state.form.focused, !f.text.isEmpty {
            state.form.fields[state.form.focus].text.removeLast()
            if !state.form.fields[state.form.focus].text.contains(where: { !f.kind.accepts($0) }) { state.form.errors[f.id] = nil }
            state.form.message = nil
        }
        return []
    case .clear:
        if let f = state.form.focused {
            state.form.fields[state.form.focus].text = ""
            state.form.errors[f.id] = nil; state.form.message = nil
        }
        return []
    case .tip5, .tip10, .tip15, .tipNone:
        guard state.screen == .sale else { return [] }
        let pct = action == .tip5 ? "5%" : action == .tip10 ? "10%" : action == .tip15 ? "15%" : ""
        state.form["tipAmount"] = pct
        state.form.errors["tipAmount"] = nil
        return []
    default:
        break
    }
    switch state.screen {
    case .journal: return journalAction(&state, action)
    case .unresolved: return unresolvedAction(&state, action)
    default: return formAction(&state, action)
    }
}

func formAction(_ state: inout AppState, _ action: KeyAction) -> [Command] {
    let n = state.form.fields.count
    switch action {
    case .next, .down:
        if n > 0 { state.form.focus = (state.form.focus + 1) % n }
        return []
    case .previous, .up:
        if n > 0 { state.form.focus = (state.form.focus + n - 1) % n }
        return []
    case .submit:
        return submit(&state)
    case .closeBatch:
        guard state.screen == .batch else { return [] }
        return confirmClose(&state, target: "")
    default:
        return []
    }
}

// MARK: - Building requests from forms

/// Reads the form of the current screen into a typed request, or puts errors on its fields.
func submit(_ state: inout AppState) -> [Command] {
    // What was shown is what is sent: a field showing an error blocks sending until it is corrected.
    if let bad = state.form.fields.first(where: { state.form.errors[$0.id] != nil }) {
        state.form.focus = state.form.index(of: bad.id) ?? state.form.focus
        setNotice(&state, "Correct \(bad.label) first: \(state.form.errors[bad.id]!)", error: true)
        return []
    }
    var form = state.form
    form.errors = [:]
    form.message = nil
    defer { state.form = form }
    func opt(_ id: String) -> String? {
        let t = form[id].trimmingWhitespace()
        return t.isEmpty ? nil : t
    }
    func money(_ id: String, required: Bool) -> Money?? {
        guard let t = opt(id) else {
            if required { form.errors[id] = MoneyError.empty.description; return .none }
            return .some(nil)
        }
        do { return .some(try Money.parse(t)) } catch { form.errors[id] = error.description; return .none }
    }
    func validate(_ r: Request) -> Bool {
        let errs = TerminalRequest(caller: validationCaller, request: r).validationErrors()
        for e in errs {
            if form.index(of: e.field) != nil { if form.errors[e.field] == nil { form.errors[e.field] = e.message } }
            else if form.message == nil { form.message = e.message }
        }
        if let first = form.fields.firstIndex(where: { form.errors[$0.id] != nil }) { form.focus = first }
        return errs.isEmpty
    }
    func focusFirstError() {
        if let first = form.fields.firstIndex(where: { form.errors[$0.id] != nil }) { form.focus = first }
    }

    switch state.screen {
    case .sale:
        guard let amountOpt = money("amount", required: true), let amount = amountOpt else { focusFirstError(); return [] }
        var tip: Money?
        if let t = opt("tipAmount") {
            switch tipValue(t, amount: amount) {
            case .success(let m): tip = m.cents == 0 ? nil : m
            case .failure(let e): form.errors["tipAmount"] = e.message; focusFirstError(); return []
            }
        }
        var installments: Int?
        if let t = opt("preferredInstallments") {
            guard let n = Int(t) else { form.errors["preferredInstallments"] = "Installments must be a whole number."; focusFirstError(); return [] }
            installments = n
        }
        let sale = SaleRequest(amount: amount, tipAmount: tip, clientTransactionId: opt("clientTransactionId"),
                               withInstallments: installments == nil ? nil : true, preferredInstallments: installments)
        let r = Request.sale(sale)
        guard validate(r) else { return [] }
        state.form = form
        return send(&state, r)
    case .preAuth:
        guard let amountOpt = money("amount", required: true), let amount = amountOpt else { focusFirstError(); return [] }
        let r = Request.preAuth(PreAuthRequest(amount: amount, clientTransactionId: opt("clientTransactionId")))
        guard validate(r) else { return [] }
        state.form = form
        return send(&state, r)
    case .capture, .refund:
        guard let amountOpt = money("amount", required: false) else { focusFirstError(); return [] }
        let finder = TransactionFinder(referenceNumber: opt("referenceNumber"), orderCode: opt("orderCode"),
                                       shortOrderCode: opt("shortOrderCode"),
                                       txnDateFrom: opt("txnDateFrom").map { expandDate($0, endOfDay: false, offset: state.tzOffsetMinutes) },
                                       txnDateTo: opt("txnDateTo").map { expandDate($0, endOfDay: true, offset: state.tzOffsetMinutes) })
        if state.screen == .capture {
            let r = Request.capturePreAuth(CaptureRequest(amount: amountOpt, finder: finder))
            guard validate(r) else { return [] }
            state.form = form
            return send(&state, r)
        }
        if !finder.hasKey {
            form.errors["referenceNumber"] = "Say which payment to refund: its STAN, order code or short order code."
            form.focus = 0
            return []
        }
        let r = Request.cancel(CancelRequest(amount: amountOpt, finder: finder))
        guard validate(r) else { return [] }
        state.form = form
        var lines = ["\(amountOpt.map { "Refund " + Format.money($0, state.currency) } ?? "Refund the FULL amount") of the payment with"]
        if let s = finder.shortOrderCode { lines.append("short order code \(s)") }
        else if let o = finder.orderCode { lines.append("order code \(o)") }
        else if let r = finder.referenceNumber { lines.append("STAN \(r)") }
        lines.append("Money goes back to the cardholder's card;")
        lines.append("this cannot be undone.")
        state.overlay = .confirm(Confirmation(title: "Refund?", lines: lines,
                                              choices: [ConfirmChoice(key: "y", label: "refund", action: .send(r))]))
        return []
    case .batch:
        if form.fields[form.focus].id == "batchName" {
            guard let name = opt("batchName") else {
                form.errors["batchName"] = "Type a name for the new batch (e.g. the shift)."
                return []
            }
            let r = Request.batch(BatchRequest(command: .open, batchName: name))
            guard validate(r) else { return [] }
            state.form = form
            var lines = ["Open a new batch named '\(name)'."]
            if let b = state.batch, b.isOpen {
                lines.append("The active batch \(b.name.map { "'\($0)'" } ?? b.id ?? "") will be closed first.")
            }
            state.overlay = .confirm(Confirmation(title: "Open batch?", lines: lines,
                                                  choices: [ConfirmChoice(key: "y", label: "open", action: .send(r))]))
            return []
        }
        state.form = form
        return confirmClose(&state, target: opt("batchId") ?? "")
    case .journal, .unresolved:
        return []
    }
}

func confirmClose(_ state: inout AppState, target: String) -> [Command] {
    let r: BatchRequest
    var lines: [String]
    if target.isEmpty {
        guard let b = state.batch, b.isOpen else {
            state.form.errors["batchId"] = "No batch is open; type the name or id of the batch to close."
            return []
        }
        r = BatchRequest(command: .close)
        lines = ["Close the active batch \(b.name.map { "'\($0)'" } ?? "")", b.id.map { "(id \($0))." } ?? ""]
    } else if UUIDText.isValid(target) {
        r = BatchRequest(command: .close, batchId: target)
        lines = ["Close the batch with id", target + "."]
    } else {
        r = BatchRequest(command: .close, batchName: target)
        lines = ["Close the batch named '\(target)'."]
    }
    let errs = TerminalRequest(caller: validationCaller, request: .batch(r)).validationErrors()
    if let e = errs.first { state.form.errors["batchId"] = e.message; return [] }
    lines.append("Its payments are settled; new payments go to")
    lines.append("the next batch you open.")
    if let p = state.pending {
        state.overlay = nil
        setNotice(&state, "Wait: \(p.summary) is in flight; close the batch once it is settled.", error: true)
        return []
    }
    if !state.unresolved.isEmpty {
        let n = state.unresolved.count
        lines.insert("⚠ \(n) transaction\(n == 1 ? " has" : "s have") an UNKNOWN outcome.", at: 0)
        lines.insert("  The Z report cannot say if that money moved.", at: 1)
        lines.insert("  Check the terminal first (F8 Unresolved).", at: 2)
        lines.insert("", at: 3)
        state.overlay = .confirm(Confirmation(title: "Close batch with unknown outcomes?", lines: lines,
                                              choices: [ConfirmChoice(key: "u", label: "go to Unresolved", action: .goTo(.unresolved)),
                                                        ConfirmChoice(key: "y", label: "close anyway", action: .send(.batch(r)))]))
        return []
    }
    state.overlay = .confirm(Confirmation(title: "Close batch?", lines: lines.filter { !$0.isEmpty },
                                          choices: [ConfirmChoice(key: "y", label: "close it", action: .send(.batch(r)))]))
    return []
}

public struct FieldMessage: Error, Sendable { public var message: String }

/// A tip as typed: an amount (`2.50`) or a percentage of the amount (`10%`), rounded half up to the cent.
public func tipValue(_ text: String, amount: Money) -> Result<Money, FieldMessage> {
    let t = text.trimmingWhitespace()
    if t.hasSuffix("%") {
        let num = String(t.dropLast()).trimmingWhitespace()
        // Parse the percentage as money (two decimals) to reuse the cashier's number rules.
        guard let p = try? Money.parse(num) else { return .failure(FieldMessage(message: "'\(t)' is not a percentage like 10%.")) }
        if p.cents > 100_00 { return .failure(FieldMessage(message: "A tip of more than 100% is more than the amount.")) }
        let cents = (amount.cents * p.cents + 5_000) / 10_000
        return .success(Money(cents: cents))
    }
    do { return .success(try Money.parse(t)) } catch { return .failure(FieldMessage(message: error.description)) }
}

/// Expands a typed date (`2026-11-22`, `2026-11-22 14:30`) to the ISO 8601 form the terminal takes.
public func expandDate(_ t: String, endOfDay: Bool, offset: Int) -> String {
    let s = t.trimmingWhitespace()
    let u = Array(s.utf8)
    func isDay(_ u: [UInt8]) -> Bool {
        u.count == 10 && u[4] == 0x2D && u[7] == 0x2D && u.enumerated().allSatisfy { $0.offset == 4 || $0.offset == 7 || ($0.element >= 48 && $0.element <= 57) }
    }
    if isDay(u) { return s + (endOfDay ? "T23:59:59.999" : "T00:00:00.000") + Format.offset(offset) }
    if u.count == 16, isDay(Array(u[0..<10])), u[10] == 0x20 || u[10] == 0x54 {
        return String(s.prefix(10)) + "T" + String(s.suffix(5)) + (endOfDay ? ":59.999" : ":00.000") + Format.offset(offset)
    }
    return s
}

// MARK: - Lists

func clampJournal(_ state: inout AppState) {
    let n = state.visibleJournal.count
    state.journal.selected = max(0, min(state.journal.selected, n - 1))
    let rows = journalRows(state.size)
    if state.journal.selected < state.journal.top { state.journal.top = state.journal.selected }
    if state.journal.selected >= state.journal.top + rows { state.journal.top = state.journal.selected - rows + 1 }
    state.journal.top = max(0, min(state.journal.top, max(0, n - rows)))
}

func journalAction(_ state: inout AppState, _ action: KeyAction) -> [Command] {
    let rows = journalRows(state.size)
    let list = state.visibleJournal
    if state.journal.detail != nil {
        switch action {
        case .down: state.journal.detailScroll += 1; return []
        case .up: state.journal.detailScroll = max(0, state.journal.detailScroll - 1); return []
        case .pageDown: state.journal.detailScroll += rows; return []
        case .pageUp: state.journal.detailScroll = max(0, state.journal.detailScroll - rows); return []
        default: break
        }
    }
    switch action {
    case .next, .down: state.journal.selected += 1
    case .previous, .up: state.journal.selected -= 1
    case .pageDown: state.journal.selected += rows
    case .pageUp: state.journal.selected -= rows
    case .submit:
        if state.journal.detail != nil { state.journal.detail = nil; return [] }
        if list.indices.contains(state.journal.selected) { state.journal.detail = list[state.journal.selected]; state.journal.detailScroll = 0 }
        return []
    case .scope:
        state.journal.allBatches.toggle()
        state.journal.loading = true
        state.journal.detail = nil
        return [.loadJournal(journalFilter(state))]
    case .resolve:
        let e = state.journal.detail ?? (list.indices.contains(state.journal.selected) ? list[state.journal.selected] : nil)
        if let e { confirmResolve(&state, e) }
        return []
    default: return []
    }
    clampJournal(&state)
    if state.journal.detail != nil, list.indices.contains(state.journal.selected) {
        state.journal.detail = list[state.journal.selected]; state.journal.detailScroll = 0
    }
    return []
}

func unresolvedAction(_ state: inout AppState, _ action: KeyAction) -> [Command] {
    let n = state.unresolved.count
    switch action {
    case .next, .down: state.unresolvedSelected = min(n - 1, state.unresolvedSelected + 1)
    case .previous, .up: state.unresolvedSelected = max(0, state.unresolvedSelected - 1)
    case .submit, .resolve:
        if state.unresolved.indices.contains(state.unresolvedSelected) { confirmResolve(&state, state.unresolved[state.unresolvedSelected]) }
    default: break
    }
    state.unresolvedSelected = max(0, state.unresolvedSelected)
    return []
}

func confirmResolve(_ state: inout AppState, _ e: JournalEntry) {
    guard e.state.needsAttention else {
        setNotice(&state, "#\(e.id) is \(Format.stateName(e.state).lowercased()); only unknown ones need resolving.", error: true)
        return
    }
    let what = "#\(e.id) \(Format.actionName(e.action)) \(Format.money(e.amount, state.currency))"
    state.overlay = .confirm(Confirmation(
        title: "Resolve \(what)?",
        lines: ["Check the terminal's own history first. Then say",
                "what really happened; nothing is sent again."],
        choices: [ConfirmChoice(key: "c", label: "charged (it went through)", action: .resolve(entryId: e.id, charged: true, note: "")),
                  ConfirmChoice(key: "x", label: "not charged", action: .resolve(entryId: e.id, charged: false, note: ""))],
        enterPicksFirst: false))
}

/// How many journal rows fit on the screen (used for paging).
public func journalRows(_ size: Size) -> Int { max(1, size.height - 8) }
