import TillProtocol
import TOMLKit

/// A key as the backend reports it, independent of ncurses.
public enum Key: Hashable, Sendable, CustomStringConvertible {
    case char(Character)
    case alt(Character)
    case ctrl(Character)
    case f(Int)
    case enter, esc, tab, backTab, up, down, left, right, pageUp, pageDown, home, end, backspace, delete

    /// Parses a key name as keymaps write it: `F2`, `alt-s`, `ctrl-u`, `enter`, `esc`, `shift-tab`, `+`, `space`.
    public init?(name raw: String) {
        let name = raw.trimmingWhitespace()
        let lower = name.lowercased()
        if let k = Key.named[lower] { self = k; return }
        if name.count == 1, let c = name.first { self = .char(c); return }
        if lower.hasPrefix("f"), let n = Int(lower.dropFirst()), (1...24).contains(n) { self = .f(n); return }
        for (prefix, make) in Key.prefixes where lower.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            if rest.count == 1, let c = rest.first {
                self = make(prefix.hasPrefix("c") || prefix == "^" ? Character(c.lowercased()) : c)
                return
            }
            if rest.lowercased() == "space" { self = make(" "); return }
        }
        return nil
    }

    private static let named: [String: Key] = [
        "enter": .enter, "return": .enter, "kp-enter": .enter, "esc": .esc, "escape": .esc, "tab": .tab,
        "shift-tab": .backTab, "backtab": .backTab, "up": .up, "down": .down, "left": .left, "right": .right,
        "pgup": .pageUp, "pageup": .pageUp, "page-up": .pageUp, "pgdn": .pageDown, "pagedown": .pageDown,
        "page-down": .pageDown, "home": .home, "end": .end, "backspace": .backspace, "delete": .delete, "del": .delete,
        "space": .char(" "),
    ]
    private static let prefixes: [(String, @Sendable (Character) -> Key)] = [
        ("alt-", Key.alt), ("meta-", Key.alt), ("m-", Key.alt), ("ctrl-", Key.ctrl), ("c-", Key.ctrl), ("^", Key.ctrl),
    ]

    /// How the key is shown in help and hints: `F2`, `Alt-s`, `Ctrl-u`, `Enter`.
    public var description: String {
        switch self {
        case .char(" "): return "Space"
        case .char(let c): return String(c)
        case .alt(let c): return "Alt-" + String(c)
        case .ctrl(let c): return "Ctrl-" + String(c)
        case .f(let n): return "F\(n)"
        case .enter: return "Enter"
        case .esc: return "Esc"
        case .tab: return "Tab"
        case .backTab: return "Shift-Tab"
        case .up: return "↑"
        case .down: return "↓"
        case .left: return "←"
        case .right: return "→"
        case .pageUp: return "PgUp"
        case .pageDown: return "PgDn"
        case .home: return "Home"
        case .end: return "End"
        case .backspace: return "Backspace"
        case .delete: return "Del"
        }
    }

    public var isPrintable: Bool { if case .char = self { return true }; return false }
    /// A key a numeric keypad has: its digits, `.` `,` `+` `-` `*` `/` and Enter.
    public var isOnKeypad: Bool {
        switch self {
        case .char(let c): return "0123456789.,+-*/".contains(c)
        case .enter: return true
        default: return false
        }
    }
}

/// A named thing the cashier can do; keymaps bind keys to these.
public enum KeyAction: String, CaseIterable, Sendable, Hashable {
    case help, sale, preAuth = "pre-auth", capture, refund, batch, journal, unresolved, quit
    case submit, cancel, next, previous, up, down, pageUp = "page-up", pageDown = "page-down"
    case erase, clear, tip5 = "tip-5", tip10 = "tip-10", tip15 = "tip-15", tipNone = "tip-none"
    /// The tip's presets in turn: 5 %, 10 %, 15 %, none. One control key by default: an Alt-digit preset is the same
    /// bytes as Esc then that digit typed quickly (the cashier's "clear, then the amount"), which set a tip on the old
    /// amount and added the digits to it (30, Esc 2 5 charged 305.00 + 30.50).
    case tip
    /// To the Sale form's installments, whatever field the cursor is on (its text selected: typing replaces it).
    case installments
    case scope, resolve, closeBatch = "close-batch"
    case report, export
    case stopWaiting = "stop-waiting"
    case paymentMethod = "payment-method", reprint, admin
    /// The numbered function menu: what this screen can do, then the screens, each on a digit (the keypad's way
    /// to everything). Its keys always act, never type, except on Terminal settings.
    case menu
    /// In a box that moves money (or gives a payment up): does the choice picked, where a number picks it. Never Enter
    /// nor a digit (an amount typed by habit, then Enter, must not answer such a box): the keypad's `+`; unbound by
    /// default, where each choice's letter does it.
    case confirm

