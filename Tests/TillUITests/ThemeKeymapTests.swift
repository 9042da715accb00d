import Foundation
import TillProtocol
import Testing
@testable import TillUI

@Suite struct ThemeKeymapTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test(arguments: ["default", "high-contrast", "monochrome"])
    func shippedThemesParse(name: String) throws {
        let path = Self.repo.appendingPathComponent("themes/\(name).toml").path
        let theme = try Theme.parse(try String(contentsOfFile: path, encoding: .utf8), file: path, name: name)
        #expect(theme.name == name)
        // Every verdict stays distinguishable without colour.
        for role in [Role.approved, .declined, .unknown, .fieldFocused, .statusLine] {
            #expect(!theme.style(role).mono.isEmpty, "\(name): \(role.name) has no monochrome emphasis")
        }
        // Approved and declined differ by more than the word where there is no colour (and in the monochrome theme).
        #expect(theme.style(.approved).mono != theme.style(.declined).mono, "\(name): approved and declined look alike without colour")
        if name == "monochrome" { #expect(theme.style(.approved).attrs != theme.style(.declined).attrs) }
    }

    @Test func shippedDefaultThemeMatchesBuiltIn() throws {
        let path = Self.repo.appendingPathComponent("themes/default.toml").path
        let theme = try Theme.parse(try String(contentsOfFile: path, encoding: .utf8), file: path, name: "default")
        for role in Role.allCases { #expect(theme.style(role) == Theme.standard.style(role), "\(role.name)") }
        // Whole values: the runtime uses the built-in one for the shipped default without parsing it (start-up).
        #expect(theme == Theme.standard)
    }

    @Test(arguments: ["default", "keypad"])
    func shippedKeymapsParseAndReachEveryScreen(name: String) throws {
        let path = Self.repo.appendingPathComponent("keymaps/\(name).toml").path
        let km = try Keymap.parse(try String(contentsOfFile: path, encoding: .utf8), file: path, name: name)
        for screen in Screen.allCases { #expect(!km.keys(for: screen.action).isEmpty, "\(name): \(screen)") }
        #expect(km.action(for: .esc) == .cancel)
        #expect(km.action(for: .enter) == .submit)
    }

    @Test func shippedDefaultKeymapMatchesBuiltIn() throws {
        let path = Self.repo.appendingPathComponent("keymaps/default.toml").path
        let km = try Keymap.parse(try String(contentsOfFile: path, encoding: .utf8), file: path, name: "default")
        for a in KeyAction.allCases { #expect(km.keys(for: a) == Keymap.standard.keys(for: a), "\(a)") }
        // Whole values: the runtime uses the built-in one for the shipped default without parsing it (start-up).
        #expect(km == Keymap.standard)
    }

    @Test func malformedTomlReportsFileAndLine() {
        let text = "name = \"x\"\n[roles.approved]\nfg = \"green\"\nbg = = \"red\"\n"
        #expect(throws: ConfigFileError.self) { try Theme.parse(text, file: "x.toml", name: "x") }
        do { _ = try Theme.parse(text, file: "x.toml", name: "x") } catch {
            #expect(error.file == "x.toml")
            #expect(error.line == 4)
            #expect(error.description.hasPrefix("x.toml:4: "))
        }
    }

    @Test func unknownRoleColourAndAttributeAreNamed() {
        func message(_ t: String) -> String {
            do { _ = try Theme.parse(t, file: "t.toml", name: "t"); return "" } catch { return error.description }
        }
        #expect(message("[roles.aproved]\nfg = \"green\"\n").contains("t.toml:1: unknown role 'aproved'"))
        #expect(message("[roles.approved]\nfg = \"greem\"\n").contains("'greem' is not a colour"))
        #expect(message("[roles.approved]\nattrs = [\"blink\"]\n").contains("'blink' is not an attribute"))
    }

    @Test func keymapErrorsNameActionAndKey() {
        func message(_ t: String) -> String {
            do { _ = try Keymap.parse(t, file: "k.toml", name: "k"); return "" } catch { return error.description }
        }
        #expect(message("[keys]\nsael = \"F2\"\n").contains("k.toml:2: unknown action 'sael'"))
        #expect(message("[keys]\nsale = \"hyper-x\"\n").contains("'hyper-x' is not a key name"))
        #expect(message("sale = \"F2\"\n").contains("no [keys] table"))
    }

    @Test func coloursFallBackOnSmallerTerminals() {
        // bright-x on 8 colours: the basic colour plus bold.
        let bright = Style(fg: Color(name: "bright-red")!, bg: .default)
        #expect(bright.resolved(colors: 256).fg == 9)
        #expect(bright.resolved(colors: 16).fg == 9)
        let eight = bright.resolved(colors: 8)
        #expect(eight.fg == 1)
        #expect(eight.attrs.contains(.bold))
        // fg8 overrides on 8 colours only.
        var s = Style(fg: Color(name: "bright-cyan")!, bg: .default)
        s.bg8 = Color(name: "blue")
        #expect(s.resolved(colors: 8).bg == 4)
        #expect(s.resolved(colors: 256).bg == -1)
        // 256-colour index: nearest basic colour below 256 colours (208, orange, is mostly red).
        let orange = Style(fg: Color(name: "208")!)
        #expect(orange.resolved(colors: 256).fg == 208)
        #expect(orange.resolved(colors: 8).fg == 1)
        #expect(Style(fg: Color(name: "226")!).resolved(colors: 8).fg == 3)   // yellow
    }

    @Test func keyNames() {
        #expect(Key(name: "F2") == .f(2))
        #expect(Key(name: "alt-s") == .alt("s"))
        #expect(Key(name: "Ctrl-U") == .ctrl("u"))
        #expect(Key(name: "shift-tab") == .backTab)
        #expect(Key(name: "+") == .char("+"))
        #expect(Key(name: "space") == .char(" "))
        #expect(Key(name: "nonsense") == nil)
        #expect(Key.alt("s").description == "Alt-s")
    }

    @Test func tipAndDateHelpers() throws {
        #expect(try tipValue("10%", amount: Money(cents: 1250)).get() == Money(cents: 125))
        #expect(try tipValue("15%", amount: Money(cents: 333)).get() == Money(cents: 50))   // 49.95 rounds half up
        #expect(try tipValue("2,5", amount: Money(cents: 1000)).get() == Money(cents: 250))
        #expect((try? tipValue("abc%", amount: Money(cents: 1000)).get()) == nil)
        #expect(TerminalDate.requestDate("2026-11-20", endOfDay: false, offsetMinutes: { _ in 60 }) == "2026-11-20T00:00:00.000+01:00")
        #expect(TerminalDate.requestDate("2026-11-20", endOfDay: true, offsetMinutes: { _ in -330 }) == "2026-11-20T23:59:59.999-05:30")
        #expect(TerminalDate.requestDate("2026-11-20 14:30", endOfDay: false, offsetMinutes: { _ in 0 }) == "2026-11-20T14:30:00.000+00:00")
    }
}
