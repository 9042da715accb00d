import Testing
import TillModel
import TillProtocol
@testable import TillUI

/// A screen is its file (a `ScreenComponent`: the compiler lists what it must say) and its line in `Screen.component`.
/// These fail until the two agree and the new screen says what no other screen says already.
@Suite struct ScreenRegistrationTests {
    @Test func eachScreenRunsTheComponentThatDeclaresIt() {
        for screen in Screen.allCases { #expect(screen.component.screen == screen, "\(screen) runs \(screen.component)") }
    }

    @Test func eachScreenHasAKeyAndANameOfItsOwn() {
        let screens = Screen.allCases
        #expect(Set(screens.map(\.action)).count == screens.count, "\(screens.map(\.action))")
        #expect(Set(screens.map(\.title)).count == screens.count, "\(screens.map(\.title))")
        // Its key opens it from anywhere (`KeyAction.isGlobal` has a `default:`: the compiler does not point at it).
        for s in screens { #expect(s.action.isGlobal, "\(s)'s key \(s.action) is not global") }
    }

    @Test func eachScreenOnTheMenuPageHasADigitOfItsOwn() {
        let digits = Menu.screens.map(\.0)
        #expect(Set(digits).count == digits.count, "\(digits)")
        // The page's own lines (the report on 8, help on 9) keep their digits.
        #expect(!digits.contains("8") && !digits.contains("9"), "\(digits)")
        // Every screen with a tab is on the page: a keypad cashier reaches it by its digit.
        for s in Screen.allCases where s.component.hasTab { #expect(Menu.screens.contains { $0.1 == s }, "\(s)") }
    }

    @Test func aBlankFormIsBlank() {
        for s in Screen.allCases {
            let f = Form.blank(s)
            #expect(!f.hasText && f.errors.isEmpty && f.life == .fresh, "\(s)")
        }
    }
}
