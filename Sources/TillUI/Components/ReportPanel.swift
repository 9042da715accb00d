import TillProtocol
import TillModel

/// Keys on a full-screen report: scroll, export, close.
func handleReportKey(_ state: inout AppState, _ panel: ReportPanel, _ key: Key) -> [Command] {
    var p = panel
    let lines = p.report.reportLines(state.reportFormat, store: state.storeSync).count
    let page = reportPage(p, Layout(state.size))
    let maxScroll = max(0, lines - page)
    // A keypad cashier's `-` closes the report, as it closes the menu and goes back in a box (scrolling up is `-`
    // elsewhere; here the report is read from its top, `+` scrolls down).
    let action = state.keymap.isKeypad && key == .char("-") ? .cancel : state.keymap.action(for: key)
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
        if p.report.kind == .closing, state.screen == .batch, state.batch?.isOpen != true {
            // The shift's close read: back on Sale. Left on the Batch screen, the next customer's amount typed by habit
            // went into "New batch" and Enter opened a shift named "12".
            let cmds = go(&state, .sale)
            setNotice(&state, "Shift closed. Back on Sale: the next sale asks first to open a new shift.")
            return cmds
        }
        return []
    case .menu?:
        // Over the report: export, close, or a screen, by number.
        state.overlay = .report(p)
        return openMenu(&state)
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

/// The live X report on the Batch screen: the rows of `Report.rows` the panel shows (`panelKeep`), under the words the
/// full report uses, as many as fit, in the report's order. When not all fit, the net total and what needs a look
/// (waiting, unknown) are kept before the figures F9 shows whole.
func runningReport(_ report: Report, _ s: AppState, x: Int, y: inout Int, maxY: Int, width: Int, _ buf: inout ScreenBuffer) {
    let f = s.reportFormat
    let title = report.kind == .running ? "Running (X) report" : "Last shift's (Z) report"
    guard y < maxY else { return }
    buf.put(title, x: x, y: y, role: .title, attrs: .bold, maxWidth: width); y += 1
    let rows = report.rows.filter { $0.panelKeep != nil && !($0.panelOnlyWhenNotZero && $0.value.isZero) }
    // The count goes with the label ("Sales approved (2)"): "2 × € 60.00" read as two times 60.00.
    let labels = rows.map { r in r.label + (r.value.count.map { " (\($0))" } ?? "") }
    let values = rows.map { r in r.value.cents.map { (r.subtracts && $0 > 0 ? "-" : "") + f.money($0) } ?? "" }
    // The amounts line up after the longest label, with room for the longest amount.
    let labelW = min((labels.map(\.count).max() ?? 0) + 2, max(0, width - 2 - (values.map(\.count).max() ?? 0)))
    let valueW = width - 2 - labelW
    // What to do about a figure that needs a person ("check the terminal") goes under it, across the panel: a value
    // too long for its line wraps at words under itself, each amount with its currency. Money is never cut, a row is
    // shown whole or not at all.
    let lines = rows.indices.map { i -> (value: [String], note: [String]) in
        let r = rows[i]
        let value = wrap(values[i], width: valueW)
        let note = r.value.isZero ? [] : r.note.map { wrap($0, width: width - 4) } ?? []
        return (value.isEmpty ? [""] : value, note)
    }
    // Lower `panelKeep` is kept first; rows of one `panelKeep` are shown together or not at all, so the figures shown
    // always add up to the net total.
    var room = maxY - y
    var shown = Set<Int>()
    for keep in Set(rows.compactMap(\.panelKeep)).sorted() {
        let group = rows.indices.filter { rows[$0].panelKeep == keep }
        let need = group.reduce(0) { $0 + lines[$1].value.count + lines[$1].note.count }
        if need <= room { shown.formUnion(group); room -= need }
    }
    for i in rows.indices where shown.contains(i) {
        let r = rows[i]
        let role: Role = r.isTotal ? .approved : r.needsAPerson && !r.value.isZero ? .unknown : r.section == .totals ? .amount : .normal
        buf.put(labels[i], x: x + 2, y: y, role: .label, maxWidth: labelW - 1)
        for l in lines[i].value {
            buf.put(l, x: x + 2 + labelW, y: y, role: role, attrs: r.isTotal ? .bold : [], maxWidth: valueW)
            y += 1
        }
        for l in lines[i].note { buf.put(l, x: x + 4, y: y, role: role, maxWidth: width - 4); y += 1 }
    }
}

/// How a report line of each kind is drawn: the title and headings as titles, the net total as money in, what needs
/// checking as unknown (bold, all three), the rest plain.
func reportRole(_ kind: ReportLine.Kind) -> Role {
    switch kind {
    case .title, .heading: return .title
    case .total: return .approved
    case .warning: return .unknown
    case .detail, .blank, .columns, .row: return .normal
    }
}

/// A report full screen, scrollable, with the keys to export and close it.
func reportOverlay(_ p: ReportPanel, _ s: AppState, _ buf: inout ScreenBuffer) {
    let layout = Layout(buf.size)
    let r = layout.overlay
    buf.fill(r, role: .normal)
    buf.box(r, title: p.report.title)
    let lines = p.report.reportLines(s.reportFormat, store: s.storeSync)
    let saved = exportLines(p, width: r.width - 4)
    let page = reportPage(p, layout)
    var y = r.y + 1
    for l in lines.dropFirst(p.scroll).prefix(page) {
        let role = reportRole(l.kind)
        buf.put(l.text, x: r.x + 2, y: y, role: role, attrs: role == .normal ? [] : .bold, maxWidth: r.width - 4)
        y += 1
    }
    let more = lines.count > page ? "  lines \(p.scroll + 1)–\(min(lines.count, p.scroll + page)) of \(lines.count), ↑↓ PgUp PgDn" : ""
    // Enter closes it too (said: a cashier presses it by habit); a keypad cashier is named only keypad keys (`-`
    // closes, `/` the menu, which has the export), never Esc, Ctrl-e or PgUp.
    let keys: String
    if s.keymap.isKeypad {
        let scroll = lines.count > page ? "  lines \(p.scroll + 1)–\(min(lines.count, p.scroll + page)) of \(lines.count), + scrolls" : ""
        keys = "\(s.keymap.hint(.submit)) close  - close  \(s.keymap.hint(.menu)) menu (CSV)" + scroll
    } else {
        keys = "\(s.keymap.hint(.submit))/\(s.keymap.hint(.cancel)) close  \(s.keymap.hint(.export)) CSV  \(s.keymap.hint(.menu)) menu" + more
    }
    buf.put(keys, x: r.x + 2, y: r.maxY - 2, role: .hint, maxWidth: r.width - 4)
    for (i, l) in saved.enumerated() {
        buf.put(l, x: r.x + 2, y: r.maxY - 2 - saved.count + i, role: .approved, maxWidth: r.width - 4)
    }
}

/// Report lines shown at once: the layout's page, less the lines the export's "Saved …" takes beyond its one.
func reportPage(_ p: ReportPanel, _ layout: Layout) -> Int {
    max(1, layout.reportPage - max(0, exportLines(p, width: layout.overlay.width - 4).count - 1))
}

/// Where the export went, whole, in `width` columns: the folder (shortened in its middle where it does not fit,
/// "/home/…/till/exports/"), then each file's name on its own line (its middle shortened only where even that does
/// not fit, its end kept). A cashier is asked for the file by its name.
func exportLines(_ p: ReportPanel, width: Int) -> [String] {
    guard let first = p.exported.first, let slash = first.lastIndex(of: "/") else { return [] }
    let dir = String(first[...slash])
    let head = "Saved \(p.exported.count) CSV file\(p.exported.count == 1 ? "" : "s") in "
    let names = p.exported.map { path in path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path }
    return [head + middleShortened(dir, width: width - head.displayWidth)] + names.map { "  " + middleShortened($0, width: width - 2) }
}

/// `text` whole where it fits in `width` columns, else its start and end with "…" between (a path's end, the file,
/// is what is looked for).
func middleShortened(_ text: String, width: Int) -> String {
    guard text.count > width, width > 3 else { return text }
    let keep = width - 1
    let tail = keep * 2 / 3, start = keep - tail
    return String(text.prefix(start)) + "…" + String(text.suffix(tail))
}
