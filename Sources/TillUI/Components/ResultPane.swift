import TillProtocol
import TillModel

let spinnerFrames: [String] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

func resultPane(_ s: AppState, _ r: Rect, _ buf: inout ScreenBuffer) {
    buf.box(r, title: s.pending != nil ? "In flight" : "Result")
    let inner = r.inset(1)
    let x = inner.x + 1
    let w = inner.width - 2
    var y = inner.y + 1
    if let p = s.pending {
        // What is with the terminal, whole (its STAN or order code ends it): wrapped over two lines where it is long.
        for l in wrap(p.summary, width: w).prefix(2) { buf.put(l, x: x, y: y, role: .amount, attrs: .bold, maxWidth: w); y += 1 }
        y += 1
        // Where the pane is large (as for a verdict), the amount with the terminal in block digits: the figure the
        // customer checks on the terminal's screen, read from across the counter.
        if inner.height >= 30, let amount = p.amount,
           let big = BigText.fit([Format.money(amount, s.currency)], maxWidth: inner.width, maxHeight: BigText.height(.large)) {
            for l in big.lines {
                buf.put(String(repeating: " ", count: max(0, (inner.width - l.count) / 2)) + l, x: inner.x, y: y, role: .amount, attrs: .bold,
                        maxWidth: inner.width)
                y += 1
            }
            y += 1
        }
        let elapsed = s.nowMs - p.startedAtMs
        let frame = spinnerFrames[Int((max(0, elapsed) / 100) % Int64(spinnerFrames.count))]
        buf.put(frame + (p.deadlineMs == nil ? " Sending…" : " Waiting for the terminal"), x: x, y: y, role: .inFlight, attrs: .bold, maxWidth: w); y += 1
        buf.put("elapsed      " + Format.duration(elapsed), x: x + 2, y: y, role: .normal, maxWidth: w - 2); y += 1
        if let d = p.deadlineMs {
            buf.put("times out in " + Format.duration(d - s.nowMs), x: x + 2, y: y, role: .normal, maxWidth: w - 2); y += 1
        }
        y += 1
        if p.askingAfterAbort {
            // "Aborted" is not proof: the card may have been read before it. Not "not charged" until the terminal says.
            buf.put("Aborting — asking the terminal…", x: x, y: y, role: .warning, attrs: .bold, maxWidth: w)
        } else if p.abortRequested {
            buf.put("Abort requested…", x: x, y: y, role: .warning, attrs: .bold, maxWidth: w)
        } else if s.escAborts {
            buf.put("Press \(s.keymap.isKeypad ? menuRoute(s, .action(.cancel)) ?? "" : s.keymap.hint(.cancel)) to abort", x: x, y: y,
                    role: .helpKey, attrs: .bold, maxWidth: w)
        } else if p.own {
            buf.put("\(s.keymap.hint(.cancel)) aborts on \(p.screen.title) (\(s.keymap.hint(p.screen.action)))", x: x, y: y, role: .hint, maxWidth: w)
        }
        if p.own, y + 1 < inner.maxY - 1 {
            buf.put(keyPart(s, .stopWaiting, "stop waiting") ?? "", x: x, y: y + 1, role: .hint, maxWidth: w)
        }
        return
    }
    guard let res = s.result else {
        buf.put("Ready for the next customer.", x: x, y: y, role: .hint, maxWidth: w)
        return
    }
    var v = CashierWording.verdict(for: res.outcome, currency: s.currency, tzOffsetMinutes: s.tzOffsetMinutes, tipStyle: s.tipStyle)
    if res.recovered {
        // Settled by recovery or a late answer: say plainly what happened to that earlier payment, and when that was
        // found (at start, or later in this run). A pre-auth reserves money, a refund gives it back: each its own verb.
        let when = res.summary + " at " + Format.hoursMinutesOfDay(res.atMs, offsetMinutes: s.tzOffsetMinutes)
        let found = res.foundAtStart ? "found at start"
            : res.foundAtMs.map { "found at " + Format.hoursMinutesOfDay($0, offsetMinutes: s.tzOffsetMinutes) } ?? "found later"
        let action = res.outcome.entry?.action ?? .sale
        let verb = action.reportRole.moneyVerb.uppercased()
        switch res.outcome.entry?.state {
        case .approved?:
            v.word = verb; v.headline = "WAS " + verb; v.amount = nil
            v.sentence = when + " WAS " + verb + (action == .preAuth ? " on the card" : "") + " (\(found))."
        case .declined?, .aborted?, .resolved?:
            v.word = action == .sale ? "NOT PAID" : "NOT DONE"; v.headline = "NOT " + verb; v.amount = nil
            v.sentence = when + " was NOT " + verb.lowercased() + " (\(found))."
        default:
            if let id = res.outcome.entry?.id, s.unresolved.asking[id] != nil {
                v.word = "ASKING"; v.headline = "ASKING THE TERMINAL…"; v.amount = nil
                // Counted down to the latest moment asking can end (the look-up in flight's own timeout, or the time the
                // till keeps asking), so a terminal that never answers is not a silent wait.
                let ends = [s.pending.flatMap { $0.action.isLookUp ? $0.deadlineMs : nil },
                            s.unresolved.asking[id].map { $0 + UnresolvedState.askingForMs }].compactMap { $0 }.max()
                let left = ends.map { " (at most " + Format.duration($0 - s.nowMs + 999) + " more)" } ?? ""
                v.sentence = when + ": asking the terminal what became of it" + left + ". Do not charge it again meanwhile."
            } else if let e = res.outcome.entry, e.note?.isEmpty == false {
                // Not "No answer": the terminal may have answered ("no record of it"); the note below says what it said.
                v.sentence = when + ": still unknown after asking the terminal. " + CashierWording.unknownAdvice(e)
            } else {
                v.sentence = when + ": " + v.sentence
            }
        }
    }
    if let after = res.approvalAfter {
        let role = (res.outcome.entry?.action ?? .sale).reportRole
        v = Verdict(role: .unknown, mark: "?", word: "CHECK", headline: "CHECK THE TERMINAL",
                    sentence: v.headline.lowercased().capitalizedFirst + ", then an unexpected answer: \(after). It may have been "
                        + role.moneyVerb + ": check the terminal before you \(role.moneyVerbToDo) again (\(s.keymap.hint(.unresolved)) Unresolved).")
    }
    // The previous customer's verdict dims as soon as the next amount is typed.
    let dimmed = s.resultIsStale
    // The verdict in block letters (6 rows where the pane is tall, 3 at 80×24), its ✓ ✗ ? mark and the
    // headline with the amount; colour is never the only reading.
    let maxBig = inner.height >= 30 ? BigText.height(.large) : BigText.height(.small)
    for l in v.block(width: inner.width, maxBigHeight: maxBig, currency: s.currency) where y < inner.maxY {
        buf.put(l.text, x: inner.x, y: y, role: dimmed ? .dim : l.role, attrs: dimmed ? [] : (l.bold ? .bold : []), maxWidth: inner.width)
        y += 1
    }
    // Where the pane is large, the amount in block digits too: the figure the customer checks from across the counter.
    if inner.height >= 30, let amount = v.amount,
       let big = BigText.fit([Format.money(amount, s.currency)], maxWidth: inner.width, maxHeight: BigText.height(.large)) {
        y += 1
        for l in big.lines where y < inner.maxY {
            let text = String(repeating: " ", count: max(0, (inner.width - l.count) / 2)) + l
            buf.put(text, x: inner.x, y: y, role: dimmed ? .dim : .amount, attrs: dimmed ? [] : .bold, maxWidth: inner.width)
            y += 1
        }
    }
    y += 1
    // The whole sentence, however many lines: what to do is its end ("… then mark it on the Unresolved screen"); the
    // detail rows below take the room it leaves.
    for l in wrap(v.sentence, width: w) where y < inner.maxY {
        buf.put(l, x: x, y: y, role: dimmed ? .dim : (v.role == .approved ? .normal : .error), maxWidth: w); y += 1
    }
    y += 1
    let vx = x + 9
    func row(_ k: String, _ v: String?, role: Role = .normal) {
        guard let v, !v.isEmpty, y < inner.maxY - 1 else { return }
        buf.put(k, x: x, y: y, role: .label, maxWidth: 9)
        // A long value (a batch's name, a summary with its order code) wraps at words under itself, never cut.
        for l in wrap(v, width: inner.maxX - vx - 1) where y < inner.maxY - 1 {
            buf.put(l, x: vx, y: y, role: role, maxWidth: inner.maxX - vx - 1)
            y += 1
        }
    }
    // A request not sent because another was in flight: that other's entry is not this result's.
    let e: JournalEntry? = { if case .busy = res.outcome { return nil }; return res.outcome.entry }()
    let resp = e?.response
    if e?.action.startsPayment != true { row("What", res.summary) }
    let tip = resp?.tipAmount ?? e?.tipAmount
    if e?.action != .batch, let e {
        // Goods, tip and what the card paid, read with the tip style (the amount holds the tip when it is included).
        row("Amount", Format.goods(e).map { Format.money($0, s.currency) }, role: .amount)
        if let tip, tip.cents > 0 {
            row("Tip", Format.money(tip, s.currency), role: .amount)
            row("Total", Format.total(e).map { Format.money($0, s.currency) }, role: .amount)
        }
    }
    row("Card", resp?.cardType)
    row("Number", resp?.accountNumber)
    row("Method", resp?.verificationMethod)
    // Instalments as the terminal answered them (else as asked): the customer pays in parts, the cashier says so.
    let askedInstalments = e.flatMap { QueryFields(url: $0.requestURL)?.value(named: "preferredInstallments") }.flatMap { Int($0) }
    if let n = resp?.installments ?? askedInstalments, n > 1, y < inner.maxY - 1 {
        // The label is longer than the others: its value follows it, so the word is never cut.
        // Spelt as on the Sale form.
        buf.put("Installments", x: x, y: y, role: .label, maxWidth: w)
        buf.put("\(n)", x: x + 13, y: y, role: .normal, maxWidth: w - 13)
        y += 1
    }
    row("STAN", resp?.referenceNumber)
    row("Order", resp?.orderCode)
    row("Auth", resp?.authorisationCode)
    if e?.action == .batch { row("Batch", resp?.batchName ?? resp?.batchId) }
    if case .unknown(let u) = res.outcome, s.unresolved.asking[u.id] == nil { row("Note", u.note.map(Format.noteWords), role: .warning) }
    buf.put("at " + Format.clock(res.atMs, offsetMinutes: s.tzOffsetMinutes), x: x, y: inner.maxY - 1, role: .dim, maxWidth: w)
}
