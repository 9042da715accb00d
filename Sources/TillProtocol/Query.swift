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
    /// An amount above the protocol's integer range (a signed 32-bit number of cents).
    case amountOutOfRange(field: String, value: String)

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
        case .amountOutOfRange(let f, let v): return "'\(f)' (\(v)) is above the protocol's largest amount (\(Money.maximumCents) cents): no terminal can have charged it"
        }
    }
}

extension DecodeWarning {
    /// The same warning with a card number in a field name it quotes masked (a name that held one).
    func maskingCardNumbers() -> DecodeWarning {
        func m(_ f: String) -> String { CardNumber.maskEmbedded(f) ?? f }
        switch self {
        case .strayWhitespace(let f): return .strayWhitespace(field: m(f))
        case .unescapedSpace(let f): return .unescapedSpace(field: m(f))
        case .badEscape(let f): return .badEscape(field: m(f))
        case .parameterWithoutValue(let f): return .parameterWithoutValue(field: m(f))
        case .duplicateField(let f): return .duplicateField(field: m(f))
        default: return self
        }
    }
}

/// A name and value from a query, trimmed and percent-decoded.
public struct QueryField: Sendable, Hashable, Codable {
    public var name: String
    public var value: String
    public init(name: String, value: String) { self.name = name; self.value = value }
}

/// The field names the protocol defines, recognised from their bytes without building a String
/// (the decoder's hot path), and spelled once as interned strings.
enum KnownField: UInt8 {
    case status, message, action, clientTransactionId, amount, tipAmount, verificationMethod, rrn, cardType,
         accountNumber, referenceNumber, authorisationCode, tid, orderCode, shortOrderCode, installments,
         transactionDate, transactionId, command, batchName, batchId, unknown


    @inline(__always)
    static func eq(_ p: UnsafeBufferPointer<UInt8>, _ s: StaticString) -> Bool {
        let n = s.utf8CodeUnitCount
        guard p.count == n, let base = p.baseAddress else { return false }
        let q = s.utf8Start
        let a = UnsafeRawPointer(base), b = UnsafeRawPointer(q)
        if n >= 8 {
            // Eight bytes at a time, the last eight (overlapping) for the rest.
            var i = 0
            while i + 8 <= n {
                if a.loadUnaligned(fromByteOffset: i, as: UInt64.self) != b.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
                i += 8
            }
            return i == n || a.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self) == b.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
        }
        if n >= 4 {
            return a.loadUnaligned(as: UInt32.self) == b.loadUnaligned(as: UInt32.self)
                && a.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self) == b.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
        }
        var i = 0
        while i < n { if base[i] != q[i] { return false }; i += 1 }
        return true
    }

    /// The known field these bytes name, or `.unknown`. Exact (case-sensitive), as the pages spell them.
    /// One candidate per (length, first byte): at most one comparison.
    @inline(__always) static func match(_ p: UnsafeBufferPointer<UInt8>) -> KnownField {
        guard let first = p.first else { return .unknown }
        let candidate: KnownField
        // By length (a jump table), then by first byte: at most three comparisons before the one of the bytes.
        switch p.count {
        case 3: candidate = first == 0x72 ? .rrn : first == 0x74 ? .tid : .unknown
        case 6: candidate = first == 0x61 ? (p[1] == 0x63 ? .action : .amount) : first == 0x73 ? .status : .unknown
        case 7: candidate = first == 0x62 ? .batchId : first == 0x63 ? .command : first == 0x6D ? .message : .unknown
        case 8: candidate = first == 0x63 ? .cardType : .unknown
        case 9: candidate = first == 0x62 ? .batchName : first == 0x6F ? .orderCode : first == 0x74 ? .tipAmount : .unknown
        case 12: candidate = first == 0x69 ? .installments : .unknown
        case 13: candidate = first == 0x61 ? .accountNumber : first == 0x74 ? .transactionId : .unknown
        case 14: candidate = first == 0x73 ? .shortOrderCode : .unknown
        case 15: candidate = first == 0x72 ? .referenceNumber : first == 0x74 ? .transactionDate : .unknown
        case 17: candidate = first == 0x61 ? .authorisationCode : .unknown
        case 18: candidate = first == 0x76 ? .verificationMethod : .unknown
        case 19: candidate = first == 0x63 ? .clientTransactionId : .unknown
        default: return .unknown
        }
        if candidate == .unknown { return .unknown }
        return eq(p, candidate.staticName) ? candidate : .unknown
    }

    @inline(__always) var staticName: StaticString {
        switch self {
        case .status: return "status"
        case .message: return "message"
        case .action: return "action"
        case .clientTransactionId: return "clientTransactionId"
        case .amount: return "amount"
        case .tipAmount: return "tipAmount"
        case .verificationMethod: return "verificationMethod"
        case .rrn: return "rrn"
        case .cardType: return "cardType"
        case .accountNumber: return "accountNumber"
        case .referenceNumber: return "referenceNumber"
        case .authorisationCode: return "authorisationCode"
        case .tid: return "tid"
        case .orderCode: return "orderCode"
        case .shortOrderCode: return "shortOrderCode"
        case .installments: return "installments"
        case .transactionDate: return "transactionDate"
        case .transactionId: return "transactionId"
        case .command: return "command"
        case .batchName: return "batchName"
        case .batchId: return "batchId"
        case .unknown: return ""
        }
    }

    /// The name as a String, spelled once (`staticName`): made once per field, so no allocation per call.
    @inline(__always) var name: String { Self.names[Int(rawValue)] }

    private static let names: [String] = (0...KnownField.unknown.rawValue).map { KnownField(rawValue: $0)!.staticName.description }

    static func match(_ s: String) -> KnownField {
        var copy = s
        return copy.withUTF8 { match($0) }
    }
}

