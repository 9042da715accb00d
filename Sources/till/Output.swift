#if canImport(Glibc)
import Glibc
#endif
import TillCore
import TillProtocol

/// Standard output for the commands: one buffered UTF-8 writer for text and JSON. Text lines are
/// escaped (`SafeText`: control and bidi characters shown as `\u{1B}`, never acted on) and JSON
/// strings escaped as JSON, both in runs: the bytes between two characters to escape are copied at
/// once. The buffer goes to standard output in 64 KiB blocks and at exit, each time after stdio's
/// own buffer (so it keeps its order with anything `print` wrote).
///
///     Output.shared.line("APPROVED · sale")       // escaped, then a newline
///     Output.shared.json(value)                   // pretty, as JSONValue.text()
final class Output {
    nonisolated(unsafe) static let shared = Output()

    private var writer = ByteWriter()
    private static let blockSize = 1 << 16

    private init(standard: Bool = true) {
        writer.bytes.reserveCapacity(standard ? Self.blockSize + 8192 : 4096)
        if standard { atexit { Output.shared.flush() } }
    }

    /// A JSON value as text (with its final newline), laid out and escaped as on standard output.
    static func jsonText(_ v: JSONValue, indent: Int? = 2) -> String {
        let o = Output(standard: false)
        o.json(v, indent: indent)
        return String(decoding: o.writer.bytes, as: UTF8.self)
    }

    /// Writes everything buffered to standard output (after whatever `print` left in stdio's buffer).
    func flush() {
        fflush(nil)
        var done = 0
        let n = writer.bytes.count
        writer.bytes.withUnsafeBufferPointer { p in
            while done < n {
                let w = write(STDOUT_FILENO, p.baseAddress! + done, n - done)
                if w < 0 { if errno == EINTR { continue }; break }   // a closed pipe: nothing more can be said there
                done += w
            }
        }
        writer.bytes.removeAll(keepingCapacity: true)
    }

    @inline(__always) private func blockDone() {
        if writer.bytes.count >= Self.blockSize && self === Output.shared { flush() }
    }

    // MARK: writing (each call one access to the writer; its appends are then plain, unchecked)

    func line(_ s: String) { writer.line(s); blockDone() }
    func lines(_ text: String) { writer.lines(text); blockDone() }
    func verbatim(_ s: String) { writer.verbatim(s); blockDone() }
    func json(_ v: JSONValue, indent: Int? = 2) { writer.json(v, indent: indent); blockDone() }
    func response(_ r: CallbackResponse, indent: Int?) { writer.response(r, indent: indent); blockDone() }
}

/// The bytes and how text and JSON become bytes (see `Output`).
struct ByteWriter {
    var bytes: [UInt8] = []

    /// `Secrets.fieldNames` as bytes: a field's name is compared with them as it is written.
    static let secretNames: [[UInt8]] = Secrets.fieldNames.map { Array($0.utf8) }

    /// Whether a field's name (UTF-8) is one of `Secrets.fieldNames`.
    @inline(__always) static func isSecret(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        for s in secretNames where s.count == name.count && s.elementsEqual(name) { return true }
        // A name that is not plain ASCII is compared as text, as the text output and the journal compare it
        // (canonical equivalence: "merchant\u{212A}ey", with the Kelvin sign, is "merchantKey").
        if name.contains(where: { $0 >= 0x80 }) {
            return Secrets.fieldNames.contains(String(decoding: name, as: UTF8.self))
        }
        return false
    }

    /// `r.abortOutcome`, without its upper-casing and substring search for the common case: for an
    /// all-ASCII message the same test byte by byte (upper-cased, a space read as `_`); anything else
    /// asks `abortOutcome` itself.
    static func abortOutcome(_ r: CallbackResponse) -> AbortOutcome? {
        guard var m = r.messageName ?? r.message else {
            return AbortOutcome(nothingToAbort: false, aborted: false, messageCode: r.messageCode, action: r.action)
        }
        let found: (nothing: Bool, aborted: Bool)? = m.withUTF8 { p in
            for b in p where b >= 0x80 { return nil }
            return (contains(p, "NOTHING_TO_ABORT"), contains(p, "ABORTED"))
        }
        guard let found else { return r.abortOutcome }
        return AbortOutcome(nothingToAbort: found.nothing, aborted: found.aborted, messageCode: r.messageCode, action: r.action)
    }

