import Foundation
import GRDB
import Testing
@testable import TillCore
import TillIO
import TillProtocol

/// Issue 35, "Compact": an entry costs at most 3 KB of disk, with or without a store; an outbox event carries what
/// changed; a till that never syncs keeps no outbox; a journal that gets a store later gives it its whole history.
@Suite struct CompactOutboxTests {
    static let budget = 3_000

    /// The journal's bytes an entry, the write-ahead log folded in first.
    static func bytesAnEntry(_ j: Journal) throws -> Int {
        try j.database.writeWithoutTransaction { db in _ = try Row.fetchAll(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        var st = stat()
        try #require(lstat(j.path, &st) == 0)
        return Int(st.st_size) / max(1, try j.count())
    }

    func payload(_ e: OutboxEvent) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(e.payload.utf8)) as? [String: Any])
    }

    /// Realistic sales (the request URL and the answer as the controller journals them, three writes each).
    static func fill(_ j: Journal, _ n: Int, from startMs: Int64 = 1_000_000) throws {
        try j.fillApprovedSalesForBench(count: n, batch: "b1", startMs: startMs)
    }

    @Test func anEntryCostsAtMostThreeKilobytesOnATillThatNeverSyncs() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let j = try Journal(path: dir.path + "/j.sqlite")
        try Self.fill(j, 2_000)
        let bytes = try Self.bytesAnEntry(j)
        #expect(bytes <= Self.budget, "\(bytes) bytes an entry")
        // No sync ever read it: no outbox grows.
        #expect(try j.outbox().isEmpty && j.outboxLastSeq() == 0 && !j.outboxStarted())
    }

    /// A till a sync pushes: the outbox holds changes only, and what the store holds goes at every push (the sync's
    /// pruning; its retention scaled down with the journal here), the pages it frees taken again by the next sales.
    @Test func anEntryCostsAtMostThreeKilobytesOnATillThatSyncs() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let j = try Journal(path: dir.path + "/j.sqlite")
        try j.startOutbox(nowMs: 0)
        let day: Int64 = 86_400_000
        var sizes: [Int] = []
        for round in 0..<8 {
            try Self.fill(j, 250, from: 1_000_000 + Int64(round) * 10_000)
            if round == 0 {
                let events = try j.outbox()
                #expect(events.count == 750 && events.map(\.kind).filter { $0 == "entry_change" }.count == 500)
                #expect(Set(try payload(events[1]).keys) == ["id", "state", "sentAtMs", "updatedAtMs"])
            }
            // The store holds every event; pruned as the sync does after a push, keeping the newest 300.
            let last = try j.outboxLastSeq()
            let p = try OutboxPruner(path: j.path)
            let bound = try #require(try p.bound(retention: OutboxRetention(keepDays: 0, keepEvents: 300), storeHolds: last, nowMs: 30 * day, minimum: 1))
            while let n = try p.deleteChunk(journalId: try j.journalId(), storeHolds: last, through: bound, limit: 100), n > 0 {}
            p.close()
            #expect(try j.outbox().count == 300)
            sizes.append(try Self.bytesAnEntry(j))
        }
        #expect(sizes.last! <= Self.budget, "bytes an entry after each push: \(sizes)")
        // The outbox's share falls as the journal ages: its pages are taken again, the file grows by the entries only.
        #expect(sizes.last! < sizes.first!, "\(sizes)")
    }

    /// The start of the outbox of a journal with a history: every entry whole as it is now, every batch event and Z
    /// report; the triggers on from the first step, so a change between two chunks is recorded (and the entry's own
    /// chunk, later, sends it whole again). Applying the events in order, as the store does (a change on top of the
    /// row), gives every entry's row as the journal holds it.
    @Test func aJournalThatGetsAStoreLaterGivesItItsWholeHistory() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let j = try Journal(path: dir.path + "/j.sqlite")
        let open = try j.insertPending(requestId: "b-open", request: TerminalRequest(caller: testCaller, request: .batch(BatchRequest(command: .open, batchName: "morning"))), batch: BatchInfo(), nowMs: 10)
        try j.recordAnswer(open.id, response: try CallbackResponse.decode("interapp-callback://result?status=success&action=batch&command=open&batchId=B1&batchName=morning"), state: .approved, note: nil, nowMs: 11)
        try Self.fill(j, 5, from: 100)
        let close = try j.insertPending(requestId: "b-close", request: TerminalRequest(caller: testCaller, request: .batch(BatchRequest(command: .close))), batch: try j.batch(nowMs: 200), nowMs: 200)
        try j.recordAnswer(close.id, response: try CallbackResponse.decode("interapp-callback://result?status=success&action=batch&command=close&batchId=B1&batchName=morning"), state: .approved, note: nil, nowMs: 201)
        let pending = try j.insertPending(requestId: "late", request: TerminalRequest(caller: testCaller, request: sale(900, ctid: "c-late")), batch: BatchInfo(), nowMs: 300)
        #expect(try j.outbox().isEmpty)

        // The start, one entry a step, with the till writing between the steps.
        var steps = 0
        func step() throws -> Bool { steps += 1; return try j.write { db in try OutboxStart.step(db, nowMs: 400, chunk: 1) } }
        #expect(try !step())
        #expect(try j.outbox().map(\.kind).sorted() == ["batch_event", "batch_event", "z_report"])
        #expect(try !step())
        try j.markSent(pending.id, nowMs: 401)       // not sent whole yet: a change the store cannot apply yet
        try Self.fill(j, 1, from: 402)                // a new sale: whole, then its changes
        while try !step() {}
        #expect(steps == 2 + Int(pending.id) - 1)
        #expect(try j.outboxStarted())

        // Every entry the journal holds, as the events applied in order give it.
        var rows: [String: [String: Any]] = [:]
        for e in try j.outbox() where e.kind == "entry" || e.kind == "entry_change" {
            let p = try payload(e)
            if e.kind == "entry" { rows[e.entityKey] = p } else if var row = rows[e.entityKey] {
                row.merge(p) { $1 }
                rows[e.entityKey] = row
            }
        }
        let entries = try j.database.read { db in
            try Row.fetchAll(db, sql: "SELECT id, requestId, state, amountCents, tipCents, stan, transactionId, updatedAtMs FROM entry")
        }
        #expect(rows.count == entries.count)
        for entry in entries {
            let row = try #require(rows[String(entry["id"] as Int64)])
            #expect(row["state"] as? String == entry["state"])
            #expect(row["requestId"] as? String == entry["requestId"])
            #expect((row["amountCents"] as? Int).map(Int64.init) == entry["amountCents"])
            #expect((row["tipCents"] as? Int).map(Int64.init) == entry["tipCents"])
            #expect(row["stan"] as? String == entry["stan"])
            #expect(row["transactionId"] as? String == entry["transactionId"])
            #expect((row["updatedAtMs"] as? Int).map(Int64.init) == entry["updatedAtMs"])
        }
        // One chain from the genesis over every event.
        var previous: Data? = nil
        for e in try j.outbox() {
            #expect(e.hash == OutboxChain.hash(previous: previous, seq: e.seq, kind: e.kind, entityKey: e.entityKey, payload: e.payload))
            previous = e.hash
        }
    }

    /// A journal of the version before, which recorded whole rows: it keeps recording (a store may hold its events),
    /// changes from now on, and its old events stay as they were.
    @Test func aJournalOfTheVersionBeforeKeepsItsOutboxAndRecordsChanges() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.path + "/old.sqlite"
        do {
            var config = Configuration()
            config.prepareDatabase { db in db.add(function: OutboxChain.function) }
            let q = try DatabaseQueue(path: path, configuration: config)
            try Journal.migrator(tipStyle: .onTop).migrate(q, upTo: "v11-outbox-chain")
            try q.write { db in
                try db.execute(sql: "INSERT INTO entry (requestId, action, requestURL, state, createdAtMs, updatedAtMs, amountCents) VALUES ('x', 'sale', 'u', 'pending', 2, 2, 700)")
                try db.execute(sql: "UPDATE entry SET state = 'sent', sentAtMs = 3, updatedAtMs = 3")
            }
            try q.close()
        }
        let j = try Journal(path: path)
        #expect(try j.outboxStarted())
        let before = try j.outbox()
        #expect(before.map(\.kind) == ["entry", "entry"])
        #expect(try payload(before[1])["requestURL"] as? String == "u")   // the whole row, as that version wrote it
        try j.setState(1, .unknown, note: "no answer", nowMs: 4)
        let after = try j.outbox()
        #expect(after.prefix(2).elementsEqual(before))
        #expect(after.map(\.kind) == ["entry", "entry", "entry_change"])
        #expect(try Set(payload(after[2]).keys) == ["id", "state", "note", "updatedAtMs"])
        #expect(after[2].hash == OutboxChain.hash(previous: after[1].hash, seq: 3, kind: "entry_change", entityKey: "1", payload: after[2].payload))
    }
}
