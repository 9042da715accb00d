import Testing
import TillModel
import TillProtocol
@testable import TillUI

/// Issue 34, "Keypad gaps": the keypad keymap's tab bar named F2 … F8, keys a keypad does not have. It names what
/// the keypad keymap binds: `*` for Sale, and each other screen by its route through the menu (`/`, `0` the page of
/// screens, its digit), as the tip presets read `/1`.
@Suite struct KeypadTabBarTests {
    static let keypad: Keymap = try! Keymap.parse(ShippedResources.keymaps["keypad"]!, file: "keypad.toml", name: "keypad")

    func tabBar(_ size: Size, keymap: Keymap = Self.keypad) -> String {
        var s = readyState(size: size, keymap: keymap)
        s.transport = "file"   // not training: the help key shows at the right where it is wide
        return String(view(s, size: size).text.split(separator: "\n", omittingEmptySubsequences: false)[0])
    }

    @Test(arguments: [Size(width: 80, height: 24), Size(width: 120, height: 40), Size(width: 200, height: 50)])
    func theKeypadTabBarNamesKeypadKeys(size: Size) {
        let bar = tabBar(size)
        #expect(!bar.contains("F"), "\(bar)")   // no F-key (no screen's title holds an F)
        for label in ["* Sale", "/02 Pre-auth", "/03 Capture", "/04 Refund", "/05 Batch", "/06 Journal", "/07 Unresolved"] {
            #expect(bar.contains(label), "\(label) missing: \(bar)")
        }
        if size.width >= 100 { #expect(bar.contains("/09 Help"), "\(bar)") }
    }

    /// Every route the tab bar names takes the cashier there, on the keys it names.
    @Test func everyRouteTheTabBarNamesGoesThere() {
        for (digit, screen, _) in Menu.screens where screen != .sale {
            var s = readyState(keymap: Self.keypad)
            type(&s, "/0" + String(digit))
            #expect(s.screen == screen, "/0\(digit) went to \(s.screen)")
        }
    }

    @Test func theDefaultTabBarStillNamesFKeys() {
        let bar = tabBar(Size(width: 80, height: 24), keymap: .standard)
        #expect(bar.contains("F2 Sale") && bar.contains("F7 Journal"), "\(bar)")
    }
}
