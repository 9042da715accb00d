import TillProtocol
import TillModel

/// The journal: every request and its outcome, filtered as typed, a detail view per entry.
enum JournalScreen: ScreenComponent {
    static func update(_ state: inout AppState, _ action: KeyAction) -> [Command] { journalAction(&state, action) }
    static func submit(_ state: inout AppState) -> [Command] { journalAction(&state, .submit) }
    static func render(_ state: AppState, _ r: Rect, _ buf: inout ScreenBuffer) { journalScreen(state, r, &buf) }
}

func journalFilter(_ s: AppState) -> JournalFilter {
    JournalFilter(scope: s.journal.allBatches ? .all : .currentBatch)
}

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
    case .reprint:
        let e = state.journal.detail ?? (list.indices.contains(state.journal.selected) ? list[state.journal.selected] : nil)
        if let e { confirmReprint(&state, e) } else { setNotice(&state, "No journal row selected to reprint.", error: true) }
        return []
    default: return []
    }
    clampJournal(&state)
    if state.journal.detail != nil, list.indices.contains(state.journal.selected) {
        state.journal.detail = list[state.journal.selected]; state.journal.detailScroll = 0
    }
    return []
}

/// The order code whose receipt a journal row can reprint: an approved sale, pre-auth, refund or
/// capture with the order code the terminal answered; nil for every other row.
func reprintableOrderCode(_ e: JournalEntry) -> String? {
    guard Format.movesMoney(e.action), e.state == .approved, let o = e.response?.orderCode, !o.isEmpty else { return nil }
    return o
}

/// Reprint from a journal row: asks first, naming the payment; refused with a reason on other rows.
func confirmReprint(_ state: inout AppState, _ e: JournalEntry) {
    guard let order = reprintableOrderCode(e) else {
        let why = !Format.movesMoney(e.action) ? "only a sale, pre-auth, refund or capture has a receipt"
            : e.state != .approved ? "only an approved payment has a receipt (this one is \(Format.stateName(e.state)))"
            : "the terminal gave no order code for it"
        setNotice(&state, "Cannot reprint #\(e.id): " + why + ".", error: true)
        return
    }
    let amount = (e.response?.amount ?? e.amount).map { a in (e.response?.tipAmount ?? e.tipAmount).map { a + $0 } ?? a }
    var what = Format.actionName(e.action).capitalizedFirst
    if let amount { what += " " + Format.money(amount, state.currency) }
    what += " at " + Format.hoursMinutesOfDay(e.createdAtMs, offsetMinutes: state.tzOffsetMinutes)
    var lines = [what + (Format.card(e.response).map { ", " + $0 } ?? ""), "order code " + order]
    lines.append("The terminal prints its receipt again; no money moves.")
    state.overlay = .confirm(Confirmation(
        title: "Reprint the receipt?", lines: lines,
        choices: [ConfirmChoice(key: "p", label: "print it again", action: .send(.reprint(ReprintRequest(orderCode: order))))]))
}

extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}

/// How many journal rows fit on the screen (used for paging).
public func journalRows(_ size: Size) -> Int { Layout(size).journalRows }

func stateRole(_ st: EntryState) -> Role {
    switch st {
    case .approved: return .approved
    case .declined: return .declined
    case .aborted: return .aborted
    case .unknown, .pending, .sent, .review: return .unknown
    case .resolved, .duplicate: return .dim
    }
}

