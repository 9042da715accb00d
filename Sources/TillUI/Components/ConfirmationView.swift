import TillProtocol
import TillModel

func handleConfirm(_ state: inout AppState, _ c: Confirmation, _ key: Key) -> [Command] {
    var choice: ConfirmChoice?
    switch key {
    case .enter:
        // Enter picks the selected choice: the first where Enter may pick it, else only one a digit selected
        // (charged / not charged, charging again, stop waiting, above confirm_above: never one Enter).
        guard let i = c.selected, c.choices.indices.contains(i) else {
            // A number pressed next (and alone) selects again: "9 Enter" was a slip, "1 Enter" then answers.
            var next = c
            next.keysPressed = 0
            state.overlay = .confirm(next)
            // Short enough for one line at 80 columns: each choice's key and words, then Esc.
            let each = c.choices.map { "\($0.key) to \($0.label)" }.joined(separator: ", ")
            let long = "Press " + each + " (or its number, then Enter), or Esc to go back."
            setNotice(&state, long.count <= 74 ? long : "Press " + each + "; Esc back.", error: true)
            return []
        }
        choice = c.choices[i]
    case .esc, .backspace, .char("-"): closeBox(&state); setNotice(&state, "Cancelled: nothing was done." + keptNote(state)); return []
    case .char(let ch) where ch.isASCII && ch.isNumber:
        // A number selects (the keypad's way to answer), then Enter does it; but only as the first key since the box
        // opened: in "15 Enter" typed by habit the 1 would select the first choice and Enter pick it. A number after
        // any other key selects nothing and undoes a selection, so an amount typed into a box never answers it (and
        // in a box that moves money nothing is selected to fall back to).
        var next = c
        next.keysPressed += 1
        if c.keysPressed == 0, let n = ch.wholeNumberValue, n >= 1, n <= c.choices.count {
            next.selected = n - 1
            setNotice(&state, "Enter: \(c.choices[n - 1].label). Esc or - cancels.")
        } else {
            next.selected = c.defaultSelection
            setNotice(&state, "Answer with one number, then Enter (or a letter); Esc or - cancels.", error: true)
        }
        state.overlay = .confirm(next)
        return []
    case .char(let ch):
        let lower = Character(ch.lowercased())
        if lower == "n" && !c.choices.contains(where: { $0.key == "n" }) {
            closeBox(&state); setNotice(&state, "Cancelled: nothing was done." + keptNote(state)); return []
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
        return askAgain(&state)
    }
}

/// A box closes, whatever it did: the form under it is kept (its text selected), so digits typed next replace the
/// amount instead of being appended to it. A payment then sent makes its form fresh (`send`).
func closeBox(_ state: inout AppState) {
    state.overlay = nil
    guard holdsTyping(state.screen), var f = state.forms[state.screen], f.hasText else { return }
    f.keep()
    state.forms[state.screen] = f
}

/// "Amount € 20 kept …" after a box over a form closed, for the notice.
func keptNote(_ state: AppState) -> String {
    guard let a = state.form.fields.first(where: { $0.id == .amount && $0.selected })?.text else { return "" }
    return " Amount \(state.currency) \(a) kept: typing replaces it."
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
        let selected = c.selected == i
        let k = (selected ? "Enter/" : "") + String(ch.key) + "/\(i + 1)"
        let used = buf.put((selected ? "▸" : " ") + "[" + k + "] ", x: r.x + 2, y: y, role: .helpKey, attrs: .bold)
        buf.put(ch.label, x: r.x + 2 + used, y: y, role: .normal, maxWidth: r.width - 5 - used)
        y += 1
    }
    if y < r.maxY - 1 {
        let used = buf.put(" [Esc" + (c.choices.contains { $0.key == "n" } ? "" : "/n") + "/-] ", x: r.x + 2, y: y, role: .helpKey, attrs: .bold)
        buf.put("cancel, nothing happens", x: r.x + 2 + used, y: y, role: .normal, maxWidth: r.width - 5 - used)
    }
}
