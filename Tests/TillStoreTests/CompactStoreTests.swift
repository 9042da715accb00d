import Foundation
import GRDB
import PostgresNIO
import Testing
@testable import TillCore
import TillModel
import TillProtocol
@testable import TillStore

/// Issue 35, "Compact", as the store sees it: an entry's change carries only what changed, and the store applies it on
/// top of the row it holds (v7), so its rows stay exactly the journal's; a journal that gets a store later (its outbox
/// started by the first push) gives it its whole history; a journal of the version before syncs on after the upgrade.
extension StoreServerTests {
@Suite struct CompactStoreTests {
    /// Every entry of the journal as the store's payment row holds it, and as the journal holds it.
    static func rows(_ j: Journal, _ s: TestStore, till: String) async throws -> (journal: [String], store: [String]) {
        let journal = try await j.database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, requestId, action, origin, state, amountCents, tipCents, tipIncluded, batchId, batchName, clientTransactionId,
                       transactionId, stan, cardType, verificationMethod, createdAtMs, updatedAtMs FROM entry ORDER BY id
                """).map { r in (0..<r.count).map { "\(r[$0] as DatabaseValue)" }.joined(separator: "|") }
        }
        let store = try await s.adminRows(PostgresQuery(unsafeSQL: """
            SELECT entry_id::text, request_id, action, origin, state, COALESCE(amount_cents::text, 'NULL'), COALESCE(tip_cents::text, 'NULL'),
                   CASE WHEN tip_included THEN '1' ELSE '0' END, COALESCE(batch_id, 'NULL'), COALESCE(batch_name, 'NULL'),
                   COALESCE(client_transaction_id, 'NULL'), COALESCE(transaction_id, 'NULL'), COALESCE(stan, 'NULL'), COALESCE(card_type, 'NULL'),
                   COALESCE(verification_method, 'NULL'), created_at_ms::text, updated_at_ms::text
              FROM till_store.payment p WHERE p.till_id = '\(till)' ORDER BY p.entry_id
            """)).map { row in
            var cells: [String] = []
            for cell in row { cells.append(try cell.decode(String.self)) }
            return cells.joined(separator: "|")
        }
        // GRDB writes a text value quoted and NULL as NULL: the journal's side made alike.
        return (journal.map { $0.replacingOccurrences(of: "\"", with: "") }, store)
    }

    @Test func changesAreAppliedOnTopOfTheRowsTheStoreHolds() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        // A history before any store: no outbox; the first push starts it and sends every entry whole.
        try shift(j, name: "m", at: 1_000, sales: [(100, nil), (250, 50)], close: true)
        #expect(try !j.outboxStarted() && j.outbox().isEmpty)
        // Two events a round trip: an entry's changes come in other pushes than its whole row.
        let sync = Sync(journalPath: a.journalPath, address: a.address, batchSize: 2, retention: nil)
        _ = try await sync.pushOnce()
        #expect(try j.outboxStarted())
        var (mine, theirs) = try await Self.rows(j, s, till: "A")
        #expect(mine == theirs)
        // From now on: a whole row when an entry is made, then its changes.
        try shift(j, name: "n", at: 5_000, sales: [(300, nil), (400, 25)], close: false)
        let kinds = try j.outbox().map(\.kind)
        #expect(kinds.contains("entry_change") && !kinds.isEmpty)
        _ = try await sync.pushOnce()
        (mine, theirs) = try await Self.rows(j, s, till: "A")
        #expect(mine == theirs)
        // A change to NULL (a note cleared, a state moved on) and one push of one event each.
        try j.setState(Int64(mine.count), .review, note: "checked", nowMs: 9_000)
        _ = try await sync.pushOnce()
        try j.setState(Int64(mine.count), .approved, note: nil, nowMs: 9_001)
        _ = try await Sync(journalPath: a.journalPath, address: a.address, batchSize: 2, retention: nil).pushOnce()
        (mine, theirs) = try await Self.rows(j, s, till: "A")
        #expect(mine == theirs)
        #expect(try await count(s, "SELECT count(*) FROM till_store.quarantine") == 0)
        #expect(try await storeNets(s, till: "A") == tillNets(j))
        #expect(try await count(s, "SELECT count(*) FROM till_store.event WHERE kind = 'entry_change'") > 0)
    }

    /// A journal of the version before (whole rows in its outbox), pushed by the sync of that version's schema, then
    /// opened by this till: it goes on with changes, and the store's rows stay the journal's.
    @Test func aJournalOfTheVersionBeforeSyncsOnAfterTheUpgrade() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        do {
            var config = Configuration()
            config.prepareDatabase { db in db.add(function: OutboxChain.function) }
            let q = try DatabaseQueue(path: a.journalPath, configuration: config)
            try Journal.migrator(tipStyle: .onTop).migrate(q, upTo: "v11-outbox-chain")
            try await q.write { db in
                for i in 1...3 {
                    try db.execute(sql: "INSERT INTO entry (requestId, action, requestURL, state, createdAtMs, updatedAtMs, amountCents, batchId) VALUES (?, 'sale', 'u', 'pending', ?, ?, ?, 'B')",
                                   arguments: ["r\(i)", i, i, 100 * i])
                    try db.execute(sql: "UPDATE entry SET state = 'approved', stan = ?, updatedAtMs = updatedAtMs + 1 WHERE requestId = ?", arguments: ["s\(i)", "r\(i)"])
                }
            }
            try q.close()
        }
        let sync = Sync(journalPath: a.journalPath, address: a.address, batchSize: 2, retention: nil)
        let before = try await sync.pushOnce()
        #expect(before.storeLastSeq == 6)
        let j = try Journal(path: a.journalPath)
        #expect(try j.outboxStarted())
        try j.setState(2, .review, note: "looked at", nowMs: 50)
        try shift(j, name: "m", at: 1_000, sales: [(700, nil)], close: true)
        _ = try await sync.pushOnce()
        let (mine, theirs) = try await Self.rows(j, s, till: "A")
        #expect(mine.count == theirs.count && mine == theirs)
        #expect(try await count(s, "SELECT count(*) FROM till_store.quarantine") == 0)
    }
}
}
