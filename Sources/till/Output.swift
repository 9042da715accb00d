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

    private(set) var bytes: [UInt8] = []
    private static let blockSize = 1 << 16

    private init(standard: Bool = true) {
        bytes.reserveCapacity(standard ? Self.blockSize + 8192 : 4096)
        if standard { atexit { Output.shared.flush() } }
    }

    /// A JSON value as text (with its final newline), laid out and escaped as on standard output.
    static func jsonText(_ v: JSONValue, indent: Int? = 2) -> String {
        let o = Output(standard: false)
        o.json(v, indent: indent)
        return String(decoding: o.bytes, as: UTF8.self)
    }

    /// Writes everything buffered to standard output (after whatever `print` left in stdio's buffer).
    func flush() {
        fflush(nil)
        var done = 0
        let n = bytes.count
        bytes.withUnsafeBufferPointer { p in
            while done < n {
                let w = write(STDOUT_FILENO, p.baseAddress! + done, n - done)
                if w < 0 { if errno == EINTR { continue }; break }   // a closed pipe: nothing more can be said there
                done += w
            }
        }
        bytes.removeAll(keepingCapacity: true)
    }

    @inline(__always) private func blockDone() {
        if bytes.count >= Self.blockSize && self === Output.shared { flush() }
    }

    // MARK: text

    /// One line of text, escaped, then a newline.
    func line(_ s: String) {
        escaped(s)
        bytes.append(0x0A)
        blockDone()
    }

    /// Text as `print` prints it (its lines split at `\n`, then a newline), each line escaped.
    func lines(_ text: String) {
        var rest = Substring(text)
        while let nl = rest.firstIndex(of: "\n") {
            line(String(rest[..<nl]))
            rest = rest[rest.index(after: nl)...]
        }
        line(String(rest))
    }

    private func escaped(_ s: String) {
        var s = s
        s.withUTF8 { p in SafeText.appendTerminal(p, to: &bytes) }
    }

    /// Bytes already safe (CSV made by `CSV`, which escapes its fields), as they are.
    func verbatim(_ s: String) {
        var s = s
        s.withUTF8 { p in bytes.append(contentsOf: p) }
        blockDone()
    }

    // MARK: JSON

    /// A JSON value, laid out as `JSONValue.text(indent:)` lays it out, then a newline.
    func json(_ v: JSONValue, indent: Int? = 2) {
        value(v, level: 0, indent: indent)
        bytes.append(0x0A)
        blockDone()
    }

    private func newline(_ level: Int, _ indent: Int?) {
        guard let indent else { return }
        bytes.append(0x0A)
        for _ in 0..<(indent * level) { bytes.append(0x20) }
    }

    private func value(_ v: JSONValue, level: Int, indent: Int?) {
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

    @inline(__always) private func key(_ k: String, _ indent: Int?) {
        string(k)
        bytes.append(0x3A)
        if indent != nil { bytes.append(0x20) }
    }

    @inline(__always) private func ascii(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private func int(_ i: Int) {
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
    private func string(_ s: String) {
        var s = s
        bytes.append(0x22)
        s.withUTF8 { p in
            var runStart = 0, i = 0
            let n = p.count
            while i < n {
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
        }
        bytes.append(0x22)
    }

    // MARK: the terminal's answer

    /// The answer as JSON (`CallbackResponse.json`, secrets redacted), written straight into the
    /// buffer: the same layout, no `JSONValue` tree.
    func response(_ r: CallbackResponse, indent: Int?) {
        bytes.append(0x7B)
        var first = true
        func next() {
            if !first { bytes.append(0x2C) }
            first = false
            newline(1, indent)
        }
        for f in r.fields {
            next()
            key(f.name, indent)
            string(Secrets.fieldNames.contains(f.name) ? Secrets.placeholder : f.value)
        }
        next()
        key("till", indent)
        // The derived values: as `CallbackResponse.json` lists them.
        bytes.append(0x7B)
        var firstDerived = true
        func field(_ k: String) {
            if !firstDerived { bytes.append(0x2C) }
            firstDerived = false
            newline(2, indent)
            key(k, indent)
        }
        field("approved"); ascii(r.isApproved ? "true" : "false")
        field("status"); string(r.status.description)
        if let a = r.action { field("action"); string(a.rawValue) }
        if let c = r.messageCode { field("messageCode"); int(c) }
        if let n = r.messageName { field("messageName"); string(n) }
        if let a = r.amount { field("amountCents"); int(a.cents) }
        if let t = r.tipAmount { field("tipAmountCents"); int(t.cents) }
        if let n = r.installments { field("installments"); int(n) }
        if let d = r.transactionDate {
            field("transactionDateUTC"); string(TerminalDate.format(instant: d.instant, offsetMinutes: 0))
        }
        if let o = r.abortOutcome { field("abortOutcome"); string(o.rawValue) }
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
        blockDone()
    }
}

/// `print` for the commands' standard output: through `Output`, every line escaped.
func out(_ text: String) { Output.shared.lines(text) }

/// Text that already ends with its newline (a report), through `Output`.
func outText(_ text: String) { out(text.hasSuffix("\n") ? String(text.dropLast()) : text) }

/// A JSON value on standard output, through `Output`.
func outJSON(_ v: JSONValue) { Output.shared.json(v) }
