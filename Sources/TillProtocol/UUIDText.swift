/// UUID text without Foundation: 8-4-4-4-12 hex digits.
public enum UUIDText {
    public static func isValid(_ s: String) -> Bool {
        let u = Array(s.utf8)
        guard u.count == 36 else { return false }
        for (i, b) in u.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 { if b != 0x2D { return false } }
            else if QueryCodec.hexValue(b) == nil { return false }
        }
        return true
    }

    private static let lower: [UInt8] = Array("0123456789abcdef".utf8)
    private static let upper: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// A version-4 UUID's text from 128 random bits (`high`, `low`): the version and variant bits are set here.
    public static func version4(high: UInt64, low: UInt64, uppercase: Bool) -> String {
        let a = (high & ~0xF000) | 0x4000                             // version 4
        let b = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // variant 1
        let table = uppercase ? upper : lower
        return String(unsafeUninitializedCapacity: 36) { buf in
            var k = 0
            for i in 0..<16 {
                let byte = i < 8 ? UInt8(truncatingIfNeeded: a >> UInt64(56 - 8 * i)) : UInt8(truncatingIfNeeded: b >> UInt64(56 - 8 * (i - 8)))
                if i == 4 || i == 6 || i == 8 || i == 10 { buf[k] = 0x2D; k += 1 }
                buf[k] = table[Int(byte >> 4)]; buf[k + 1] = table[Int(byte & 0xF)]; k += 2
            }
            return 36
        }
    }
}
