import TillProtocol
import TillModel

/// The journal screen's own state: the rows loaded, what the filter matches, which refund refunds
/// which sale, the cursor, and the detail of one row.
public struct JournalState: Sendable, Hashable {
    public var entries: [JournalEntry] = [] {
        didSet {
            numberTexts = entries.map(Format.numberText)
            searchTexts = zip(entries, numberTexts).map { Format.searchText($0, numbers: $1) }
            links = RefundLinks(entries)
        }
    }
    /// What the filter matches, per entry, built once when the entries arrive.
    public private(set) var searchTexts: [String] = []
    /// What a number typed in the filter matches (`Format.numberText`), per entry.
    public private(set) var numberTexts: [String] = []
    /// Refunds and the sales they refund, among the entries loaded.
    public private(set) var links = RefundLinks()
    public var selected: Int = 0
    public var top: Int = 0
    public var allBatches: Bool = false
    public var detail: JournalEntry?
    /// First line shown of the detail view (it scrolls when it does not fit).
    public var detailScroll: Int = 0
    /// The detail shows the raw protocol fields (request URL and callback) instead of the cashier's labels.
    public var raw: Bool = false
    public var loading: Bool = false
    public init() {}

    /// A loaded entry by its journal id.
    public func entry(_ id: Int64) -> JournalEntry? { entries.first { $0.id == id } }

    /// What the journal's rows are asked for with (`Command.loadJournal`): this batch's, or all.
    var filter: JournalFilter { JournalFilter(scope: allBatches ? .all : .currentBatch) }

    /// Esc on the detail: back to the list. False where no detail is shown.
    mutating func closeDetail() -> Bool {
        guard detail != nil else { return false }
        detail = nil
        return true
    }
}

extension AppState {
    /// Journal entries after the filter typed on the journal screen.
    public var visibleJournal: [JournalEntry] { journalRows().shown }

    /// The rows the journal lists, and how many it would list with no filter (the count a filter is "of"): one reading,
    /// so the list's count and the filter's agree. Read like a till roll: look-ups and abort requests are left out,
    /// with a filter as without, unless the filter names them (`details`, `abort`). A number that looks like a STAN
    /// (one to six digits) lists the payment with that STAN first (`13` finds STAN 000013 before the order codes
    /// and card numbers holding 13), so F5 then refunds it.
    func journalRows() -> (shown: [JournalEntry], of: Int) {
        let f = (forms[.journal]?[.filter] ?? "").trimmingWhitespace().lowercased()
        func offTheRoll(_ e: JournalEntry) -> Bool { e.action.aboutAnotherRequest }
        func asked(_ e: JournalEntry) -> Bool {
            let name = Format.actionName(e.action).lowercased()
            return !f.isEmpty && (f.contains(name) || name.hasPrefix(f))
        }
        var of = 0
        var stanFirst: [JournalEntry] = []
        var rest: [JournalEntry] = []
        let stan = f.count <= 6 && !f.isEmpty && f.allSatisfy { $0.isASCII && $0.isNumber } ? Int(f) : nil
        // A number is a STAN, an amount, a code or a card's digits: never the shift's name or a note that holds digits.
        let texts = !f.isEmpty && f.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == ",") }) ? journal.numberTexts : journal.searchTexts
        for (i, e) in journal.entries.enumerated() where !offTheRoll(e) || asked(e) {
            of += 1
            guard f.isEmpty || texts[i].contains(f) else { continue }
            if let stan, let r = e.response?.referenceNumber, Int(r) == stan { stanFirst.append(e) } else { rest.append(e) }
        }
        return (stanFirst + rest, of)
    }

    /// The row the journal's keys act on: the one in detail, else the one selected.
    var journalRow: JournalEntry? {
        let list = visibleJournal
        return journal.detail ?? (list.indices.contains(journal.selected) ? list[journal.selected] : nil)
    }
}