    public init?(name: String) {
        let n = name.lowercased().replacingUnderscores()
        if let a = KeyAction(rawValue: n) { self = a; return }
        let aliases: [String: KeyAction] = ["preauth": .preAuth, "pre_auth": .preAuth, "abort": .cancel, "back": .cancel,
                                           "back-space": .erase, "backspace": .erase, "pageup": .pageUp, "pagedown": .pageDown,
                                           "pending": .unresolved, "closebatch": .closeBatch, "tipnone": .tipNone,
                                           "paymentmethod": .paymentMethod, "settings": .admin,
                                           "functions": .menu]
        if let a = aliases[n] { self = a; return }
        return nil
    }

    /// What the action does, for the help overlay (at most 19 characters).
    public var label: String {
        switch self {
        case .help: return "Help (this list)"
        case .sale: return "Sale"
        case .preAuth: return "Pre-authorisation"
        case .capture: return "Capture a pre-auth"
        case .refund: return "Refund / cancel"
        case .batch: return "Batch (shift)"
        case .journal: return "Journal"
        case .unresolved: return "Unresolved list"
        case .quit: return "Quit"
        case .submit: return "Send/confirm/open"
        case .cancel: return "Abort/close/back"
        case .next: return "Next field"
        case .previous: return "Previous field"
        case .up: return "Up in a list"
        case .down: return "Down in a list"
        case .pageUp: return "Page up"
        case .pageDown: return "Page down"
        case .erase: return "Erase a character"
        case .clear: return "Clear the field"
        case .tip5: return "Tip 5 %"
        case .tip10: return "Tip 10 %"
        case .tip15: return "Tip 15 %"
        case .tipNone: return "No tip"
        case .installments: return "Installments field"
        case .tip: return "Tip 5/10/15%, none"
        case .scope: return "Journal batch/all"
        case .resolve: return "Resolve an unknown"
        case .closeBatch: return "Close active batch"
        case .report: return "Shift report (X/Z)"
        case .export: return "Export the report"
        case .stopWaiting: return "Stop waiting"
        case .paymentMethod: return "Card/MOTO/other"
        case .reprint: return "Reprint a receipt"
        case .admin: return "Terminal settings"
        case .menu: return "Menu (by number)"
        case .confirm: return "Yes, in a money box"
        }
    }

    /// Actions that take you to a screen.
    public var isGlobal: Bool {
        switch self {
        case .help, .sale, .preAuth, .capture, .refund, .batch, .journal, .unresolved, .quit, .report, .admin, .closeBatch: return true
        default: return false
        }
    }
}

/// A problem in a theme or keymap file: which file, which line, what is wrong.
public struct ConfigFileError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var message: String
    public init(file: String, line: Int?, message: String) { self.file = file; self.line = line; self.message = message }
    public var description: String {
        if let line { return "\(file):\(line): \(message)" }
        return "\(file): \(message)"
    }
}

/// Named actions bound to keys. Several keys may do one action; one key does one action.
public struct Keymap: Sendable, Hashable {
    public var name: String
    /// Each action's keys; and each bound key's action (the first action in `KeyAction.allCases` order that has it).
    private var keysByAction: [KeyAction: [Key]]
    private var actionByKey: [Key: KeyAction]

    init(name: String, pairs: KeyValuePairs<KeyAction, [Key]>) {
        self.init(name: name, bindings: Dictionary(pairs.map { ($0, $1) }, uniquingKeysWith: { _, last in last }))
    }

    public init(name: String, bindings: [KeyAction: [Key]]) {
        self.name = name
        keysByAction = Dictionary(uniqueKeysWithValues: KeyAction.allCases.map { ($0, bindings[$0] ?? []) })
        var byKey: [Key: KeyAction] = [:]
        for a in KeyAction.allCases { for k in keysByAction[a] ?? [] where byKey[k] == nil { byKey[k] = a } }
        actionByKey = byKey
    }

    /// Action to keys, every action (unbound ones with none).
    public var bindings: [KeyAction: [Key]] { keysByAction }

    /// A keymap whose menu is on a keypad key (the shipped `keypad`) is a keypad cashier's: the screen names only the
    /// keys a keypad has (an F-key or Alt-letter it does not have would be a key the cashier cannot press).
    public var isKeypad: Bool { keys(for: .menu).first?.isOnKeypad ?? false }

