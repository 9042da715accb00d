import TillProtocol
import TillModel

/// The Unresolved screen's memory: the payments that need checking, the one with the cursor, and whether start-up
/// recovery (or "ask again") is still asking the terminal.
public struct UnresolvedState: Sendable, Hashable {
    /// Entries left pending, sent, unknown or needing review, as the service last listed them.
    public var entries: [JournalEntry] = []
    public var selected = 0
    public var recovering = false
    /// The recovery running is the one at start: what it settles was found at start. Later in the run a payment is
    /// settled by asking the terminal again (`a`, or the till by itself) or by its own answer arriving late.
    public var atStart = false
    /// Payments recovery could not settle yet (the terminal could not be asked: busy, no answer), by journal id, with
    /// when asking began: the till asks again every `askAgainEveryMs` until `askingForMs` has passed, says "asking the
    /// terminal…" meanwhile, and refuses a new sale of the same amount (it may be that very payment, still running).
    public var asking: [Int64: Int64] = [:]
    /// When the till last asked the terminal again by itself.
    public var lastAskMs: Int64 = 0
    /// The recovery running was started by the till itself (asking again): its end moves no screen and keeps the notice.
    public var askingQuietly = false
    /// The cashier came to this screen (its key, the menu) or moved on it. The till starts on it by itself when the
    /// journal holds unresolved payments; until the cashier chose it, Enter only says what it would do: an Enter
    /// typed ahead for a sale, then "1 Enter", answered the resolve box and marked an earlier payment charged.
    public var chosen = false
    public static let askAgainEveryMs: Int64 = 5_000
    public static let askingForMs: Int64 = 60_000
    public init() {}
    /// The entry with the cursor.
    var current: JournalEntry? { entries.indices.contains(selected) ? entries[selected] : nil }
    /// The cursor a row down or up the list, never above its first row: the cashier has chosen this screen.
    mutating func move(down: Bool) {
        selected = down ? min(entries.count - 1, selected + 1) : max(0, selected - 1)
        chosen = true
    }
    /// A payment listed that another till is sending (this till's own are never listed): read again every few
    /// seconds, so it leaves the list when that till is answered.
    var waitingOnAnotherTill: Bool { entries.contains { $0.state.isWithItsSender && asking[$0.id] == nil } }
}