/// The journal: every request and its outcome, filtered as typed, a detail view per entry.
enum JournalScreen: ScreenComponent {
    static let screen = Screen.journal
    static let title = "Journal"
    static let key = KeyAction.journal
    static var blankForm: Form { Form([Field(.filter, "Filter", .text, placeholder: "STAN, amount, card, text", maxLength: 40)]) }
    static func frameTitle(_ s: AppState) -> String {
        if let d = s.journal.detail { return "Journal: " + Format.entryName(d, currency: s.currency, offsetMinutes: s.tzOffsetMinutes) }
        return "Journal: " + (s.journal.allBatches ? "all batches" : "current batch")
    }
    static func enter(_ state: inout AppState, from: Screen) -> [Command] {
        // The journal opens on its newest row with an empty filter: F7 then F5 refunds the sale just made, never a row
        // picked (or a filter typed) the last time the journal was open. The rows come fresh: until they do, F4/F5
        // say the journal is loading.
        state.journal.detail = nil
        state.journal.loading = true
        if from != .journal {
            state.forms[.journal] = Form.blank(.journal)
            state.journal.entries = []
            state.journal.selected = 0
            state.journal.top = 0
        }
        return [.loadJournal(state.journal.filter)]
    }
    static func journalChanged(_ state: AppState) -> [Command] { [.loadJournal(state.journal.filter)] }
    static let menuPageLine: (key: Character, label: String)? = ("6", "Journal")
    static func menu(_ s: AppState) -> [(String, MenuCommand)] {
        var own: [(String, MenuCommand)] = []
        if let e = s.journalRow, e.state == .approved, e.response?.referenceNumber != nil,
           e.action.refundable || e.action.capturable {
            if e.action.refundable { own.append(("Refund this sale", .action(.refund))) }
            if e.action.capturable { own.append(("Capture this pre-auth", .action(.capture))) }
        } else if let e = s.journalRow, !e.state.needsAttention, s.journal.detail == nil,
                  let i = nearestFromRow(s, .refund), s.visibleJournal[i].action == .sale {
            // On a row with nothing to refund (the decline the journal opens on right after it), the sale
            // nearest it, as F5 there selects it: a keypad cashier has no F5.
            let p = s.visibleJournal[i]
            own.append(("Refund: go to the sale " + (Format.total(p).map { $0.formatted() + " " } ?? "") + "of "
                        + Format.hoursMinutesOfDay(p.createdAtMs, offsetMinutes: s.tzOffsetMinutes), .action(.refund)))
        }
        if s.journal.detail != nil { own.append(("Close the detail", .action(.submit))) }
        else if s.journalRow != nil { own.append(("Detail of this row", .action(.submit))) }
        own.append((s.journal.allBatches ? "This batch only" : "All batches", .action(.scope)))
        return own
    }

