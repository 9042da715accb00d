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

/// Word-wraps text to a width (long words are cut).
public func wrap(_ text: String, width: Int) -> [String] {
    guard width > 0 else { return [] }
    var lines: [String] = []
    var current = ""
    for word in text.split(separator: " ", omittingEmptySubsequences: true) {
        var w = String(word)
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
