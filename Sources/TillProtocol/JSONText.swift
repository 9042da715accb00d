/// A minimal JSON writer that keeps key order (for `--json` output with the protocol's field names).
public enum JSONValue: Sendable, Hashable {
    case string(String)
    case int(Int)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool { a.text() == b.text() }
    public func hash(into h: inout Hasher) { h.combine(text()) }

    public func text(indent: Int? = 2) -> String {
        var out = ""
        write(into: &out, level: 0, indent: indent)
        return out
    }

    func write(into out: inout String, level: Int, indent: Int?) {
        let nl = indent == nil ? "" : "\n"
        func pad(_ l: Int) -> String { indent.map { String(repeating: " ", count: $0 * l) } ?? "" }
        switch self {
        case .string(let s): JSONValue.quote(s, into: &out)
        case .int(let i): out += String(i)
        case .bool(let b): out += b ? "true" : "false"
        case .null: out += "null"
        case .array(let a):
            if a.isEmpty { out += "[]"; return }
            out += "[" + nl
            for (i, v) in a.enumerated() {
                out += pad(level + 1); v.write(into: &out, level: level + 1, indent: indent)
                out += (i < a.count - 1 ? "," : "") + nl
            }
            out += pad(level) + "]"
        case .object(let o):
            if o.isEmpty { out += "{}"; return }
            out += "{" + nl
            for (i, (k, v)) in o.enumerated() {
                out += pad(level + 1); JSONValue.quote(k, into: &out); out += indent == nil ? ":" : ": "
                v.write(into: &out, level: level + 1, indent: indent)
                out += (i < o.count - 1 ? "," : "") + nl
            }
            out += pad(level) + "}"
        }
    }

    /// A JSON string in which nothing can act on a terminal that shows it: quotes, backslashes, C0, DEL, C1, line
    /// separators and bidi controls are escaped.
    public static func quote(_ s: String, into out: inout String) {
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                let v = u.value
                if v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) || (0x2028...0x202E).contains(v) || (0x2066...0x2069).contains(v) {
                    let h = String(v, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                } else { out.unicodeScalars.append(u) }
            }
        }
        out += "\""
    }
}

extension CallbackResponse {
    /// The answer as JSON: every field under its protocol name, then what till derived from it.
    public var json: JSONValue {
        var o: [(String, JSONValue)] = fields.map { ($0.name, .string($0.value)) }
        var derived: [(String, JSONValue)] = [("approved", .bool(isApproved)), ("status", .string(status.description))]
        if let a = action { derived.append(("action", .string(a.rawValue))) }
        if let c = messageCode { derived.append(("messageCode", .int(c))) }
        if let n = messageName { derived.append(("messageName", .string(n))) }
        if let a = amount { derived.append(("amountCents", .int(a.cents))) }
        if let t = tipAmount { derived.append(("tipAmountCents", .int(t.cents))) }
        if let n = installments { derived.append(("installments", .int(n))) }
        if let d = transactionDate {
            derived.append(("transactionDateUTC", .string(TerminalDate.format(instant: d.instant, offsetMinutes: 0))))
        }
        if let o = abortOutcome { derived.append(("abortOutcome", .string(o.rawValue))) }
        derived.append(("warnings", .array(warnings.map { .string($0.description) })))
        o.append(("till", .object(derived)))
        return .object(o)
    }
}
