import TillProtocol
import TillModel

/// The smallest window the layout works in; anything smaller gets a clear message.
public let minimumSize = Size(width: 64, height: 20)

let spinnerFrames: [String] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

/// Draws the whole screen from the state. Pure: the same state and size give the same cells.
public func view(_ state: AppState, size: Size) -> ScreenBuffer {
    var buf = ScreenBuffer(size: size)
    render(state, into: &buf)
    return buf
}

/// Draws into an existing buffer (cleared first), so a runtime can reuse one allocation per frame.
public func render(_ state: AppState, into buf: inout ScreenBuffer) {
    let size = buf.size
    for i in buf.cells.indices { buf.cells[i] = .blank }
    guard size.width >= minimumSize.width, size.height >= minimumSize.height else {
        tooSmall(size, into: &buf)
        return
    }
    tabBar(state, &buf)
    let bodyTop = 1
    let bodyHeight = size.height - 3
    let rightWidth = size.width >= 120 ? 46 : (size.width >= 100 ? 40 : 34)
    let left = Rect(x: 0, y: bodyTop, width: size.width - rightWidth, height: bodyHeight)
    let right = Rect(x: size.width - rightWidth, y: bodyTop, width: rightWidth, height: bodyHeight)
    buf.box(left, title: screenTitle(state))
    let inner = left.inset(1)
    switch state.screen {
    case .sale, .preAuth, .capture, .refund: formScreen(state, inner, &buf)
    case .batch: batchScreen(state, inner, &buf)
    case .journal: journalScreen(state, inner, &buf)
    case .unresolved: unresolvedScreen(state, inner, &buf)
    }
    resultPane(state, right, &buf)
    noticeLine(state, y: size.height - 2, &buf)
    statusLine(state, y: size.height - 1, &buf)
    switch state.overlay {
    case .help?: helpOverlay(state, &buf)
    case .confirm(let c)?: confirmOverlay(c, state, &buf)
    case .report(let p)?: reportOverlay(p, state, &buf)
    case nil: break
    }
}

func tooSmall(_ size: Size, into buf: inout ScreenBuffer) {
    let lines = ["Window too small (\(size.width)×\(size.height)).",
                 "Please enlarge the window",
                 "to at least \(minimumSize.width)×\(minimumSize.height)."]
    let top = max(0, (size.height - lines.count) / 2)
    for (i, l) in lines.enumerated() {
        let x = max(0, (size.width - l.count) / 2)
        buf.put(l, x: x, y: top + i, role: i == 0 ? .warning : .normal, attrs: i == 0 ? .bold : [])
    }
}

func screenTitle(_ s: AppState) -> String {
    switch s.screen {
    case .sale: return "Sale"
    case .preAuth: return "Pre-authorisation"
    case .capture: return "Capture a pre-authorisation"
    case .refund: return "Refund / cancel a payment"
    case .batch: return "Batch (shift)"
    case .journal:
        if let d = s.journal.detail { return "Journal #\(d.id)" }
        return "Journal: " + (s.journal.allBatches ? "all batches" : "current batch")
    case .unresolved: return "Unresolved transactions"
    }
}

func tabBar(_ s: AppState, _ buf: inout ScreenBuffer) {
    let w = buf.size.width
    buf.fill(Rect(x: 0, y: 0, width: w, height: 1), role: .tab)
    let wide = w >= 100
    var x = 0
    if wide { x += buf.put(" till ", x: x, y: 0, role: .title, attrs: .bold) }
    for screen in Screen.allCases {
        let label = (wide ? " " : "") + s.keymap.hint(screen.action) + " " + screen.title + (wide ? " " : "")
        let role: Role = screen == s.screen ? .tabActive : .tab
        if x + label.count > w { break }
        x += buf.put(label, x: x, y: 0, role: role, attrs: screen == s.screen ? .bold : [])
        x += 1
    }
    let help = s.keymap.hint(.help) + " Help "
    if wide, x + help.count <= w { buf.put(help, x: w - help.count, y: 0, role: .tab) }
}

// MARK: - Forms

