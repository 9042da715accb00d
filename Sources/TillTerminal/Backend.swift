import CNcurses
import TillUI

/// What the backend reads from the keyboard.
public enum InputEvent: Sendable, Hashable {
    case key(Key)
    case resize(Size)
    /// A key till has no use for (read and dropped).
    case ignored
}

/// The thin ncurses backend: paints a `ScreenBuffer`, touching only the cells that changed since the last frame,
/// and reads keys. Not thread-safe: one thread (the UI loop) owns it.
public final class NcursesBackend {
    public let monochrome: Bool
    public let colors: Int
    private var previous: ScreenBuffer?
    private var roleAttrs: [UInt32] = []
    private var rolePairs: [Int16] = []
    private let theme: Theme
    private var started = false
    private let readTimeoutMs: Int32

    /// Starts curses. `monochrome` forces attributes only (NO_COLOR); terminals without colour get it anyway.
    public init(theme: Theme, monochrome forceMono: Bool, readTimeoutMs: Int32 = 0) {
        till_set_locale()
        till_start(readTimeoutMs)
        self.readTimeoutMs = readTimeoutMs
        started = true
        self.theme = theme
        let hasColor = till_has_colors() != 0
        if hasColor && !forceMono {
            _ = till_start_color()
            colors = Int(till_colors())
            monochrome = false
        } else {
            colors = 0
            monochrome = true
        }
        setupStyles()
    }

    deinit { end() }

    public func end() {
        if started { till_end(); started = false }
    }

    static func curses(_ a: Attr) -> UInt32 {
        var r: UInt32 = 0
        if a.contains(.bold) { r |= till_a_bold() }
        if a.contains(.reverse) { r |= till_a_reverse() }
        if a.contains(.underline) { r |= till_a_underline() }
        if a.contains(.dim) { r |= till_a_dim() }
        return r
    }

    private func setupStyles() {
        roleAttrs = Array(repeating: 0, count: Role.allCases.count)
        rolePairs = Array(repeating: 0, count: Role.allCases.count)
        let pairs = Int(till_color_pairs())
        for role in Role.allCases {
            let style = theme.style(role)
            let i = Int(role.rawValue)
            if monochrome {
                roleAttrs[i] = Self.curses(style.mono)
                continue
            }
            let (fg, bg, attrs) = style.resolved(colors: colors)
            roleAttrs[i] = Self.curses(attrs)
            if (fg >= 0 || bg >= 0) && i + 1 < pairs {
                _ = till_init_pair(Int16(i + 1), Int16(fg), Int16(bg))
                rolePairs[i] = Int16(i + 1)
            }
        }
    }

    public func size() -> Size {
        var y: Int32 = 0, x: Int32 = 0
        till_getmaxyx(&y, &x)
        return Size(width: Int(x), height: Int(y))
    }

    /// Paints the buffer: a full repaint after a resize, otherwise only the changed cells.
    /// Returns how many cells were written.
    @discardableResult
    public func paint(_ buf: ScreenBuffer) -> Int {
        var written = 0
        let w = buf.size.width
        let full = previous?.size != buf.size
        if full { till_clear() }
        // The cells that changed (`ScreenBuffer.diff`, tested on its own); a wide cluster is painted once.
        for i in buf.diff(from: full ? nil : previous) {
            let c = buf.cells[i]
            let r = Int(c.role.rawValue)
            let attrs = roleAttrs[r] | Self.curses(c.attrs)
            // A grapheme cluster as ncurses takes it: its scalars (at most 5), NUL-terminated; on the stack, not an
            // array per cell.
            withUnsafeTemporaryAllocation(of: wchar_t.self, capacity: 6) { wstr in
                var n = 0
                for u in c.ch.unicodeScalars.prefix(5) { wstr[n] = wchar_t(bitPattern: u.value); n += 1 }
                wstr[n] = 0
                _ = till_put_cluster(Int32(i / w), Int32(i % w), wstr.baseAddress, attrs, rolePairs[r])
            }
            written += 1
        }
        previous = buf
        till_refresh()
        return written
    }

    /// Rings the terminal's bell.
    public func bell() { till_beep() }

    /// The next key ncurses has, without waiting (the read timeout is 0: the UI loop waits in `poll`);
    /// nil when it has none.
    public func read() -> InputEvent? {
        var ch: wint_t = 0
        let r = till_get_wch(&ch)
        if r == till_err() { return nil }
        if r == till_key_code_yes() {
            let code = Int32(ch)
            if code == till_key_resize() { return .resize(size()) }
            return Self.keyFromCode(code).map { .key($0) } ?? .ignored
        }
        if ch == 27 { return afterEsc() }
        return Self.keyFromChar(UInt32(ch)).map { .key($0) } ?? .ignored
    }