/// Payments whose outcome is unknown (or needs review): ask the terminal again, or say what the
/// terminal shows (charged / not charged, no default).
enum UnresolvedScreen: ScreenComponent {
    static let screen = Screen.unresolved
    static let title = "Unresolved"
    static let key = KeyAction.unresolved
    static var blankForm: Form { Form([]) }
    static func frameTitle(_ state: AppState) -> String { "Unresolved transactions" }
    static func enter(_ state: inout AppState, from: Screen) -> [Command] {
        state.unresolved.chosen = true
        return [.loadUnresolved]
    }
    static let menuPageLine: (key: Character, label: String)? = ("7", "Unresolved")
    static func menu(_ s: AppState) -> [(String, MenuCommand)] {
        (s.unresolved.current != nil ? [("Resolve the selected one", .action(.resolve))] : []) + [("Ask the terminal again", .askAgain)]
    }
    static func update(_ state: inout AppState, _ action: KeyAction) -> [Command] {
        switch action {
        case .next, .down: state.unresolved.move(down: true)
        case .previous, .up: state.unresolved.move(down: false)
        case .submit where !state.unresolved.chosen:
            state.unresolved.chosen = true
            if let e = state.unresolved.current {
                setNotice(&state, "Came up at start: Enter again to resolve \(entryWords(e, state)), \(state.keymap.hint(.sale)) for Sale.", error: true)
            }
        case .submit, .resolve:
            if let e = state.unresolved.current { confirmResolve(&state, e) }
        default: break
        }
        state.unresolved.selected = max(0, state.unresolved.selected)
        return []
    }
    static func submit(_ state: inout AppState) -> [Command] { update(&state, .submit) }
    static func render(_ s: AppState, _ r: Rect, _ buf: inout ScreenBuffer) {
        var y = r.y + 1
        let x = r.x + 2
        let w = r.width - 4
        if s.unresolved.recovering {
            buf.put("Checking the journal for unfinished", x: x, y: y, role: .inFlight, maxWidth: w); y += 1
            buf.put("transactions and asking the terminal…", x: x, y: y, role: .inFlight, maxWidth: w)
            return
        }
        if s.unresolved.entries.isEmpty {
            buf.put("Nothing to check: every transaction", x: x, y: y, role: .normal, maxWidth: w); y += 1
            buf.put("in the journal has a known outcome.", x: x, y: y, role: .normal, maxWidth: w)
            buf.put(keyPart(s, .sale, "sale") ?? "", x: x, y: r.maxY - 1, role: .hint)
            return
        }
        for l in wrap("These may or may not have taken money. Check the terminal, then mark each one resolved.", width: w) {
            buf.put(l, x: x, y: y, role: .warning, maxWidth: w); y += 1
        }
        y += 1
        // Each row's lines: the row (over two lines where it is long, between its fields: never cut), then its note, which
        // says why it is open and what to do, wrapped and whole. While the till is still asking the terminal about it,
        // that is what the note says (not "could not be asked").
        func block(_ e: JournalEntry) -> (row: [String], note: [String]) {
            let elsewhere = inProgressElsewhere(e, s)
            let units = [String(Format.dateTime(e.createdAtMs, offsetMinutes: s.tzOffsetMinutes).suffix(11)), Format.actionName(e.action),
                         Format.total(e).map { $0.formatted() } ?? "", elsewhere ? "IN PROGRESS" : Format.stateName(e)]
            let why = s.unresolved.asking[e.id] != nil ? "Asking the terminal… do not charge it again meanwhile."
                : elsewhere ? "In progress on another till, which waits for the terminal's answer." : e.note.map(Format.noteWords)
            return (wrapUnits(units, width: w), why.map { wrap($0, width: max(10, w - 2)) } ?? [])
        }
        let entries = s.unresolved.entries
        let blocks = entries.map(block)
        let bottom = r.maxY - 2
        // The list scrolls so that the selected row is whole on screen; marks say what lies above and below.
        let selected = min(s.unresolved.selected, entries.count - 1)
        var first = 0
        func height(_ from: Int, _ to: Int) -> Int { blocks[from...to].reduce(0) { $0 + $1.row.count + $1.note.count } }
        while first < selected, height(first, selected) > bottom - y - 1 { first += 1 }
        if first > 0 {
            buf.put("↑ \(first) more above", x: x, y: y, role: .hint, maxWidth: w); y += 1
        }
        var shown = first
        for i in first..<entries.count {
            let (row, note) = blocks[i]
            let last = i == entries.count - 1
            // Room for the "more below" mark unless this is the last row.
            guard y + row.count + note.count <= bottom - (last ? 0 : 1) || i == first else { break }
            let isSelected = i == s.unresolved.selected
            for (j, l) in row.enumerated() where y < bottom {
                let indent = j == 0 ? 0 : 2
                buf.put(l, x: x + indent, y: y, role: isSelected ? .selection : .normal, maxWidth: w - indent)
                if isSelected { buf.restyle(Rect(x: x, y: y, width: w, height: 1), role: .selection, attrs: .bold) }
                y += 1
            }
            for l in note where y < bottom {
                buf.put("  " + l, x: x, y: y, role: .hint, maxWidth: w); y += 1
            }
            shown = i + 1
        }
        if shown < entries.count {
            buf.put("↓ \(entries.count - shown) more below", x: x, y: min(y, bottom - 1), role: .hint, maxWidth: w)
        }
        let parts = ["\(s.keymap.hint(.submit)) resolve", s.keymap.isKeypad ? menuRoute(s, .askAgain).map { $0 + " ask again" } : "a ask again", backPart(s)]
        buf.put(parts.compactMap { $0 }.joined(separator: "  "), x: x, y: r.maxY - 1, role: .hint, maxWidth: w)
    }

    /// The service listed what needs checking (`Command.loadUnresolved`, `Command.recover`): after a recovery, the
    /// till says what it found and leaves this screen when nothing is left.
    static func loaded(_ state: inout AppState, _ list: [JournalEntry], recovered: Bool) -> [Command] {
        state.unresolved.entries = list
        state.unresolved.selected = min(state.unresolved.selected, max(0, list.count - 1))
        if recovered { state.unresolved.atStart = false }
        let stillOpen = Set(list.map(\.id))
        state.unresolved.asking = state.unresolved.asking.filter { stillOpen.contains($0.key) }
        if recovered, state.unresolved.askingQuietly {
            // The till asked again by itself: what it learned came as results; the cashier stays where they are.
            state.unresolved.recovering = false
            state.unresolved.askingQuietly = false
        } else if recovered {
            state.unresolved.recovering = false
            if list.isEmpty {
                if state.screen == .unresolved { state.screen = .sale }
                // Not "Ready" while the terminal cannot be reached: its problem stays the notice.
                if case .problem(let m) = state.connection { setNotice(&state, m, error: true) }
                else if let w = state.startupWarnings.first { setNotice(&state, w, error: true) }
                else { setNotice(&state, "Ready. No unfinished transactions in the journal.") }
            } else {
                // Shown first only where the till starts on it (the journal held them at start); a cashier already
                // typing on another screen stays there, told where to look.
                let n = "\(list.count) transaction\(list.count == 1 ? "" : "s") need\(list.count == 1 ? "s" : "") checking"
                setNotice(&state, state.screen == .unresolved ? n + "." : n + " (\(state.keymap.hint(.unresolved))).", error: true)
            }
        }
        return []
    }

