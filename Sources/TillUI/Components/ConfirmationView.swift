import TillProtocol
import TillModel

func handleConfirm(_ state: inout AppState, _ c: Confirmation, _ key: Key) -> [Command] {
    var choice: ConfirmChoice?
    let confirmKeys = state.keymap.keys(for: .confirm)
    switch key {
    case _ where c.isDeliberate && confirmKeys.contains(key):
        // The keypad's "yes" in a money box: the choice a number picked, or the only one.
        guard let i = c.selected ?? (c.choices.count == 1 ? 0 : nil), c.choices.indices.contains(i) else {
            setNotice(&state, deliberateHint(c, state), error: true)
            return []
        }
        choice = c.choices[i]
    case .enter:
        // Enter picks the selected choice in a box that moves no money. In one that does (a refund, a charge, closing
        // with unknown outcomes) it never decides: "1 Enter" is an amount typed by habit, not an answer.
        guard !c.isDeliberate, let i = c.selected, c.choices.indices.contains(i) else {
            // A number pressed next (and alone) selects again: "9 Enter" was a slip.
            var next = c
            next.keysPressed = 0
            next.selected = c.defaultSelection
            state.overlay = .confirm(next)
            setNotice(&state, c.isDeliberate ? deliberateHint(c, state) : enterHint(c), error: true)
            return []
        }
        choice = c.choices[i]
    case .esc, .backspace, .char("-"): closeBox(&state); cancelledNotice(&state); return []
    case .char(let ch) where ch.isASCII && ch.isNumber:
        // A number selects (the keypad's way to answer), but only as the first key since the box opened: in "15 Enter"
        // typed by habit the 1 would select the first choice. A number after any other key selects nothing and undoes
        // a selection. In a box that moves money a number never decides, even then: only the confirm key does
        // (`isDeliberate`), so a digit and Enter never refund, charge or close.
        var next = c
        next.keysPressed += 1
        if c.keysPressed == 0, let n = ch.wholeNumberValue, n >= 1, n <= c.choices.count {
            next.selected = n - 1
            setNotice(&state, c.isDeliberate ? deliberateHint(next, state) : "Enter: \(c.choices[n - 1].label). Esc or - cancels.",
                      error: c.isDeliberate && confirmKeys.isEmpty)
        } else {
            next.selected = c.defaultSelection
            setNotice(&state, c.isDeliberate ? deliberateHint(next, state) : "Answer with one number, then Enter (or a letter); Esc or - cancels.",
                      error: true)
        }
        state.overlay = .confirm(next)
        return []
    case .char(let ch):
        let lower = Character(ch.lowercased())
        if lower == "n" && !c.choices.contains(where: { $0.key == "n" }) {
            closeBox(&state); cancelledNotice(&state); return []
        }
        choice = c.choices.first { $0.key == lower }
        if choice == nil {
            // Any other character (a "." of an amount …) also undoes a number's selection.
            var next = c
            next.keysPressed += 1
            next.selected = c.defaultSelection
            state.overlay = .confirm(next)
            return []
        }
    default:
        if state.keymap.action(for: key) == .cancel { closeBox(&state); return [] }
        // Any other key (Alt-3 for a tip, Tab, an arrow) undoes a number's selection too: "1 Alt-3 Enter" is a sale
        // typed by habit, never an answer to the box.
        var next = c
        next.keysPressed += 1
        next.selected = c.defaultSelection
        state.overlay = .confirm(next)
        return []
    }
    guard let choice else { return [] }
    closeBox(&state)
    switch choice.action {
    case .quit:
        state.quit = true
        return [.quit]
    case .send(let r):
        return send(&state, r)
    case .resolve(let id, let charged, let note):
        state.unresolved.asking[id] = nil
        if charged, let e = state.unresolved.entries.first(where: { $0.id == id }) { foundCharged(&state, e) }
        return [.resolve(entryId: id, charged: charged, note: note)]
    case .goTo(let screen):
        return go(&state, screen)
    case .sendConfirmingUnknown(let r, let ids):
        // The "y" was about the earlier payment; the amount above confirm_above is asked about on its own.
        return sendAskingAbove(&state, r, confirming: ids)
    case .sendChecked(let r, let ids):
        return send(&state, r, confirming: ids)
    case .stopWaiting:
        guard state.pending != nil else { setNotice(&state, "Nothing is waiting for the terminal."); return [] }
        setFlightNotice(&state, "Stopping the wait…")
        return [.stopWaiting]
    case .askAgain:
        return UnresolvedScreen.askAgain(&state)
    case .openShiftThenSend(let b, let payment):
        let interrupted = PaymentScreen.interrupted(state, named: payment)
        let cmds = send(&state, .batch(b))
        if !cmds.isEmpty { state.sendOnceShiftOpens = interrupted }
        return cmds
    }
}

