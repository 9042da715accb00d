/// An ISO 8601 date as terminals send it: `2019-09-13T12:14:19.8703452+03:00`.
/// Up to 7 fractional digits; offset `+hh:mm`, `+hhmm`, `-hh:mm` or `Z`.
public struct TerminalDate: Sendable, Hashable, Codable, Comparable {
    /// 100-nanosecond ticks since 1970-01-01T00:00:00Z (the terminal's own resolution).
    public var instant: Int64
    /// Offset from UTC in minutes.
    public var offsetMinutes: Int
    /// The date as it should read: the original text, with a space that stood for `+` put back.
    public var text: String

    public init(instant: Int64, offsetMinutes: Int, text: String) {
        self.instant = instant; self.offsetMinutes = offsetMinutes; self.text = text
    }

    public static func < (a: TerminalDate, b: TerminalDate) -> Bool { a.instant < b.instant }

    public static let ticksPerSecond: Int64 = 10_000_000

    /// Parses a date; `spaceWasPlus` is set when the offset sign was a space
    /// (a `+` that some URL decoder turned into a space).
    public static func parse(_ input: String, spaceWasPlus: inout Bool) -> TerminalDate? {
        var copy = input
        var sawSpace = false
        let d = copy.withUTF8 { parse(bytes: $0, input: input, spaceWasPlus: &sawSpace) }
        if sawSpace { spaceWasPlus = true }
        return d
    }

    /// `n` ASCII digits at `i` as a number (and `i` past them), or nil.
    @inline(__always) static func digits(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ n: Int) -> Int? {
        guard i + n <= b.count else { return nil }
        var v = 0
        for k in 0..<n {
            let c = b[i + k]
            guard c >= 48 && c <= 57 else { return nil }
            v = v * 10 + Int(c - 48)
        }
        i += n
        return v
    }

    /// Whether the byte at `i` is `c` (and `i` past it).
    @inline(__always) static func expect(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ c: UInt8) -> Bool {
        guard i < b.count, b[i] == c else { return false }
        i += 1
        return true
    }

    static func parse(bytes b: UnsafeBufferPointer<UInt8>, input: String, spaceWasPlus: inout Bool) -> TerminalDate? {
        var i = 0
        @inline(__always) func digits(_ n: Int) -> Int? { TerminalDate.digits(b, &i, n) }
        @inline(__always) func expect(_ c: UInt8) -> Bool { TerminalDate.expect(b, &i, c) }
        guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D), let day = digits(2) else { return nil }
        guard i < b.count, b[i] == 0x54 || b[i] == 0x74 else { return nil }
        i += 1
        guard let hour = digits(2), expect(0x3A), let minute = digits(2), expect(0x3A), let second = digits(2) else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 61 else { return nil }
        var ticks: Int64 = 0
        if i < b.count, b[i] == 0x2E || b[i] == 0x2C {
            i += 1
            var n = 0
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                n += 1
                if n > 7 { return nil }
                ticks = ticks * 10 + Int64(b[i] - 48)
                i += 1
            }
            if n == 0 { return nil }
            for _ in n..<7 { ticks *= 10 }
        }
        var offset = 0
        var text = input
        guard i < b.count else { return nil }
        switch b[i] {
        case 0x5A, 0x7A: i += 1
        case 0x2B, 0x2D, 0x20:
            let sign = b[i] == 0x2D ? -1 : 1
            if b[i] == 0x20 { spaceWasPlus = true }
            let signIndex = i
            i += 1
            guard let oh = digits(2) else { return nil }
            _ = expect(0x3A)
            guard let om = digits(2), oh < 24, om < 60 else { return nil }
            offset = sign * (oh * 60 + om)
            if b[signIndex] == 0x20 {
                var fixed = Array(b); fixed[signIndex] = 0x2B
                text = String(decoding: fixed, as: UTF8.self)
            }
        default: return nil
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offset * 60)
        return TerminalDate(instant: seconds * ticksPerSecond + ticks, offsetMinutes: offset, text: text)
    }

    public static func parse(_ input: String) -> TerminalDate? {
        var ignored = false
        return parse(input, spaceWasPlus: &ignored)
    }

    /// Formats an instant as terminals do: 7 fractional digits and a `+hh:mm` offset.
    public static func format(instant: Int64, offsetMinutes: Int) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(33)
        appendFormatted(instant: instant, offsetMinutes: offsetMinutes, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `format(instant:offsetMinutes:)`'s text, appended as UTF-8 bytes (no `String` made):
    /// `2026-11-23T10:31:05.1234567+02:00`.
    public static func appendFormatted(instant: Int64, offsetMinutes: Int, to out: inout [UInt8]) {
        let local = instant + Int64(offsetMinutes) * 60 * ticksPerSecond
        var seconds = local / ticksPerSecond
        var fraction = local % ticksPerSecond
        if fraction < 0 { fraction += ticksPerSecond; seconds -= 1 }
        var days = seconds / 86_400
        var rest = seconds % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        let (y, m, d) = civilFromDays(Int(days))
        let om = abs(offsetMinutes)
        pad(y, 4, &out); out.append(0x2D); pad(m, 2, &out); out.append(0x2D); pad(d, 2, &out); out.append(0x54)
        pad(Int(rest / 3600), 2, &out); out.append(0x3A); pad(Int(rest % 3600 / 60), 2, &out); out.append(0x3A)
        pad(Int(rest % 60), 2, &out); out.append(0x2E); pad(Int(fraction), 7, &out)
        out.append(offsetMinutes < 0 ? 0x2D : 0x2B); pad(om / 60, 2, &out); out.append(0x3A); pad(om % 60, 2, &out)
    }

    /// `String(v)` with `0`s before it to make `width` characters (as the text always had it, sign included).
    private static func pad(_ v: Int, _ width: Int, _ out: inout [UInt8]) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)   // room for any Int and its sign
        withUnsafeMutableBytes(of: &digits) { b in
            var k = 24
            var m = v.magnitude
            repeat { k -= 1; b[k] = 0x30 + UInt8(m % 10); m /= 10 } while m > 0
            if v < 0 { k -= 1; b[k] = 0x2D }
            for _ in 0..<max(0, width - (24 - k)) { out.append(0x30) }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[k..<24]))
        }
    }

    public init(instant: Int64, offsetMinutes: Int) {
        self.init(instant: instant, offsetMinutes: offsetMinutes,
                  text: TerminalDate.format(instant: instant, offsetMinutes: offsetMinutes))
    }

    /// Seconds since 1970 as a Double (for Foundation `Date(timeIntervalSince1970:)`).
    public var secondsSince1970: Double { Double(instant) / Double(TerminalDate.ticksPerSecond) }

    static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }
    static func daysIn(month: Int, year: Int) -> Int {
        switch month { case 2: return isLeap(year) ? 29 : 28; case 4, 6, 9, 11: return 30; default: return 31 }
    }
    // Howard Hinnant's days_from_civil / civil_from_days.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
    /// The one day-count routine: (year, month, day) of a day number since 1970-01-01 (till's screens use it too).
    public static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