    static func update(_ state: inout AppState, _ action: KeyAction) -> [Command] {
        let rows = journalRows(state.size)
        let list = state.visibleJournal
        if let d = state.journal.detail {
            // ↑/↓ (and Tab, bound to the same keys), PgUp/PgDn scroll the detail when it does not fit.
            let page = max(1, detailWindow(d, state).shown)
            var scroll = state.journal.detailScroll
            switch action {
            case .down, .next: scroll += 1
            case .up, .previous: scroll -= 1
            case .pageDown: scroll += page
            case .pageUp: scroll -= page
            default: break
            }
            if scroll != state.journal.detailScroll {
                state.journal.detailScroll = max(0, scroll)
                state.journal.detailScroll = detailWindow(d, state).first
                return []
            }
            if [.down, .next, .up, .previous, .pageDown, .pageUp].contains(action) { return [] }
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
            return [.loadJournal(state.journal.filter)]
        case .resolve:
            if let e = state.journalRow { UnresolvedScreen.confirmResolve(&state, e) }
            return []
        case .reprint:
            if let e = state.journalRow { confirmReprint(&state, e) } else { setNotice(&state, "No journal row selected to reprint.", error: true) }
            return []
        default: return []
        }
        clampJournal(&state)
        return []
    }
    static func submit(_ state: inout AppState) -> [Command] { update(&state, .submit) }
    static func render(_ s: AppState, _ r: Rect, _ buf: inout ScreenBuffer) {
        if let d = s.journal.detail { journalDetail(d, s, r, &buf); return }
        let form = s.form
        let x = r.x + 1
        if let f = form.fields.first {
            drawField(f, focused: true, error: nil, x: x, labelW: 8, fieldX: x + 8, fieldW: min(30, r.width - 10), y: r.y, currency: s.currency, &buf)
        }
        let (list, of) = s.journalRows()
        // The count says what it counts: the rows shown, plainly; with a filter typed, how many of the same rows match,
        // loudly.
        let filtered = !(form.fields.first?.text ?? "").trimmingWhitespace().isEmpty
        let counts = filtered ? "\(list.count) of \(of) match"
            : "\(list.count) entr\(list.count == 1 ? "y" : "ies")"
        buf.put(counts, x: r.maxX - counts.displayWidth - 1, y: r.y, role: filtered ? .warning : .hint, attrs: filtered ? .bold : [])
        let width = r.width - 2
        // A till roll: time, what, amount, verdict, STAN; never the journal's entry number (a programmer's identifier: the
        // cashier finds a row by its time, amount and STAN). Where it is wide the columns take more room.
        let wide = width >= 50
        // The amount column is as wide as the widest amount listed (one column to spare): money is never cut, a sale of
        // 141975.30 included; the last column (STAN or refund link) gives up the room.
        let amountW = max(wide ? 10 : 9, (list.compactMap { Format.total($0)?.formatted().displayWidth }.max() ?? 0) + 1)
        // Where there is room for it beside the STAN and a whole refund link ("refund of 22.00 sale 10:31"), the card
        // too: the row a cashier looks for reads as the terminal's list does, and the room is not left blank. Its whole
        // masked number from 160 columns; at 120 its type and last four digits ("Visa …7417", `listCard`).
        let room = width - [6, 9, amountW, 10].reduce(0, +)
        let cardW = wide && room - 24 >= 40 ? 24 : (wide && room - 16 >= 26 ? 16 : 0)
        let withCard = cardW > 0
        let widths = withCard ? [6, 9, amountW, 10, cardW] : wide ? [6, 9, amountW, 10] : [6, 9, amountW, 9]
        let lastWidth = width - widths.reduce(0, +)
        let names = withCard ? ["time", "what", "amount", "result", "card", "STAN"] : ["time", "what", "amount", "result", "STAN"]
        let header = columns(names, widths, width)
        buf.put(header, x: x, y: r.y + 1, role: .label, attrs: .bold)
        let rows = Layout(buf.size).journalRows
        if s.journal.loading && list.isEmpty { buf.put("Loading…", x: x, y: r.y + 2, role: .hint) }
        else if list.isEmpty { buf.put(s.journal.entries.isEmpty ? "No transactions yet." : "Nothing matches the filter.", x: x, y: r.y + 2, role: .hint) }
        var y = r.y + 2
        var i = s.journal.top
        while i < list.count && y < r.y + 2 + rows {
            let e = list[i]
            let selected = i == s.journal.selected
            // The last column: the STAN, always (it is what a cashier looks for; "—" where there is none), then the refund
            // or capture link where it fits (a refund names its sale, a refunded sale says how much went back). Where the
            // link does not fit (80 columns), a refunded or captured payment says so in its result column instead. Never
            // the card: under "STAN" a masked card number reads as a piece of one (the card is in the detail).
            let stan = e.response?.referenceNumber.map(SafeText.terminal) ?? "—"
            let link = refundLinkTexts(e, s).first { $0.displayWidth <= lastWidth - stan.displayWidth - 1 }
            var last = link.map { stan + " " + $0 } ?? stan
            // Where the list is wide (from about 160 columns) the row's why follows: the reference typed, the note.
            if lastWidth - last.displayWidth >= 30, let why = rowWhy(e) { last += "  " + why }
            let result = link == nil ? linkStateName(e, s) ?? Format.stateName(e) : Format.stateName(e)
            var values = [Format.hoursMinutesOfDay(e.createdAtMs, offsetMinutes: s.tzOffsetMinutes), Format.actionName(e.action),
                          Format.total(e).map { $0.formatted() } ?? "", result, last]
            if withCard { values.insert(listCard(e.response, width: cardW - 1), at: values.count - 1) }
            let line = columns(values, widths, width)
            buf.put(line, x: x, y: y, role: selected ? .selection : .normal, attrs: selected ? .bold : [], maxWidth: width)
            if selected { buf.restyle(Rect(x: x, y: y, width: width, height: 1), role: .selection, attrs: .bold) }
            else {
                // Colour the result column by its state.
                let col = widths.prefix(widths.count - (withCard ? 2 : 1)).reduce(0, +)
                buf.restyle(Rect(x: x + col, y: y, width: result.count, height: 1), role: stateRole(e.state))
            }
            y += 1; i += 1
        }
        var parts = ["\(s.keymap.hint(.submit)) detail", keyPart(s, .scope, s.journal.allBatches ? "this batch" : "all")].compactMap { $0 }
        if list.indices.contains(s.journal.selected), reprintableOrderCode(list[s.journal.selected]) != nil,
           let reprint = keyPart(s, .reprint, "reprint") {
            parts.append(reprint)
        }
        // A keypad cashier erases the filter with `-` (it has no Esc).
        if s.keymap.isKeypad, filtered, let minus = s.keymap.keys(for: .previous).first(where: \.isOnKeypad) {
            parts.append("\(minus) erase filter")
        }
        if let back = backPart(s) { parts.append(back) }
        // Where it does not fit, the batch/all key goes (it is in the help).
        if parts.joined(separator: "  ").displayWidth > r.width - 2, parts.count > 3 { parts.remove(at: 1) }
        let hint = parts.joined(separator: "  ")
        buf.put(hint, x: x, y: r.maxY - 1, role: .hint, maxWidth: r.width - 2)
    }

    /// The key that switches the detail between the cashier's labels and the raw protocol fields.
    static let rawKey: Character = "r"

    /// A keypad cashier's keypad keys that its keymap binds (`*` Sale, `+` `-`, `/`) act on the journal as on every
    /// other screen, never typed into the filter (no STAN, order code or card holds them); and, a keypad having no
    /// Esc, `-` erases a filter typed (then moves up, as `-` does). nil: the key is handled as any other.
    static func keyBeforeFields(_ state: inout AppState, _ key: Key) -> [Command]? {
        guard state.keymap.isKeypad, key.isOnKeypad, case .char = key, let action = state.keymap.action(for: key) else { return nil }
        if action == .previous, state.journal.detail == nil, !state.form[.filter].isEmpty {
            state.form[.filter] = ""
            corrected(&state, .filter)
            state.journal.selected = 0
            state.journal.top = 0
            clampJournal(&state)
            return []
        }
        if action == .menu { return nil }
        if action.isGlobal { return globalAction(&state, action) }
        return screenAction(&state, action, key: key)
    }

