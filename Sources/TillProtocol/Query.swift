/// A leniency the decoder applied: the input was sloppy but understood.
public enum DecodeWarning: Sendable, Hashable, Codable, CustomStringConvertible {
    case strayWhitespace(field: String)
    case unescapedSpace(field: String)
    case badEscape(field: String)
    case emptyParameter
    case parameterWithoutValue(field: String)
    case duplicateField(field: String)
    case spaceForPlusInDate(field: String)
    case unmaskedCardNumber
    case actionCase(String)
    case unknownAction(String)
    case badNumber(field: String, value: String)
    case badDate(field: String, value: String)

    public var description: String {
        switch self {
        case .strayWhitespace(let f): return "spaces around '\(f)' were trimmed"
        case .unescapedSpace(let f): return "'\(f)' holds an unescaped space"
        case .badEscape(let f): return "'\(f)' holds a '%' that is not an escape; kept as is"
        case .emptyParameter: return "an empty parameter (&&) was skipped"
        case .parameterWithoutValue(let f): return "'\(f)' has no '='; read as empty"
        case .duplicateField(let f): return "'\(f)' appears twice; the first was kept"
        case .spaceForPlusInDate(let f): return "'\(f)' had a space where its '+' offset sign was; read as '+'"
        case .unmaskedCardNumber: return "the card number arrived unmasked and was masked"
        case .actionCase(let a): return "action '\(a)' in unusual case"
        case .unknownAction(let a): return "unknown action '\(a)'"
        case .badNumber(let f, let v): return "'\(f)' is not a number: '\(v)'"
        case .badDate(let f, let v): return "'\(f)' is not an ISO 8601 date: '\(v)'"
        }
    }
}

/// A name and value from a query, trimmed and percent-decoded.
public struct QueryField: Sendable, Hashable, Codable {
    public var name: String
    public var value: String
    public init(name: String, value: String) { self.name = name; self.value = value }
}

/// Splits `scheme://host/path?query` leniently. Shared by the callback decoder
/// and the request parser.
struct QuerySplit {
    var target: String          // everything before '?'
    var fields: [QueryField]
    var warnings: [DecodeWarning]

    static let maxLength = 16_384

    enum Failure: Error { case empty, tooLong, noQuery, noScheme, controlCharacter(Int) }

    static func split(_ input: String) throws(Failure) -> QuerySplit {
        var copy = input
        let result: Result<QuerySplit, Failure> = copy.withUTF8 { buf in
            do throws(Failure) { return .success(try split(buf)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    @inline(__always) static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }

    static func split(_ all: UnsafeBufferPointer<UInt8>) throws(Failure) -> QuerySplit {
        // Trim the whole line (a trailing newline or CR from a file or pipe).
        var start = 0, end = all.count
        while start < end, isSpace(all[start]) || all[start] == 0x0A || all[start] == 0x0D { start += 1 }
        while end > start, isSpace(all[end - 1]) || all[end - 1] == 0x0A || all[end - 1] == 0x0D { end -= 1 }
        if start == end { throw .empty }
        if end - start > maxLength { throw .tooLong }
        var q = -1
        var sawScheme = false
        var i = start
        while i < end {
            let b = all[i]
            if b < 0x20 && b != 0x09 || b == 0x7F { throw .controlCharacter(i - start) }
            if q < 0 {
                if b == 0x3F { q = i }
                else if b == 0x3A, i + 2 < end, all[i + 1] == 0x2F, all[i + 2] == 0x2F, i > start { sawScheme = true }
            }
            i += 1
        }
        if !sawScheme { throw .noScheme }
        if q < 0 { throw .noQuery }
        let target = String(decoding: UnsafeBufferPointer(rebasing: all[start..<q]), as: UTF8.self)
        var fields: [QueryField] = []
        fields.reserveCapacity(20)
        var warnings: [DecodeWarning] = []
        var p = q + 1
        while p <= end {
            var e = p
            while e < end, all[e] != 0x26 { e += 1 }
            // One parameter: all[p..<e]
            var ns = p, ne = e
            var trimmed = false
            while ns < ne, isSpace(all[ns]) { ns += 1; trimmed = true }
            while ne > ns, isSpace(all[ne - 1]) { ne -= 1; trimmed = true }
            if ns == ne {
                if e < end { warnings.append(.emptyParameter) }
                p = e + 1
                continue
            }
            var eq = ns
            while eq < ne, all[eq] != 0x3D { eq += 1 }
            var kEnd = eq
            while kEnd > ns, isSpace(all[kEnd - 1]) { kEnd -= 1; trimmed = true }
            var bad = false
            let name = QueryCodec.decode(UnsafeBufferPointer(rebasing: all[ns..<kEnd]), badEscape: &bad)
            var value = ""
            if eq < ne {
                var vs = eq + 1
                while vs < ne, isSpace(all[vs]) { vs += 1; trimmed = true }
                let vbuf = UnsafeBufferPointer(rebasing: all[vs..<ne])
                for b in vbuf where isSpace(b) { warnings.append(.unescapedSpace(field: name)); break }
                value = QueryCodec.decode(vbuf, badEscape: &bad)
                // An escaped space at either end (%20) is trimmed too.
                if value.first == " " || value.last == " " {
                    value = value.trimmingWhitespace(); trimmed = true
                }
            } else {
                warnings.append(.parameterWithoutValue(field: name))
            }
            if trimmed { warnings.append(.strayWhitespace(field: name)) }
            if bad { warnings.append(.badEscape(field: name)) }
            if fields.contains(where: { $0.name == name }) {
                warnings.append(.duplicateField(field: name))
            } else {
                fields.append(QueryField(name: name, value: value))
            }
            p = e + 1
        }
        return QuerySplit(target: target, fields: fields, warnings: warnings)
    }
}