func formScreen(_ s: AppState, _ r: Rect, _ buf: inout ScreenBuffer) {
    let form = s.form
    var y = r.y + 1
    let labelW = 14
    let fieldX = r.x + 2 + labelW
    let fieldW = max(8, min(26, r.width - labelW - 12))
    let textW = r.width - 4
    if s.screen == .capture || s.screen == .refund {
        let what = s.screen == .capture ? "pre-authorisation" : "payment"
        for l in wrap("Find the \(what) by STAN, order code or short order code (dates optional).", width: textW) {
            buf.put(l, x: r.x + 2, y: y, role: .hint, maxWidth: textW); y += 1
        }
        y += 1
    }
    for (i, f) in form.fields.enumerated() {
        if y >= r.maxY - 2 { break }
        drawField(f, focused: i == form.focus, error: form.errors[f.id], x: r.x + 2, labelW: labelW, fieldX: fieldX, fieldW: fieldW,
                  y: y, currency: s.currency, &buf)
        // What a field adds, to the right of it.
        if f.id == "tipAmount", s.screen == .sale, let extra = tipNote(form, s.currency) {
            buf.put(extra, x: fieldX + fieldW + 1, y: y, role: .amount, maxWidth: r.maxX - fieldX - fieldW - 1)
        }
        y += 1
        if let e = form.errors[f.id] {
            for line in wrap("✗ " + e, width: r.maxX - fieldX - 1) where y < r.maxY - 2 {
                buf.put(line, x: fieldX, y: y, role: .error, maxWidth: r.maxX - fieldX); y += 1
            }
        }
        if f.id == "tipAmount", s.screen == .sale, y < r.maxY - 2 {
            let presets = [KeyAction.tip5, .tip10, .tip15, .tipNone].map { s.keymap.hint($0) + " " + ($0 == .tipNone ? "none" : $0.label.replacingOccurrences(" %", "%").replacingOccurrences("Tip ", "")) }
            let text = presets.joined(separator: "  ")
            let px = text.count <= r.maxX - fieldX - 1 ? fieldX : r.x + 2
            buf.put(text.count <= r.maxX - px - 1 ? text : presets.joined(separator: " "), x: px, y: y, role: .hint, maxWidth: r.maxX - px - 1)
            y += 1
        }
        y += (r.height >= 24 ? 1 : 0)
    }
    if let m = form.message, y < r.maxY - 1 {
        y += 1
        for line in wrap("✗ " + m, width: textW) where y < r.maxY - 1 { buf.put(line, x: r.x + 2, y: y, role: .error); y += 1 }
    }
    if s.screen == .sale, let total = saleTotal(form), y < r.maxY - 2 {
        y += 1
        buf.put("Total charged", x: r.x + 2, y: y, role: .label)
        buf.put(Format.money(total, s.currency), x: fieldX + 1, y: y, role: .amount, attrs: .bold)
        y += 1
    }
    let hint: String
    switch s.screen {
    case .refund: hint = "\(s.keymap.hint(.submit)) refund (asks first)   \(s.keymap.hint(.next)) next field"
    default: hint = "\(s.keymap.hint(.submit)) send   \(s.keymap.hint(.next)) next field   \(s.keymap.hint(.cancel)) clear"
    }
    buf.put(hint, x: r.x + 2, y: r.maxY - 1, role: .hint, maxWidth: textW)
}

func drawField(_ f: Field, focused: Bool, error: String?, x: Int, labelW: Int, fieldX: Int, fieldW: Int, y: Int, currency: String,
               _ buf: inout ScreenBuffer) {
    buf.put(f.label, x: x, y: y, role: error != nil ? .error : .label, attrs: focused ? .bold : [], maxWidth: labelW - 1)
    let role: Role = error != nil ? .fieldError : (focused ? .fieldFocused : .field)
    buf.fill(Rect(x: fieldX, y: y, width: fieldW, height: 1), role: role)
    var text = f.text
    var textRole = role
    if text.isEmpty && !focused { text = f.placeholder; textRole = role == .field ? .dim : role }
    let prefix = (f.kind == .money && !(f.text.isEmpty && !focused)) ? currency + " " : ""
    var shown = prefix + text
    let room = fieldW - 2
    if shown.count > room { shown = "…" + String(shown.suffix(room - 1)) }
    let used = buf.put(shown, x: fieldX + 1, y: y, role: textRole, maxWidth: room)
    if focused { buf.put("_", x: fieldX + 1 + used, y: y, role: role, attrs: .bold) }
    if error != nil { buf.put("!", x: fieldX + fieldW - 1, y: y, role: role, attrs: .bold) }
}

