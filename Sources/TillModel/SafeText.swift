/// What may not reach a terminal or a spreadsheet as it came from the card terminal: control
/// characters (C0, DEL, C1: an escape sequence smuggled into a field, a line break), the line and
/// paragraph separators and the bidi embeddings, overrides and isolates (U+202A–U+202E,
/// U+2066–U+2069), which can make a line read differently from what it holds. One scanner for every
/// output (text, JSON, CSV), so they all agree on what is escaped.
public enum SafeText {
    /// The length in bytes of the unsafe character at `i`, or 0 when the byte there starts a safe one.
    @inlinable @inline(__always)
    public static func unsafeLength(_ p: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
        let b = p[i]
        if b < 0x20 || b == 0x7F { return 1 }
        if b < 0xC2 { return 0 }
        if b == 0xC2 { return i + 1 < p.count && p[i + 1] >= 0x80 && p[i + 1] <= 0x9F ? 2 : 0 }
        if b == 0xE2, i + 2 < p.count {
            let b1 = p[i + 1], b2 = p[i + 2]
            if b1 == 0x80 && b2 >= 0xA8 && b2 <= 0xAE { return 3 }   // U+2028–U+202E
            if b1 == 0x81 && b2 >= 0xA6 && b2 <= 0xA9 { return 3 }   // U+2066–U+2069
        }
        return 0
    }

    /// The scalar value of an unsafe character found by `unsafeLength`.
    @inlinable @inline(__always)
    public static func scalar(_ p: UnsafeBufferPointer<UInt8>, _ i: Int, _ length: Int) -> UInt32 {
        switch length {
        case 1: return UInt32(p[i])
        case 2: return (UInt32(p[i] & 0x1F) << 6) | UInt32(p[i + 1] & 0x3F)
        default: return (UInt32(p[i] & 0x0F) << 12) | (UInt32(p[i + 1] & 0x3F) << 6) | UInt32(p[i + 2] & 0x3F)
        }
    }

    /// True when the text holds nothing to escape.
    public static func isSafe(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { p in
            for i in 0..<p.count where unsafeLength(p, i) != 0 { return false }
            return true
        }
    }

    /// Text safe to print on a terminal: every unsafe character shown as `\u{1B}` instead of acting.
    public static func terminal(_ s: String) -> String {
        if isSafe(s) { return s }
        var out: [UInt8] = []
        var copy = s
        copy.withUTF8 { p in
            out.reserveCapacity(p.count + 16)
            appendTerminal(p, to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `p` to `out`, escaping in runs: safe bytes are copied a run at a time.
    @inlinable
    public static func appendTerminal(_ p: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var runStart = 0, i = 0
        let n = p.count
        while i < n {
            let len = unsafeLength(p, i)
            if len == 0 { i += 1; continue }
            if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: p[runStart..<i])) }
            let v = scalar(p, i, len)
            out.append(contentsOf: [0x5C, 0x75, 0x7B])   // \u{
            appendHex(v, uppercase: true, minDigits: 1, to: &out)
            out.append(0x7D)                           // }
            i += len
            runStart = i
        }
        if runStart < n { out.append(contentsOf: UnsafeBufferPointer(rebasing: p[runStart..<n])) }
    }

    @inlinable
    public static func appendHex(_ v: UInt32, uppercase: Bool, minDigits: Int, to out: inout [UInt8]) {
        var digits = 1
        while digits < 8 && (v >> (4 * UInt32(digits))) != 0 { digits += 1 }
        digits = max(digits, minDigits)
        let a: UInt8 = uppercase ? 0x41 : 0x61
        for k in stride(from: digits - 1, through: 0, by: -1) {
            let d = UInt8((v >> (4 * UInt32(k))) & 0xF)
            out.append(d < 10 ? 0x30 + d : a + d - 10)
        }
    }
}
