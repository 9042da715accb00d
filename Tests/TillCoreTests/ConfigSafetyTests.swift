import Foundation
import Testing
@testable import TillCore
import TillIO
#if canImport(Glibc)
import Glibc
#endif

/// Issue 9: configuration values that used to be taken silently or explained badly.
struct ConfigSafetyTests {
    // Defect: a NUL in the merchant key was silently truncated (`abc\u0000def` became `abc`).
    @Test func aNulInAValueIsRefusedWithTheKeyAndLine() throws {
        #expect(throws: ConfigError.self) { _ = try TillConfig.parse("app_id = \"x\"\nmerchant_key = \"abc\\u0000def\"\n", file: "c.toml") }
        do { _ = try TillConfig.parse("merchant_key = \"abc\\u0000def\"\n", file: "c.toml") } catch {
            #expect(error.message.contains("c.toml:1") && error.message.contains("merchant_key") && error.message.contains("NUL"))
        }
        #expect(throws: ConfigError.self) { _ = try TillConfig.parse("cashier = \"Ana\\u001b[31m\"\n") }
    }

    // Defect: `journal = ""` gave an unclear message and exit 3.
    @Test func anEmptyJournalPathIsRefusedInWords() throws {
        do { _ = try TillConfig.parse("journal = \"\"\n", file: "c.toml"); Issue.record("accepted") } catch {
            #expect(error.message.contains("journal") && error.message.contains("empty"))
        }
    }

    // Defect: a sub-millisecond timeout was accepted (every outcome unknown at once).
    @Test func aTimeoutTooShortToWaitIsRefused() throws {
        #expect(throws: ConfigError.self) { _ = try TillConfig.parse("timeout = 0.0001\n") }
        #expect(try TillConfig.parse("timeout = 0.5\n").timeoutSeconds == 0.5)
    }

    // Defect: a config file holding the merchant key that others can read got no warning.
    @Test func aMerchantKeyOthersCanReadIsWarnedAbout() throws {
        let dir = NSTemporaryDirectory() + "till-config-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try Path.makeDirectories(dir)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/config.toml"
        try "merchant_key = \"SG23323424EXS3\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o644)
        let open = try TillConfig.load(path: path)
        #expect(open.warnings.count == 1 && open.warnings[0].contains("chmod 600"))
        chmod(path, 0o600)
        #expect(try TillConfig.load(path: path).warnings.isEmpty)
    }

    @Test func theCLISaysWhatIsWrongAndExits2() throws {
        let dir = NSTemporaryDirectory() + "till-config-cli-\(getpid())"
        try Path.makeDirectories(dir)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runTillCapturing(["journal", "--journal", ""])
        #expect(r.status == 2 && r.errors.contains("--journal is empty"))
        let t = try runTillCapturing(["sale", "--amount", "1", "--timeout", "0.0001", "--journal", dir + "/j.sqlite"])
        #expect(t.status == 2 && t.errors.contains("--timeout must be from 0.1"))
        try "merchant_key = \"SG23323424EXS3\"\n".write(toFile: dir + "/c.toml", atomically: true, encoding: .utf8)
        chmod(dir + "/c.toml", 0o640)
        let w = try runTillCapturing(["journal", "--config", dir + "/c.toml", "--journal", dir + "/j.sqlite"])
        #expect(w.status == 0 && w.errors.contains("others on this machine can read it"))
    }
}