extension TerminalDate {
    /// A search date as typed (capture-preauth.txt:28, :32: "ISO 8601"), in the full form till sends:
    /// `2021-03-29T00:00:00.000+03:00`. A full date with an offset is kept as typed; a date alone
    /// (`2021-03-29`) is the start of that day (`endOfDay`: its last millisecond), and a time without an
    /// offset (`2021-03-29T10:30`, `…T10:30:15`, `…T10:30:15.250`) is read in the till's zone.
    /// `offsetMinutes` gives the till's zone offset at an instant (seconds since 1970, UTC).
    /// Nil when the text is none of these: validation then refuses it with its own message.
    public static func requestDate(_ text: String, endOfDay: Bool, offsetMinutes: (Int64) -> Int) -> String? {
        var spaceWasPlus = false
        if let d = parse(text, spaceWasPlus: &spaceWasPlus), !spaceWasPlus { return d.text }
        return Array(text.utf8).withUnsafeBufferPointer { requestDate(bytes: $0, endOfDay: endOfDay, offsetMinutes: offsetMinutes) }
    }

    static func requestDate(bytes b: UnsafeBufferPointer<UInt8>, endOfDay: Bool, offsetMinutes: (Int64) -> Int) -> String? {
        var i = 0
        func digits(_ n: Int) -> Int? { TerminalDate.digits(b, &i, n) }
        func expect(_ c: UInt8) -> Bool { TerminalDate.expect(b, &i, c) }
        guard let y = digits(4), expect(0x2D), let mo = digits(2), expect(0x2D), let d = digits(2),
              (1...12).contains(mo), (1...daysIn(month: mo, year: y)).contains(d) else { return nil }
        var h = 0, mi = 0, s = 0, ms = 0
        if i == b.count {
            if endOfDay { h = 23; mi = 59; s = 59; ms = 999 }
        } else {
            guard b[i] == 0x54 || b[i] == 0x74 || b[i] == 0x20 else { return nil }
            i += 1
            guard let hh = digits(2), expect(0x3A), let mm = digits(2), hh < 24, mm < 60 else { return nil }
            h = hh; mi = mm
            if i < b.count {
                guard expect(0x3A), let ss = digits(2), ss < 60 else { return nil }
                s = ss
                if i < b.count {
                    guard b[i] == 0x2E || b[i] == 0x2C else { return nil }
                    i += 1
                    var n = 0, v = 0
                    while i < b.count, b[i] >= 48, b[i] <= 57 { if n < 3 { v = v * 10 + Int(b[i] - 48) }; n += 1; i += 1 }
                    guard n > 0 else { return nil }
                    for _ in min(n, 3)..<3 { v *= 10 }
                    ms = v
                }
            }
            guard i == b.count else { return nil }
        }
        // The zone's offset at that wall-clock time: guessed from the time read as UTC, then checked.
        let local = Int64(daysFromCivil(year: y, month: mo, day: d)) * 86_400 + Int64(h * 3600 + mi * 60 + s)
        let guess = offsetMinutes(local)
        let offset = offsetMinutes(local - Int64(guess) * 60)
        func pad(_ v: Int, _ w: Int) -> String { let t = String(v); return String(repeating: "0", count: max(0, w - t.count)) + t }
        let sign = offset < 0 ? "-" : "+"
        let o = abs(offset)
        return "\(pad(y, 4))-\(pad(mo, 2))-\(pad(d, 2))T\(pad(h, 2)):\(pad(mi, 2)):\(pad(s, 2)).\(pad(ms, 3))"
            + "\(sign)\(pad(o / 60, 2)):\(pad(o % 60, 2))"
    }
}