    /// Letters on the Unresolved screen: `a` asks the terminal again, `c` / `x` settle the selected one.
    static func char(_ state: inout AppState, _ ch: Character) -> [Command]? {
        switch Character(ch.lowercased()) {
        case "a":
            if let e = state.unresolved.current, let cannot = cannotBeAsked(e), !state.unresolved.entries.contains(where: { cannotBeAsked($0) == nil && $0.state.awaitsTerminal }) {
                // Nothing here the terminal could be asked about: say so, and where to look.
                setNotice(&state, entryWords(e, state) + ": " + cannot.joined(separator: " "), error: true)
                return []
            }
            return askAgain(&state)
        case "c", "x":
            guard let e = state.unresolved.current else { return [] }
            state.unresolved.chosen = true
            confirmResolve(&state, e)
            return []
        case "0"..."9", ".", ",":
            // An amount typed here (typed ahead as the till started on this screen) is the next sale's: it goes to Sale,
            // where Enter charges it, asking first about what is unresolved. Never an answer to the resolve box.
            let cmds = globalAction(&state, .sale)
            return cmds + handleKey(&state, .char(ch))
        default:
            return nil
        }
    }
}

extension UnresolvedScreen {
    /// The cashier asks the terminal again about the unresolved entries (`a`, the menu, the resolve box): what it learns
    /// is shown as results, and the Unresolved list follows.
    static func askAgain(_ state: inout AppState) -> [Command] {
        setNotice(&state, "Asking the terminal again…")
        state.unresolved.recovering = true
        state.unresolved.askingQuietly = false
        return [.recover]
    }

    /// A request still pending or sent that this till is not waiting for: another till on the journal is (start-up
    /// recovery leaves none of a till that stopped in these states), so it is that till's to settle.
    static func inProgressElsewhere(_ e: JournalEntry, _ s: AppState) -> Bool {
        e.state.isWithItsSender && s.pending?.entryId != e.id && s.unresolved.asking[e.id] == nil
    }

    static func confirmResolve(_ state: inout AppState, _ e: JournalEntry) {
        if inProgressElsewhere(e, state) {
            setNotice(&state, entryWords(e, state) + " is on another till: wait for it to finish.", error: true)
            return
        }
        guard e.state.needsAttention else {
            setNotice(&state, entryWords(e, state) + " is \(Format.stateName(e.state).lowercased()); only unknown ones need resolving.", error: true)
            return
        }
        let what = entryWords(e, state)
        // In the words of what it does with the money: refunded, captured, done (a batch command).
        let verb = e.action.movesMoney ? e.action.reportRole.moneyVerb : "done"
        var lines = ["Check the terminal's own history first. Then say", "what really happened; nothing is sent again."]
        // Verbs, as every box's choices are: "Press c to mark charged …", never "c to charged".
        var choices = [ConfirmChoice(key: "c", label: "mark \(verb) (it went through)", action: .resolve(entryId: e.id, charged: true, note: "")),
                       ConfirmChoice(key: "x", label: "mark not \(verb)", action: .resolve(entryId: e.id, charged: false, note: ""))]
        if let cannot = cannotBeAsked(e) {
            lines += cannot
        } else {
            lines.append("Or ask the terminal again (a).")
            choices.append(ConfirmChoice(key: "a", label: "ask the terminal again", action: .askAgain))
        }
        var box = Confirmation(title: "Resolve \(what)?", lines: lines, choices: choices, enterPicksFirst: false)
        // Opened on the list, it goes when the entry leaves the list (the journal's rows may hold one the list does not).
        if state.screen == .unresolved { box.standsWhile = .unresolvedEntry(e.id) }
        state.overlay = .confirm(box)
    }

    /// Why the terminal cannot be asked about `e`, and where to look instead; nil when it can (a sale or pre-auth, looked
    /// up by its reference, as recovery does). A refund, a capture or a batch command carries no reference to look it up by.
    static func cannotBeAsked(_ e: JournalEntry) -> [String]? {
        if e.action.recovery == .askByClientTransactionId, e.clientTransactionId != nil { return nil }
        let key = RefundLinks.finder(of: e).key.map(Format.key)
        return ["It cannot be looked up on the terminal (it carries", "no reference): find it in the terminal's list"
                + (key.map { ", by \($0)." } ?? ".")]
    }
}

/// A journal entry named on the screens as a cashier knows it: "Sale € 7.77 at 10:31".
func entryWords(_ e: JournalEntry, _ s: AppState) -> String {
    Format.entryName(e, currency: s.currency, offsetMinutes: s.tzOffsetMinutes)
}