/// Splits `scheme://host/path?query` leniently. Shared by the callback decoder
/// and the request parser.
struct QuerySplit {
    var target: String          // everything before '?'
    /// The fields, kept raw: the input plus where each name and value lies (strings made on demand).
    var raw: RawFieldList
    var fields: QueryFields { QueryFields(raw: raw) }
    var warnings: [DecodeWarning]

    static let maxLength = 16_384

    enum Failure: Error { case empty, tooLong, noQuery, noScheme, controlCharacter(Int) }

    static func split(_ input: String) throws(Failure) -> QuerySplit {
        var source = input
        source.makeContiguousUTF8()   // a no-op for a native string: the fields keep it, not a copy
        var copy = source
        let result: Result<QuerySplit, Failure> = copy.withUTF8 { buf in
            do throws(Failure) { return .success(try split(buf, source: source)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    @inline(__always) static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }

    @inline(__always) static func isControl(_ b: UInt8) -> Bool { (b < 0x20 && b != 0x09) || b == 0x7F }

    /// `%20` or `%09` at `i` (an escaped space a value may start or end with).
    @inline(__always) static func isEscapedSpace(_ v: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        i >= 0 && i + 2 < v.count && v[i] == 0x25 && (v[i + 1] == 0x32 && v[i + 2] == 0x30 || v[i + 1] == 0x30 && v[i + 2] == 0x39)
    }

    /// Whether `QueryCodec.decode` would find a '%' that is not an escape (without decoding).
    @inline(__always) static func hasBadEscape(_ v: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = v.count
        var i = 0
        while i < n {
            if v[i] == 0x25 {
                guard i + 2 < n, QueryCodec.hexValue(v[i + 1]) != nil, QueryCodec.hexValue(v[i + 2]) != nil else { return true }
                i += 3
            } else { i += 1 }
        }
        return false
    }

    static func split(_ all: UnsafeBufferPointer<UInt8>, source: String) throws(Failure) -> QuerySplit {
        // Trim the whole line (a trailing newline or CR from a file or pipe).
        var start = 0, end = all.count
        while start < end, isSpace(all[start]) || all[start] == 0x0A || all[start] == 0x0D { start += 1 }
        while end > start, isSpace(all[end - 1]) || all[end - 1] == 0x0A || all[end - 1] == 0x0D { end -= 1 }
        if start == end { throw .empty }
        if end - start > maxLength { throw .tooLong }
        // The target, up to '?': one pass. The query is checked for control characters as it is split.
        var q = -1
        var sawScheme = false
        var i = start
        // The pages' two targets, followed by '?', are what that loop would find: no control character,
        // a scheme, the '?' right after. Compared at once.
        if end - start > 26, all[start + 26] == 0x3F,
           KnownField.eq(UnsafeBufferPointer(rebasing: all[start..<start + 26]), "interapp-callback://result") {
            q = start + 26; sawScheme = true; i = end
        } else if end - start > 25, all[start + 25] == 0x3F,
                  KnownField.eq(UnsafeBufferPointer(rebasing: all[start..<start + 25]), "mycallbackscheme://result") {
            q = start + 25; sawScheme = true; i = end
        }
        while i < end {
            let b = all[i]
            if isControl(b) { throw .controlCharacter(i - start) }
            if b == 0x3F { q = i; break }
            if b == 0x3A, i + 2 < end, all[i + 1] == 0x2F, all[i + 2] == 0x2F, i > start { sawScheme = true }
            i += 1
        }
        if !sawScheme {
            // A control character anywhere is reported before a missing scheme.
            while i < end { if isControl(all[i]) { throw .controlCharacter(i - start) }; i += 1 }
            throw .noScheme
        }
        if q < 0 { throw .noQuery }
        let targetBytes = UnsafeBufferPointer(rebasing: all[start..<q])
        // The pages' two callback targets come back on nearly every answer: spelled once, not allocated each time.
        let target = KnownField.eq(targetBytes, "interapp-callback://result") ? "interapp-callback://result"
            : KnownField.eq(targetBytes, "mycallbackscheme://result") ? "mycallbackscheme://result"
            : String(decoding: targetBytes, as: UTF8.self)
        var records: [RawField] = []
        records.reserveCapacity(24)
        var warnings: [DecodeWarning] = []
        var seenKnown: UInt32 = 0          // known fields already taken (duplicates keep the first)
        var unknownIndices: [Int] = []      // where the unknown names are, to find their duplicates
        guard let base = all.baseAddress else { throw .empty }
        // Record offsets count from `start` (the line is at most maxLength bytes: they fit 16 bits).
        let line = UnsafeBufferPointer(rebasing: all[start..<end])
        @inline(__always) func off(_ x: Int) -> UInt16 { UInt16(truncatingIfNeeded: x - start) }
        var p = q + 1
        while p <= end {
            // One parameter, all[p..<e], in one pass: its '=', whether name or value hold '%' or spaces.
            var e = p
            var eq = -1
            var namePercent = false, valuePercent = false, valueSpace = false
            // Eight bytes at a time: jump straight to the next byte that can matter (below '\'', '=' or DEL);
            // letters, digits, '.', '-', ':', '*' are skipped in bulk. The lowest flagged lane is exact.
            scan: while e < end {
                if e + 8 <= end {
                    let w = UnsafeRawPointer(base + e).loadUnaligned(as: UInt64.self)
                    let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
                    let eqs = w ^ (ones &* 0x3D), dels = w ^ (ones &* 0x7F)
                    let flags = ((w &- ones &* 0x27) & ~w & highs) | ((eqs &- ones) & ~eqs & highs) | ((dels &- ones) & ~dels & highs)
                    if flags == 0 { e += 8; continue scan }
                    e += flags.trailingZeroBitCount >> 3
                }
                let b = all[e]
                if b == 0x26 { break scan }
                if b <= 0x25 {
                    if b == 0x25 { if eq < 0 { namePercent = true } else { valuePercent = true } }
                    else if b == 0x20 || b == 0x09 { if eq >= 0 { valueSpace = true } }
                    else if b < 0x20 { throw .controlCharacter(e - start) }
                } else if b == 0x3D {
                    if eq < 0 { eq = e }
                } else if b == 0x7F { throw .controlCharacter(e - start) }
                e += 1
            }
            var ns = p, ne = e
            var trimmed = false
            while ns < ne, isSpace(all[ns]) { ns += 1; trimmed = true }
            while ne > ns, isSpace(all[ne - 1]) { ne -= 1; trimmed = true }
            if ns == ne {
                if e < end { warnings.append(.emptyParameter) }
                p = e + 1
                continue
            }
            let nameEnd = eq < 0 ? ne : eq
            var kEnd = nameEnd
            while kEnd > ns, isSpace(all[kEnd - 1]) { kEnd -= 1; trimmed = true }
            var bad = false
            let nameBytes = UnsafeBufferPointer(rebasing: all[ns..<kEnd])
            var record = RawField(nameStart: off(ns), nameEnd: off(kEnd), valueStart: 0, valueEnd: 0, kind: .unknown, flags: 0)
            // The name as a String is made only when needed: an unknown name compared, or a warning.
            var decodedName: String? = nil
            if namePercent {
                // Spaces around a name are trimmed whether they came as spaces or escaped (`amount%20=`): one name,
                // one field, however the bridge encoded it.
                let n = QueryCodec.decode(nameBytes, badEscape: &bad)
                let t = n.trimmingWhitespace()
                if t != n { trimmed = true }
                decodedName = t
                record.kind = KnownField.match(t)
                record.flags |= RawField.namePercent
            } else {
                record.kind = KnownField.match(nameBytes)
                if record.kind == .unknown {
                    var any: UInt8 = 0
                    for b in nameBytes { any |= b }
                    if any < 0x80 { record.flags |= RawField.plainASCIIName }
                }
            }
            func name() -> String { decodedName ?? RawFieldList.name(record, line) }
            if eq >= 0 {
                var vs = eq + 1
                while vs < ne, isSpace(all[vs]) { vs += 1; trimmed = true }
                let vbuf = UnsafeBufferPointer(rebasing: all[vs..<ne])
                record.valueStart = off(vs); record.valueEnd = off(ne)
                if valueSpace { for b in vbuf where isSpace(b) { warnings.append(.unescapedSpace(field: name())); break } }
                if valuePercent {
                    record.flags |= RawField.valuePercent
                    if hasBadEscape(vbuf) { bad = true }
                    // An escaped space at either end (%20) is trimmed too (when the value is made).
                    if isEscapedSpace(vbuf, at: 0) || isEscapedSpace(vbuf, at: vbuf.count - 3) { trimmed = true }
                }
            } else {
                record.valueStart = off(ne); record.valueEnd = off(ne)
                warnings.append(.parameterWithoutValue(field: name()))
            }
            if trimmed { warnings.append(.strayWhitespace(field: name())) }
            if bad { warnings.append(.badEscape(field: name())) }
            var duplicate = false
            if record.kind != .unknown {
                let bit = UInt32(1) << UInt32(record.kind.rawValue)
                duplicate = seenKnown & bit != 0
                seenKnown |= bit
            } else {
                for j in unknownIndices {
                    let other = records[j]
                    if record.flags & other.flags & RawField.plainASCIIName != 0 {
                        // Two ASCII names: equal as Strings exactly when their bytes are.
                        duplicate = KnownField.same(nameBytes, RawFieldList.slice(line, other.nameStart, other.nameEnd))
                    } else {
                        duplicate = RawFieldList.name(other, line) == name()
                    }
                    if duplicate { break }
                }
                if !duplicate { unknownIndices.append(records.count) }
            }
            if duplicate {
                warnings.append(.duplicateField(field: name()))
            } else {
                records.append(record)
            }
            p = e + 1
        }
        return QuerySplit(target: target, raw: RawFieldList(source: source, base: start, records: records), warnings: warnings)
    }
}

extension QueryFields {
    /// The fields of a URL's query, in order, percent-decoded, read as the request parser and the
    /// callback decoder read them (`QuerySplit`); nil when the text is not a URL with a query.
    public init?(url: String) {
        guard let split = try? QuerySplit.split(url) else { return nil }
        self = split.fields
    }
}
