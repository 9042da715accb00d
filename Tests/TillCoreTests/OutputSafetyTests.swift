import Foundation
import Testing
@testable import TillCore
import TillIO
import TillProtocol

/// A hostile terminal's fields (escape sequences, a bidi override, spreadsheet formulas) as every
/// output shows them (issue 9): never raw on a terminal, never a live formula in a spreadsheet.
@Suite(.serialized) struct OutputSafetyTests {
    /// A bridge that plays a hostile terminal: a batch named `=cmd‮evil` + ESC[2J, a sale whose card
    /// type, method, STAN and message carry formulas and escapes.
    static let hostileBridge = #"pipe:while read l; do case "$l" in *action=batch*) echo "interapp-callback://result?status=success&action=batch&command=open&batchName=%3Dcmd%E2%80%AEevil%1B%5B2J&batchId=B1%1B%5B31m&message=ok";; *) echo "interapp-callback://result?status=success&action=sale&amount=300&tipAmount=0&cardType=%40SUM(A1)%E2%80%AE%1B%5B2J&verificationMethod=%2Bpin&referenceNumber=00%1B%5B1m1&message=%3DHYPERLINK(x)&clientTransactionId=$(echo "$l" | sed "s/.*clientTransactionId=\([^&]*\).*/\1/")";; esac; done"#

    static func hostileJournal(_ dir: TempDir) throws -> [String] {
        let common = ["--journal", dir.path + "/journal.sqlite"]
        let transport = ["--transport", hostileBridge, "--timeout", "20"]
        #expect(try runTill(["batch", "open", "--name", "Morning"] + common + transport).status == 0)
        #expect(try runTill(["sale", "--amount", "3"] + common + transport).status == 0)
        return common
    }

    static func hasRawControls(_ s: String) -> Bool {
        s.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E || ($0.value < 0x20 && $0 != "\n" && $0 != "\r") }
    }

    @Test func textOutputsEscapeControlAndBidiCharacters() throws {
        let dir = TempDir("till-hostile"); defer { dir.cleanup() }
        let common = try Self.hostileJournal(dir)
        for args in [["report"], ["report", "--batch", "last"], ["journal"], ["journal", "show", "2"], ["batches"],
                     ["journal", "--json"], ["report", "--json"], ["batches", "--json"], ["export", "--format", "json"],
                     ["report", "--format", "csv"], ["export"]] {
            let r = try runTill(args + common)
            #expect(r.status == 0, "till \(args)")
            #expect(!Self.hasRawControls(r.output), "till \(args) printed a raw control or bidi character:\n\(r.output)")
        }
        // Shown, escaped, not dropped.
        #expect(try runTill(["batches"] + common).output.contains("=cmd\\u{202E}evil\\u{1B}[2J"))
        #expect(try runTill(["report"] + common).output.contains("Batch      =cmd\\u{202E}evil\\u{1B}[2J"))
        #expect(try runTill(["journal"] + common).output.contains("STAN 00\\u{1B}[1m1"))
        // JSON keeps the values (a JSON reader gets them back) but never as raw bytes.
        let json = try runTill(["batches", "--json"] + common).output
        let batches = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(batches.first?["name"] as? String == "=cmd\u{202E}evil\u{1B}[2J")
    }

    @Test func csvNeutralisesFormulasAndControlCharacters() throws {
        let dir = TempDir("till-hostile"); defer { dir.cleanup() }
        let common = try Self.hostileJournal(dir)
        let report = try runTill(["report", "--format", "csv"] + common).output
        #expect(report.contains("batch,name,,\"'=cmd\\u{202E}evil\\u{1B}[2J\","))
        let tx = try runTill(["export"] + common).output
        #expect(tx.contains("\"'@SUM(A1)\\u{202E}\\u{1B}[2J\""))
        #expect(tx.contains("\"'+pin\""))
        #expect(tx.contains("\"'=HYPERLINK(x)\""))
        // No cell a spreadsheet would run: every one starting with = + - @ is a quoted '-text, or a plain number.
        for line in (report + tx).split(separator: "\r\n") {
            for cell in line.split(separator: ",", omittingEmptySubsequences: false) {
                guard let c = cell.first, "=+-@".contains(c) else { continue }
                #expect(Double(cell) != nil, "a live formula cell: \(cell)")
            }
        }
    }

    @Test func csvFieldFollowsOWASP() {
        #expect(CSV.field("=1+2") == "\"'=1+2\"")
        #expect(CSV.field("+41") == "\"'+41\"")
        #expect(CSV.field("-2+3") == "\"'-2+3\"")
        #expect(CSV.field("@SUM(A1)") == "\"'@SUM(A1)\"")
        #expect(CSV.field("\tx") == "\"'\\u{9}x\"")
        #expect(CSV.field("\r=x") == "\"'\\u{D}=x\"")
        #expect(CSV.field("-12.50") == "-12.50")       // a number stays a number
        #expect(CSV.field("12.50") == "12.50")
        #expect(CSV.field("a\u{1B}[2Jb") == "a\\u{1B}[2Jb")
        #expect(CSV.field("line\nbreak") == "line\\u{A}break")
        #expect(CSV.field("a,\"b\"") == "\"a,\"\"b\"\"\"")
    }

    @Test func exportFilesAreOwnerOnly() async throws {
        let dir = TempDir("till-export"); defer { dir.cleanup() }
        let old = umask(0o022); defer { umask(old) }
        let common = ["--journal", dir.path + "/journal.sqlite", "--sim-speed", "0"]
        #expect(try await runTill(["batch", "open", "--name", "M"] + common).status == 0)
        #expect(try await runTill(["sale", "--amount", "3"] + common).status == 0)
        for format in ["csv", "json"] {
            let path = dir.path + "/out.\(format)"
            #expect(try await runTill(["export", "--format", format, "--output", path] + common).status == 0)
            #expect(mode(path) == 0o600, "till export --format \(format) --output wrote \(String(mode(path), radix: 8))")
        }
        // The UI's export (the report screen) writes beside the journal.
        let c = try await simulatorController(dir)
        let paths = try await c.exportReport(batch: .current, format: ReportFormat())
        await c.shutdown()
        #expect(paths.count == 2)
        for p in paths { #expect(mode(p) == 0o600, "\(p) is \(String(mode(p), radix: 8))") }
    }

    @Test func unknownBatchSuggestsACommandThatExists() async throws {
        let dir = TempDir("till-batch"); defer { dir.cleanup() }
        let r = try await runTillCapturing(["report", "--batch", "nope", "--journal", dir.path + "/journal.sqlite"])
        #expect(r.status == 2)
        #expect(r.errors.contains("`till batches`"))
        #expect(!r.errors.contains("batch list"))
    }

    func mode(_ path: String) -> mode_t {
        var st = stat()
        return stat(path, &st) == 0 ? st.st_mode & 0o777 : 0
    }
}
