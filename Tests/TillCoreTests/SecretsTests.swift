import Foundation
import Testing
@testable import TillCore
import TillIO
import TillProtocol
import TillSimulator
import TillSimulatorTransport

/// The merchant key and the ISV client secret never reach the journal (file or WAL), the simulator's state,
/// the drop folder's archive, or what till prints.
@Suite(.serialized) struct SecretsTests {
    static let merchantKey = "MK-SECRET-7731-zq"
    static let isvSecret = "ISV-SECRET-9917-xw"

    /// Every file under `dir`, as bytes, that holds one of the secrets (as is or percent-encoded).
    static func leaks(in dir: String, of secrets: [String] = [merchantKey, isvSecret]) -> [String] {
        var found: [String] = []
        let needles = secrets.map { Array($0.utf8) }
        let e = FileManager.default.enumerator(atPath: dir)
        while let rel = e?.nextObject() as? String {
            let path = dir + "/" + rel
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue,
                  let data = FileManager.default.contents(atPath: path) else { continue }
            let bytes = [UInt8](data)
            for n in needles where bytes.count >= n.count {
                for i in 0...(bytes.count - n.count) where bytes[i] == n[0] && Array(bytes[i..<(i + n.count)]) == n {
                    found.append(rel); break
                }
            }
        }
        return found
    }

    @Test func journalAndWALHoldNoSecret() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let caller = Caller(callback: "interapp-callback", merchantKey: SecretsTests.merchantKey, appId: "com.example.till")
        let journal = try Journal(path: dir.path + "/data/journal.sqlite")
        let transport = SimulatorTransport(config: SimulatorConfig(speed: 0), statePath: dir.path + "/data/simulator-state.json")
        let c = TillController(transport: transport, journal: journal, caller: caller, timeoutMs: 300)
        try await c.start()
        let isv = ISVFields(amount: Money(cents: 10), clientId: "isv-client", clientSecret: SecretsTests.isvSecret)
        // Only 9.09 (never answered) is meant to use the 0.3 s; the others wait a minute for their answers, which on a
        // loaded machine can take longer than 0.3 s.
        let r = await c.perform(.sale(SaleRequest(amount: Money(cents: 1500), isv: isv)), hooks: true, timeoutMs: 60_000)
        #expect(r.journalEntry?.state == .approved)
        #expect(await c.perform(sale(909)).journalEntry?.state == .unknown)     // a request left unknown is stored redacted too
        _ = await c.perform(.batch(BatchRequest(command: .open, batchName: "s")), hooks: true, timeoutMs: 60_000)
        #expect(Path.exists(dir.path + "/data/journal.sqlite-wal"))
        #expect(SecretsTests.leaks(in: dir.path).isEmpty)                // while open: file and WAL
        #expect(r.journalEntry?.requestURL.contains("ISV_clientId=isv-client") == true)
        await c.shutdown()
        #expect(SecretsTests.leaks(in: dir.path).isEmpty)                // after the WAL was folded in
    }

    @Test func headlessRunPrintsAndStoresNoSecret() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let drop = dir.path + "/drop"
        let sim = try Child(["simulate", "--dir", drop, "--speed", "0"])
        defer { sim.stop() }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tillBinary)
        p.arguments = ["sale", "--amount", "20", "--merchant-key", SecretsTests.merchantKey, "--isv-amount", "0.10",
                       "--isv-client-id", "isv-client", "--isv-client-secret", SecretsTests.isvSecret,
                       "--transport", "file:" + drop, "--journal", dir.path + "/data/journal.sqlite", "--json"]
        var env = ProcessInfo.processInfo.environment
        env["XDG_CONFIG_HOME"] = "/nonexistent-till-config"
        p.environment = env
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(text.contains("\"approved\""))
        #expect(!text.contains(SecretsTests.merchantKey) && !text.contains(SecretsTests.isvSecret))
        let shown = try await runTill(["journal", "--journal", dir.path + "/data/journal.sqlite", "--json"])
        #expect(!shown.output.contains(SecretsTests.merchantKey) && !shown.output.contains(SecretsTests.isvSecret))
        #expect(shown.output.contains("[redacted]") || shown.output.contains("%5Bredacted%5D"))
        #expect(Path.list(drop + "/requests").isEmpty)
        #expect(SecretsTests.leaks(in: dir.path).isEmpty)
    }

    // Defect (issue 33, item 10): the bridge's command line, settings and keys in it, went into the entry's note, what
    // the command printed, `till export` and the outbox pushed to the store.
    @Test func aBridgesCommandLineIsShownByItsProgramNameOnly() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let token = "TOKEN-SECRET-5512-qv", key = "BRIDGEKEY-SECRET-8830-pp"
        let bridge = dir.path + "/bin/card-bridge"
        try FileManager.default.createDirectory(atPath: dir.path + "/bin", withIntermediateDirectories: true)
        // It reads the request, then ends without answering: the entry is `unknown`, its note names the bridge.
        try "#!/bin/sh\nread line\nexit 3\n".write(toFile: bridge, atomically: true, encoding: .utf8)
        chmod(bridge, 0o700)
        let journal = dir.path + "/data/journal.sqlite"
        let secrets = [token, key]
        func clean(_ text: String) -> Bool { !secrets.contains { text.contains($0) } }
        var printed = ""
        for command in ["BRIDGE_TOKEN=\(token) \(bridge) --key \(key)", "BRIDGE_TOKEN=\(token) \(dir.path)/bin/no-such-bridge --key \(key)"] {
            let r = try await runTillCapturing(["sale", "--amount", "5", "--transport", "pipe:" + command, "--journal", journal, "--timeout", "5"])
            #expect(r.status == 3, "\(r.output) \(r.errors)")
            printed += r.output + r.errors
        }
        #expect(clean(printed), "\(printed)")
        #expect(printed.contains("card-bridge"), "\(printed)")
        let shown = try await runTillCapturing(["journal", "--journal", journal, "--json"])
        #expect(clean(shown.output + shown.errors), "\(shown.output)")
        for format in ["csv", "json"] {
            let exported = try await runTillCapturing(["export", "--journal", journal, "--format", format])
            #expect(clean(exported.output + exported.errors), "\(exported.output)")
        }
        #expect(SecretsTests.leaks(in: dir.path + "/data", of: secrets).isEmpty)   // journal, WAL, outbox
    }
}