    /// Whether ASCII text, upper-cased with spaces read as `_`, contains `word` (upper-case ASCII).
    private static func contains(_ p: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard p.count >= n else { return false }
        let w = word.utf8Start
        for i in 0...(p.count - n) {
            var k = 0
            while k < n {
                var b = p[i + k]
                if b >= 0x61 && b <= 0x7A { b -= 0x20 } else if b == 0x20 { b = 0x5F }
                if b != w[k] { break }
                k += 1
            }
            if k == n { return true }
        }
        return false
    }

    // MARK: text

    /// One line of text, escaped, then a newline.
    mutating func line(_ s: String) {
        escaped(s)
        bytes.append(0x0A)
    }

    /// Text as `print` prints it (its lines split at `\n`, then a newline), each line escaped.
    mutating func lines(_ text: String) {
        var rest = Substring(text)
        while let nl = rest.firstIndex(of: "\n") {
            line(String(rest[..<nl]))
            rest = rest[rest.index(after: nl)...]
        }
        line(String(rest))
    }

    private mutating func escaped(_ s: String) {
        var s = s
        s.withUTF8 { p in SafeText.appendTerminal(p, to: &bytes) }
    }

    /// Bytes already safe (CSV made by `CSV`, which escapes its fields), as they are.
    mutating func verbatim(_ s: String) {
        var s = s
        s.withUTF8 { p in bytes.append(contentsOf: p) }
    }

    // MARK: JSON

    /// A JSON value, laid out as `JSONValue.text(indent:)` lays it out, then a newline.
    mutating func json(_ v: JSONValue, indent: Int? = 2) {
        value(v, level: 0, indent: indent)
        bytes.append(0x0A)
    }

    private mutating func newline(_ level: Int, _ indent: Int?) {
        guard let indent else { return }
        bytes.append(0x0A)
        for _ in 0..<(indent * level) { bytes.append(0x20) }
    }

    private mutating func value(_ v: JSONValue, level: Int, indent: Int?) {
        switch v {
        case .string(let s): string(s)
        case .int(let i): int(i)
        case .bool(let b): ascii(b ? "true" : "false")
        case .null: ascii("null")
        case .array(let a):
            if a.isEmpty { ascii("[]"); return }
            bytes.append(0x5B)
            for (i, x) in a.enumerated() {
                if i > 0 { bytes.append(0x2C) }
                newline(level + 1, indent)
                value(x, level: level + 1, indent: indent)
            }
            newline(level, indent)
            bytes.append(0x5D)
        case .object(let o):
            if o.isEmpty { ascii("{}"); return }
            bytes.append(0x7B)
            for (i, (k, x)) in o.enumerated() {
                if i > 0 { bytes.append(0x2C) }
                newline(level + 1, indent)
                key(k, indent)
                value(x, level: level + 1, indent: indent)
            }
            newline(level, indent)
            bytes.append(0x7D)
        }
    }

    @inline(__always) private mutating func key(_ k: String, _ indent: Int?) {
        string(k)
        bytes.append(0x3A)
        if indent != nil { bytes.append(0x20) }
    }

