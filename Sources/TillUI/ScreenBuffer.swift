/// The semantic role of a cell: what it *means*. Themes map roles to colours and attributes.
public enum Role: UInt8, CaseIterable, Sendable, Hashable {
    case normal, title, border, tab, tabActive, label, field, fieldFocused, fieldError, error, hint
    case amount, approved, declined, aborted, unknown, inFlight, statusLine, statusAlert
    case helpKey, helpText, selection, warning, dim

    /// The name used in theme files (`focused-field` style is accepted too).
    public var name: String {
        switch self {
        case .normal: return "normal"
        case .title: return "title"
        case .border: return "border"
        case .tab: return "tab"
        case .tabActive: return "tab-active"
        case .label: return "label"
        case .field: return "field"
        case .fieldFocused: return "field-focused"
        case .fieldError: return "field-error"
        case .error: return "error"
        case .hint: return "hint"
        case .amount: return "amount"
        case .approved: return "approved"
        case .declined: return "declined"
        case .aborted: return "aborted"
        case .unknown: return "unknown"
        case .inFlight: return "in-flight"
        case .statusLine: return "status-line"
        case .statusAlert: return "status-alert"
        case .helpKey: return "help-key"
        case .helpText: return "help-text"
        case .selection: return "selection"
        case .warning: return "warning"
        case .dim: return "dim"
        }
    }

    public init?(name: String) {
        let n = name.lowercased().replacingUnderscores()
        if let r = Role.allCases.first(where: { $0.name == n }) { self = r; return }
        let aliases: [String: Role] = ["focused-field": .fieldFocused, "status": .statusLine, "focused": .fieldFocused,
                                       "error-field": .fieldError, "selected": .selection, "inflight": .inFlight]
        if let r = aliases[n] { self = r; return }
        return nil
    }
}

extension String {
    func replacingUnderscores() -> String { String(map { $0 == "_" ? "-" : $0 }) }
}

/// Text attributes, independent of any terminal library.
public struct Attr: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let bold = Attr(rawValue: 1)
    public static let reverse = Attr(rawValue: 2)
    public static let underline = Attr(rawValue: 4)
    public static let dim = Attr(rawValue: 8)

    public init?(name: String) {
        switch name.lowercased() {
        case "bold": self = .bold
        case "reverse", "inverse": self = .reverse
        case "underline": self = .underline
        case "dim": self = .dim
        default: return nil
        }
    }
}

/// One styled cell: a character, what it means, and extra attributes the view asks for.
public struct Cell: Sendable, Hashable {
    public var ch: Unicode.Scalar
    public var role: Role
    public var attrs: Attr
    public init(_ ch: Unicode.Scalar = " ", role: Role = .normal, attrs: Attr = []) {
        self.ch = ch; self.role = role; self.attrs = attrs
    }
    public static let blank = Cell()
}

public struct Size: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public var description: String { "\(width)×\(height)" }
}

/// A rectangle inside the screen.
public struct Rect: Sendable, Hashable {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) { self.x = x; self.y = y; self.width = width; self.height = height }
    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public func inset(_ d: Int) -> Rect { Rect(x: x + d, y: y + d, width: max(0, width - 2 * d), height: max(0, height - 2 * d)) }
}

/// The whole screen as styled cells: what the view produces and the backend paints.
public struct ScreenBuffer: Sendable, Hashable, CustomStringConvertible {
    public var description: String { "\(size)\n" + text }
    public let size: Size
    public var cells: [Cell]

    public init(size: Size, fill: Cell = .blank) {
        self.size = size
        cells = Array(repeating: fill, count: max(0, size.width) * max(0, size.height))
    }

    public subscript(x: Int, y: Int) -> Cell {
        get { cells[y * size.width + x] }
        set { cells[y * size.width + x] = newValue }
    }

    @inlinable public func contains(x: Int, y: Int) -> Bool { x >= 0 && y >= 0 && x < size.width && y < size.height }

    /// Writes text from (x, y), clipped to `maxWidth` columns and the screen. Returns the columns used.
    @discardableResult
    public mutating func put(_ text: String, x: Int, y: Int, role: Role = .normal, attrs: Attr = [], maxWidth: Int = Int.max) -> Int {
        guard y >= 0, y < size.height else { return 0 }
        var col = x
        let limit = min(size.width, maxWidth == Int.max ? Int.max : x + maxWidth)
        for s in text.unicodeScalars {
            if col >= limit { break }
            if s.value < 0x20 { continue }
            if col >= 0 { cells[y * size.width + col] = Cell(s, role: role, attrs: attrs) }
            col += 1
        }
        return col - x
    }

    /// Fills a rectangle with one styled character.
    public mutating func fill(_ r: Rect, _ ch: Unicode.Scalar = " ", role: Role = .normal, attrs: Attr = []) {
        let x0 = max(0, r.x), y0 = max(0, r.y), x1 = min(size.width, r.maxX), y1 = min(size.height, r.maxY)
        guard x0 < x1, y0 < y1 else { return }
        let c = Cell(ch, role: role, attrs: attrs)
        for y in y0..<y1 { for x in x0..<x1 { cells[y * size.width + x] = c } }
    }

    /// Sets the role (and attrs) of a rectangle without changing its characters.
    public mutating func restyle(_ r: Rect, role: Role, attrs: Attr = []) {
        let x0 = max(0, r.x), y0 = max(0, r.y), x1 = min(size.width, r.maxX), y1 = min(size.height, r.maxY)
        guard x0 < x1, y0 < y1 else { return }
        for y in y0..<y1 { for x in x0..<x1 { cells[y * size.width + x].role = role; cells[y * size.width + x].attrs = attrs } }
    }

    /// A box-drawing frame with an optional title on its top edge.
    public mutating func box(_ r: Rect, title: String? = nil, role: Role = .border, titleRole: Role = .title) {
        guard r.width >= 2, r.height >= 2 else { return }
        let c = Cell("─", role: role)
        for x in r.x + 1..<r.maxX - 1 {
            if contains(x: x, y: r.y) { self[x, r.y] = c }
            if contains(x: x, y: r.maxY - 1) { self[x, r.maxY - 1] = c }
        }
        for y in r.y + 1..<r.maxY - 1 {
            if contains(x: r.x, y: y) { self[r.x, y] = Cell("│", role: role) }
            if contains(x: r.maxX - 1, y: y) { self[r.maxX - 1, y] = Cell("│", role: role) }
        }
        let corners: [(Int, Int, Unicode.Scalar)] = [(r.x, r.y, "┌"), (r.maxX - 1, r.y, "┐"), (r.x, r.maxY - 1, "└"), (r.maxX - 1, r.maxY - 1, "┘")]
        for (x, y, ch) in corners where contains(x: x, y: y) { self[x, y] = Cell(ch, role: role) }
        if let title, !title.isEmpty, r.width > 4 {
            put(" " + title + " ", x: r.x + 2, y: r.y, role: titleRole, attrs: .bold, maxWidth: r.width - 4)
        }
    }

    /// One line of the screen as plain text (trailing spaces kept).
    public func line(_ y: Int) -> String {
        var s = String.UnicodeScalarView()
        for x in 0..<size.width { s.append(cells[y * size.width + x].ch) }
        return String(s)
    }

    /// The screen as plain text, one line per row, trailing spaces trimmed.
    public var text: String {
        (0..<size.height).map { y -> String in
            var l = line(y)
            while l.last == " " { l.removeLast() }
            return l
        }.joined(separator: "\n")
    }

    /// Whether some row contains the text.
    public func contains(_ text: String) -> Bool { (0..<size.height).contains { line($0).contains(text) } }
}
