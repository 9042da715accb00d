import Foundation
import Testing
@testable import TillCore
import TillIO
import TillProtocol
import TillSimulator

/// Issue 12: the sample apps' administrative actions as headless commands, on the built-in simulator,
/// and the config keys `tip` and `sim_abort_style`.
@Suite(.serialized) struct SampleActionsHeadlessTests {
    // tip = "included": `till sale` sent the goods alone as the amount (20.00 charged for 20.00 + 2.00), and its
    // answer and `till journal` read "+ tip" as if on top. Now the request holds the tip and every line says "incl.".
    @Test func withTheTipIncludedTillSaleSendsTheTotalAndSaysSo() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let journal = dir.path + "/journal.sqlite", config = dir.path + "/config.toml"
        try "tip = \"included\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let common = ["--journal", journal, "--sim-speed", "0", "--config", config]
        #expect(try await runTill(["batch", "open", "--name", "tips"] + common).status == 0)
        let sale = try await runTill(["sale", "--amount", "20", "--tip", "2"] + common)
        #expect(sale.status == 0 && sale.output.contains("22.00 incl. tip 2.00 charged"), "\(sale.output)")
        let asked = try Journal(path: journal).requestedAmounts(of: 2)
        #expect(asked.amount == Money(cents: 2200) && asked.tip == Money(cents: 200))
        let list = try await runTill(["journal"] + common)
        #expect(list.output.contains("22.00 incl. tip 2.00") && !list.output.contains("+ 2.00"), "\(list.output)")
        // The flag overrides the config.
        let onTop = try await runTill(["sale", "--amount", "20", "--tip", "2", "--tip-style", "on-top"] + common)
        #expect(onTop.status == 0)
        #expect(try Journal(path: journal).requestedAmounts(of: 3).amount == Money(cents: 2000))
        let e3 = try #require(try Journal(path: journal).entry(id: 3))
        #expect(e3.tipStyle == .onTop && e3.charged == Money(cents: 2200), "\(e3)")
    }

    // Found by an outside tester: `--tip-style included` on the command line sent the total (11.00 holding the 1.00
    // tip), but the entry was journaled with the config's reading (on top): its line, the report and the refund cap
    // said 12.00 for a card charged 11.00. The entry is read as the request was built.
    @Test func theTipStyleFlagIsHowTheEntryIsRead() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let journal = dir.path + "/journal.sqlite"
        let common = ["--journal", journal, "--sim-speed", "0", "--config", "/dev/null"]
        #expect(try await runTill(["batch", "open", "--name", "tips"] + common).status == 0)
        let sale = try await runTill(["sale", "--amount", "10", "--tip", "1", "--tip-style", "included"] + common)
        #expect(sale.status == 0 && sale.output.contains("11.00 incl. tip 1.00 charged"), "\(sale.output)")
        let e = try #require(try Journal(path: journal).entry(id: 2))
        #expect(e.tipStyle == .included && e.charged == Money(cents: 1100), "\(e)")
        let report = try await runTill(["report"] + common)
        let net = report.output.split(separator: "\n").first { $0.contains("NET TOTAL") } ?? ""
        #expect(net.hasSuffix("11.00"), "\(report.output)")
    }

    @Test func everyAdministrativeCommandRunsAndMovesNoMoney() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let journal = dir.path + "/journal.sqlite"
        let common = ["--journal", journal, "--sim-speed", "0", "--config", "/dev/null"]
        #expect(try await runTill(["batch", "open", "--name", "admin-day"] + common).status == 0)
        let logs = try await runTill(["send-logs"] + common)
        #expect(logs.status == 0 && logs.output.contains("DONE") && !logs.output.contains("APPROVED"))
        let get = try await runTill(["printing-settings", "get", "--json"] + common)
        #expect(get.status == 0 && get.output.contains("\"isCustomerReceiptEnabled\": \"true\""))
        let set = try await runTill(["printing-settings", "set", "--customer-receipt", "false", "--json"] + common)
        #expect(set.status == 0 && set.output.contains("\"isCustomerReceiptEnabled\": \"false\""))
        // The terminal (its state beside the journal) keeps the setting across runs.
        #expect(try await runTill(["printing-settings", "get", "--json"] + common).output.contains("\"isCustomerReceiptEnabled\": \"false\""))
        #expect(try await runTill(["reprint", "--latest"] + common).status == 1)   // nothing printed yet
        let sale = try await runTill(["sale", "--amount", "12", "--payment-method", "MOTO", "--json"] + common)
        #expect(sale.status == 0 && sale.output.contains("MANUAL ENTRY"))
        #expect(try await runTill(["reprint", "--latest"] + common).status == 0)
        let code = try await runTill(["activation-code", "--json"] + common)
        #expect(code.status == 0)
        let activationCode = try #require(code.output.firstMatch(of: /"activationCode": "([0-9]{8})"/)?.output.1)
        let act = try await runTill(["activate", "--activation-code", String(activationCode), "--source-id", "Default",
                                     "--pin-code", "4321", "--lock-refund", "true"] + common)
        #expect(act.status == 0 && act.output.contains("POS activated"))
        let byKey = try await runTill(["activate", "--api-key", "SUPER-KEY-1", "--api-secret", "SUPER-SECRET-2"] + common)
        #expect(byKey.status == 0 && !byKey.output.contains("SUPER-"))
        // Secrets never reach the journal (any of its files) or the simulator's state.
        for file in try FileManager.default.contentsOfDirectory(atPath: dir.path) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: dir.path + "/" + file))
            for secret in ["SUPER-KEY-1", "SUPER-SECRET-2", "pinCode=4321"] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) in \(file)")
            }
        }
        // Only the sale is money: the X report counts one sale of 12.00.
        let report = try await runTill(["report", "--json"] + common)
        #expect(report.status == 0)
        let sales = try #require(report.output.firstMatch(of: /"sales": \{\s*"count": (\d+),\s*"cents": (\d+)/))
        #expect(sales.output.1 == "1" && sales.output.2 == "1200", "\(report.output)")
        #expect(report.output.contains("\"batchName\": \"admin-day\""))
    }

    @Test func invalidAdministrativeInputExits2() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let common = ["--journal", dir.path + "/journal.sqlite", "--sim-speed", "0", "--config", "/dev/null"]
        let r = try await runTillCapturing(["activate", "--pin-code", "12"] + common)
        #expect(r.status == 2 && r.errors.contains("The PIN must be 4 to 8 digits.") && r.errors.contains("Say how to activate"))
        // Nothing was sent: no journal entry.
        if Path.exists(dir.path + "/journal.sqlite") {
            let list = try await runTill(["journal"] + common)
            #expect(list.output.contains("No entries"))
        }
    }

    @Test func simAbortStyleFlagAndConfig() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let common = ["--journal", dir.path + "/journal.sqlite", "--sim-speed", "0", "--config", "/dev/null"]
        // abort.txt:69-71, the page's form: nothing to abort, status=success; still "nothing to abort", exit 1.
        let page = try await runTill(["abort", "--sim-abort-style", "page", "--json"] + common)
        #expect(page.status == 1 && page.output.contains("nothingToAbort") && page.output.contains("nothing to abort"))
        let terminal = try await runTill(["abort", "--json"] + common)
        #expect(terminal.status == 1 && terminal.output.contains("(-55) NOTHING_TO_ABORT"))
        let bad = try await runTillCapturing(["abort", "--sim-abort-style", "polite"] + common)
        #expect(bad.status == 2 && bad.errors.contains("terminal|page|sale-only"))
        let cfg = dir.path + "/config.toml"
        try AtomicFile.write("sim_abort_style = \"page\"\nsim_speed = 0\njournal = \"\(dir.path)/j2.sqlite\"\n", to: cfg)
        let fromConfig = try await runTill(["abort", "--config", cfg, "--json"])
        #expect(fromConfig.status == 1 && fromConfig.output.contains("nothing to abort"))
    }

    @Test func configKeys() throws {
        let c = try TillConfig.parse("tip = \"included\"\nsim_abort_style = \"sale-only\"")
        #expect(c.tip == .included && c.resolvedTip == .included && c.simAbortStyle == .saleOnly)
        #expect(TillConfig().resolvedTip == .onTop)
        #expect(throws: ConfigError.self) { try TillConfig.parse("tip = \"sometimes\"") }
        do { _ = try TillConfig.parse("\n\ntip = \"sometimes\"") } catch {
            #expect(error.message.contains(":3:") && error.message.contains("on-top"))
        }
        #expect(throws: ConfigError.self) { try TillConfig.parse("sim_abort_style = \"polite\"") }
        var flags = TillConfig(); flags.simAbortStyle = .page
        #expect(c.overridden(by: flags).simAbortStyle == .page && c.overridden(by: flags).tip == .included)
    }

    /// The config is read without the simulator, so it spells the simulator's largest speed itself: the two agree.
    @Test func simSpeedBoundIsTheSimulators() {
        #expect(TillConfig.maximumSimSpeed == SimulatorConfig.maximumSpeed)
    }
}
