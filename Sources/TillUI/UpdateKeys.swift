import TillProtocol
import TillModel

// Keys: the global ones, moving between screens, and sending what a screen asks.

func handleKey(_ state: inout AppState, _ key: Key) -> [Command] {
    // Esc and a key typed within ncurses' escape delay (25 ms: a fast hand, keys bundled over SSH) arrive as that key
    // with Alt. One no action is bound to is the two keys it was: "Esc 8.08" is Esc, then 8.08, never .08.
    if case .alt(let c) = key, state.keymap.action(for: key) == nil {
        return handleKey(&state, .esc) + handleKey(&state, .char(c))
    }
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
    let component = state.screen.component
    // The menu key opens the menu from any field (a keypad's `/` never types), but where the screen types it
    // (`menuKeyIsTyped`).
    if state.keymap.action(for: key) == .menu, !(component.menuKeyIsTyped && key.isPrintable && state.form.focused != nil) {
        return openMenu(&state)
    }
    if let cmds = component.keyBeforeFields(&state, key) { return cmds }
    // A printable character goes into the focused field when that field takes it.
    if case .char(let ch) = key, let field = state.form.focused, field.kind.accepts(ch), component.takesTyping(state) {
        type(&state, ch)
        return []
    }
    if case .char(let ch) = key, let cmds = component.char(&state, ch) { return cmds }
    guard let action = state.keymap.action(for: key) else {
        if case .char(let ch) = key, let field = state.form.focused {
            // Refused, never dropped: the character stays in sight with the reason (where the field has room), and
            // Enter is blocked until the cashier corrects it (`-3` must never charge 3.00).
            // A kept amount the screen said typing replaces is replaced by a refused key too (never "-3" → 3.33).
            _ = eraseSelection(&state)
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
    case .closeBatch:
        // From any screen, as the help lists it: the Batch screen, with the close to confirm.
        let cmds = state.screen == .batch ? [] : go(&state, .batch)
        return cmds + BatchScreen.confirmClose(&state, target: .current)
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
            var box = Confirmation(
                title: "Quit while waiting?",
                lines: ["\(p.summary) is still waiting for the terminal.",
                        "If you quit now its outcome stays UNKNOWN and is",
                        "shown for checking at the next start."],
                choices: [ConfirmChoice(key: "y", label: "quit anyway", action: .quit)],
                // Abandons a payment with the terminal: a deliberate key, never Enter by reflex.
                enterPicksFirst: false)
            box.standsWhile = .paymentInFlight
            state.overlay = .confirm(box)
            return []
        }
        let typed = Screen.allCases.filter { $0.component.holdsTyping && state.forms[$0]?.hasText == true }
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
        if let cmds = state.screen.component.opening(&state, screen) { return cmds }
        return go(&state, screen)
    }
}

func go(_ state: inout AppState, _ screen: Screen) -> [Command] {
    let from = state.screen
    if from != screen { screen.component.arriving(&state, from: from) }
    state.screen = screen
    if from != screen { keepForm(&state, screen) }
    return screen.component.enter(&state, from: from)
}

/// A form the cashier comes back to (from another screen, a cancelled box, a box that did something else) is kept:
/// its text selected, so the next key replaces it, and the screen says so. A form still fresh (blank, or filled from a
/// journal row) stays as it is.
func keepForm(_ state: inout AppState, _ screen: Screen) {
    guard screen.component.holdsTyping, var f = state.forms[screen], f.life != .fresh, f.hasText else { return }
    f.keep()
    // The cursor on the field typed first (a refund's STAN, a sale's amount): what the cashier types next goes where
    // a form of that screen starts, never into the amount left focused from before.
    if let first = f.fields.firstIndex(where: { !$0.text.isEmpty }) { f.focus = first }
    state.forms[screen] = f
    guard f.hasSelection, state.screen == screen else { return }
    setKeptNotice(&state, keptWords(f, state) + " kept, selected: typing replaces it; Enter sends it.")
}

/// What a kept form holds, in its labels: "Amount € 12", "STAN 1, Amount € 50".
func keptWords(_ f: Form, _ state: AppState) -> String {
    let kept = f.fields.filter { $0.selected && !$0.text.isEmpty && !$0.secret }
    let words = kept.prefix(3).map { $0.label + " " + ($0.kind == .money ? state.currency + " " : "") + $0.text }
    return words.isEmpty ? "What was typed here is" : words.joined(separator: ", ") + (kept.count > 3 ? " …" : "")
}

/// What a screen says to a send while another payment is with the terminal. Esc aborts it only on the screen that sent
/// it: elsewhere (Batch, where Esc clears the name) the notice names that screen.
func sayWaitForFlight(_ state: inout AppState, _ p: Pending) {
    let esc = state.keymap.hint(.cancel)
    let how = state.screen == p.screen ? "\(esc) aborts" : "\(esc) aborts it on \(p.screen.title), \(state.keymap.hint(p.screen.action))"
    setFlightNotice(&state, "Wait: \(p.summary) is in flight (\(how)).", error: true)
}

