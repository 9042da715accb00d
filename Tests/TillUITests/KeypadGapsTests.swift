import Testing
import TillModel
import TillProtocol
@testable import TillUI

/// Issue 34, "Keypad gaps": a keypad cashier sees only keys a keypad has, everywhere; on the journal `*` and `-` act
/// (never type into the filter) and a keypad key erases the filter; the X report's `-` closes it and Enter's role is
/// shown; MOTO is reachable on Sale through the menu.
@Suite struct KeypadGapsTests {
    static let keypad: Keymap = try! Keymap.parse(ShippedResources.keymaps["keypad"]!, file: "keypad.toml", name: "keypad")

    func keypadState(size: Size = Size(width: 80, height: 24)) -> AppState { readyState(size: size, keymap: Self.keypad) }

    /// Key names a numeric keypad does not have, as the screen would spell them.
    static let notOnAKeypad = ["Esc", "Ctrl-", "Alt-", "Backspace", "PgUp", "PgDn", "Tab", "F1 help", "F10 quit"]

    func keysNotOnAKeypad(_ s: AppState) -> [String] {
        let text = view(s, size: s.size).text
        return Self.notOnAKeypad.filter { text.contains($0) }
    }

    @Test func theJournalNamesOnlyKeypadKeys() {
        var s = keypadState()
        press(&s, .f(7))
        let reprintable = response("status=success&action=sale&amount=1250&referenceNumber=000013&orderCode=1234567890123456")
        _ = update(&s, .journalLoaded([entry(1, response: reprintable)]))
        #expect(keysNotOnAKeypad(s) == [], "\(view(s, size: s.size).text)")
        press(&s, .enter)   // the detail
        #expect(keysNotOnAKeypad(s) == [], "\(view(s, size: s.size).text)")
    }

    @Test(arguments: [Screen.sale, .preAuth, .capture, .refund, .batch, .unresolved])
    func everyScreenNamesOnlyKeypadKeys(_ screen: Screen) {
        var s = keypadState()
        _ = go(&s, screen)
        #expect(keysNotOnAKeypad(s) == [], "\(view(s, size: s.size).text)")
        type(&s, "12")
        #expect(keysNotOnAKeypad(s) == [], "\(view(s, size: s.size).text)")
    }

    @Test func theReportNamesOnlyKeypadKeysAndWhatEnterDoes() {
        var s = keypadState()
        _ = update(&s, .reportLoaded(sampleReport(), show: true))
        let text = view(s, size: s.size).text
        #expect(keysNotOnAKeypad(s) == [], "\(text)")
        #expect(text.contains("Enter close"), "\(text)")
        // The default keymap says it too.
        var d = readyState()
        _ = update(&d, .reportLoaded(sampleReport(), show: true))
        #expect(view(d, size: d.size).text.contains("Enter"), "\(view(d, size: d.size).text)")
    }

    @Test func theReportsMinusClosesIt() {
        var s = keypadState()
        _ = update(&s, .reportLoaded(sampleReport(), show: true))
        type(&s, "-")
        #expect(s.overlay == nil)
    }

    @Test func onTheJournalStarAndMinusActAndNeverTypeIntoTheFilter() {
        var s = keypadState()
        press(&s, .f(7))
        _ = update(&s, .journalLoaded([entry(1), entry(2), entry(3)]))
        type(&s, "-")
        #expect(s.forms[.journal]?[.filter] == "")
        type(&s, "13")
        #expect(s.forms[.journal]?[.filter] == "13")
        // A keypad key erases the filter: `-` on a filter typed.
        type(&s, "-")
        #expect(s.forms[.journal]?[.filter] == "")
        #expect(s.screen == .journal)
        type(&s, "*")
        #expect(s.screen == .sale)
        #expect(s.forms[.journal]?[.filter] ?? "" == "")
    }

    @Test func motoIsOnTheSaleMenu() {
        var s = keypadState()
        type(&s, "/")
        guard case .menu(let m)? = s.overlay, let item = m.items.first(where: { $0.command == .action(.paymentMethod) }) else {
            Issue.record("no payment method on the Sale menu:\n\(view(s, size: s.size).text)"); return
        }
        type(&s, String(item.key))
        #expect(s.paymentMethod(.sale) == .moto)
        #expect(view(s, size: s.size).text.contains("MOTO"))
    }
}