    @inline(__always) private mutating func ascii(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private mutating func int(_ i: Int) {
        if i >= 0 && i < 10 { bytes.append(0x30 + UInt8(i)); return }
        var v = i.magnitude
        var tmp: (UInt64, UInt64, UInt64) = (0, 0, 0)   // 24 bytes: room for any Int
        let n = withUnsafeMutableBytes(of: &tmp) { b -> Int in
            var k = 24
            repeat { k -= 1; b[k] = 0x30 + UInt8(v % 10); v /= 10 } while v > 0
            if i < 0 { k -= 1; b[k] = 0x2D }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[k..<24]))
            return 24 - k
        }
        _ = n
    }

    /// A JSON string: `"` and `\` escaped, control and bidi characters as `\uXXXX` (the short forms
    /// for \n, \r, \t), everything else copied in runs.
    private mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { string(bytes: $0) }
    }

    /// `string(_:)` of text given as its UTF-8 bytes. Runs with nothing to escape are found eight
    /// bytes at a time (no `"`, no `\`, no byte below 0x20 or from 0x7F up) and copied at once.
    private mutating func string(bytes p: UnsafeBufferPointer<UInt8>) {
        bytes.append(0x22)
        var runStart = 0, i = 0
        let n = p.count
        while i < n {
            if let base = p.baseAddress {
                while i + 8 <= n && Self.plainWord(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) { i += 8 }
            }
            if i >= n { break }
            let b = p[i]
            var len = 0
            if b == 0x22 || b == 0x5C { len = 1 } else if b < 0x20 || b >= 0x7F { len = SafeText.unsafeLength(p, i) }
            if len == 0 { i += 1; continue }
            if runStart < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: p[runStart..<i])) }
            bytes.append(0x5C)
            switch b {
            case 0x22, 0x5C: bytes.append(b)
            case 0x0A: bytes.append(0x6E)
            case 0x0D: bytes.append(0x72)
            case 0x09: bytes.append(0x74)
            default:
                bytes.append(0x75)
                SafeText.appendHex(SafeText.scalar(p, i, len), uppercase: false, minDigits: 4, to: &bytes)
            }
            i += len
            runStart = i
        }
        if runStart < n { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: p[runStart..<n])) }
        bytes.append(0x22)
    }

    /// Whether none of a word's eight bytes needs a look: each is from 0x20 to 0x7E and neither `"` nor `\`.
    @inline(__always) static func plainWord(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func hasZero(_ x: UInt64) -> UInt64 { (x &- ones) & ~x & highs }
        let low = (w &- ones &* 0x20) & ~w & highs          // a byte below 0x20 (or from 0x80 up, caught next)
        let high = w & highs                                 // a byte from 0x80 up
        let del = hasZero(w ^ (ones &* 0x7F))
        let quote = hasZero(w ^ (ones &* 0x22))
        let backslash = hasZero(w ^ (ones &* 0x5C))
        return (low | high | del | quote | backslash) == 0
    }

    // MARK: the terminal's answer

    @inline(__always) private mutating func comma(_ first: inout Bool, _ level: Int, _ indent: Int?) {
        if !first { bytes.append(0x2C) }
        first = false
        newline(level, indent)
    }

    /// The answer as JSON (`CallbackResponse.json`, secrets redacted), written straight into the
    /// buffer: the same layout, no `JSONValue` tree.
    mutating func response(_ r: CallbackResponse, indent: Int?) {
        bytes.append(0x7B)
        var first = true
        r.fields.forEachUTF8 { name, value in
            comma(&first, 1, indent)
            string(bytes: name)
            bytes.append(0x3A)
            if indent != nil { bytes.append(0x20) }
            if Self.isSecret(name) { string(Secrets.placeholder) } else { string(bytes: value) }
        }
        comma(&first, 1, indent)
        key("till", indent)
        // The derived values: as `CallbackResponse.json` lists them.
        bytes.append(0x7B)
        var firstDerived = true
        func field(_ k: String) { comma(&firstDerived, 2, indent); key(k, indent) }
        field("approved"); ascii(r.isApproved ? "true" : "false")
        field("status"); string(r.status.description)
        if let a = r.action { field("action"); string(a.rawValue) }
        if let c = r.messageCode { field("messageCode"); int(c) }
        if let n = r.messageName { field("messageName"); string(n) }
        if let a = r.amount { field("amountCents"); int(a.cents) }
        if let t = r.tipAmount { field("tipAmountCents"); int(t.cents) }
        if let n = r.installments { field("installments"); int(n) }
        if let d = r.transactionDate {
            // The date's text is digits and `-:.T+` only: nothing to escape.
            field("transactionDateUTC")
            bytes.append(0x22); TerminalDate.appendFormatted(instant: d.instant, offsetMinutes: 0, to: &bytes); bytes.append(0x22)
        }
        if let o = Self.abortOutcome(r) { field("abortOutcome"); string(o.rawValue) }
        field("warnings")
        if r.warnings.isEmpty { ascii("[]") } else {
            bytes.append(0x5B)
            for (i, w) in r.warnings.enumerated() {
                if i > 0 { bytes.append(0x2C) }
                newline(3, indent)
                string(w.description)
            }
            newline(2, indent)
            bytes.append(0x5D)
        }
        newline(1, indent)
        bytes.append(0x7D)
        newline(0, indent)
        bytes.append(0x7D)
        bytes.append(0x0A)
    }
}

/// `print` for the commands' standard output: through `Output`, every line escaped.
func out(_ text: String) { Output.shared.lines(text) }

/// Text that already ends with its newline (a report), through `Output`.
func outText(_ text: String) { out(text.hasSuffix("\n") ? String(text.dropLast()) : text) }

/// A JSON value on standard output, through `Output`.
func outJSON(_ v: JSONValue) { Output.shared.json(v) }

/// A JSON array written element by element as the rows are read (constant memory): `[`, one element a line, `]`.
struct StreamedJSONArray {
    private(set) var count = 0
    /// The next element's text, with what separates it from the one before.
    mutating func element(_ v: JSONValue, indent: Int? = 2) -> String {
        defer { count += 1 }
        return (count == 0 ? "[\n" : ",\n") + Output.jsonText(v, indent: indent).trimmingCharacters(in: .newlines)
    }
    /// What closes the array (`[]` when it had no element).
    var end: String { count == 0 ? "[]" : "\n]" }
}