    /// What an Esc ncurses could not decode starts: a lone Esc, Alt-x (Esc then x), or an escape sequence
    /// the terminal's description does not list (tmux sends End as `ESC [ 4 ~`, which xterm's description
    /// spells `ESC O F`), read here as the key it is, never as typed text. A key that follows a lone Esc at
    /// once (Esc F7 in one read) is given back to ncurses, so the next read returns it: never dropped.
    private func afterEsc() -> InputEvent {
        defer { till_timeout(readTimeoutMs) }
        till_timeout(0)
        var next: wint_t = 0
        let r = till_get_wch(&next)
        if r == till_err() { return .key(.esc) }
        if r == till_key_code_yes() {
            _ = till_unget_key(Int32(next))
            return .key(.esc)
        }
        if next == 0x5B || next == 0x4F {   // '[' (CSI) or 'O' (SS3)
            // The rest of a sequence arrives with its start; wait a moment for a slow link, no longer.
            till_timeout(Self.sequenceDelayMs)
            var body: [UInt8] = []
            var overlong = false
            // A sequence's bytes are 0x20–0x7E, the last one 0x40–0x7E. Anything else (a key ncurses decoded, a
            // control or non-ASCII byte) is not part of it: given back, so the next read returns it (never lost).
            // An over-long body is read to its final byte and dropped whole: none of it is ever typed.
            for _ in 0..<256 {
                var b: wint_t = 0
                let got = till_get_wch(&b)
                if got == till_err() { break }
                if got == till_key_code_yes() { _ = till_unget_key(Int32(b)); break }
                guard b >= 0x20 && b <= 0x7E else { _ = till_unget_wch(b); break }
                if body.count < Self.longestSequence { body.append(UInt8(b)) } else { overlong = true }
                if b >= 0x40 { break }   // the final byte
            }
            if body.isEmpty { return .key(.alt(next == 0x5B ? "[" : "O")) }
            if overlong { return .ignored }
            return Self.keyFromSequence(introducer: UInt8(next), body).map { .key($0) } ?? .ignored
        }
        if next >= 32, let s = Unicode.Scalar(UInt32(next)) { return .key(.alt(Character(s))) }
        // Esc, then Enter, Tab, Esc …: two keys.
        _ = till_unget_wch(next)
        return .key(.esc)
    }

    /// How long the rest of an escape sequence may take to arrive once its first two bytes did.
    static let sequenceDelayMs: Int32 = 25
    /// The longest sequence body till reads as a key (`24;5~` and the like fit many times over).
    static let longestSequence = 16

    /// An escape sequence's key: `introducer` is `[` (CSI) or `O` (SS3), `body` what follows up to and with
    /// its final byte (`4~`, `F`, `1;5A`). Modifiers are dropped (Ctrl-↑ is ↑); nil for a sequence till
    /// has no key for (it is dropped, never typed).
    static func keyFromSequence(introducer: UInt8, _ body: [UInt8]) -> Key? {
        guard let final = body.last else { return nil }
        let params = body.dropLast().split(separator: 0x3B).map { Int(String(decoding: $0, as: UTF8.self)) }
        switch final {
        case 0x41: return .up                          // A
        case 0x42: return .down                        // B
        case 0x43: return .right                       // C
        case 0x44: return .left                        // D
        case 0x48: return .home                        // H
        case 0x46: return .end                         // F
        case 0x5A: return .backTab                     // Z
        default: break
        }
        if introducer == 0x4F {
            // SS3: F1–F4, and the keypad in application mode.
            switch final {
            case 0x50...0x53: return .f(Int(final) - 0x50 + 1)    // P Q R S
            case 0x4D: return .enter                              // M: keypad Enter
            case 0x70...0x79: return .char(Character(Unicode.Scalar(final - 0x70 + 0x30)))   // p…y: keypad 0–9
            case 0x6A: return .char("*")
            case 0x6B: return .char("+")
            case 0x6D: return .char("-")
            case 0x6E: return .char(".")
            case 0x6C: return .char(",")                          // l: the VT220 keypad comma
            case 0x6F: return .char("/")
            default: return nil
            }
        }
        guard final == 0x7E, let first = params.first, let n = first else { return nil }   // `n ~`
        switch n {
        case 1, 7: return .home
        case 4, 8: return .end
        case 3: return .delete
        case 5: return .pageUp
        case 6: return .pageDown
        case 11...15: return .f(n - 10)
        case 17...21: return .f(n - 11)
        case 23, 24: return .f(n - 12)
        default: return nil
        }
    }

    static func keyFromChar(_ v: UInt32) -> Key? {
        switch v {
        case 9: return .tab
        case 10, 13: return .enter
        case 8, 127: return .backspace
        case 1...26: return .ctrl(Character(Unicode.Scalar(v + 96)!))
        case 0, 28...31: return nil
        default:
            guard let s = Unicode.Scalar(v) else { return nil }
            return .char(Character(s))
        }
    }

    static func keyFromCode(_ code: Int32) -> Key? {
        for n in 1...24 where code == till_key_f(Int32(n)) { return .f(n) }
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_HOME: return .home
        case KEY_END: return .end
        case KEY_NPAGE: return .pageDown
        case KEY_PPAGE: return .pageUp
        case KEY_BACKSPACE: return .backspace
        case KEY_DC: return .delete
        case KEY_ENTER: return .enter
        case KEY_BTAB: return .backTab
        default:
            // The numeric keypad in application mode (ncurses' keypad() turns it on): ncurses decodes the keys the
            // terminal's description names (xterm's: ka1 = ESC O w is 7, kpADD = ESC O k is +) into key codes; each
            // is the character printed on its key. The rest arrive as SS3 sequences (`keyFromSequence`).
            guard let name = till_keyname(code) else { return nil }
            return keypadKeys[String(cString: name)].map { .char($0) }
        }
    }

    /// The keypad's keys by terminfo name (the standard 3×3 ones and xterm's extended names), as ncurses decodes them.
    static let keypadKeys: [String: Character] = [
        "KEY_A1": "7", "ka2": "8", "KEY_A3": "9", "kb1": "4", "KEY_B2": "5", "kb3": "6", "KEY_C1": "1", "kc2": "2", "KEY_C3": "3",
        "kpZRO": "0", "kpDOT": ".", "kpCMA": ",", "kpADD": "+", "kpSUB": "-", "kpMUL": "*", "kpDIV": "/",
    ]
}
