import Foundation
import GRDB
import Testing
@testable import TillCore
import TillIO
import TillProtocol

/// Pruning the outbox (`OutboxPruner`, as till-sync runs it after a push): only the oldest events, only what the store
/// holds, never its last one, never what the retention keeps; and nothing that reads the outbox's end changes.
@Suite struct OutboxPruningTests {
    static let day: Int64 = 86_400_000

    /// A journal in `dir` whose outbox is on from its start (time 0): every event since is in it.
    func outboxJournal(_ dir: TempDir) throws -> Journal {
        let j = try Journal(path: dir.path + "/j.sqlite")
        try j.startOutbox(nowMs: 0)
        return j
    }

    /// `n` sales, one event each, at `atMs`.
    func sales(_ j: Journal, _ n: Int, atMs: Int64) throws {
        try j.insertSettled((0..<n).map { (.sale, .approved, 100 + $0, 0, "b", atMs) })
    }

    /// Prunes as the sync does: bound, then chunks until none is left.
    @discardableResult
    func prune(_ j: Journal, storeHolds: Int64, _ retention: OutboxRetention, nowMs: Int64, chunk: Int = 3, minimum: Int = 1) throws -> Int {
        let p = try OutboxPruner(path: j.path)
        defer { p.close() }
        guard let bound = try p.bound(retention: retention, storeHolds: storeHolds, nowMs: nowMs, minimum: minimum) else { return 0 }
        let id = try j.journalId()
        var total = 0
        while let n = try p.deleteChunk(journalId: id, storeHolds: storeHolds, through: bound, limit: chunk), n > 0 { total += n }
        return total
    }

    @Test func onlyWhatTheStoreHoldsAndIsPastBothRetentionsGoes() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let j = try outboxJournal(dir)
        let path = j.path
        let now = 100 * Self.day
        try sales(j, 20, atMs: now - 30 * Self.day)  // events 1-20: a month old
        try sales(j, 10, atMs: now - 3 * Self.day)   // events 21-30: this week
        #expect(try j.outboxLastSeq() == 30)

        // The store holds up to 12: 1-11 may go (12 stays, every push starts with it), however old the rest.
        #expect(try prune(j, storeHolds: 12, OutboxRetention(keepDays: 0, keepEvents: 0), nowMs: now) == 11)
        #expect(try j.outbox().map(\.seq) == Array(12...30))
        // The store holds everything: this week's events stay (7 days keep more than the newest 5).
        #expect(try prune(j, storeHolds: 30, OutboxRetention(keepDays: 7, keepEvents: 5), nowMs: now) == 9)
        #expect(try j.outbox().map(\.seq) == Array(21...30))
        // The newest 15 reach back past the outbox's first: nothing goes.
        #expect(try prune(j, storeHolds: 30, OutboxRetention(keepDays: 1, keepEvents: 15), nowMs: now) == 0)
        // A day keeps none of them, the newest 5 keep 5.
        #expect(try prune(j, storeHolds: 30, OutboxRetention(keepDays: 1, keepEvents: 5), nowMs: now) == 5)
        #expect(try j.outbox().map(\.seq) == Array(26...30))
        // Keeping nothing keeps the store's last all the same.
        #expect(try prune(j, storeHolds: 30, OutboxRetention(keepDays: 0, keepEvents: 0), nowMs: now) == 4)
        #expect(try j.outbox().map(\.seq) == [30])