    /// F5 / F4 here refund / capture the row selected (`startFromJournalRow`).
    static func opening(_ state: inout AppState, _ screen: Screen) -> [Command]? {
        guard screen == .refund || screen == .capture else { return nil }
        switch startFromJournalRow(&state, screen) {
        case .filled: return nil
        case .stay: return []
        case .blank(let why):
            // No row it can act on: its form, blank, the cursor on the STAN, so the digits typed next are the STAN
            // (never the journal's filter); the notice says why, in one line.
            state.forms[screen] = Form.blank(screen)
            if let key = FinderScreen.stateKey(screen) { state[keyPath: key].origin = nil }
            let cmds = go(&state, screen)
            setNotice(&state, why, error: true)
            return cmds
        }
    }

    /// Esc closes the detail.
    static func escape(_ state: inout AppState) -> Bool { state.journal.closeDetail() }

    /// Nothing is typed into the filter while the detail is shown (the filter is out of sight then).
    static func takesTyping(_ state: AppState) -> Bool { state.journal.detail == nil }
    /// Esc never clears the filter (it goes back, or closes the detail).
    static let escClearsField = false

    /// A character typed while the detail is shown: `r` toggles the raw fields; a key the keymap binds (`?` help)
    /// does its action; any other is ignored, never typed.
    static func char(_ state: inout AppState, _ ch: Character) -> [Command]? {
        guard state.journal.detail != nil else { return nil }
        if Character(ch.lowercased()) == rawKey {
            state.journal.raw.toggle()
            state.journal.detailScroll = 0
            return []
        }
        return state.keymap.action(for: .char(ch)) == nil ? [] : nil
    }

    /// The journal's rows arrived (`Command.loadJournal`).
    static func loaded(_ state: inout AppState, _ entries: [JournalEntry]) -> [Command] {
        // While the journal is open, the highlight stays on the entry it was on, not on the row number: a payment
        // journaled meanwhile comes in at the top, and F5 must refund the sale the cashier picked. (Opening the
        // journal starts with no rows, so it opens on the newest.)
        let picked = state.visibleJournal.indices.contains(state.journal.selected) ? state.visibleJournal[state.journal.selected].id : nil
        state.journal.entries = entries
        if let picked, let i = state.visibleJournal.firstIndex(where: { $0.id == picked }) { state.journal.selected = i }
        state.journal.loading = false
        if let d = state.journal.detail, let fresh = entries.first(where: { $0.id == d.id }) { state.journal.detail = fresh }
        clampJournal(&state)
        return []
    }

    static func clampJournal(_ state: inout AppState) {
        let n = state.visibleJournal.count
        state.journal.selected = max(0, min(state.journal.selected, n - 1))
        let rows = journalRows(state.size)
        if state.journal.selected < state.journal.top { state.journal.top = state.journal.selected }
        if state.journal.selected >= state.journal.top + rows { state.journal.top = state.journal.selected - rows + 1 }
        state.journal.top = max(0, min(state.journal.top, max(0, n - rows)))
        if let d = state.journal.detail { state.journal.detailScroll = detailWindow(d, state).first }
    }
}

/// F5 (refund) or F4 (capture) on a journal row: the finder is filled with the row's STAN (amount blank:
/// in full) and the row is kept for the confirmation. Only an approved sale is refunded from its row, only
/// an approved pre-auth captured: on any other row (a refund, a decline, a batch, a look-up) nothing moves,
/// the form opens blank (its STAN to type) and the notice says why. A row with no STAN, or with nothing left to
/// refund (a pre-auth captured already), stays on the journal.
enum FromJournalRow: Equatable {
    case filled
    /// Nothing filled: the form opens blank, saying why (one line at 80 columns).
    case blank(String)
    /// Stay on the journal (the notice says why).
    case stay
}

