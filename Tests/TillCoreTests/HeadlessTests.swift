import Foundation
import Testing
@testable import TillCore
import TillIO
import TillProtocol
import TillSimulator

/// The headless commands as a cashier's script runs them: separate runs share one journal and one terminal.
@Suite(.serialized) struct HeadlessTests {
    @Test func exitCodesAcrossSeparateRuns() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let common = ["--journal", dir.path + "/journal.sqlite", "--sim-speed", "0"]
        #expect(try await runTill(["batch", "open", "--name", "morning"] + common).status == 0)
        let ok = try await runTill(["sale", "--amount", "12.50", "--tip", "1", "--client-transaction-id", "h-1"] + common)
        #expect(ok.status == 0 && ok.output.contains("APPROVED"))
        #expect(try await runTill(["sale", "--amount", "6.66"] + common).status == 1)
        let bad = try await runTillCapturing(["sale", "--amount", "12.345"] + common)
        #expect(bad.status == 2 && bad.errors.contains("amount"))
        // The terminal (its state beside the journal) remembers the first sale across runs.
        let details = try await runTill(["details", "--client-transaction-id", "h-1", "--json"] + common)
        #expect(details.status == 0 && details.output.contains("\"transactionStatus\": \"success\""))
        let refund = try await runTill(["refund", "--reference", "000001", "--amount", "2"] + common)
        #expect(refund.status == 0)
        #expect(try await runTill(["cancel", "--reference", "999999"] + common).status == 1)
        let abort = try await runTill(["abort"] + common)
        #expect(abort.status == 1 && abort.output.contains("NOTHING TO ABORT"))
        #expect(try await runTill(["batch", "close"] + common).status == 0)
        let list = try await runTill(["journal", "--json"] + common)
        #expect(list.status == 0 && list.output.components(separatedBy: "\"requestId\"").count - 1 == 8)
        #expect(try await runTill(["journal", "show", "2"] + common).output.contains("h-1"))
    }

    /// Each headless command closes the journal when it ends (issue 11): the file alone, copied right after, holds
    /// what the command journaled (a backup of the file misses nothing), with no write-ahead log left to read.
    @Test func theJournalFileAloneIsCompleteAfterEachCommand() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.path + "/journal.sqlite"
        let common = ["--journal", path, "--sim-speed", "0"]
        #expect(try await runTill(["batch", "open", "--name", "morning"] + common).status == 0)
        #expect(try await runTill(["sale", "--amount", "12.50", "--client-transaction-id", "alone-1"] + common).status == 0)
        let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.intValue ?? 0
        #expect(wal == 0)
        try FileManager.default.copyItem(atPath: path, toPath: dir.path + "/copy.sqlite")
        let copied = try Journal(path: dir.path + "/copy.sqlite")
        #expect(try copied.entries(clientTransactionId: "alone-1").map(\.state) == [.approved])
        #expect(try copied.batch().name == "morning")
    }

    @Test func unknownOutcomeExits3AndResolveSettlesIt() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let common = ["--journal", dir.path + "/journal.sqlite", "--transport", "pipe:cat > /dev/null", "--timeout", "0.3"]
        let r = try await runTill(["sale", "--amount", "5"] + common)
        #expect(r.status == 3 && r.output.contains("OUTCOME UNKNOWN"))
        let left = try await runTill(["journal", "--unresolved", "--journal", dir.path + "/journal.sqlite"])
        #expect(left.output.contains("#1") && left.output.contains("unknown"))
        #expect(try await runTill(["resolve", "1", "--not-charged", "--note", "terminal shows it declined", "--journal", dir.path + "/journal.sqlite"]).status == 0)
        #expect(try await runTill(["resolve", "1", "--not-charged", "--note", "again", "--journal", dir.path + "/journal.sqlite"]).status == 1)
        let after = try await runTill(["journal", "show", "1", "--journal", dir.path + "/journal.sqlite"])
        #expect(after.output.contains("resolved") && after.output.contains("terminal shows it declined"))
    }

    @Test func configFileIsReadAndAMalformedOneIsNamed() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let cfg = dir.path + "/config.toml"
        try AtomicFile.write("""
            merchant_key = "cfg-key"
            callback = "shop-callback"
            sim_speed = 0
            journal = "\(dir.path)/from-config.sqlite"
            """, to: cfg)
        let ok = try await runTill(["sale", "--amount", "3", "--config", cfg, "--json"])
        #expect(ok.status == 0 && ok.output.contains("callback=shop-callback"))
        #expect(Path.exists(dir.path + "/from-config.sqlite"))
        try AtomicFile.write("merchant_key = \"k\"\ntimeout = \"later\"\n", to: cfg)
        let bad = try await runTillCapturing(["sale", "--amount", "3", "--config", cfg])
        #expect(bad.status == 2 && bad.errors.contains("config.toml:2:") && bad.errors.contains("'timeout'"))
        // The default location: $XDG_CONFIG_HOME/till/config.toml.
        try Path.makeDirectories(dir.path + "/xdg/till")
        try AtomicFile.write("transport = \"teleport\"\n", to: dir.path + "/xdg/till/config.toml")
        let viaXDG = try await runTillCapturing(["journal", "--journal", dir.path + "/j.sqlite"], environment: ["XDG_CONFIG_HOME": dir.path + "/xdg"])
        #expect(viaXDG.status == 2 && viaXDG.errors.contains("'transport'"))
    }
}
