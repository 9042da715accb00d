import TillProtocol
import TillModel

func handleConfirm(_ state: inout AppState, _ c: Confirmation, _ key: Key) -> [Command] {
    var choice: ConfirmChoice?
    switch key {
    case .enter:
        guard c.enterPicksFirst else {
            setNotice(&state, "Press " + c.choices.map { "\($0.key) to \($0.label)" }.joined(separator: ", ") + ", or Esc to go back.", error: true)
            return []
        }
        choice = c.choices.first
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
        // The "y" was about the earlier payment; the amount above confirm_above is asked about on its own.
        return sendAskingAbove(&state, r, confirming: ids)
    case .sendChecked(let r, let ids):
        return send(&state, r, confirming: ids)
    case .stopWaiting:
        guard state.pending != nil else { setNotice(&state, "Nothing is waiting for the terminal."); return [] }
        setNotice(&state, "Stopping the wait…")
        return [.stopWaiting]
    case .askAgain:
        setNotice(&state, "Asking the terminal again…")
        state.unresolved.recovering = true
        return [.recover]
    }
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
        // Enter is offered only where it picks the first choice (never for charged / not charged, charging again).
        let k = (i == 0 && c.enterPicksFirst ? "Enter/" : "") + String(ch.key)
        let used = buf.put("[" + k + "] ", x: r.x + 3, y: y, role: .helpKey, attrs: .bold)
        buf.put(ch.label, x: r.x + 3 + used, y: y, role: .normal, maxWidth: r.width - 6 - used)
        y += 1
    }
    if y < r.maxY - 1 {
        let used = buf.put("[Esc" + (c.choices.contains { $0.key == "n" } ? "" : "/n") + "] ", x: r.x + 3, y: y, role: .helpKey, attrs: .bold)
        buf.put("cancel, nothing happens", x: r.x + 3 + used, y: y, role: .normal, maxWidth: r.width - 6 - used)
    }
}