        // An event within the days kept ends the run that may go, even with older ones after it (a clock put back):
        // the outbox stays one run up to its end.
        try sales(j, 1, atMs: now)                       // 31
        try sales(j, 2, atMs: now - 30 * Self.day)       // 32, 33
        #expect(try prune(j, storeHolds: 33, OutboxRetention(keepDays: 7, keepEvents: 0), nowMs: now) == 0)
        #expect(try prune(j, storeHolds: 33, OutboxRetention(keepDays: 2, keepEvents: 0), nowMs: now) == 1)
        #expect(try j.outbox().map(\.seq) == [31, 32, 33])
        // Fewer than a chunk's worth may go: left for a later push.
        let p = try OutboxPruner(path: path); defer { p.close() }
        let later = now + 1
        #expect(try p.bound(retention: OutboxRetention(keepDays: 0, keepEvents: 0), storeHolds: 33, nowMs: later, minimum: 3) == nil)
        #expect(try p.bound(retention: OutboxRetention(keepDays: 0, keepEvents: 0), storeHolds: 33, nowMs: later, minimum: 2) == 32)
        // Nothing the store does not hold: it holds 31, so nothing but 31 itself, which stays.
        #expect(try p.bound(retention: OutboxRetention(keepDays: 0, keepEvents: 0), storeHolds: 31, nowMs: later, minimum: 1) == nil)
        #expect(try p.deleteChunk(journalId: try j.journalId(), storeHolds: 31, through: 33, limit: 100) == 0)
        #expect(try j.outbox().map(\.seq) == [31, 32, 33])
    }

    @Test func theSequenceNeverGoesBackAndCountsStayAsTheyWere() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let j = try outboxJournal(dir)
        let path = j.path
        try sales(j, 10, atMs: 1_000)
        try SyncStatus(journalId: try j.journalId(), storeLastSeq: 8, sentAtMs: 2_000).write(journal: path)
        #expect(j.storeSync()?.toSend == 2)
        #expect(try prune(j, storeHolds: 8, OutboxRetention(keepDays: 0, keepEvents: 0), nowMs: 10 * Self.day) == 7)
        #expect(try j.outbox().map(\.seq) == [8, 9, 10])
        // "To send" reads the outbox's end, which pruning never touches.
        #expect(j.storeSync()?.toSend == 2)
        #expect(try j.outboxLastSeq() == 10)
        // Even an outbox emptied (by hand: pruning always keeps the store's last): SQLite's AUTOINCREMENT keeps the
        // largest number given in sqlite_sequence, so the last sequence and the next one do not go back.
        try j.database.write { try $0.execute(sql: "DELETE FROM outbox") }
        #expect(try j.outboxLastSeq() == 10 && j.storeSync()?.toSend == 2)
        let reader = try OutboxReader(path: path)
        #expect(try reader.identity().lastSeq == 10 && reader.firstSeq() == nil)
        try sales(j, 1, atMs: 2_000)
        #expect(try j.outbox().map(\.seq) == [11])
        #expect(try reader.identity().lastSeq == 11 && reader.firstSeq() == 11)
        reader.close()
    }

    @Test func anotherFileOrOneHoldingLessThanTheStoreIsNotPruned() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let j = try outboxJournal(dir)
        let path = j.path
        try sales(j, 10, atMs: 1_000)
        let p = try OutboxPruner(path: path); defer { p.close() }
        #expect(throws: OutboxPruneRefused.self) { try p.deleteChunk(journalId: "another", storeHolds: 5, through: 4, limit: 10) }
        // The store confirmed 12 of this journal, the file holds 10: a file put back since the push.
        #expect(throws: OutboxPruneRefused.self) { try p.deleteChunk(journalId: try j.journalId(), storeHolds: 12, through: 11, limit: 10) }
        #expect(try j.outbox().count == 10)
        #expect(throws: JournalOpenError.self) { try OutboxPruner(path: dir.path + "/none.sqlite") }
        #expect(!Path.exists(dir.path + "/none.sqlite"))
    }

    /// Pruning a long outbox, in chunks of 1,000 with the sync's pause between them, while the till sells: every sale
    /// goes through, none waiting anywhere near the till's busy timeout (10 s, after which it would fail). The bound
    /// is 5 s, not a chunk's few milliseconds: on a loaded machine a synced commit alone can take a second or more.
    @Test func aSaleNeverWaitsLongForPruning() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let j = try outboxJournal(dir)
        let path = j.path
        for _ in 0..<6 { try sales(j, 5_000, atMs: 1_000) }
        let id = try j.journalId()
        let pruning = Task.detached {
            let p = try OutboxPruner(path: path); defer { p.close() }
            var total = 0
            while let n = try p.deleteChunk(journalId: id, storeHolds: 30_000, through: 29_999, limit: 1_000), n > 0 {
                total += n
                try await Task.sleep(for: .milliseconds(20))
            }
            return total
        }
        var slowest = Duration.zero
        for i in 0..<40 {
            let started = ContinuousClock.now
            try j.insertSettled([(.sale, .approved, 500 + i, 0, "b", 2_000)])
            slowest = max(slowest, ContinuousClock.now - started)
            try await Task.sleep(for: .milliseconds(10))
        }
        let pruned = try await pruning.value
        #expect(slowest < .seconds(5), "a sale waited \(slowest)")
        #expect(pruned > 0)
        #expect(try j.outbox().first?.seq == Int64(pruned) + 1 && j.outboxLastSeq() == 30_040)
    }
}