func tipNote(_ form: Form, _ currency: String) -> String? {
    let t = form["tipAmount"].trimmingWhitespace()
    guard t.hasSuffix("%"), let amount = try? Money.parse(form["amount"]) else { return nil }
    guard case .success(let tip) = tipValue(t, amount: amount) else { return nil }
    return "= " + tip.formatted()
}

func saleTotal(_ form: Form) -> Money? {
    guard let amount = try? Money.parse(form["amount"]), amount.cents > 0 else { return nil }
    let t = form["tipAmount"].trimmingWhitespace()
    if t.isEmpty { return amount }
    guard case .success(let tip) = tipValue(t, amount: amount) else { return nil }
    return amount + tip
}

// MARK: - Batch

func batchScreen(_ s: AppState, _ r: Rect, _ buf: inout ScreenBuffer) {
    var y = r.y + 1
    let x = r.x + 2
    let vx = x + 14
    let w = r.width - 4
    func row(_ label: String, _ value: String, role: Role = .normal) {
        guard y < r.maxY - 1 else { return }
        buf.put(label, x: x, y: y, role: .label)
        buf.put(value, x: vx, y: y, role: role, maxWidth: r.maxX - vx - 1)
        y += 1
    }
    if let b = s.batch, b.isOpen {
        buf.put("Active batch", x: x, y: y, role: .title, attrs: .bold); y += 1
        row("Name", b.name ?? "(no name)", role: .amount)
        if let id = b.id, id.count > r.maxX - vx - 1 {
            row("Id", "")
            if y < r.maxY - 1 { buf.put(id, x: x + 2, y: y, role: .normal, maxWidth: w - 2); y += 1 }
        } else { row("Id", b.id ?? "—") }
        if let o = b.openedAtMs {
            row("Opened", Format.dateTime(o, offsetMinutes: s.tzOffsetMinutes))
            if let a = b.autoCloseAtMs {
                let left = a - s.nowMs
                row("Auto-close", left > 0 ? "in \(Format.hoursMinutes(left)) (48 h rule)" : "due now (48 h passed)",
                    role: left < 3_600_000 ? .warning : .normal)
            }
        }
    } else if s.batch == nil {
        buf.put("Asking for the batch…", x: x, y: y, role: .hint); y += 1
    } else {
        buf.put("No batch is open.", x: x, y: y, role: .warning, attrs: .bold); y += 1
        buf.put("Open one to start the shift.", x: x, y: y, role: .hint); y += 1
    }
    y += 1
    if let report = s.report, y < r.maxY - 3 {
        runningReport(report, s, x: x, y: &y, maxY: r.maxY - 1, width: w, &buf)
        y += 1
    }
    let roomy = r.height >= 26
    let form = s.form
    let fieldX = x + 14
    let fieldW = max(8, min(30, r.maxX - fieldX - 2))
    for (i, f) in form.fields.enumerated() where y < r.maxY - 2 {
        drawField(f, focused: i == form.focus, error: form.errors[f.id], x: x, labelW: 14, fieldX: fieldX, fieldW: fieldW, y: y,
                  currency: s.currency, &buf)
        y += 1
        if let e = form.errors[f.id] {
            for line in wrap("✗ " + e, width: r.maxX - fieldX - 1) where y < r.maxY - 2 { buf.put(line, x: fieldX, y: y, role: .error); y += 1 }
        }
        if roomy {
            let hint = f.id == "batchName" ? "Enter opens it; the active one closes" : "Enter closes it, after asking"
            if y < r.maxY - 2 { buf.put(hint, x: x + 2, y: y, role: .hint, maxWidth: w - 2); y += 1 }
            y += 1
        }
    }
    buf.put("\(s.keymap.hint(.closeBatch)) close batch  \(s.keymap.hint(.report)) full report  \(s.keymap.hint(.next)) next", x: x, y: r.maxY - 1, role: .hint, maxWidth: w)
}