func send(_ state: inout AppState, _ r: Request, confirming: Set<Int64> = []) -> [Command] {
    if let p = state.pending {
        sayWaitForFlight(&state, p)
        giveBack(&state, state.screen, state.form)
        return []
    }
    let summary = Format.summary(r, currency: state.currency, tipStyle: state.tipStyle)
    state.pending = Pending(summary: summary, action: r.action, startedAtMs: state.nowMs)
    state.pending?.amount = Format.charged(r, state.tipStyle) ?? r.asked.amount
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
    r.action.startsPayment ? r.action.screen : nil
}

/// A form that was not sent comes back as the cashier left it: kept (`Form.keep`: its text selected, so typing replaces
/// it and Enter sends it again), with the reasons it was refused on its fields (those are not selected: they are to be
/// corrected). Every refusal goes through here (refused by the service, another request in flight, another till, a busy
/// terminal, the terminal still being asked about an earlier payment of that amount), so a refused form reads and
/// types alike whatever refused it.
func giveBack(_ state: inout AppState, _ screen: Screen, _ form: Form, errors: [ValidationError] = []) {
    var f = form
    for e in errors {
        if let id = FieldID(rawValue: e.field), f.index(of: id) != nil { f.errors[id] = e.message } else { f.message = e.message }
    }
    if screen.component.holdsTyping {
        f.keep()
        for i in f.fields.indices where f.errors[f.fields[i].id] != nil { f.fields[i].selected = false }
    }
    state.forms[screen] = f
}

/// A request was not sent after all: its form is given back (`giveBack`). A sale's or pre-auth's form became fresh
/// when it was sent, so the form as sent comes back, with its payment method, unless the cashier has typed the next
/// customer's amount meanwhile (that stays, alone); any other screen's form never left it.
func notSent(_ state: inout AppState, _ action: Action?, from: Screen?, errors: [ValidationError] = []) {
    if let screen = action?.screen, action?.startsPayment == true, let key = PaymentScreen.stateKey(screen) {
        guard let sent = state[keyPath: key].sent else { return }
        state[keyPath: key].sent = nil
        guard state.forms[screen]?.hasText != true else { return }
        giveBack(&state, screen, sent, errors: errors)
        state[keyPath: key].method = state[keyPath: key].sentMethod
        return
    }
    let screen = from ?? state.screen
    giveBack(&state, screen, state.forms[screen] ?? Form.blank(screen), errors: errors)
}

/// A sale or pre-auth above the configured amount (`confirm_above`) asks first, showing the amount the card
/// is charged; only `y` sends it (an Enter pressed by habit does not). Anything else is sent at once.
func sendAskingAbove(_ state: inout AppState, _ r: Request, confirming ids: Set<Int64> = []) -> [Command] {
    // What the card is charged, read with the tip style (the amount holds the tip when it is included).
    guard let total = Format.charged(r, state.tipStyle) else { return send(&state, r, confirming: ids) }
    guard let limit = state.confirmAbove, limit < total else { return send(&state, r, confirming: ids) }
    let what = r.action.reportRole.moneyVerbToDo.capitalizedFirst   // Charge, Reserve: only those have a total
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
        // Esc aborts the payment in flight only on the screen that sent it; everywhere else it is "back". Where the
        // next customer's amount is typed meanwhile, Esc clears that first, as it does with nothing in flight: the
        // cashier who corrects the next amount never aborts the customer at the terminal.
        if state.escAborts, PaymentScreen.holdsInput(state) {
            PaymentScreen.clear(&state)
            setFlightNotice(&state, "Cleared. \(state.pending!.summary) is still in flight: \(state.keymap.hint(.cancel)) with nothing typed aborts it.")
            return []
        }
        if state.escAborts {
            if state.pending!.abortRequested { setFlightNotice(&state, "Abort already requested; waiting for the terminal."); return [] }
            state.pending!.abortRequested = true
            setFlightNotice(&state, "Abort requested…")
            return [.abort]
        }
        if state.screen.component.escape(&state) { return [] }
        // On Sale and Pre-auth a customer's form is cleared whole: nothing of it is inherited by the next customer.
        if PaymentScreen.holdsInput(state) { PaymentScreen.clear(&state); return [] }
        if let f = state.form.focused, !f.text.isEmpty, state.screen.component.escClearsField {
            state.form.fields[state.form.focus].text = ""
            corrected(&state, f.id)
            return []
        }
        if state.screen != .sale {
            let cmds = go(&state, .sale)
            if let p = state.pending, p.own {
                // Esc aborts on the screen that sent it, which is Sale only for a sale: said as the result pane says it.
                let esc = state.keymap.hint(.cancel)
                let how = p.screen == .sale ? "\(esc) aborts it here" : "\(esc) aborts it on \(p.screen.title) (\(state.keymap.hint(p.screen.action)))"
                setFlightNotice(&state, "\(p.summary) is in flight: \(how).")
            }
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
