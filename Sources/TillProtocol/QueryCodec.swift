/// Percent-encoding and query splitting, byte by byte, with no Foundation.
public enum QueryCodec {
    /// Characters left as they are in a request value: RFC 3986 unreserved only,
    /// so that no value can add or change a parameter.
    @inline(__always)
    static func isUnreserved(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
            || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E
    }

    /// Characters a terminal leaves unescaped in a callback value: unreserved plus
    /// `*` (masked card numbers), `:` and `+` (dates). `&`, `=`, `%`, `#`, space
    /// and anything non-ASCII are escaped.
    @inline(__always)
    static func isCallbackSafe(_ b: UInt8) -> Bool {
        isUnreserved(b) || b == 0x2A || b == 0x3A || b == 0x2B
    }

    static let hex: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Percent-encodes every byte outside the unreserved set (strict: for requests).
    public static func encode(_ value: String) -> String { encode(value, keep: isUnreserved) }

    /// Percent-encodes for a callback URL, keeping `*`, `:` and `+` as terminals do.
    public static func encodeCallbackValue(_ value: String) -> String { encode(value, keep: isCallbackSafe) }

    static func encode(_ value: String, keep: (UInt8) -> Bool) -> String {
        var needs = false
        for b in value.utf8 where !keep(b) { needs = true; break }
        if !needs { return value }
        var out = [UInt8]()
        out.reserveCapacity(value.utf8.count + 16)
        for b in value.utf8 {
            if keep(b) { out.append(b) } else {
                out.append(0x25); out.append(hex[Int(b >> 4)]); out.append(hex[Int(b & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    @inline(__always)
    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }

    /// Decodes `%XX` escapes. `+` stays a literal plus (this protocol's rule).
    /// A `%` not followed by two hex digits is kept as it is and reported.
    public static func decode(_ bytes: UnsafeBufferPointer<UInt8>, badEscape: inout Bool) -> String {
        var hasPercent = false
        for b in bytes where b == 0x25 { hasPercent = true; break }
        if !hasPercent { return String(decoding: bytes, as: UTF8.self) }
        // Decoded straight into the string's own storage: never longer than the input.
        var bad = false
        let s = String(unsafeUninitializedCapacity: bytes.count) { out -> Int in
            var i = 0, n = 0
            let count = bytes.count
            while i < count {
                let b = bytes[i]
                if b == 0x25, i + 2 < count, let h = hexValue(bytes[i + 1]), let l = hexValue(bytes[i + 2]) {
                    out[n] = h << 4 | l; i += 3
                } else {
                    if b == 0x25 { bad = true }
                    out[n] = b; i += 1
                }
                n += 1
            }
            return n
        }
        if bad { badEscape = true }
        return s
    }

    /// Decodes a value given as a String (convenience for non-hot paths).
    public static func decode(_ value: String) -> String {
        var v = value
        return v.withUTF8 { buf in var bad = false; return decode(buf, badEscape: &bad) }
    }
}
