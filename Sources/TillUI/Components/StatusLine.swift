import TillProtocol
import TillModel

func noticeLine(_ s: AppState, y: Int, _ buf: inout ScreenBuffer) {
    let w = buf.size.width
    if let n = s.notice {
        // One line: a notice that does not fit is shortened at a word, marked "…", never cut mid-word.
        buf.put(fitLine((s.noticeIsError ? "! " : "") + n, width: w - 2), x: 1, y: y, role: s.noticeIsError ? .error : .hint, maxWidth: w - 2)
    } else if let warn = s.startupWarnings.first {
        buf.put("! " + warn, x: 1, y: y, role: .warning, maxWidth: w - 2)
    } else {
        let keys = "\(s.keymap.hint(.help)) help  \(s.keymap.hint(.menu)) menu  \(s.keymap.hint(.quit)) quit"
        buf.put(keys, x: 1, y: y, role: .hint, maxWidth: w - 2)
    }
}

/// The central store's cell: "sent 14:02", "12 to send", "offline since 13:40 · 37 to send" (a warning after an hour),
/// "store: needs set-up" (an alert). Nil without a store.
func storeCell(_ s: AppState) -> (text: String, role: Role)? {
    guard let sync = s.storeSync else { return nil }
    if sync.needsSetUp { return ("store: needs set-up", .statusAlert) }
    if let since = sync.failingSinceMs {
        let t = "offline since " + Format.hoursMinutesOfDay(since, offsetMinutes: s.tzOffsetMinutes) + (sync.toSend > 0 ? " · \(sync.toSend) to send" : "")
        return (t, s.nowMs - since >= 3_600_000 ? .warning : .statusLine)
    }
    if sync.toSend > 0 { return ("\(sync.toSend) to send", .statusLine) }
    return (sync.sentAtMs.map { "sent " + Format.hoursMinutesOfDay($0, offsetMinutes: s.tzOffsetMinutes) } ?? "store up to date", .statusLine)
}

func statusLine(_ s: AppState, y: Int, _ buf: inout ScreenBuffer) {
    let w = buf.size.width
    buf.fill(Rect(x: 0, y: y, width: w, height: 1), role: .statusLine)
    let clock = " " + Format.clock(s.nowMs, offsetMinutes: s.tzOffsetMinutes) + " "
    let end = w - clock.count
    // The simulator is marked TRAINING (it moves no money). What must never be cut comes first: the
    // transport, the connection, the unresolved count; the batch last (its name may be long).
    var x = 0
    if s.isTraining { x += buf.put(" TRAINING", x: 0, y: y, role: .statusAlert, attrs: [.bold, .reverse], maxWidth: end) }
    // A pipe's whole command would push the shift off the line: at most 24 columns of it.
    let transport = s.transport.count > 24 ? String(s.transport.prefix(23)) + "…" : s.transport
    x += buf.put(" " + transport + " ", x: x, y: y, role: .statusLine, attrs: .bold, maxWidth: max(0, end - x))
    func put(_ t: String, _ role: Role = .statusLine) { x += buf.put(t, x: x, y: y, role: role, maxWidth: max(0, end - x)) }
    put("│ ")
    switch s.connection {
    case .ready: put(s.pending != nil ? "● busy " : "● ready ")
    case .problem(let m): put("✗ " + m + " ", .statusAlert)
    }
    if !s.unresolved.entries.isEmpty && !s.unresolved.recovering { put("│ "); put("\(s.unresolved.entries.count) unresolved ", .statusAlert) }
    if let cell = storeCell(s) { put("│ "); put(cell.text + " ", cell.role) }
    put("│ ")
    if let b = s.batch {
        if b.isOpen {
            var t = "batch " + (b.name ?? b.id.map { String($0.prefix(8)) } ?? "open")
            if let a = b.autoCloseAtMs { t += " (\(Format.hoursMinutes(a - s.nowMs)) left)" }
            put(t + " ")
        } else { put("no batch open ", .statusAlert) }
    } else { put("batch ? ") }
    if end > x { buf.put(clock, x: end, y: y, role: .statusLine) }
}
