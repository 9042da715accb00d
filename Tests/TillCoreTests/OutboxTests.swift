import Foundation
import GRDB
import Testing
@testable import TillCore
import TillIO
import TillProtocol

/// The transactional outbox: every journal change adds its event in the same transaction, in order; a write that fails
/// adds none.
@Suite struct OutboxTests {
    func payload(_ e: OutboxEvent) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(e.payload.utf8)) as? [String: Any])
    }

    @Test func everyJournalWriteAddsItsEventsInOrder() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let j = try Journal(path: dir.path + "/j.sqlite")
        try j.startOutbox(nowMs: 0)
        #expect(try j.outbox().isEmpty)
        // A payment with no batch open opens one (a batch event), then is journaled, sent, answered.
        let batch = try j.batch(for: .sale, nowMs: 1_000)
        let req = TerminalRequest(caller: testCaller, request: sale(1200, ctid: "c-1", tip: 200))
        let e = try j.insertPending(requestId: "r-1", request: req, batch: batch, nowMs: 1_001)
        try j.markSent(e.id, nowMs: 1_002)
        // Sent again: the entry did not change, so no event.
        try j.markSent(e.id, nowMs: 1_003)
        let r = try CallbackResponse.decode("interapp-callback://result?status=success&message=ok&action=sale&clientTransactionId=c-1&amount=1200&tipAmount=200&referenceNumber=000007&accountNumber=4792751234569999")
        try j.recordAnswer(e.id, response: r, state: .approved, note: nil, nowMs: 1_004)
        let events = try j.outbox()
        // The entry whole when it is made, then only what each write changed (and its update time).
        #expect(events.map(\.kind) == ["batch_event", "entry", "entry_change", "entry_change"])
        #expect(events.map(\.seq) == [1, 2, 3, 4])
        #expect(events.dropFirst().allSatisfy { $0.entityKey == String(e.id) })
        #expect(events.map(\.atMs) == [1_000, 1_001, 1_002, 1_004])
        #expect(try payload(events[1])["state"] as? String == "pending")
        #expect(try payload(events[1])["amountCents"] as? Int == 1200 && payload(events[1])["tipCents"] as? Int == 200)
        #expect(try Set(payload(events[2]).keys) == ["id", "state", "sentAtMs", "updatedAtMs"])
        #expect(try payload(events[2])["state"] as? String == "sent")
        let answered = try payload(events[3])
        #expect(answered["state"] as? String == "approved")
        #expect(answered["stan"] as? String == "000007")
        #expect(answered["requestURL"] == nil && answered["requestId"] == nil && answered["amountCents"] == nil)
        // The masked answer, never the card number.
        #expect(!events[3].payload.contains("4792751234569999"))
        #expect(try payload(events[0])["command"] as? String == "open")
        // Written again as it is (only its update time moves): nothing changed, no event.
        try j.setState(e.id, .approved, note: nil, nowMs: 1_005)
        #expect(try j.outbox().count == 4)
        try j.setState(e.id, .approved, note: "checked", nowMs: 1_006)
        #expect(try j.outbox().last.map { try payload($0)["note"] as? String } == "checked")
    }

    /// The chain's SHA-256 is FIPS 180-4's (the store computes the same with PostgreSQL's `sha256`), and each event's
    /// hash is the one of its predecessor's hash and its own fields.
    @Test func eachEventCarriesTheHashOfItsPredecessor() throws {
        let hex = { (b: [UInt8]) in OutboxChain.hex(Data(b)) }
        #expect(hex(OutboxChain.sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex(OutboxChain.sha256(Array(repeating: UInt8(ascii: "a"), count: 1_000))) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
        let dir = TempDir(); defer { dir.cleanup() }
        let j = try Journal(path: dir.path + "/j.sqlite")
        try j.startOutbox(nowMs: 0)
        for (n, amount) in [1200, 300].enumerated() {
            let req = TerminalRequest(caller: testCaller, request: sale(amount, ctid: "c-\(n)", tip: 0))
            let e = try j.insertPending(requestId: "r-\(n)", request: req, batch: try j.batch(for: .sale, nowMs: 1_000), nowMs: 1_001)
            try j.markSent(e.id, nowMs: 1_002)
        }
        let events = try j.outbox()
        var previous: Data? = nil
        for e in events {
            #expect(e.hash == OutboxChain.hash(previous: previous, seq: e.seq, kind: e.kind, entityKey: e.entityKey, payload: e.payload))
            previous = e.hash
        }
        #expect(events.count > 2 && Set(events.compactMap(\.hash)).count == events.count)
    }

    @Test func aBatchCloseAddsItsEventAndItsZReport() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let j = try Journal(path: dir.path + "/j.sqlite")
        try j.startOutbox(nowMs: 0)
        let open = try j.insertPending(requestId: "b-open", request: TerminalRequest(caller: testCaller, request: .batch(BatchRequest(command: .open, batchName: "morning"))), batch: BatchInfo(), nowMs: 10)
        try j.recordAnswer(open.id, response: try CallbackResponse.decode("interapp-callback://result?status=success&action=batch&command=open&batchId=B1&batchName=morning"), state: .approved, note: nil, nowMs: 11)
        let before = try j.outbox().count
        let close = try j.insertPending(requestId: "b-close", request: TerminalRequest(caller: testCaller, request: .batch(BatchRequest(command: .close))), batch: try j.batch(nowMs: 20), nowMs: 20)
        try j.recordAnswer(close.id, response: try CallbackResponse.decode("interapp-callback://result?status=success&action=batch&command=close&batchId=B1&batchName=morning"), state: .approved, note: nil, nowMs: 21)
        let kinds = try j.outbox(after: Int64(before)).map(\.kind)
        #expect(kinds == ["entry", "entry_change", "batch_event", "z_report"])
        let z = try #require(try j.outbox().last)
        #expect(z.entityKey == "B1")
        #expect(try payload(z)["report"] is [String: Any])
    }

    @Test func aFailedWriteAddsNoEvent() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let j = try Journal(path: dir.path + "/j.sqlite")
        try j.startOutbox(nowMs: 0)
        let req = TerminalRequest(caller: testCaller, request: sale(500))
        _ = try j.insertPending(requestId: "r-1", request: req, batch: BatchInfo(), nowMs: 1)
        let before = try j.outbox()
        // SQLite refuses the row (its request id is taken): no event.
        #expect(throws: (any Error).self) { try j.insertPending(requestId: "r-1", request: req, batch: BatchInfo(), nowMs: 2) }
        // A transaction that wrote an entry and then failed: the entry and its event roll back together.
        struct Late: Error {}
        #expect(throws: Late.self) {
            try j.write { db in
                try db.execute(sql: "INSERT INTO entry (requestId, action, requestURL, state, createdAtMs, updatedAtMs) VALUES ('r-2', 'sale', '', 'pending', 3, 3)")
                throw Late()
            }
        }
        // An injected full disk.
        j.faults.failWrites(1)
        #expect(throws: (any Error).self) { try j.markSent(1, nowMs: 4) }
        #expect(try j.outbox() == before)
        #expect(try j.count() == 1)
        // The next write takes the next number: nothing was half-written in between.
        try j.markSent(1, nowMs: 5)
        #expect(try j.outbox().map(\.seq) == before.map(\.seq) + [before.last!.seq + 1])
    }

    @Test func identityIsMadeOnceAndTravelsWithACopy() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let a = try Journal(path: dir.path + "/a.sqlite")
        let b = try Journal(path: dir.path + "/b.sqlite")
        let id = try a.journalId()
        #expect(id.count == 32)
        #expect(try b.journalId() != id)
        a.close()
        #expect(try Journal(path: dir.path + "/a.sqlite").journalId() == id)
        try FileManager.default.copyItem(atPath: dir.path + "/a.sqlite", toPath: dir.path + "/copy.sqlite")
        #expect(try Journal(path: dir.path + "/copy.sqlite").journalId() == id)
    }

    @Test func anExistingJournalGetsItsHistoryInTheOutbox() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.path + "/old.sqlite"
        // A journal made before the outbox: every migration but the outbox's.
        do {
            let q = try DatabaseQueue(path: path)
            var m = Journal.migrator(tipStyle: .onTop)
            try m.migrate(q, upTo: "v6-batch-index")
            try q.write { db in
                try db.execute(sql: "INSERT INTO batch_event (entryId, command, batchId, batchName, atMs) VALUES (NULL, 'open', 'B', 'b', 1)")
                try db.execute(sql: "INSERT INTO entry (requestId, action, requestURL, state, createdAtMs, updatedAtMs, amountCents, batchId) VALUES ('x', 'sale', '', 'approved', 2, 2, 700, 'B')")
            }
            m = DatabaseMigrator()
            try q.close()
        }
        let j = try Journal(path: path)
        #expect(try j.outbox().map(\.kind) == ["entry", "batch_event"])
        #expect(try payload(try j.outbox()[0])["amountCents"] as? Int == 700)
        // The reader the sync uses sees the same, read-only.
        j.close()
        let reader = try OutboxReader(path: path)
        #expect(try reader.identity().lastSeq == 2)
        #expect(try reader.events(after: 1, limit: 10).map(\.kind) == ["batch_event"])
    }
}
