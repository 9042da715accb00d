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

/// One styled cell: a grapheme cluster (what a reader sees as one character, combining marks
/// included), what it means, and extra attributes the view asks for. A wide cluster (CJK, most
/// emoji) takes its cell and the next one, which holds `Cell.continuationMark`.
public struct Cell: Sendable, Hashable {
    public var ch: Character
    public var role: Role
    public var attrs: Attr
    public init(_ ch: Character = " ", role: Role = .normal, attrs: Attr = []) {
        self.ch = ch; self.role = role; self.attrs = attrs
    }
    public static let blank = Cell()
    /// What the right half of a wide cluster holds: nothing to paint, the cluster to its left covers it.
    public static let continuationMark: Character = "\u{0}"
    public var isContinuation: Bool { ch == Cell.continuationMark }
}

/// How many terminal columns a grapheme cluster takes: 0 for controls and lone combining marks,
/// 2 for East Asian wide and full-width characters and emoji shown as emoji, 1 otherwise
/// (as wcwidth and ratatui's buffer count them).
public func displayWidth(_ c: Character) -> Int {
    // Almost every cell: one printable ASCII byte, one column (the Unicode property look-ups below are not cheap).
    if c.utf8.count == 1, let b = c.utf8.first, b >= 0x20, b < 0x7F { return 1 }
    let scalars = c.unicodeScalars
    guard let first = scalars.first else { return 0 }
    let v = first.value
    if v < 0x20 || (v >= 0x7F && v < 0xA0) { return 0 }
    if scalars.allSatisfy({ isZeroWidth($0) }) { return 0 }
    if isWide(v) { return 2 }
    if first.properties.isEmojiPresentation { return 2 }
    // A text-default emoji made emoji by VS16, or a sequence (ZWJ, keycap, flag) shown as one picture.
    if first.properties.isEmoji && scalars.count > 1 && scalars.contains(where: { $0.value == 0xFE0F || $0.value == 0x200D || (0x1F1E6...0x1F1FF).contains($0.value) }) {
        return 2
    }
    return 1
}

/// Combining marks, enclosing marks, format characters (ZWJ …), variation selectors.
func isZeroWidth(_ s: Unicode.Scalar) -> Bool {
    switch s.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return true
    default: return (0xFE00...0xFE0F).contains(s.value) || (0xE0100...0xE01EF).contains(s.value)
    }
}

/// East Asian Wide (W) and Fullwidth (F) ranges.
func isWide(_ v: UInt32) -> Bool {
    switch v {
    case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
         0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
         0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF,
         0x20000...0x2FFFD, 0x30000...0x3FFFD:
        return true
    default:
        return false
    }
}

extension String {
    /// Terminal columns the text takes (grapheme clusters, wide ones two).
    public var displayWidth: Int { reduce(0) { $0 + TillUI.displayWidth($1) } }
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
        set { setCell(x, y, newValue) }
    }

    @inlinable public func contains(x: Int, y: Int) -> Bool { x >= 0 && y >= 0 && x < size.width && y < size.height }

    /// Writes text from (x, y), clipped to `maxWidth` columns and the screen, one grapheme cluster
    /// per cell (two for a wide one; a wide one that would not fit whole is left out). Controls and
    /// lone combining marks take no cell. Returns the columns used.
    @discardableResult
    public mutating func put(_ text: String, x: Int, y: Int, role: Role = .normal, attrs: Attr = [], maxWidth: Int = Int.max) -> Int {
        guard y >= 0, y < size.height else { return 0 }
        var col = x
        let limit = min(size.width, maxWidth == Int.max ? Int.max : x + maxWidth)
        for c in text {
            if col >= limit { break }
            let w = displayWidth(c)
            if w == 0 { continue }
            if col + w > limit { break }
            if col >= 0 {
                setCell(col, y, Cell(c, role: role, attrs: attrs))
                if w == 2 { setCell(col + 1, y, Cell(Cell.continuationMark, role: role, attrs: attrs)) }
            }
            col += w
        }
        return col - x
    }

    /// Sets one cell, keeping wide clusters whole: overwriting either half of one blanks its other half.
    mutating func setCell(_ x: Int, _ y: Int, _ c: Cell) {
        let i = y * size.width + x
        if cells[i].isContinuation, x > 0, !c.isContinuation { cells[i - 1].ch = " " }
        if !cells[i].isContinuation, x + 1 < size.width, cells[i + 1].isContinuation { cells[i + 1].ch = " " }
        cells[i] = c
    }

    /// Fills a rectangle with one styled character.
    public mutating func fill(_ r: Rect, _ ch: Character = " ", role: Role = .normal, attrs: Attr = []) {
        let x0 = max(0, r.x), y0 = max(0, r.y), x1 = min(size.width, r.maxX), y1 = min(size.height, r.maxY)
        guard x0 < x1, y0 < y1 else { return }
        let c = Cell(ch, role: role, attrs: attrs)
        for y in y0..<y1 { for x in x0..<x1 { setCell(x, y, c) } }
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
        let corners: [(Int, Int, Character)] = [(r.x, r.y, "┌"), (r.maxX - 1, r.y, "┐"), (r.x, r.maxY - 1, "└"), (r.maxX - 1, r.maxY - 1, "┘")]
        for (x, y, ch) in corners where contains(x: x, y: y) { self[x, y] = Cell(ch, role: role) }
        if let title, !title.isEmpty, r.width > 4 {
            put(" " + title + " ", x: r.x + 2, y: r.y, role: titleRole, attrs: .bold, maxWidth: r.width - 4)
        }
    }

    /// One line of the screen as plain text (trailing spaces kept; a wide cluster once, as a terminal shows it).
    public func line(_ y: Int) -> String {
        var s = ""
        for x in 0..<size.width where !cells[y * size.width + x].isContinuation { s.append(cells[y * size.width + x].ch) }
        return s
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

    /// The cells to paint to turn the screen `old` shows into this one: indices (row-major) of the
    /// cells that differ, never the right half of a wide cluster (painting the cluster covers it).
    /// Everything when there is no old frame or its size differs. The backend paints exactly these.
    public func diff(from old: ScreenBuffer?) -> [Int] {
        var out: [Int] = []
        let same = old?.size == size
        cells.withUnsafeBufferPointer { new in
            for i in 0..<new.count where !new[i].isContinuation {
                if same, let old, old.cells[i] == new[i] {
                    // A wide cluster whose right half was painted over in the old frame must be painted again.
                    if i + 1 < new.count, new[i + 1].isContinuation, old.cells[i + 1] != new[i + 1] { out.append(i) }
                    continue
                }
                out.append(i)
            }
        }
        return out
    }
}
