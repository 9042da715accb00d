import TOMLKit

/// A terminal colour: the 8 basic ones, their bright variants (16-colour terminals), or an index of the 256-colour palette.
public enum Color: Sendable, Hashable {
    case `default`
    case basic(Int)      // 0...7
    case bright(Int)     // 8...15 as 0...7
    case indexed(Int)    // 0...255

    static let names = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]

    public init?(name raw: String) {
        let n = raw.lowercased().replacingUnderscores().trimmingWhitespace()
        if n == "default" || n == "none" || n.isEmpty { self = .default; return }
        if let i = Color.names.firstIndex(of: n) { self = .basic(i); return }
        if n == "gray" || n == "grey" { self = .bright(0); return }
        for p in ["bright-", "light-"] where n.hasPrefix(p) {
            if let i = Color.names.firstIndex(of: String(n.dropFirst(p.count))) { self = .bright(i); return }
        }
        if let i = Int(n), (0...255).contains(i) { self = i < 8 ? .basic(i) : (i < 16 ? .bright(i - 8) : .indexed(i)); return }
        return nil
    }

    /// The colour number a terminal with `colors` colours can show, and whether bold must stand in for brightness.
    public func resolved(colors: Int) -> (number: Int, needsBold: Bool) {
        switch self {
        case .default: return (-1, false)
        case .basic(let i): return (i, false)
        case .bright(let i): return colors >= 16 ? (i + 8, false) : (i, true)
        case .indexed(let i):
            if colors >= 256 { return (i, false) }
            // Nearest of the 8 basic colours for a 256-colour index (cube or grey ramp).
            let basic: Int
            if i >= 232 { basic = i >= 244 ? 7 : 0 } else {
                let c = i - 16
                let r = c / 36, g = (c / 6) % 6, b = c % 6
                basic = (r >= 3 ? 1 : 0) | (g >= 3 ? 2 : 0) | (b >= 3 ? 4 : 0)
            }
            return (basic, false)
        }
    }
}

/// How one role looks: colours for colour terminals, attributes for all, and the attributes
/// that stand in for colour on a monochrome terminal (or with NO_COLOR).
public struct Style: Sendable, Hashable {
    public var fg: Color
    public var bg: Color
    public var attrs: Attr
    public var mono: Attr
    /// What to use instead on 8-colour terminals (when the 16-colour choice would be wrong there).
    public var fg8: Color?
    public var bg8: Color?
    public init(fg: Color = .default, bg: Color = .default, attrs: Attr = [], mono: Attr = []) {
        self.fg = fg; self.bg = bg; self.attrs = attrs; self.mono = mono
    }
}

/// Roles mapped to styles. Loaded from themes/*.toml; the built-in default needs no file.
public struct Theme: Sendable, Hashable {
    public var name: String
    /// Every role's style.
    private var byRole: [Role: Style]

    /// Roles left out get the built-in default's style.
    public init(name: String, styles: [Role: Style]) {
        self.name = name
        byRole = Dictionary(uniqueKeysWithValues: Role.allCases.map { ($0, styles[$0] ?? Theme.standard.style($0)) })
    }

    /// Roles left out get a plain style (the built-in default lists them all).
    init(name: String, pairs: KeyValuePairs<Role, Style>) {
        self.name = name
        byRole = Dictionary(pairs.map { ($0, $1) }, uniquingKeysWith: { _, last in last })
    }

    public subscript(role: Role) -> Style {
        get { byRole[role] ?? Style() }
        set { byRole[role] = newValue }
    }

    /// Role to style, every role.
    public var styles: [Role: Style] { Dictionary(uniqueKeysWithValues: Role.allCases.map { ($0, self[$0]) }) }

    public func style(_ role: Role) -> Style { self[role] }

    /// Attributes of a cell on a terminal without colour: the role's monochrome attributes plus the cell's own.
    public func monoAttrs(_ cell: Cell) -> Attr { style(cell.role).mono.union(cell.attrs) }

    /// Built-in default theme; mirrors themes/default.toml.
    public static let standard: Theme = {
        // Colour values, not names to parse: this runs before the first frame. A test holds it equal to
        // themes/default.toml read by `parse`. (.basic: black red green yellow blue magenta cyan white = 0...7.)
        func s(_ fg: Color, _ bg: Color = .default, _ attrs: Attr = [], mono: Attr = []) -> Style {
            Style(fg: fg, bg: bg, attrs: attrs, mono: mono)
        }
        var t = Theme(name: "default", pairs: [
            .normal: s(.default),
            .title: s(.bright(7), .basic(4), .bold, mono: [.bold, .reverse]),
            .border: s(.basic(4)),
            .tab: s(.basic(7), .basic(4), mono: .reverse),
            .tabActive: s(.basic(0), .basic(6), .bold, mono: .bold),
            .label: s(.default),
            .field: s(.default, .default, .underline, mono: .underline),
            .fieldFocused: s(.basic(0), .bright(6), .bold, mono: [.reverse, .bold]),
            .fieldError: s(.bright(7), .basic(1), .bold, mono: [.reverse, .bold]),
            .error: s(.bright(1), .default, .bold, mono: .bold),
            .hint: s(.basic(6), mono: .dim),
            .amount: s(.bright(3), .default, .bold, mono: .bold),
            .approved: s(.basic(0), .basic(2), .bold, mono: [.reverse, .bold]),
            // Underlined, not reversed as an approval is: without colour the two differ by more than the word.
            .declined: s(.bright(7), .basic(1), .bold, mono: [.underline, .bold]),
            .aborted: s(.basic(0), .basic(3), .bold, mono: [.reverse]),
            .unknown: s(.basic(0), .basic(5), .bold, mono: [.reverse, .bold, .underline]),
            .inFlight: s(.bright(6), .default, .bold, mono: .bold),
            .statusLine: s(.basic(0), .basic(7), mono: .reverse),
            .statusAlert: s(.bright(7), .basic(1), .bold, mono: [.reverse, .bold]),
            .helpKey: s(.bright(3), .default, .bold, mono: .bold),
            .helpText: s(.default),
            .selection: s(.basic(0), .basic(6), mono: .reverse),
            .warning: s(.bright(3), .default, .bold, mono: .bold),
            .dim: s(.default, .default, .dim, mono: .dim),
        ])
        // As themes/default.toml says: on 8-colour terminals the focused field is plain cyan (not cyan with bold).
        t[.fieldFocused].bg8 = .basic(6)
        return t
    }()

