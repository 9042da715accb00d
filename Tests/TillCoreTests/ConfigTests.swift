import Testing
@testable import TillCore
import TillProtocol

@Suite struct ConfigTests {
    @Test func readsEveryKey() throws {
        let c = try TillConfig.parse("""
            # till settings
            merchant_key = "SG23323424EXS3"
            app_id = "com.shop.till"
            callback = "shop-callback"
            currency = "EUR"
            decimal_separator = ","
            transport = "file:/srv/drop"
            timeout = 45
            cashier = "Ana"
            till_name = "Till 2"
            theme = "high-contrast"
            keymap = "vim"
            sim_speed = 0.5
            """)
        #expect(c.merchantKey == "SG23323424EXS3" && c.appId == "com.shop.till" && c.callback == "shop-callback")
        #expect(c.transport == .file("/srv/drop") && c.timeoutSeconds == 45 && c.resolvedTimeoutMs == 45_000)
        #expect(c.decimalSeparator == "," && c.theme == "high-contrast" && c.keymap == "vim" && c.simSpeed == 0.5)
        #expect(c.caller(environment: [:]) == Caller(callback: "shop-callback", merchantKey: "SG23323424EXS3", appId: "com.shop.till"))
    }

    @Test func amountEntryInCentsIsAChoiceOffByDefault() throws {
        #expect(try TillConfig.parse("").amountEntry == nil)
        #expect(try TillConfig.parse("amount_entry = \"cents\"").amountEntry == .cents)
        #expect(throws: ConfigError.self) { try TillConfig.parse("amount_entry = \"pennies\"") }
        // Issue 34: the shop's usual payment, the screen the cashier UI goes back to after a verdict.
        #expect(try TillConfig.parse("usual_payment = \"pre-auth\"").preAuthIsUsual == true)
        #expect(try TillConfig.parse("usual_payment = \"sale\"").preAuthIsUsual == false)
        #expect(try TillConfig.parse("").preAuthIsUsual == nil)
        #expect(throws: ConfigError.self) { try TillConfig.parse("usual_payment = \"hold\"") }
    }

    @Test func flagsOverrideTheFile() throws {
        let file = try TillConfig.parse("transport = \"pipe:till simulate --stdio\"\ntimeout = 30\njournal = \"/a/j.sqlite\"")
        var flags = TillConfig()
        flags.timeoutSeconds = 5
        let c = file.overridden(by: flags)
        #expect(c.resolvedTimeoutMs == 5_000 && c.resolvedTransport == .pipe("till simulate --stdio"))
        #expect(c.resolvedSimStatePath == "/a/simulator-state.json")
    }

    @Test func wrongTypeNamesLineAndKey() {
        #expect {
            _ = try TillConfig.parse("app_id = \"x\"\n\ntimeout = \"soon\"\n", file: "c.toml")
        } throws: { e in
            let m = (e as? ConfigError)?.message ?? ""
            return m.contains("c.toml:3:") && m.contains("'timeout'")
        }
    }

    @Test func unknownKeyAndBadTransportAreNamed() {
        #expect {
            _ = try TillConfig.parse("merchant_key = \"k\"\nmerchnt = 1\n", file: "c.toml")
        } throws: { e in
            let m = (e as? ConfigError)?.message ?? ""
            return m.contains("c.toml:2:") && m.contains("'merchnt'") && m.contains("unknown key")
        }
        #expect {
            _ = try TillConfig.parse("transport = \"carrier-pigeon\"\n", file: "c.toml")
        } throws: { e in ((e as? ConfigError)?.message ?? "").contains("c.toml:1:") }
    }

    @Test func syntaxErrorNamesTheLine() {
        #expect {
            _ = try TillConfig.parse("app_id = \"x\"\ntimeout = = 3\n", file: "c.toml")
        } throws: { e in ((e as? ConfigError)?.message ?? "").hasPrefix("c.toml:2:") }
    }

    @Test func transportSpecs() throws {
        #expect(try TransportSpec(parsing: "simulator") == .simulator)
        #expect(try TransportSpec(parsing: "file:/tmp/x") == .file("/tmp/x"))
        #expect(try TransportSpec(parsing: "pipe:sh -c 'cat'") == .pipe("sh -c 'cat'"))
        #expect(throws: ConfigError.self) { try TransportSpec(parsing: "file:") }
    }
}