/// The live X report on the Batch screen: the lines that matter most, as many as fit.
func runningReport(_ report: Report, _ s: AppState, x: Int, y: inout Int, maxY: Int, width: Int, _ buf: inout ScreenBuffer) {
    let f = s.reportFormat
    let title = report.kind == .running ? "Running (X) report" : "Last shift's (Z) report"
    buf.put(title, x: x, y: y, role: .title, attrs: .bold, maxWidth: width); y += 1
    var rows: [(String, String, Role)] = [
        ("Sales", "\(report.sales.count) × " + f.money(report.sales.cents) + " + tips " + f.money(report.tips.cents), .amount),
        ("Refunds", "\(report.refunds.count) × " + (report.refunds.cents > 0 ? "-" : "") + f.money(report.refunds.cents), .amount),
        ("NET TOTAL", f.money(report.netCents), .approved),
    ]
    if report.captures.count > 0 || report.preAuths.count > 0 {
        rows.insert(("Captured", "\(report.captures.count) × " + f.money(report.captures.cents), .amount), at: 1)
    }
    let notIn = "\(report.declined.count) declined, \(report.aborted.count) aborted"
    rows.append(("Not counted", notIn, .normal))
    if report.unknown.count > 0 { rows.append(("UNKNOWN", "\(report.unknown.count): check the terminal", .unknown)) }
    for (label, value, role) in rows where y < maxY {
        buf.put(label, x: x + 2, y: y, role: .label, maxWidth: 12)
        buf.put(value, x: x + 14, y: y, role: role, attrs: label == "NET TOTAL" ? .bold : [], maxWidth: width - 14)
        y += 1
    }
}

/// A report full screen, scrollable, with the keys to export and close it.
func reportOverlay(_ p: ReportPanel, _ s: AppState, _ buf: inout ScreenBuffer) {
    let r = Rect(x: 0, y: 1, width: buf.size.width, height: buf.size.height - 2)
    buf.fill(r, role: .normal)
    buf.box(r, title: p.report.title)
    let lines = p.report.lines(s.reportFormat)
    let page = max(1, r.height - 4)
    var y = r.y + 1
    for (i, l) in lines.enumerated().dropFirst(p.scroll).prefix(page) {
        let role: Role
        if i == 0 || l.hasPrefix("Approved sales by") || l == "Not in the totals" { role = .title }
        else if l.hasPrefix("NET TOTAL") { role = .approved }
        else if l.contains("check the terminal") { role = .unknown }
        else { role = .normal }
        buf.put(l, x: r.x + 2, y: y, role: role, attrs: role == .normal ? [] : .bold, maxWidth: r.width - 4)
        y += 1
    }
    let more = lines.count > page ? "  lines \(p.scroll + 1)–\(min(lines.count, p.scroll + page)) of \(lines.count), ↑↓ PgUp PgDn scroll" : ""
    let keys = "\(s.keymap.hint(.export)) export CSV  Esc close" + more
    buf.put(keys, x: r.x + 2, y: r.maxY - 2, role: .hint, maxWidth: r.width - 4)
    if let first = p.exported.first, let slash = first.lastIndex(of: "/") {
        let dir = String(first[..<slash])
        buf.put("Saved \(p.exported.count) CSV file\(p.exported.count == 1 ? "" : "s") in \(dir)/", x: r.x + 2, y: r.maxY - 3,
                role: .approved, maxWidth: r.width - 4)
    }
}

