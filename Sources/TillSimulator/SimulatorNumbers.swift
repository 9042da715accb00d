import TillProtocol

// The simulated terminal's numbers: cards, STANs, order codes, instants and UUIDs, all from the seeded generator.
extension TerminalSimulator {
    // MARK: - Numbers

    static let cards: [(type: String, bin: String)] = [
        ("VISA", "479275"), ("Debit Mastercard", "537489"), ("Visa Credit", "478212"), ("Maestro", "675964"),
    ]
    static let methods = ["CHIP", "CONTACTLESS", "MAGNETIC", "MANUAL ENTRY"]

    func drawCard() -> (String, String, String) {
        let c = TerminalSimulator.cards[Int(rng.below(UInt64(TerminalSimulator.cards.count)))]
        let m = TerminalSimulator.methods[Int(rng.below(UInt64(TerminalSimulator.methods.count)))]
        var last4 = rng.next()
        let pan = String(unsafeUninitializedCapacity: 16) { buf in
            var k = 0
            for b in c.bin.utf8 { buf[k] = b; k += 1 }
            for _ in 0..<6 { buf[k] = 0x2A; k += 1 }
            for _ in 0..<4 { buf[k] = TerminalSimulator.digitBytes[Int(last4 % 10)]; last4 /= 10; k += 1 }
            return k
        }
        return (c.type, pan, m)
    }

    static let digitBytes: [UInt8] = Array("0123456789".utf8)

    /// `n` random decimal digits (n ≤ 18).
    func digits(_ n: Int) -> String {
        var v = rng.next()
        return String(unsafeUninitializedCapacity: n) { buf in
            for k in 0..<n { buf[k] = TerminalSimulator.digitBytes[Int(v % 10)]; v /= 10 }
            return n
        }
    }

    static func padded(_ v: Int, _ width: Int) -> String {
        var x = v
        return String(unsafeUninitializedCapacity: width) { buf in
            for k in stride(from: width - 1, through: 0, by: -1) { buf[k] = digitBytes[x % 10]; x /= 10 }
            return width
        }
    }

    /// The instant of a new transaction in 100-ns ticks: inside millisecond `t`, and always after the previous one.
    func takeInstant(_ t: Int64) -> Int64 {
        let msStart = t * 10_000
        var instant: Int64
        if let last = state.lastInstant, last >= msStart {
            instant = last + 1 + Int64(rng.below(16))     // another one in the same millisecond
        } else {
            instant = msStart + Int64(rng.below(5_000))
        }
        if let last = state.lastInstant, instant <= last { instant = last + 1 }  // a clock that went back
        state.lastInstant = instant
        return instant
    }

    func takeStan() -> String {
        let s = state.nextStan
        state.nextStan = s >= 999_999 ? 1 : s + 1
        return TerminalSimulator.padded(s, 6)
    }

    /// A 16-digit order code whose first 10 digits (the short order code) never repeat:
    /// they walk a permutation of 1_000_000_000...9_999_999_999 seeded by the config.
    func takeOrderCode() -> (String, String) {
        let n = state.orderCount
        state.orderCount += 1
        let span: UInt64 = 9_000_000_000
        var mix = SplitMix64(state: config.seed)
        let start = mix.next() % span
        let short = 1_000_000_000 + (start &+ UInt64(n) &* 1_234_567_891) % span
        let shortText = String(short)
        return (shortText + digits(6), shortText)
    }

    /// A version-4 UUID from the seeded generator.
    func uuid(upper: Bool) -> String {
        let a = rng.next()
        let b = rng.next()
        return UUIDText.version4(high: a, low: b, uppercase: upper)
    }
}
