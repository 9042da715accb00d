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
        // A keypad cashier is named the menu alone (help and quit are on it): never F1 or F10, keys a keypad lacks.
        let keys = [keyPart(s, .help, "help"), keyPart(s, .menu, "menu"), keyPart(s, .quit, "quit")].compactMap { $0 }.joined(separator: "  ")
        buf.put(keys, x: 1, y: y, role: .hint, maxWidth: w - 2)
    }
}

/// The central store's cell: "sent 14:02", "12 to send", "offline since 13:40 · 37 to send" (a warning after an hour),
/// "store: needs set-up" (an alert). Nil without a store.
func storeCell(_ s: AppState) -> (text: String, short: [String], role: Role)? {
    guard let sync = s.storeSync else { return nil }
    if sync.needsSetUp { return ("store: needs set-up", ["store: set-up!"], .statusAlert) }
    if let since = sync.failingSinceMs {
        let t = "offline since " + Format.hoursMinutesOfDay(since, offsetMinutes: s.tzOffsetMinutes) + (sync.toSend > 0 ? " · \(sync.toSend) to send" : "")
        let shorter = sync.toSend > 0 ? ["offline · \(sync.toSend) to send", "\(sync.toSend) unsent"] : ["offline"]
        return (t, shorter, s.nowMs - since >= 3_600_000 ? .warning : .statusLine)
    }
    if sync.toSend > 0 { return ("\(sync.toSend) to send", ["\(sync.toSend) unsent"], .statusLine) }
    let sent = sync.sentAtMs.map { "sent " + Format.hoursMinutesOfDay($0, offsetMinutes: s.tzOffsetMinutes) } ?? "store up to date"
    return (sent, [], .statusLine)
}

func statusLine(_ s: AppState, y: Int, _ buf: inout ScreenBuffer) {
    let w = buf.size.width
    buf.fill(Rect(x: 0, y: y, width: w, height: 1), role: .statusLine)
    let clock = " " + Format.hoursMinutesOfDay(s.nowMs, offsetMinutes: s.tzOffsetMinutes) + " "
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
    // The whole message is on the notice line; here a few words, so the shift and the store stay in sight.
    case .problem(let m): put(fitLine("✗ " + m, width: 26) + " ", .statusAlert)
    }
    if !s.unresolved.entries.isEmpty && !s.unresolved.recovering { put("│ "); put("\(s.unresolved.entries.count) unresolved ", .statusAlert) }
    put("│ ")
    var batch = "batch ? ", batchRole = Role.statusLine, batchShort: String?
    if let b = s.batch {
        if b.isOpen {
            let t = "batch " + (b.name ?? b.id.map { String($0.prefix(8)) } ?? "open")
            batch = t + " "
            if let a = b.autoCloseAtMs { batch = t + " (\(Format.hoursMinutes(a - s.nowMs)) left) "; batchShort = t + " " }
        } else { batch = "no batch open "; batchRole = .statusAlert }
    }
    // The store's cell after the shift, whole or in a short form, never cut; where even its shortest form does not fit
    // beside the shift, the shift's countdown gives way (its name stays).
    let cells = storeCell(s).map { ([$0.text] + $0.short, $0.role) }
    func fitting(after batchText: String) -> String? {
        cells?.0.first { batchText.count + 3 + $0.count <= end - x }
    }
    var cell = fitting(after: batch)
    if cell == nil, cells != nil, let short = batchShort, let c = fitting(after: short) { batch = short; cell = c }
    // Where the shift does not fit beside the rest (the unresolved count takes its room), its countdown gives way, then
    // its name is shortened at a word and marked "…": never cut mid-word, and the clock keeps its place.
    if batch.count > end - x, let short = batchShort { batch = short }
    if batch.count > end - x { batch = fitLine(batch, width: max(0, end - x - 1)) + " " }
    put(batch, batchRole)
    if let cell, let role = cells?.1 { put("│ "); put(cell + " ", role) }
    if end >= x { buf.put(clock, x: end, y: y, role: .statusLine) }
}