    /// The key to name for an action on screen: the first, or for a keypad cashier the first a keypad has (nil: none).
    public func shownKey(for action: KeyAction) -> Key? {
        isKeypad ? keys(for: action).first(where: \.isOnKeypad) : keys(for: action).first
    }

    public func action(for key: Key) -> KeyAction? { actionByKey[key] }
    public func keys(for action: KeyAction) -> [Key] { keysByAction[action] ?? [] }
    /// The first key of an action as shown in hints (`F2`), or `?` when unbound.
    public func hint(_ action: KeyAction) -> String { keys(for: action).first?.description ?? "—" }

    /// The built-in default: function keys plus mnemonic Alt letters. Matches keymaps/default.toml.
    public static let standard: Keymap = {
        // Key values, not names to parse: this runs before the first frame (parsing the names was most of its cost).
        // A test holds it equal to keymaps/default.toml read by `parse`.
        let b: KeyValuePairs<KeyAction, [Key]> = [
            .help: [.f(1), .alt("h"), .char("?")], .sale: [.f(2), .alt("s")], .preAuth: [.f(3), .alt("p")],
            .capture: [.f(4), .alt("c")], .refund: [.f(5), .alt("r")], .batch: [.f(6), .alt("b")],
            .journal: [.f(7), .alt("j")], .unresolved: [.f(8), .alt("u")], .quit: [.f(10), .alt("q"), .ctrl("c")],
            .submit: [.enter], .cancel: [.esc], .next: [.tab, .down], .previous: [.backTab, .up], .up: [.up],
            .down: [.down], .pageUp: [.pageUp], .pageDown: [.pageDown], .erase: [.backspace],
            .clear: [.ctrl("u"), .delete], .tip: [.ctrl("t")], .installments: [.alt("i")], .scope: [.ctrl("a")], .resolve: [.ctrl("r")], .closeBatch: [.ctrl("k")],
            .report: [.f(9), .alt("x")], .export: [.ctrl("e")], .stopWaiting: [.ctrl("w"), .alt("w")],
            .paymentMethod: [.alt("m"), .f(12)], .reprint: [.ctrl("p")], .admin: [.f(11), .alt("a")],
            .menu: [.alt("o")], .confirm: [],
        ]
        return Keymap(name: "default", pairs: b)
    }()

    /// Reads a keymap file: `[keys]` table of `action = "key"` or `action = ["key", …]`.
    /// Actions left out keep the default's keys.
    public static func parse(_ text: String, file: String, name: String) throws(ConfigFileError) -> Keymap {
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch let e as TOMLParseError {
            throw ConfigFileError(file: file, line: Int(e.source.begin.line), message: e.description)
        } catch { throw ConfigFileError(file: file, line: nil, message: "\(error)") }
        var bindings = Keymap.standard.bindings
        guard let keys = table["keys"]?.table else {
            throw ConfigFileError(file: file, line: nil, message: "no [keys] table (expected lines like `sale = [\"F2\", \"alt-s\"]`)")
        }
        for (k, v) in keys {
            guard let action = KeyAction(name: k) else {
                throw ConfigFileError(file: file, line: lineOf(k, in: text),
                                      message: "unknown action '\(k)' (known: \(KeyAction.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            var names: [String] = []
            if let s = v.string { names = [s] }
            else if let a = v.array { names = a.compactMap { $0.string } }
            else { throw ConfigFileError(file: file, line: lineOf(k, in: text), message: "'\(k)' must be a key name or a list of key names") }
            var list: [Key] = []
            for n in names {
                guard let key = Key(name: n) else {
                    throw ConfigFileError(file: file, line: lineOf(k, in: text), message: "'\(n)' is not a key name (try F2, alt-s, ctrl-u, enter, esc, +)")
                }
                list.append(key)
            }
            bindings[action] = list
        }
        return Keymap(name: name, bindings: bindings)
    }
}

/// The line (1-based) where `key =` first appears in a TOML text, for error messages.
func lineOf(_ key: String, in text: String) -> Int? {
    var n = 0
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        n += 1
        let t = line.trimmingWhitespace()
        if key.hasPrefix("["), t.hasPrefix(key + "]") || t.hasPrefix(key + ".") { return n }
        if t.hasPrefix(key + " ") || t.hasPrefix(key + "=") || t.hasPrefix("\"" + key + "\"") || t.hasPrefix("[" + key) { return n }
    }
    return nil
}


