import Testing
@testable import TillCore
import TillProtocol

/// `bell` and `confirm_above` (issue 10): read as docs/configuration.md documents them, a bad value refused with its key.
@Suite struct ConfigBellConfirmTests {
    @Test func readsBellAndConfirmAbove() throws {
        let c = try TillConfig.parse("bell = false\nconfirm_above = 100.10  # a float would make it 100.0999…\n")
        #expect(c.bell == false)
        #expect(c.confirmAbove == Money(cents: 10_010))
        #expect(try TillConfig.parse("confirm_above = 250").confirmAbove == Money(cents: 25_000))
        #expect(try TillConfig.parse("confirm_above = \"99,50\"").confirmAbove == Money(cents: 9_950))
        let none = try TillConfig.parse("")
        #expect(none.bell == nil && none.confirmAbove == nil)     // the screen's defaults: the bell rings, above 1000.00 it asks
        // "off": nothing asks (no total is above the largest amount).
        #expect(try TillConfig.parse("confirm_above = \"off\"").confirmAbove == Money.maximum)
        var flags = TillConfig()
        flags.bell = true
        #expect(c.overridden(by: flags).bell == true && c.overridden(by: flags).confirmAbove == Money(cents: 10_010))
    }

    @Test func badValuesNameTheKey() {
        let bad: [(String, String)] = [
            ("bell = \"yes\"", "key 'bell': must be true or false"),
            ("bell = 1", "key 'bell': must be true or false"),
            ("confirm_above = -5", "key 'confirm_above': must be an amount in the currency"),
            ("confirm_above = 1.005", "more than two decimals"),
            ("confirm_above = \"lots\"", "key 'confirm_above': must be an amount in the currency"),
            ("confirm_above = true", "key 'confirm_above': must be an amount in the currency"),
        ]
        for (text, want) in bad {
            #expect {
                _ = try TillConfig.parse("\n" + text + "\n", file: "c.toml")
            } throws: { e in
                let m = (e as? ConfigError)?.message ?? ""
                return m.hasPrefix("c.toml:2:") && m.contains(want)
            }
        }
    }
}
