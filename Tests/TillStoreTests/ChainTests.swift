import Foundation
import GRDB
import PostgresNIO
import Testing
import TillCore
@testable import TillStore

/// One history, provably: every outbox event carries the hash of its predecessor (a hash chain), and the store checks
/// the chain on every push, so a journal restored from a backup, edited by hand, truncated or spliced can never push a
/// history that differs from what the store holds, whatever the number of events; `reconcile` lists it, the till's
/// status says so.
extension StoreServerTests {
@Suite struct ChainTests {
    func diverged(_ s: TestStore) async throws -> [BackOffice.Finding] {
        var found: [BackOffice.Finding] = []
        try await BackOffice(address: try await s.office()).reconcile(filter: .init()) { if $0.check == .behindJournal { found.append($0) } }
        return found
    }

    /// The scenario: a backup restored that then makes exactly as many events as it lost.
    @Test func aRestoredBackupThatMakesAsManyEventsAsItLostIsRefused() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        var j = try Journal(path: a.journalPath)
        try shift(j, name: "m", at: 1_000, sales: [(100, nil)], close: false)
        _ = try await Sync(journalPath: a.journalPath, address: a.address).pushOnce()
        j.close()
        try FileManager.default.copyItem(atPath: a.journalPath, toPath: s.dir + "/backup.sqlite")
        j = try Journal(path: a.journalPath)
        try shift(j, name: "n", at: 5_000, sales: [(300, nil), (400, nil)], close: false)
        let lost = try await Sync(journalPath: a.journalPath, address: a.address).pushOnce()
        j.close()
        // The backup restored in the journal's place; two other sales, as many events as were lost.
        try FileManager.default.removeItem(atPath: a.journalPath)
        try FileManager.default.copyItem(atPath: s.dir + "/backup.sqlite", toPath: a.journalPath)
        let r = try Journal(path: a.journalPath)
        try shift(r, name: "n", at: 5_000, sales: [(301, nil), (401, nil)], close: false)
        #expect(try r.outbox().last?.seq == lost.storeLastSeq)
        let refused = await expectRefused(StoreSchema.diverged) { _ = try await Sync(journalPath: a.journalPath, address: a.address).pushOnce() }
        #expect(refused.contains("restored from a backup"), "\(refused)")
        let seen = try await diverged(s)
        #expect(seen.count == 1 && seen.first?.till == "A", "\(seen)")
        #expect(SyncStatus.read(journal: a.journalPath)?.problem?.contains("restored from a backup") == true)
        // The store keeps what it had; nothing of the restored file was taken.
        #expect(try await count(s, "SELECT max(seq) FROM till_store.event") == Int(lost.storeLastSeq))
        #expect(try await count(s, "SELECT count(*) FROM till_store.payment WHERE amount_cents = 301") == 0)
    }

