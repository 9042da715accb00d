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
            // A grapheme cluster as ncurses takes it: its scalars (at most 5), NUL-terminated.
            var wstr = c.ch.unicodeScalars.prefix(5).map { wchar_t(bitPattern: $0.value) }
            wstr.append(0)
            _ = wstr.withUnsafeBufferPointer { till_put_cluster(Int32(i / w), Int32(i % w), $0.baseAddress, attrs, rolePairs[r]) }
            written += 1
        }
        previous = buf
        till_refresh()
        return written
    }

    /// Rings the terminal's bell.
    public func bell() { till_beep() }

    /// Forgets the last frame so the next paint redraws everything.
    public func invalidate() { previous = nil }

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
        if ch == 27 {
            // Alt-x arrives as Esc followed by x; a lone Esc has nothing behind it.
            till_timeout(0)
            var next: wint_t = 0
            let r2 = till_get_wch(&next)
            till_timeout(readTimeoutMs)
            if r2 != till_err() && r2 != till_key_code_yes(), let s = Unicode.Scalar(UInt32(next)), next >= 32 {
                return .key(.alt(Character(s)))
            }
            return .key(.esc)
        }
        return Self.keyFromChar(UInt32(ch)).map { .key($0) } ?? .ignored
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
        default: return nil
        }
    }
}
