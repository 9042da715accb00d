import Foundation
import Testing
@testable import TillCore

/// `till batches` lists the newest shifts by default: a year of a till is thousands of them, and a listing of every
/// one cost more the older the journal was (BENCHMARKS.md, "A till that ages": 3.2× at 1M entries).
@Suite struct BatchListTests {
    @Test func theNewestTwentyByDefaultAndEveryOneWithLimitAll() async throws {
        let dir = TempDir("till-batches"); defer { dir.cleanup() }
        let path = dir.path + "/journal.sqlite"
        let journal = try Journal(path: path)
        try journal.write { db in
            for i in 0..<30 {
                let at = Int64(1_700_000_000_000) + Int64(i) * 3_600_000
                try db.execute(sql: "INSERT INTO batch_event (entryId, command, batchId, batchName, atMs) VALUES (NULL, 'open', ?, ?, ?)",
                               arguments: ["b\(i)", "shift \(i)", at])
                try db.execute(sql: "INSERT INTO batch_event (entryId, command, batchId, batchName, atMs) VALUES (NULL, 'close', ?, ?, ?)",
                               arguments: ["b\(i)", "shift \(i)", at + 1_800_000])
            }
        }
        journal.close()
        let some = try await runTillCapturing(["batches", "--journal", path])
        let lines = some.output.split(separator: "\n")
        #expect(some.status == 0 && lines.count == 21, "\(some.status) \(some.errors) \(some.output)")
        #expect(lines.first?.contains("Older batches are not shown") == true, "\(some.output)")
        #expect(lines.last?.contains("shift 29") == true && !some.output.contains("shift 9 "), "\(some.output)")
        let every = try await runTillCapturing(["batches", "--limit", "all", "--journal", path])
        #expect(every.status == 0 && every.output.split(separator: "\n").count == 30 && !every.output.contains("Older"), "\(every.output)")
        // The newest twenty read from the events since the twentieth last open are the newest twenty of every one.
        let known = try Journal(path: path).batches()
        let newest = try Journal(path: path).newestBatches(20)
        #expect(newest.batches == Array(known.suffix(20)) && newest.earlier)
        #expect(try Journal(path: path).newestBatches(30).earlier == false)
        let json = try await runTillCapturing(["batches", "--json", "--limit", "5", "--journal", path])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        #expect(array.count == 5 && array.last?["id"] as? String == "b29", "\(json.output)")
    }
}
