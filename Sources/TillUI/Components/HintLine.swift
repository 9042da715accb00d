/// Key hints as one line of whole parts ("Enter send", "Tab next field", …): three spaces between them, two when
/// that is too wide, and the parts that still do not fit left out from the end. A hint is never cut in the middle
/// of a word ("Tab next fie", as the refund screen read at 80×24).
func hintLine(_ parts: [String], width: Int) -> String {
    for separator in ["   ", "  "] {
        let line = parts.joined(separator: separator)
        if line.count <= width { return line }
    }
    var kept: [String] = []
    for part in parts {
        guard (kept + [part]).joined(separator: "  ").count <= width else { break }
        kept.append(part)
    }
    return kept.joined(separator: "  ")
}