/// What answers a box that moves money, said when a key that does not (Enter, a number) was pressed: the choices'
/// letters, and on a keypad keymap the confirm key (after a number where there are several choices).
func deliberateHint(_ c: Confirmation, _ s: AppState) -> String {
    let back = s.keymap.isKeypad ? "- goes back" : "Esc goes back"
    if let k = s.keymap.keys(for: .confirm).first {
        let letter = s.keymap.isKeypad ? "" : " (or \(c.choices[0].key))"
        if c.choices.count == 1 { return "Press \(k)\(letter) to \(c.choices[0].label); \(back)." }
        if let i = c.selected, c.choices.indices.contains(i) { return "Press \(k) to \(c.choices[i].label); \(back)." }
        let each = c.choices.enumerated().map { "\($0.offset + 1) \(k) to \($0.element.label)" }.joined(separator: ", ")
        return "Press " + each + "; " + back + "."
    }
    let each = c.choices.map { "\($0.key) to \($0.label)" }.joined(separator: ", ")
    let long = "Press " + each + ", or Esc to go back."
    return long.count <= 74 ? long : "Press " + each + "; Esc back."
}

/// What answers a box that moves no money, after an Enter that picked nothing.
func enterHint(_ c: Confirmation) -> String {
    // Short enough for one line at 80 columns: each choice's key and words, then Esc.
    let each = c.choices.map { "\($0.key) to \($0.label)" }.joined(separator: ", ")
    let long = "Press " + each + " (or its number, then Enter), or Esc to go back."
    return long.count <= 74 ? long : "Press " + each + "; Esc back."
}

/// A box closes, whatever it did: the form under it is kept (its text selected), so digits typed next replace the
/// amount instead of being appended to it. A payment then sent makes its form fresh (`send`).
func closeBox(_ state: inout AppState) {
    state.overlay = nil
    guard state.screen.component.holdsTyping, var f = state.forms[state.screen], f.hasText else { return }
    f.keep()
    state.forms[state.screen] = f
}

/// "Cancelled: nothing was done. Amount € 20 kept …" after a box over a form closed: the part about the form goes
/// with the text it names (`setKeptNotice`).
func cancelledNotice(_ state: inout AppState) {
    guard state.form.hasSelection, state.screen.component.holdsTyping else { setNotice(&state, "Cancelled: nothing was done."); return }
    // "Typing replaces it" only where typing goes into what was kept: a refund from a journal row keeps its STAN with
    // the cursor on Amount, where the next digits go.
    guard let f = state.form.focused, !f.selected else {
        setKeptNotice(&state, "Cancelled: nothing was done. " + keptWords(state.form, state) + " kept: typing replaces it.")
        return
    }
    setKeptNotice(&state, "Cancelled: nothing was done. " + keptWords(state.form, state) + " kept; typing goes to \(f.label).")
}

func confirmOverlay(_ c: Confirmation, _ s: AppState, _ buf: inout ScreenBuffer) {
    let longest = ([c.title] + c.lines).map(\.displayWidth).max() ?? 20
    let width = min(buf.size.width - 4, max(44, longest + 6))
    // Lines longer than the box wraps, never cut: a cashier must read all of a warning.
    let lines = c.lines.flatMap { $0.displayWidth <= width - 6 ? [$0] : wrap($0, width: max(10, width - 6)) }
    let height = min(buf.size.height - 2, lines.count + c.choices.count + 6)
    let r = Rect(x: (buf.size.width - width) / 2, y: (buf.size.height - height) / 2, width: width, height: height)
    buf.fill(r, role: .normal)
    buf.box(r, title: c.title, role: .warning, titleRole: .warning)
    var y = r.y + 2
    for l in lines where y < r.maxY - 1 { buf.put(l, x: r.x + 3, y: y, role: .normal, maxWidth: r.width - 6); y += 1 }
    y += 1
    for (i, ch) in c.choices.enumerated() where y < r.maxY - 1 {
        // Each choice has its letter and its number; Enter is offered beside the one it picks now (none at first
        // where every choice matters: charged / not charged, charging again).
        // In a box that moves money neither Enter nor a number answers: the letter does, or on a keypad the confirm
        // key (after the choice's number where there are several).
        let selected = c.selected == i
        let confirmKey = s.keymap.keys(for: .confirm).first.map(\.description)
        // A keypad cashier has no letters: Enter and the number, or in a box that moves money the confirm key.
        let letter = s.keymap.isKeypad ? "" : String(ch.key) + "/"
        let k = !c.isDeliberate ? (selected ? "Enter/" : "") + letter + "\(i + 1)"
            : confirmKey.map { (s.keymap.isKeypad ? "" : String(ch.key) + " or ") + (c.choices.count == 1 ? $0 : "\(i + 1) \($0)") }
              ?? String(ch.key)
        let used = buf.put((selected ? "▸" : " ") + "[" + k + "] ", x: r.x + 2, y: y, role: .helpKey, attrs: .bold)
        buf.put(ch.label, x: r.x + 2 + used, y: y, role: .normal, maxWidth: r.width - 5 - used)
        y += 1
    }
    if y < r.maxY - 1 {
        let keys = s.keymap.isKeypad ? "-" : "Esc" + (c.choices.contains { $0.key == "n" } ? "" : "/n") + "/-"
        let used = buf.put(" [" + keys + "] ", x: r.x + 2, y: y, role: .helpKey, attrs: .bold)
        buf.put("cancel, nothing happens", x: r.x + 2 + used, y: y, role: .normal, maxWidth: r.width - 5 - used)
    }
}