func startFromJournalRow(_ state: inout AppState, _ screen: Screen) -> FromJournalRow {
    let target = screen == .refund ? "sale" : "pre-auth"
    guard let e = state.journalRow else {
        if state.journal.loading {
            // F7 then F5 typed ahead: the newest row is meant, and comes in a moment.
            setNotice(&state, "The journal is still loading: press \(state.keymap.hint(screen.action)) again once its rows show.", error: true)
            return .stay
        }
        let why = state.journal.entries.isEmpty ? "No transactions in the journal" : "No row matches the filter"
        return .blank(why + ": type the STAN of the \(target) here.")
    }
    // What Refund (Capture) takes by a typed STAN, a row takes too.
    guard FinderScreen.canBeOriginal(e, capture: screen == .capture) else {
        let what = (e.state == .approved ? "" : Format.stateName(e).lowercased() + " ") + Format.actionName(e.action)
        // A sale (pre-auth) that is not approved is still one: why it cannot be refunded (captured) is its state.
        let kindFits = screen == .refund ? e.action.refundable : e.action.capturable
        let why = !kindFits ? "not a \(target)"
            : e.state == .declined || e.state == .aborted ? "nothing to \(screen == .refund ? "refund" : "capture")" : "not approved"
        // F7 F5 right after a decline: the newest row is the decline, and the sale meant is under it. The selection
        // goes to the nearest row that can be refunded (captured) and the notice names it: the same key again opens its
        // form (its box still names it and asks). Not from a row that may have charged (unknown): that one is checked
        // first, never passed over.
        if !e.state.needsAttention, let i = nearestFromRow(state, screen) {
            state.journal.selected = i
            JournalScreen.clampJournal(&state)
            let p = state.visibleJournal[i]
            let named = target + (Format.total(p).map { " " + Format.money($0, state.currency) } ?? "") + " of "
                + Format.hoursMinutesOfDay(p.createdAtMs, offsetMinutes: state.tzOffsetMinutes)
            let key = menuRouteHint(screen.action, state)
            // One line at 80 columns, the key to press included: a declined row says its state alone (its kind is the
            // one the key wants), another kind says what it is.
            let head = kindFits ? Format.stateName(e).lowercased().capitalizedFirst : what.capitalizedFirst
            setNotice(&state, "\(head): \(why). \(key) again: \(named).", error: true)
            return .stay
        }
        let article = "aeiou".contains(what.first ?? "x") ? "an" : "a"
        return .blank("That row is \(article) \(what), \(why): type the \(target)'s STAN here.")
    }
    guard let stan = e.response?.referenceNumber, !stan.isEmpty else {
        // Approved, but by a person's mark (or an answer without one): the terminal knows it by nothing till holds.
        setNotice(&state, entryWords(e, state) + " has no STAN to find it by (marked by hand?): \(screen == .refund ? "refund" : "capture") it on the terminal.",
                  error: true)
        return .stay
    }
    // Nothing left of it to refund (to capture): said on its row, by the rule the box warns with and the core refuses
    // with (`RefundLinks.beyond`), instead of a form that invites a refund the terminal refuses or pays twice.
    switch RefundLinks.beyond(e, entries: state.journal.entries, amount: nil, capture: screen == .capture) {
    case .moreThanIsLeft(nil, _, _)?:
        setNotice(&state, "STAN \(stan) was refunded in full already: nothing is left to refund.", error: true)
        return .stay
    case .alreadyCaptured?:
        setNotice(&state, "STAN \(stan) was captured already: a pre-auth is captured once.", error: true)
        return .stay
    default: break
    }
    fill(&state, screen, from: e, stan: stan)
    return .filled
}

/// Refund's (Capture's) form for the payment `e`: its STAN filled in, the cursor on the amount (nothing typed: all of
/// it), and the payment remembered so that the box names it.
func fill(_ state: inout AppState, _ screen: Screen, from e: JournalEntry, stan: String) {
    var f = Form.blank(screen)
    f[.referenceNumber] = stan
    f.focus = f.index(of: .amount) ?? 0
    state.forms[screen] = f
    if let key = FinderScreen.stateKey(screen) { state[keyPath: key].origin = e }
}

/// The row nearest the selected one (below first: older) that `screen` can start from: a payment it can be of, with a
/// STAN, with something left to refund (not captured yet); nil where the rows shown hold none.
func nearestFromRow(_ state: AppState, _ screen: Screen) -> Int? {
    let rows = state.visibleJournal
    let capture = screen == .capture
    func fits(_ e: JournalEntry) -> Bool {
        FinderScreen.canBeOriginal(e, capture: capture) && e.response?.referenceNumber?.isEmpty == false
            && RefundLinks.beyond(e, entries: state.journal.entries, amount: nil, capture: capture) == nil
    }
    let from = state.journal.selected
    return rows.indices.filter { $0 > from }.first { fits(rows[$0]) } ?? rows.indices.filter { $0 < from }.last { fits(rows[$0]) }
}

/// The order code whose receipt a journal row can reprint: an approved sale, pre-auth, refund or
/// capture with the order code the terminal answered; nil for every other row.
func reprintableOrderCode(_ e: JournalEntry) -> String? {
    guard e.action.movesMoney, e.state == .approved, let o = e.response?.orderCode, !o.isEmpty else { return nil }
    return o
}