    /// Reads a theme file. Each role is a table: `[roles.approved]` with `fg`, `bg`, `attrs`, `mono`
    /// (and optionally `fg8`/`bg8`: what to use on 8-colour terminals). Roles left out keep the default look.
    public static func parse(_ text: String, file: String, name: String) throws(ConfigFileError) -> Theme {
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch let e as TOMLParseError {
            throw ConfigFileError(file: file, line: e.source.begin.line, message: e.description)
        } catch { throw ConfigFileError(file: file, line: nil, message: "\(error)") }
        guard let roles = table["roles"]?.table else {
            throw ConfigFileError(file: file, line: nil, message: "no [roles] table (expected sections like [roles.approved])")
        }
        var styles = Theme.standard.styles
        for (roleName, value) in roles {
            guard let role = Role(name: roleName) else {
                throw ConfigFileError(file: file, line: lineOf("[roles." + roleName, in: text) ?? lineOf(roleName, in: text),
                                      message: "unknown role '\(roleName)' (known: \(Role.allCases.map(\.name).joined(separator: ", ")))")
            }
            guard let t = value.table else {
                throw ConfigFileError(file: file, line: lineOf(roleName, in: text), message: "role '\(roleName)' must be a table with fg, bg, attrs")
            }
            // Found only when there is something to report: a line search per role costs more than the parse.
            var line: Int? { lineOf("[roles." + roleName, in: text) ?? lineOf(roleName, in: text) }
            var style = Style()
            func color(_ key: String) throws(ConfigFileError) -> Color? {
                guard let v = t[key] else { return nil }
                let str = v.string ?? v.int.map(String.init) ?? ""
                guard let c = Color(name: str) else {
                    throw ConfigFileError(file: file, line: line,
                                          message: "role '\(roleName)': '\(str)' is not a colour (black, red, green, yellow, blue, magenta, cyan, white, bright-…, 0–255, default)")
                }
                return c
            }
            func attrs(_ key: String) throws(ConfigFileError) -> Attr? {
                guard let v = t[key] else { return nil }
                var names: [String] = []
                if let s = v.string { names = s.split(separator: ",").map { String($0).trimmingWhitespace() }.filter { !$0.isEmpty } }
                else if let a = v.array { names = a.compactMap { $0.string } }
                var out: Attr = []
                for n in names {
                    guard let a = Attr(name: n) else {
                        throw ConfigFileError(file: file, line: line, message: "role '\(roleName)': '\(n)' is not an attribute (bold, reverse, underline, dim)")
                    }
                    out.insert(a)
                }
                return out
            }
            for key in t.map({ $0.0 }) where !["fg", "bg", "attrs", "mono", "fg8", "bg8"].contains(key) {
                throw ConfigFileError(file: file, line: line, message: "role '\(roleName)': unknown key '\(key)' (fg, bg, attrs, mono, fg8, bg8)")
            }
            let fg8 = try color("fg8"), bg8 = try color("bg8")
            style.fg = try color("fg") ?? .default
            style.bg = try color("bg") ?? .default
            style.attrs = try attrs("attrs") ?? []
            style.mono = try attrs("mono") ?? Theme.standard.style(role).mono
            if let fg8 { style.fg8 = fg8 }
            if let bg8 { style.bg8 = bg8 }
            styles[role] = style
        }
        return Theme(name: (table["name"]?.string) ?? name, styles: styles)
    }

    /// The same theme as a monochrome terminal shows it: every role drops its colours.
    public var monochrome: Theme {
        Theme(name: name + " (monochrome)", styles: styles.mapValues { Style(attrs: $0.mono, mono: $0.mono) })
    }
}

extension Style {
    /// Foreground and background colour numbers (-1: terminal default) and extra attributes for a terminal with `colors` colours.
    public func resolved(colors: Int) -> (fg: Int, bg: Int, attrs: Attr) {
        let f = (colors < 16 ? (fg8 ?? fg) : fg).resolved(colors: colors)
        let b = (colors < 16 ? (bg8 ?? bg) : bg).resolved(colors: colors)
        var a = attrs
        if f.needsBold { a.insert(.bold) }
        return (f.number, b.number, a)
    }
}
