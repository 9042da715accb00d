import TillProtocol
import TillModel

func columns(_ values: [String], _ widths: [Int], _ width: Int) -> String {
    var s = ""
    for (i, v) in values.enumerated() {
        if i < widths.count {
            var t = v.prefix(columns: widths[i] - 1)
            while t.displayWidth < widths[i] { t += " " }
            s += t
        } else { s += v }
    }
    return s.prefix(columns: width)
}

/// Text for one line of `width` columns: whole, or shortened at a word boundary with "…" (never a cut word).
func fitLine(_ text: String, width: Int) -> String {
    guard text.displayWidth > width else { return text }
    let room = text.prefix(columns: max(0, width - 1))
    guard let space = room.lastIndex(of: " ") else { return room + "…" }
    var head = String(room[..<space])
    while head.hasSuffix(" ") || head.hasSuffix(",") || head.hasSuffix(":") || head.hasSuffix(";") { head.removeLast() }
    return head + "…"
}

extension String {
    /// The longest start of the text that takes at most `columns` terminal columns (whole clusters only).
    func prefix(columns: Int) -> String {
        var out = "", used = 0
        for c in self {
            let w = TillUI.displayWidth(c)
            if used + w > columns { break }
            out.append(c); used += w
        }
        return out
    }
}

/// Word-wraps text to a width (long words are cut). A currency symbol standing alone (`€`, `$`) goes with the word
/// after it: `€` at the end of a line and its amount on the next reads as two things.
public func wrap(_ text: String, width: Int) -> [String] {
    guard width > 0 else { return [] }
    var lines: [String] = []
    var current = ""
    var words: [String] = []
    var glue: String?
    for word in text.split(separator: " ", omittingEmptySubsequences: true) {
        let w = String(word)
        if let g = glue { words.append(g + " " + w); glue = nil; continue }
        if w.count <= 3, !w.contains(where: { $0.isLetter || $0.isNumber || $0.isPunctuation }) { glue = w; continue }
        words.append(w)
    }
    if let g = glue { words.append(g) }
    for word in words {
        var w = word
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

/// Lays units of text (a row's fields: "#12", "sale", "€ 12.50", "IN PROGRESS") out on lines of `width` columns, a space
/// between them, breaking only between units: none is split over two lines (one wider than a line is wrapped itself).
func wrapUnits(_ units: [String], width: Int) -> [String] {
    var lines: [String] = []
    var current = ""
    for u in units where !u.isEmpty {
        if current.isEmpty { current = u }
        else if current.displayWidth + 1 + u.displayWidth <= width { current += " " + u }
        else { lines.append(current); current = u }
        if current.displayWidth > width {
            let parts = wrap(current, width: width)
            lines += parts.dropLast()
            current = parts.last ?? ""
        }
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