/// Reprint from a journal row: asks first, naming the payment; refused with a reason on other rows.
func confirmReprint(_ state: inout AppState, _ e: JournalEntry) {
    guard let order = reprintableOrderCode(e) else {
        let why = !e.action.movesMoney ? "only a sale, pre-auth, refund or capture has a receipt"
            : e.state != .approved ? "only an approved payment has a receipt (this one is \(Format.stateName(e.state)))"
            : "the terminal gave no order code for it"
        setNotice(&state, "Cannot reprint " + entryWords(e, state) + ": " + why + ".", error: true)
        return
    }
    var what = Format.actionName(e.action).capitalizedFirst
    if let amount = Format.total(e) { what += " " + Format.money(amount, state.currency) }
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

extension JournalScreen {
    // MARK: - Refunds and their sales, in words

    /// What a journal row says about its refund or capture link, longest first (the list takes the longest that fits):
    /// a refund names the sale it refunds ("refund of 22.00 sale 10:31"); a sale refunded in full says "refunded", one
    /// refunded in part says so and what is left ("part refunded, 9.50 left": never read as a refund in full); a capture
    /// names its pre-auth, a captured pre-auth says "captured". Empty for a row with no link.
    static func refundLinkTexts(_ e: JournalEntry, _ s: AppState) -> [String] {
        let links = s.journal.links
        func names(_ id: Int64, _ verb: String) -> [String] {
            guard let paid = s.journal.entry(id) else { return [] }
            let when = Format.hoursMinutesOfDay(paid.createdAtMs, offsetMinutes: s.tzOffsetMinutes)
            let what = Format.actionName(paid.action)
            let amount = Format.total(paid).map { $0.formatted() + " " } ?? ""
            return ["\(verb) of \(amount)\(what) \(when)", "of \(amount)\(what) \(when)", "of \(what) \(when)", "\(what) \(when)", "of \(when)"]
        }
        if let id = links.original[e.id] { return names(id, "refund") }
        if let id = links.preAuthOf[e.id] { return names(id, "capture") }
        if links.unknownAmount.contains(e.id) {
            return [links.refunded[e.id].map { "refunded " + $0.formatted() + " + ?" } ?? "refunded, amount ?", "refunded ?"]
        }
        if let back = links.refunded[e.id] {
            if let total = Format.total(e), back < total {
                let left = (total - back).formatted()
                // The last, for the narrow list when what is left has two digits before the point ("17.00 left" is one too wide).
                return ["part refunded \(back.formatted()), \(left) left", "part refunded, \(left) left", "\(left) left", "part refunded", "part ref."]
            }
            return ["refunded " + back.formatted(), "refunded"]
        }
        if let captures = links.captures[e.id], !captures.isEmpty {
            let taken = captures.compactMap { s.journal.entry($0).flatMap(Format.total) }
            let sum = taken.count == captures.count ? taken.reduce(Money.zero, +) : nil
            return [sum.map { "captured " + $0.formatted() }, "captured"].compactMap { $0 }
        }
        return []
    }

    /// An approved payment's result in one word where its link does not fit beside the STAN: `REFUNDED`, `PART REF`
    /// (refunded in part), `CAPTURED`; nil for any other row (a refund row says "refund" in its own column).
    static func linkStateName(_ e: JournalEntry, _ s: AppState) -> String? {
        guard e.state == .approved else { return nil }
        let links = s.journal.links
        if links.unknownAmount.contains(e.id) { return "REFUND ?" }
        if let back = links.refunded[e.id] {
            if let total = Format.total(e), back < total { return "PART REF" }
            return "REFUNDED"
        }
        if let c = links.captures[e.id], !c.isEmpty { return "CAPTURED" }
        return nil
    }

    // MARK: - The list

    /// What a wide journal row says after its STAN: the reference the cashier typed, and the journal's note in the
    /// cashier's words (why it is unknown, what a late answer was).
    static func rowWhy(_ e: JournalEntry) -> String? {
        let parts = [Format.typedReference(e).map { "ref. " + SafeText.terminal($0) }, e.note.map { SafeText.terminal(Format.noteWords($0)) }]
            .compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    /// The card in the journal list's card column of `width`: the whole masked number where it fits, else the card's type
    /// (its words that fit, never a cut one) and the number's last four digits ("Visa Credit …7417", "Visa …7417"), never
    /// a piece of the number cut short.
    static func listCard(_ r: CallbackResponse?, width: Int) -> String {
        guard let full = Format.card(r).map(SafeText.terminal) else { return "" }
        if full.displayWidth <= width { return full }
        let last4 = r?.accountNumber.map { "…" + SafeText.terminal(String($0.suffix(4))) } ?? ""
        var type = ""
        for word in SafeText.terminal(r?.cardType ?? "").split(separator: " ") {
            let longer = type.isEmpty ? String(word) : type + " " + word
            guard longer.displayWidth + 1 + last4.displayWidth <= width else { break }
            type = longer
        }
        return type.isEmpty ? last4 : type + " " + last4
    }

    // MARK: - The detail

    /// One line of the detail view: a label (on the first line of a value only) and a value's line.
    struct DetailLine: Sendable, Hashable {
        var label: String
        var value: String
        var role: Role
        /// A section heading of the raw view (drawn across, bold).
        var heading = false
    }

    /// The detail's label column: the cashier's labels, or the protocol's field names (up to 19 letters).
    static func detailLabelWidth(raw: Bool) -> Int { raw ? 20 : 18 }

    /// The detail of one entry as the lines it takes at the screen's width: the cashier's labels, or (`r`) the
    /// raw protocol fields. Everything that came from the terminal goes through `SafeText.terminal` (an escape
    /// sequence in a field is shown as `\u{1B}`, never acted on). Render draws these lines and update scrolls
    /// by them, so both agree on how far the detail goes.
    static func detailLines(_ e: JournalEntry, _ s: AppState) -> [DetailLine] {
        let rows = s.journal.raw ? rawDetailRows(e) : cashierDetailRows(e, s)
        let width = Layout(s.size, screen: .journal).screenBody.width - 2
        let labelW = detailLabelWidth(raw: s.journal.raw)
        let valueW = max(8, width - labelW)
        var out: [DetailLine] = []
        for row in rows {
            if row.heading { out.append(row); continue }
            let parts = row.value.displayWidth <= valueW ? [row.value] : wrap(row.value, width: valueW)
            for (i, p) in (parts.isEmpty ? [""] : parts).enumerated() {
                out.append(DetailLine(label: i == 0 ? row.label : "", value: p, role: row.role))
            }
        }
        return out
    }

    /// The rows a cashier reads: what, when, the verdict in words, money, card, keys, the refund link.
    static func cashierDetailRows(_ e: JournalEntry, _ s: AppState) -> [DetailLine] {
        let safe = SafeText.terminal
        let resp = e.response
        let v = CashierWording.verdict(for: e, currency: s.currency, tipStyle: s.tipStyle)
        var rows: [DetailLine] = []
        func add(_ label: String, _ value: String?, _ role: Role = .normal) {
            guard let value, !value.isEmpty else { return }
            rows.append(DetailLine(label: label, value: value, role: role))
        }
        add("Result", "\(v.mark) " + v.headline, v.role)
        let answer = resp == nil && !v.sentence.hasPrefix("No answer") ? "None received. " + v.sentence : v.sentence
        add("Terminal's answer", answer, v.role == .approved ? .normal : (v.role == .dim ? .dim : .error))
        add("What", Format.actionName(e.action).capitalizedFirst)
        add("When", Format.dateTime(e.createdAtMs, offsetMinutes: s.tzOffsetMinutes))
        let request = QueryFields(url: e.requestURL)
        if let m = request?.value(named: "paymentMethod"), !m.isEmpty { add("Paid by", safe(m)) }
        if e.action.movesMoney || e.amount != nil {
            // Goods, tip and what the card paid, read with the tip style (the amount holds the tip when it is included).
            let tip = resp?.tipAmount ?? e.tipAmount
            add("Amount", Format.goods(e).map { Format.money($0, s.currency) } ?? (e.action.amountMayBeLess ? "in full" : nil), .amount)
            if let tip, tip.cents > 0 {
                add("Tip", Format.money(tip, s.currency), .amount)
                add("Total", Format.total(e).map { Format.money($0, s.currency) }, .amount)
            }
        }
        if e.action.findsEarlierPayment == .toRefund { add("Refund of", refundOfText(e, s)) }
        let unknownBack = s.journal.links.unknownAmount.contains(e.id)
        if s.journal.links.refunded[e.id] != nil || unknownBack {
            let of = Format.total(e).map { " of " + Format.money($0, s.currency) } ?? ""
            let known = s.journal.links.refunded[e.id].map { Format.money($0, s.currency) + of } ?? "amount unknown" + of
            add("Refunded", known + (unknownBack && s.journal.links.refunded[e.id] != nil ? ", and a refund of unknown amount" : "")
                + (unknownBack ? ": check the terminal" : ""), .warning)
            let refunds = (s.journal.links.refunds[e.id] ?? []).compactMap { s.journal.entry($0) }.map { r in
                "at " + Format.hoursMinutesOfDay(r.createdAtMs, offsetMinutes: s.tzOffsetMinutes)
                    + (Format.total(r).map { " " + Format.money($0, s.currency) } ?? "")
            }
            add("Refunds", refunds.joined(separator: ", "))
            if !unknownBack, let back = s.journal.links.refunded[e.id], let total = Format.total(e), back < total {
                add("Left", Format.money(total - back, s.currency) + " left to refund", .amount)
            }
        }
        if e.action.findsEarlierPayment == .toCapture, let id = s.journal.links.preAuthOf[e.id], let pre = s.journal.entry(id) {
            add("Capture of", "pre-auth" + (Format.total(pre).map { " " + Format.money($0, s.currency) } ?? "") + " at "
                + Format.hoursMinutesOfDay(pre.createdAtMs, offsetMinutes: s.tzOffsetMinutes))
        }
        if let captures = s.journal.links.captures[e.id], !captures.isEmpty {
            add("Captured", captures.compactMap { s.journal.entry($0) }.map { c in
                (Format.total(c).map { Format.money($0, s.currency) + " " } ?? "") + "at "
                    + Format.hoursMinutesOfDay(c.createdAtMs, offsetMinutes: s.tzOffsetMinutes)
            }.joined(separator: ", "), .warning)
        }
        add("Card", Format.card(resp).map(safe))
        add("Method", resp?.verificationMethod.map(safe))
        if let n = resp?.installments, n > 0 { add("Installments", "\(n)") }
        add("STAN", resp?.referenceNumber.map(safe))
        add("Order code", resp?.orderCode.map(safe))
        add("Short code", resp?.shortOrderCode.map(safe))
        add("Auth code", resp?.authorisationCode.map(safe))
        // The reference the cashier typed, never one the terminal made up when none was (a UUID; it is in the raw view).
        add("Reference", Format.typedReference(e).map(safe))
        if e.action == .batch { add("Batch", (resp?.batchName ?? resp?.batchId).map(safe)) }
        add("Shift", (e.batchName ?? e.batchId).map(safe))
        add("Terminal id", resp?.tid.map(safe))
        add("Note", e.note.map { safe(Format.noteWords($0)) }, .warning)
        return rows
    }

    /// "sale € 22.00 at 10:31" for a refund whose sale is among the rows loaded; else the key it named.
    static func refundOfText(_ e: JournalEntry, _ s: AppState) -> String {
        if let id = s.journal.links.original[e.id], let sale = s.journal.entry(id) {
            return Format.actionName(sale.action) + (Format.total(sale).map { " " + Format.money($0, s.currency) } ?? "") + " at "
                + Format.hoursMinutesOfDay(sale.createdAtMs, offsetMinutes: s.tzOffsetMinutes)
        }
        return RefundLinks.finder(of: e).key.map(Format.key) ?? "the payment picked on the terminal"
    }

    /// The raw protocol fields: the request URL's fields as sent (secrets redacted), the callback's fields as
    /// received (card number masked), the raw result code, what the decoder warned about.
    static func rawDetailRows(_ e: JournalEntry) -> [DetailLine] {
        let safe = SafeText.terminal
        var rows: [DetailLine] = [DetailLine(label: "Sent to the terminal", value: "", role: .label, heading: true)]
        rows.append(DetailLine(label: "journal state", value: e.state.rawValue, role: stateRole(e.state)))
        rows.append(DetailLine(label: "request id", value: safe(e.requestId), role: .normal))
        if let fields = QueryFields(url: e.requestURL) {
            for f in fields { rows.append(DetailLine(label: safe(f.name), value: safe(f.value), role: .normal)) }
        } else {
            rows.append(DetailLine(label: "request", value: safe(e.requestURL), role: .normal))
        }
        rows.append(DetailLine(label: "The terminal's answer", value: "", role: .label, heading: true))
        guard let resp = e.response else {
            rows.append(DetailLine(label: "answer", value: "none received", role: .unknown))
            return rows
        }
        for f in resp.fields where !f.value.isEmpty {
            let role: Role = f.name == "message" || f.name == "status" ? (resp.isApproved ? .normal : .error) : .normal
            rows.append(DetailLine(label: safe(f.name), value: safe(f.value), role: role))
        }
        if let code = resp.messageCode { rows.append(DetailLine(label: "result code", value: "\(code)", role: resp.isApproved ? .normal : .error)) }
        for w in resp.warnings { rows.append(DetailLine(label: "decoder", value: safe(w.description), role: .warning)) }
        return rows
    }

    /// Which detail lines are shown: from the scroll, within the room the layout gives.
    static func detailWindow(_ e: JournalEntry, _ s: AppState) -> ScrollWindow { detailWindow(count: detailLines(e, s).count, s) }

    static func detailWindow(count: Int, _ s: AppState) -> ScrollWindow {
        ScrollWindow(total: count, room: Layout(s.size).detailRows, first: s.journal.detailScroll)
    }

    static func journalDetail(_ e: JournalEntry, _ s: AppState, _ r: Rect, _ buf: inout ScreenBuffer) {
        let lines = detailLines(e, s)
        let x = r.x + 1
        let labelW = detailLabelWidth(raw: s.journal.raw)
        let vx = x + labelW
        let window = detailWindow(count: lines.count, s)
        window.drawMarks(x: x, top: r.y, width: r.width - 2, &buf)
        for i in window.range {
            let line = lines[i], y = window.row(of: i, top: r.y)
            if line.heading {
                buf.put(line.label, x: x, y: y, role: .label, attrs: .bold, maxWidth: r.width - 2)
                continue
            }
            buf.put(line.label, x: x, y: y, role: .label, maxWidth: labelW - 1)
            buf.put(line.value, x: vx, y: y, role: line.role, maxWidth: r.maxX - vx - 1)
        }
        let y = r.maxY - 1
        // The footer, most important first; what does not fit goes (every key is in the help).
        // A keypad cashier closes the detail with Enter (it has no Esc) and scrolls with + and -; `r` is not on a keypad.
        var parts = s.keymap.isKeypad ? ["\(s.keymap.hint(.submit)) back"]
            : ["\(s.keymap.hint(.cancel)) back", "\(JournalScreen.rawKey) " + (s.journal.raw ? "cashier's view" : "raw fields")]
        if window.scrolls {
            parts.append(s.keymap.isKeypad ? [keyPart(s, .next, ""), keyPart(s, .previous, "")].compactMap { $0?.trimmingWhitespace() }.joined(separator: "/") + " scroll"
                         : "\(s.keymap.hint(.up))/\(s.keymap.hint(.down)) scroll")
        }
        if reprintableOrderCode(e) != nil, let reprint = keyPart(s, .reprint, "reprint") { parts.append(reprint) }
        while parts.count > 2, parts.joined(separator: "  ").displayWidth > r.width - 2 { parts.removeLast() }
        buf.put(parts.joined(separator: "  "), x: x, y: y, role: .hint, maxWidth: r.width - 2)
    }
}