// MARK: - Journal

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
    buf.put(counts, x: r.maxX - counts.count - 1, y: r.y, role: .hint)
    let width = r.width - 2
    let withTime = width >= 50
    let widths = withTime ? [5, 6, 9, 10, 10] : [4, 9, 9, 9]
    let header = columns(withTime ? ["#", "time", "what", "amount", "result", "STAN / card"] : ["#", "what", "amount", "result", "STAN / card"], widths, width)
    buf.put(header, x: x, y: r.y + 1, role: .label, attrs: .bold)
    let rows = r.height - 3
    if s.journal.loading && list.isEmpty { buf.put("Loading…", x: x, y: r.y + 2, role: .hint) }
    else if list.isEmpty { buf.put(s.journal.entries.isEmpty ? "No transactions yet." : "Nothing matches the filter.", x: x, y: r.y + 2, role: .hint) }
    var y = r.y + 2
    var i = s.journal.top
    while i < list.count && y < r.y + 2 + rows {
        let e = list[i]
        let selected = i == s.journal.selected
        var values = ["\(e.id)", Format.actionName(e.action), e.amount.map { $0.formatted() } ?? "",
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
    let hint = "\(s.keymap.hint(.submit)) detail  \(s.keymap.hint(.scope)) " + (s.journal.allBatches ? "this batch" : "all") + "  \(s.keymap.hint(.resolve)) resolve"
    buf.put(hint, x: x, y: r.maxY - 1, role: .hint, maxWidth: r.width - 2)
}

func columns(_ values: [String], _ widths: [Int], _ width: Int) -> String {
    var s = ""
    for (i, v) in values.enumerated() {
        if i < widths.count {
            var t = String(v.prefix(widths[i] - 1))
            while t.count < widths[i] { t += " " }
            s += t
        } else { s += v }
    }
    return String(s.prefix(width))
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
    let room = r.height - 1
    let first = max(0, min(s.journal.detailScroll, rows.count - room))
    var y = r.y
    for (k, v, role) in rows.dropFirst(first).prefix(room) {
        buf.put(k, x: x, y: y, role: .label, maxWidth: 19)
        buf.put(v, x: vx, y: y, role: role, maxWidth: r.maxX - vx)
        y += 1
    }
    let more = rows.count > room ? "  \(s.keymap.hint(.up))/\(s.keymap.hint(.down)) scroll" : ""
    buf.put("\(s.keymap.hint(.cancel)) back to the list" + more, x: x, y: r.maxY - 1, role: .hint, maxWidth: r.width - 2)
}

// MARK: - Unresolved

func unresolvedScreen(_ s: AppState, _ r: Rect, _ buf: inout ScreenBuffer) {
    var y = r.y + 1
    let x = r.x + 2
    let w = r.width - 4
    if s.recovering {
        buf.put("Checking the journal for unfinished", x: x, y: y, role: .inFlight, maxWidth: w); y += 1
        buf.put("transactions and asking the terminal…", x: x, y: y, role: .inFlight, maxWidth: w)
        return
    }
    if s.unresolved.isEmpty {
        buf.put("Nothing to check: every transaction", x: x, y: y, role: .normal, maxWidth: w); y += 1
        buf.put("in the journal has a known outcome.", x: x, y: y, role: .normal, maxWidth: w)
        buf.put("\(s.keymap.hint(.sale)) sale", x: x, y: r.maxY - 1, role: .hint)
        return
    }
    for l in wrap("These may or may not have taken money. Check the terminal, then mark each one resolved.", width: w) {
        buf.put(l, x: x, y: y, role: .warning, maxWidth: w); y += 1
    }
    y += 1
    for (i, e) in s.unresolved.enumerated() where y < r.maxY - 2 {
        let selected = i == s.unresolvedSelected
        let line = "#\(e.id) \(Format.dateTime(e.createdAtMs, offsetMinutes: s.tzOffsetMinutes).suffix(11)) \(Format.actionName(e.action)) \(e.amount.map { $0.formatted() } ?? "") \(Format.stateName(e.state))"
        buf.put(line, x: x, y: y, role: selected ? .selection : .normal, maxWidth: w)
        if selected { buf.restyle(Rect(x: x, y: y, width: w, height: 1), role: .selection, attrs: .bold) }
        y += 1
        if let n = e.note, y < r.maxY - 2 { buf.put("  " + n, x: x, y: y, role: .hint, maxWidth: w); y += 1 }
    }
    buf.put("\(s.keymap.hint(.submit)) resolve the selected one   \(s.keymap.hint(.sale)) sale", x: x, y: r.maxY - 1, role: .hint, maxWidth: w)
}

// MARK: - Result pane

func resultPane(_ s: AppState, _ r: Rect, _ buf: inout ScreenBuffer) {
    buf.box(r, title: s.pending != nil ? "In flight" : "Result")
    let inner = r.inset(1)
    let x = inner.x + 1
    let w = inner.width - 2
    var y = inner.y + 1
    if let p = s.pending {
        buf.put(p.summary, x: x, y: y, role: .amount, attrs: .bold, maxWidth: w); y += 2
        let elapsed = s.nowMs - p.startedAtMs
        let frame = spinnerFrames[Int((max(0, elapsed) / 100) % Int64(spinnerFrames.count))]
        buf.put(frame + (p.deadlineMs == nil ? " Sending…" : " Waiting for the terminal"), x: x, y: y, role: .inFlight, attrs: .bold, maxWidth: w); y += 1
        buf.put("elapsed      " + Format.duration(elapsed), x: x + 2, y: y, role: .normal, maxWidth: w - 2); y += 1
        if let d = p.deadlineMs {
            buf.put("times out in " + Format.duration(d - s.nowMs), x: x + 2, y: y, role: .normal, maxWidth: w - 2); y += 1
        }
        y += 1
        if p.abortRequested {
            buf.put("Abort requested…", x: x, y: y, role: .warning, attrs: .bold, maxWidth: w)
        } else {
            buf.put("Press \(s.keymap.hint(.cancel)) to abort", x: x, y: y, role: .helpKey, attrs: .bold, maxWidth: w)
        }
        return
    }
    guard let res = s.result else {
        buf.put("Ready for the next customer.", x: x, y: y, role: .hint, maxWidth: w)
        return
    }
    let (word, role, message) = verdict(res.outcome)
    // The big verdict: three rows of solid colour (reverse video without colour).
    let banner = Rect(x: inner.x, y: y, width: inner.width, height: 3)
    buf.fill(banner, role: role, attrs: .bold)
    let spaced = !word.contains(" ") && word.count * 2 - 1 <= inner.width - 2 ? word.map { String($0) }.joined(separator: " ") : word
    buf.put(spaced, x: inner.x + max(0, (inner.width - spaced.count) / 2), y: y + 1, role: role, attrs: .bold, maxWidth: inner.width)
    y += 4
    for l in wrap(message, width: w).prefix(4) where y < inner.maxY { buf.put(l, x: x, y: y, role: role == .approved ? .normal : .error, maxWidth: w); y += 1 }
    y += 1
    let vx = x + 9
    func row(_ k: String, _ v: String?, role: Role = .normal) {
        guard let v, !v.isEmpty, y < inner.maxY - 1 else { return }
        buf.put(k, x: x, y: y, role: .label, maxWidth: 9)
        buf.put(v, x: vx, y: y, role: role, maxWidth: inner.maxX - vx - 1)
        y += 1
    }
    let e = res.outcome.entry
    let resp = e?.response
    if e?.action != .sale && e?.action != .preAuth { row("What", res.summary) }
    let amount = resp?.amount ?? e?.amount
    let tip = resp?.tipAmount ?? e?.tipAmount
    if e?.action != .batch {
        row("Amount", amount.map { Format.money($0, s.currency) }, role: .amount)
        if let tip, tip.cents > 0 {
            row("Tip", Format.money(tip, s.currency), role: .amount)
            if let amount { row("Total", Format.money(amount + tip, s.currency), role: .amount) }
        }
    }
    row("Card", resp?.cardType)
    row("Number", resp?.accountNumber)
    row("Method", resp?.verificationMethod)
    row("STAN", resp?.referenceNumber)
    row("Order", resp?.orderCode)
    row("Auth", resp?.authorisationCode)
    if e?.action == .batch { row("Batch", resp?.batchName ?? resp?.batchId) }
    if case .unknown(let u) = res.outcome { row("Note", u.note, role: .warning) }
    buf.put("at " + Format.clock(res.atMs, offsetMinutes: s.tzOffsetMinutes), x: x, y: inner.maxY - 1, role: .dim, maxWidth: w)
}

/// The big word, its role, and the message under it.
public func verdict(_ o: ActionOutcome) -> (String, Role, String) {
    switch o {
    case .answered(let e):
        let msg = e.response?.message ?? ""
        switch e.state {
        case .approved: return (e.action == .batch ? "DONE" : "APPROVED", .approved, msg.isEmpty ? "Transaction successful." : msg)
        case .aborted: return ("ABORTED", .aborted, msg.isEmpty ? "Aborted: no money was taken." : msg)
        case .declined: return (e.action == .batch ? "FAILED" : "DECLINED", .declined, msg.isEmpty ? "Declined." : msg)
        case .review: return ("CHECK THE TERMINAL", .unknown, e.note ?? "The answer needs checking before it counts.")
        case .duplicate: return ("NOT CHARGED AGAIN", .unknown, e.note ?? "The terminal repeated an earlier answer.")
        default: return ("OUTCOME UNKNOWN", .unknown, e.note ?? "Check the terminal.")
        }
    case .unknown(let e):
        _ = e
        return ("OUTCOME UNKNOWN", .unknown, "No answer. The money may or may not have been taken: check the terminal, then resolve it.")
    case .transportError(_, let m):
        return ("NOT SENT", .declined, m)
    case .invalid(let errs):
        return ("REFUSED", .declined, errs.map(\.message).joined(separator: " "))
    case .busy:
        return ("BUSY", .aborted, "Another request is in flight.")
    case .otherTillBusy(let m):
        return ("BUSY", .aborted, m)
    case .needsConfirmation:
        return ("NOT SENT", .unknown, "An earlier payment's outcome is unknown: check the terminal first.")
    case .journalFailed(_, let m):
        return ("JOURNAL ERROR", .declined, m)
    }
}

// MARK: - Bottom lines

func noticeLine(_ s: AppState, y: Int, _ buf: inout ScreenBuffer) {
    let w = buf.size.width
    if let n = s.notice {
        buf.put((s.noticeIsError ? "! " : "") + n, x: 1, y: y, role: s.noticeIsError ? .error : .hint, maxWidth: w - 2)
    } else if let warn = s.startupWarnings.first {
        buf.put("! " + warn, x: 1, y: y, role: .warning, maxWidth: w - 2)
    } else {
        let keys = "\(s.keymap.hint(.help)) help  \(s.keymap.hint(.quit)) quit"
        buf.put(keys, x: 1, y: y, role: .hint, maxWidth: w - 2)
    }
}

func statusLine(_ s: AppState, y: Int, _ buf: inout ScreenBuffer) {
    let w = buf.size.width
    buf.fill(Rect(x: 0, y: y, width: w, height: 1), role: .statusLine)
    let clock = " " + Format.clock(s.nowMs, offsetMinutes: s.tzOffsetMinutes) + " "
    let end = w - clock.count
    var x = buf.put(" " + s.transport + " ", x: 0, y: y, role: .statusLine, attrs: .bold, maxWidth: end)
    func put(_ t: String, _ role: Role = .statusLine) { x += buf.put(t, x: x, y: y, role: role, maxWidth: max(0, end - x)) }
    put("│ ")
    if let b = s.batch {
        if b.isOpen {
            var t = "batch " + (b.name ?? b.id.map { String($0.prefix(8)) } ?? "open")
            if let a = b.autoCloseAtMs { t += " (\(Format.hoursMinutes(a - s.nowMs)) left)" }
            put(t + " ")
        } else { put("no batch open ", .statusAlert) }
    } else { put("batch ? ") }
    put("│ ")
    switch s.connection {
    case .ready: put(s.pending != nil ? "● busy " : "● ready ")
    case .problem(let m): put("✗ " + m + " ", .statusAlert)
    }
    if !s.unresolved.isEmpty && !s.recovering { put("│ "); put("\(s.unresolved.count) unresolved", .statusAlert) }
    if end > x { buf.put(clock, x: end, y: y, role: .statusLine) }
}

// MARK: - Overlays

func helpOverlay(_ s: AppState, _ buf: inout ScreenBuffer) {
    let actions = KeyAction.allCases.filter { !s.keymap.keys(for: $0).isEmpty }
    let cols = buf.size.width >= 100 ? 2 : (buf.size.height - 6 >= actions.count ? 1 : 2)
    let perCol = (actions.count + cols - 1) / cols
    let keyW = 17, labelW = 19
    let colW = keyW + labelW + 1
    let width = min(buf.size.width - 2, cols * colW + 3)
    let height = min(buf.size.height - 2, perCol + 4)
    let r = Rect(x: (buf.size.width - width) / 2, y: (buf.size.height - height) / 2, width: width, height: height)
    buf.fill(r, role: .normal)
    buf.box(r, title: "Keys (\(s.keymap.name) keymap)")
    for (i, a) in actions.enumerated() {
        let col = i / perCol, row = i % perCol
        let x = r.x + 2 + col * colW
        let y = r.y + 1 + row
        guard y < r.maxY - 2 else { continue }
        let keys = s.keymap.keys(for: a).map(\.description).joined(separator: " ")
        buf.put(keys, x: x, y: y, role: .helpKey, attrs: .bold, maxWidth: keyW - 1)
        buf.put(a.label, x: x + keyW, y: y, role: .helpText, maxWidth: labelW)
    }
    buf.put("Typing goes into the highlighted field. Any key closes this.", x: r.x + 2, y: r.maxY - 2, role: .hint, maxWidth: r.width - 4)
}

func confirmOverlay(_ c: Confirmation, _ s: AppState, _ buf: inout ScreenBuffer) {
    let longest = ([c.title] + c.lines).map(\.count).max() ?? 20
    let width = min(buf.size.width - 4, max(44, longest + 6))
    let height = min(buf.size.height - 2, c.lines.count + c.choices.count + 6)
    let r = Rect(x: (buf.size.width - width) / 2, y: (buf.size.height - height) / 2, width: width, height: height)
    buf.fill(r, role: .normal)
    buf.box(r, title: c.title, role: .warning, titleRole: .warning)
    var y = r.y + 2
    for l in c.lines where y < r.maxY - 1 { buf.put(l, x: r.x + 3, y: y, role: .normal, maxWidth: r.width - 6); y += 1 }
    y += 1
    for (i, ch) in c.choices.enumerated() where y < r.maxY - 1 {
        let k = (i == 0 ? "Enter/" : "") + String(ch.key)
        let used = buf.put("[" + k + "] ", x: r.x + 3, y: y, role: .helpKey, attrs: .bold)
        buf.put(ch.label, x: r.x + 3 + used, y: y, role: .normal, maxWidth: r.width - 6 - used)
        y += 1
    }
    if y < r.maxY - 1 {
        let used = buf.put("[Esc" + (c.choices.contains { $0.key == "n" } ? "" : "/n") + "] ", x: r.x + 3, y: y, role: .helpKey, attrs: .bold)
        buf.put("cancel, nothing happens", x: r.x + 3 + used, y: y, role: .normal, maxWidth: r.width - 6 - used)
    }
}

// MARK: - Text helpers

/// Word-wraps text to a width (long words are cut).
public func wrap(_ text: String, width: Int) -> [String] {
    guard width > 0 else { return [] }
    var lines: [String] = []
    var current = ""
    for word in text.split(separator: " ", omittingEmptySubsequences: true) {
        var w = String(word)
        while w.count > width {
            if !current.isEmpty { lines.append(current); current = "" }
            lines.append(String(w.prefix(width)))
            w = String(w.dropFirst(width))
        }
        if current.isEmpty { current = w }
        else if current.count + 1 + w.count <= width { current += " " + w }
        else { lines.append(current); current = w }
    }
    if !current.isEmpty { lines.append(current) }
    return lines
}

extension String {
    func replacingOccurrences(_ a: String, _ b: String) -> String {
        guard !a.isEmpty else { return self }
        var out = ""
        var rest = Substring(self)
        while let r = rest.range(of: a) {
            out += rest[..<r.lowerBound] + b
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}

extension Substring {
    func range(of needle: String) -> Range<Substring.Index>? {
        guard !needle.isEmpty, count >= needle.count else { return nil }
        var i = startIndex
        while i < endIndex {
            if self[i...].hasPrefix(needle) { return i..<index(i, offsetBy: needle.count) }
            i = index(after: i)
        }
        return nil
    }
}