    /// An event changed by hand after it was journaled (its payload), before it was pushed: refused.
    @Test func anEditedEventIsRefused() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        try shift(j, name: "m", at: 1_000, sales: [(100, nil)], close: false)
        let first = try await Sync(journalPath: a.journalPath, address: a.address).pushOnce()
        try shift(j, name: "m", at: 2_000, sales: [(200, nil)], close: false)
        let q = try DatabaseQueue(path: a.journalPath)
        try await q.write { try $0.execute(sql: "UPDATE outbox SET payload = replace(payload, '200', '20') WHERE seq = (SELECT max(seq) FROM outbox)") }
        try q.close()
        _ = await expectRefused(StoreSchema.diverged) { _ = try await Sync(journalPath: a.journalPath, address: a.address).pushOnce() }
        #expect(try await count(s, "SELECT max(seq) FROM till_store.event") == Int(first.storeLastSeq))
        #expect(try await diverged(s).count == 1)
    }

    /// A journal cut back (its last events gone, by hand) that then journals more than it lost; and a history with
    /// another journal's events spliced in: both refused.
    @Test func aTruncatedOrSplicedHistoryIsRefused() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        try shift(j, name: "m", at: 1_000, sales: [(100, nil), (200, nil)], close: false)
        let pushed = try await Sync(journalPath: a.journalPath, address: a.address).pushOnce()
        j.close()
        try FileManager.default.copyItem(atPath: a.journalPath, toPath: s.dir + "/cut.sqlite")
        // Truncated: its last three events deleted (and their numbers given again), then more sales than that.
        do {
            let q = try DatabaseQueue(path: s.dir + "/cut.sqlite")
            try await q.write { db in
                try db.execute(sql: "DELETE FROM outbox WHERE seq > (SELECT max(seq) - 3 FROM outbox)")
                try db.execute(sql: "UPDATE sqlite_sequence SET seq = (SELECT max(seq) FROM outbox) WHERE name = 'outbox'")
            }
            try q.close()
        }
        let cut = try Journal(path: s.dir + "/cut.sqlite")
        try shift(cut, name: "m", at: 3_000, sales: [(300, nil), (400, nil)], close: false)
        #expect(try cut.outbox().last!.seq > pushed.storeLastSeq)
        cut.close()
        _ = await expectRefused(StoreSchema.diverged) { _ = try await Sync(journalPath: s.dir + "/cut.sqlite", address: a.address).pushOnce() }
        // Spliced: the journal's unpushed events replaced by another journal's, under the same numbers.
        let other = try Journal(path: s.dir + "/other.sqlite")
        try other.startOutbox(nowMs: 0)   // a journal a sync pushes elsewhere
        try shift(other, name: "x", at: 1_000, sales: [(100, nil), (200, nil), (500, nil), (600, nil)], close: false)
        other.close()
        let j2 = try Journal(path: a.journalPath)
        try shift(j2, name: "m", at: 3_000, sales: [(700, nil)], close: false)
        j2.close()
        do {
            let q = try DatabaseQueue(path: a.journalPath)
            try await q.write { db in
                try db.execute(sql: "ATTACH DATABASE ? AS other", arguments: [s.dir + "/other.sqlite"])
                // The other journal's events copied as they are, hashes and all (no trigger making them again).
                try db.execute(sql: "DROP TRIGGER IF EXISTS outbox_chain")
                try db.execute(sql: "DELETE FROM outbox WHERE seq > ?", arguments: [pushed.storeLastSeq])
                try db.execute(sql: "INSERT INTO main.outbox SELECT * FROM other.outbox WHERE seq > ?", arguments: [pushed.storeLastSeq])
            }
            try q.close()
        }
        _ = await expectRefused(StoreSchema.diverged) { _ = try await Sync(journalPath: a.journalPath, address: a.address).pushOnce() }
        // The spliced events' hashes taken off (as if journaled before the chain began): refused all the same.
        do {
            let q = try DatabaseQueue(path: a.journalPath)
            try await q.write { try $0.execute(sql: "UPDATE outbox SET hash = NULL WHERE seq > ?", arguments: [pushed.storeLastSeq]) }
            try q.close()
        }
        _ = await expectRefused(StoreSchema.diverged) { _ = try await Sync(journalPath: a.journalPath, address: a.address).pushOnce() }
        #expect(try await count(s, "SELECT max(seq) FROM till_store.event") == Int(pushed.storeLastSeq))
    }

    /// The pushes the chain superseded (`push` of a JSON array, `push_rows` of arrays without hashes) take a run of
    /// events without checking its hashes: an older till-sync, or anything else logged in as a till, could push a
    /// history around the chain with them. A till's role may call `push_chained` only.
    @Test func aTillCannotPushAroundTheChain() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        try j.startOutbox(nowMs: 0)   // as the sync's first push does
        try shift(j, name: "m", at: 1_000, sales: [(100, nil), (200, nil)], close: false)
        let journalId = try j.journalId(), events = try j.outbox()
        try #require(!events.isEmpty)
        j.close()
        let store = try await StoreConnection.connect(a.address)
        let json = String(decoding: try JSONEncoder().encode(events), as: UTF8.self)
        await expectRefused("42501") { try await store.query("SELECT till_store.push(\(journalId), \(json)::jsonb)") }
        var binds = PostgresBindings(capacity: 6)
        binds.append(journalId)
        binds.append(events.map(\.seq))
        binds.append(events.map(\.kind))
        binds.append(events.map(\.entityKey))
        binds.append(events.map(\.payload))
        binds.append(events.map(\.atMs))
        await expectRefused("42501") {
            try await store.query(PostgresQuery(unsafeSQL: "SELECT till_store.push_rows($1, $2, $3, $4, $5, $6)", binds: binds))
        }
        #expect(try await count(s, "SELECT count(*) FROM till_store.event") == 0)
        // The chained push takes the same events.
        let last = try await store.query(Sync.pushRows(journalId, events)).first!.decode(Int64.self)
        #expect(last == events.last!.seq)
        await store.close()
        #expect(try await count(s, "SELECT count(*) FROM till_store.event") == events.count)
    }
}
}
