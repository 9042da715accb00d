import Foundation
import GRDB
import PostgresNIO
import Testing
@testable import TillCore
import TillModel
import TillProtocol
@testable import TillStore

/// Issue 35, "Fast catch-up": a journal that gets a store late starts its outbox at its first push, and the push sends
/// the start's events as its chunks commit (`OutboxStartRun`), so that the journal's writes and the store's work
/// overlap. Whatever the interleaving, the store ends with every event once, in order, and the journal's rows.
extension StoreServerTests {
@Suite struct CatchUpTests {
    @Test func aLongHistoryGoesWholeWhileItsOutboxStartsAndSalesGoOn() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        // Five chunks of the start (250 entries each) and more, in round trips of 300 events: most are sent while the
        // start is still making the ones after them.
        try j.fillApprovedSalesForBench(count: 1_300, batch: "b1", startMs: 1_000, spacingMs: 60_000)
        #expect(try !j.outboxStarted())
        let sync = Sync(journalPath: a.journalPath, address: a.address, batchSize: 300, retention: nil)
        // The till sells on meanwhile: its entries come after the history's, made whole by the outbox's triggers.
        let selling = Task {
            for i in 0..<40 {
                try j.insertSettled([(.sale, .approved, 500 + i, 0, "b2", 100_000_000 + Int64(i))])
                try await Task.sleep(for: .milliseconds(3))
            }
        }
        let first = try await sync.pushOnce()
        try await selling.value
        #expect(try j.outboxStarted())
        #expect(first.pushed >= 1_300)
        let second = try await sync.pushOnce()
        let events = try j.outbox()
        #expect(events.count == 1_340 && events.map(\.seq) == Array(1...Int64(1_340)))
        #expect(first.pushed + second.pushed == 1_340 && second.storeLastSeq == 1_340)
        #expect(try await count(s, "SELECT count(*) FROM till_store.event WHERE till_id = 'A'") == 1_340)
        #expect(try await count(s, "SELECT count(*) FROM till_store.quarantine") == 0)
        let (mine, theirs) = try await CompactStoreTests.rows(j, s, till: "A")
        #expect(mine.count == 1_340 && mine == theirs)
        #expect(try await storeNets(s, till: "A") == tillNets(j))
        #expect(try await sync.pushOnce().pushed == 0)
    }

    /// A first push stores each entry whole (the request and the terminal's answer): the log compresses such payloads
    /// with LZ4 (schema v8), not pglz, which cost about a tenth of the store's CPU in a first push.
    @Test func wholeEntriesAreStoredCompressedWithLZ4() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        try j.fillApprovedSalesForBench(count: 20, batch: "b1", startMs: 1_000, spacingMs: 60_000)
        // An answer as long as a real terminal's with every field (a payload past the server's 2 KB threshold).
        j.close()
        var config = Configuration()
        config.prepareDatabase { db in db.add(function: OutboxChain.function) }
        let q = try DatabaseQueue(path: a.journalPath, configuration: config)
        try await q.write { db in
            try db.execute(sql: "UPDATE entry SET message = ? WHERE id = (SELECT MIN(id) FROM entry)", arguments: [String(repeating: "Approved; ", count: 300)])
        }
        try q.close()
        #expect(try await Sync(journalPath: a.journalPath, address: a.address, retention: nil).pushOnce().pushed > 0)
        let methods = try await s.adminRows("SELECT pg_column_compression(payload) FROM till_store.event WHERE till_id = 'A' AND pg_column_compression(payload) IS NOT NULL")
            .map { try $0.decode(String.self) }
        #expect(!methods.isEmpty && methods.allSatisfy { $0 == "lz4" }, "compressed payloads: \(methods)")
    }
}
}