func journalScreen(_ s: AppState, _ r: Rect, _ buf: inout ScreenBuffer) {
    if let d = s.journal.detail { journalDetail(d, s, r, &buf); return }
    let form = s.form
    let x = r.x + 1
    if let f = form.fields.first {
        drawField(f, focused: true, error: nil, x: x, labelW: 8, fieldX: x + 8, fieldW: min(30, r.width - 10), y: r.y, currency: s.currency, &buf)
    }
    let list = s.visibleJournal
    let counts = "\(list.count) of \(s.journal.entries.count)"
    buf.put(counts, x: r.maxX - counts.displayWidth - 1, y: r.y, role: .hint)
    let width = r.width - 2
    let withTime = width >= 50
    let widths = withTime ? [5, 6, 9, 10, 10] : [4, 9, 9, 9]
    let header = columns(withTime ? ["#", "time", "what", "amount", "result", "STAN / card"] : ["#", "what", "amount", "result", "STAN / card"], widths, width)
    buf.put(header, x: x, y: r.y + 1, role: .label, attrs: .bold)
    let rows = Layout(buf.size).journalRows
    if s.journal.loading && list.isEmpty { buf.put("Loading…", x: x, y: r.y + 2, role: .hint) }
    else if list.isEmpty { buf.put(s.journal.entries.isEmpty ? "No transactions yet." : "Nothing matches the filter.", x: x, y: r.y + 2, role: .hint) }
    var y = r.y + 2
    var i = s.journal.top
    while i < list.count && y < r.y + 2 + rows {
        let e = list[i]
        let selected = i == s.journal.selected
        // The amount the card moved: amount + tip, as the terminal answered it.
        let total = (e.response?.amount ?? e.amount).map { a in (e.response?.tipAmount ?? e.tipAmount).map { a + $0 } ?? a }
        var values = ["\(e.id)", Format.actionName(e.action), total.map { $0.formatted() } ?? "",
                      Format.stateName(e.state), e.response?.referenceNumber ?? Format.card(e.response) ?? ""]
        if withTime { values.insert(String(Format.clock(e.createdAtMs, offsetMinutes: s.tzOffsetMinutes).prefix(5)), at: 1) }
        let line = columns(values, widths, width)
        buf.put(line, x: x, y: y, role: selected ? .selection : .normal, attrs: selected ? .bold : [], maxWidth: width)
        if selected { buf.restyle(Rect(x: x, y: y, width: width, height: 1), role: .selection, attrs: .bold) }
        else {
            // Colour the result column by its state.
            let col = widths.prefix(widths.count - 1).reduce(0, +)
            buf.restyle(Rect(x: x + col, y: y, width: Format.stateName(e.state).count, height: 1), role: stateRole(e.state))
        }
        y += 1; i += 1
    }
    var parts = ["\(s.keymap.hint(.submit)) detail", "\(s.keymap.hint(.scope)) " + (s.journal.allBatches ? "this batch" : "all")]
    if list.indices.contains(s.journal.selected), reprintableOrderCode(list[s.journal.selected]) != nil {
        parts.append("\(s.keymap.hint(.reprint)) reprint")
    }
    parts.append("\(s.keymap.hint(.cancel)) " + escWord(s))
    // Where it does not fit, the batch/all key goes (it is in the help).
    if parts.joined(separator: "  ").displayWidth > r.width - 2, parts.count > 3 { parts.remove(at: 1) }
    let hint = parts.joined(separator: "  ")
    buf.put(hint, x: x, y: r.maxY - 1, role: .hint, maxWidth: r.width - 2)
}

func journalDetail(_ e: JournalEntry, _ s: AppState, _ r: Rect, _ buf: inout ScreenBuffer) {
    var rows: [(String, String, Role)] = []
    rows.append(("state", Format.stateName(e.state) + "  (" + Format.actionName(e.action) + ")", stateRole(e.state)))
    rows.append(("created", Format.dateTime(e.createdAtMs, offsetMinutes: s.tzOffsetMinutes), .normal))
    if let a = e.amount { rows.append(("amount", Format.money(a, s.currency), .amount)) }
    if let t = e.tipAmount { rows.append(("tip", Format.money(t, s.currency), .amount)) }
    if let c = e.clientTransactionId, e.response?.clientTransactionId != c { rows.append(("reference", c, .normal)) }
    if let b = e.batchName ?? e.batchId { rows.append(("batch", b, .normal)) }
    if let n = e.note { rows.append(("note", n, .warning)) }
    if let resp = e.response {
        for f in resp.fields where !["status", "action", "amount", "tipAmount"].contains(f.name) && !f.value.isEmpty {
            rows.append((f.name, f.value, f.name == "message" ? (resp.isApproved ? .normal : .error) : .normal))
        }
    } else { rows.append(("answer", "none received", .unknown)) }
    let x = r.x + 1
    let vx = x + 20
    let room = Layout(buf.size).detailRows
    let first = max(0, min(s.journal.detailScroll, rows.count - room))
    var y = r.y
    for (k, v, role) in rows.dropFirst(first).prefix(room) {
        buf.put(k, x: x, y: y, role: .label, maxWidth: 19)
        buf.put(v, x: vx, y: y, role: role, maxWidth: r.maxX - vx)
        y += 1
    }
    let more = rows.count > room ? "  \(s.keymap.hint(.up))/\(s.keymap.hint(.down)) scroll" : ""
    let reprint = reprintableOrderCode(e) != nil ? "  \(s.keymap.hint(.reprint)) reprint" : ""
    buf.put("\(s.keymap.hint(.cancel)) back to the list" + reprint + more, x: x, y: r.maxY - 1, role: .hint, maxWidth: r.width - 2)
}
