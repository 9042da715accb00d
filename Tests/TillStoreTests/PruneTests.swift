import Foundation
import GRDB
import PostgresNIO
import Testing
@testable import TillCore
import TillIO
import TillModel
import TillProtocol
@testable import TillStore

/// `n` settled sales on a journal, one outbox event each, at `atMs` (the till's clock).
func settledSales(_ j: Journal, _ n: Int, atMs: Int64, batch: String = "b") throws {
    try j.insertSettled((0..<n).map { (.sale, .approved, 100 + $0, 0, batch, atMs) })
}

extension StoreServerTests {
/// Pruning the outbox after a push: only what the store confirmed and the retention lets go; the pushes after it, the
/// counts and the detection of a journal restored from a backup work as before.
@Suite struct PruneTests {
    static let day: Int64 = 86_400_000

    /// A sync that prunes in chunks of 4 (so that a few events are enough to see chunks and the threshold), no pause.
    func sync(_ t: TestStore.Till, _ retention: OutboxRetention?) -> Sync {
        var s = Sync(journalPath: t.journalPath, address: t.address, retention: retention)
        s.pruneChunk = 4
        s.prunePause = .zero
        return s
    }

    @Test func aPushPrunesOnlyWhatTheStoreHoldsAndTheRetentionLetsGo() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        let now = WallClock.nowMs()
        try settledSales(j, 30, atMs: now - 30 * Self.day)   // 1-30: a month old
        try settledSales(j, 10, atMs: now - Self.day)        // 31-40: yesterday
        // The default keeps 10,000 events: nothing of 40 goes.
        let first = try await Sync(journalPath: a.journalPath, address: a.address).pushOnce()
        #expect(first.pushed == 40 && first.pruned == 0 && first.pruneProblem == nil)
        #expect(try j.outbox().count == 40)
        // A week and the newest 5: the month-old events go, yesterday's stay.
        try settledSales(j, 2, atMs: now)                    // 41-42
        let r = try await sync(a, OutboxRetention(keepDays: 7, keepEvents: 5)).pushOnce()
        #expect(r.pushed == 2 && r.pruned == 30 && r.storeLastSeq == 42 && r.toSend == 0 && r.pruneProblem == nil)
        #expect(try j.outbox().map(\.seq) == Array(31...42))
        // The store's events and totals are untouched: pruning is the till's file only.
        #expect(try await count(s, "SELECT count(*) FROM till_store.event") == 42)
        #expect(try await storeNets(s, till: "A") == (try tillNets(j)))
        // `till export` and the reports read the entries, which pruning never touches.
        #expect(try j.count() == 42)

        // Never anything the store does not hold: events journaled after the push stay, whatever their age, and so does
        // the last one the store holds (each push starts with it). Asked of the store itself, not of the caller.
        try settledSales(j, 6, atMs: now - 30 * Self.day)    // 43-48, not pushed
        let store = try await StoreConnection.connect(a.address)
        let keepNothing = sync(a, OutboxRetention(keepDays: 0, keepEvents: 0))
        let pruned = try await keepNothing.prune(try j.journalId(), storeHolds: 48, retention: OutboxRetention(keepDays: 0, keepEvents: 0), store)
        await store.close()
        #expect(pruned == 11)
        #expect(try j.outbox().map(\.seq) == Array(42...48))
    }

    @Test func aPushAfterPruningSendsExactlyTheRestAndCountsStayTheSame() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        try shift(j, name: "m", at: 1_000, sales: [(100, nil), (200, 20), (300, nil)], close: true)
        let keepNothing = sync(a, OutboxRetention(keepDays: 0, keepEvents: 0))
        let first = try await keepNothing.pushOnce()
        #expect(first.pruned == first.storeLastSeq - 1)
        #expect(try j.outbox().map(\.seq) == [first.storeLastSeq])
        #expect(j.storeSync()?.toSend == 0)

        // Sales after the pruning: "to send" counts them as before; the next push sends exactly them, the pruned
        // events below the store's mark not taken for a gap.
        try shift(j, name: "n", at: 50_000, sales: [(400, nil), (500, 50)], close: false)
        let last = try j.outboxLastSeq()
        #expect(j.storeSync()?.toSend == last - first.storeLastSeq)
        let second = try await keepNothing.pushOnce()
        #expect(second.pushed == last - first.storeLastSeq && second.storeLastSeq == last && second.toSend == 0)
        #expect(second.pruned == second.pushed)
        #expect(try j.outbox().map(\.seq) == [last])
        #expect(j.storeSync()?.toSend == 0)
        #expect(try await count(s, "SELECT count(*) FROM till_store.event") == Int(last))
        #expect(try await count(s, "SELECT count(DISTINCT seq) FROM till_store.event") == Int(last))
        #expect(try await storeNets(s, till: "A") == (try tillNets(j)))
        // Up to date: an empty push, nothing more pruned, nothing refused.
        let third = try await keepNothing.pushOnce()
        #expect(third.pushed == 0 && third.pruned == 0 && third.pruneProblem == nil)

        // The store lost events it had confirmed (its database put back): the push says what happened instead of
        // calling it a gap someone made, and sends nothing.
        _ = try await s.adminRows("UPDATE till_store.journal SET last_seq = 2")
        let lost = await expectRefused(nil) { _ = try await keepNothing.pushOnce() }
        #expect(lost.contains("were pruned once the store held them"), "\(lost)")
    }

    @Test func aPrunedJournalRestoredFromAnOlderBackupIsStillDetected() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let keepNothing = sync(a, OutboxRetention(keepDays: 0, keepEvents: 0))
        var j = try Journal(path: a.journalPath)
        try shift(j, name: "m", at: 1_000, sales: [(100, nil), (200, nil)], close: false)
        let first = try await keepNothing.pushOnce()
        #expect(try j.outbox().count == 1)
        // A backup of the pruned journal; then more sales, pushed and pruned.
        j.close()
        try FileManager.default.copyItem(atPath: a.journalPath, toPath: s.dir + "/backup.sqlite")
        j = try Journal(path: a.journalPath)
        try shift(j, name: "n", at: 5_000, sales: [(300, nil)], close: false)
        let second = try await keepNothing.pushOnce()
        #expect(try second.storeLastSeq > first.storeLastSeq && j.outbox().count == 1)
        // The backup in place of the journal: it holds one event, the store more than the backup ever had.
        let backup = Sync(journalPath: s.dir + "/backup.sqlite", address: a.address, retention: OutboxRetention(keepDays: 0, keepEvents: 0))
        let refused = await expectRefused(nil) { _ = try await backup.pushOnce() }
        #expect(refused.contains("restored from a backup") && refused.contains("holds only \(first.storeLastSeq)"), "\(refused)")
        var behind: [BackOffice.Finding] = []
        try await BackOffice(address: try await s.office()).reconcile(filter: .init()) { if $0.check == .behindJournal { behind.append($0) } }
        #expect(behind.count == 1 && behind.first?.detail.contains("holds events up to \(first.storeLastSeq)") == true, "\(behind)")
        // Its outbox emptied altogether (by hand): its last sequence is SQLite's, not its rows', and still detected.
        do {
            let q = try DatabaseQueue(path: s.dir + "/backup.sqlite")
            try await q.write { try $0.execute(sql: "DELETE FROM outbox") }
            try q.close()
        }
        let emptied = await expectRefused(nil) { _ = try await backup.pushOnce() }
        #expect(emptied.contains("holds only \(first.storeLastSeq)"), "\(emptied)")
        // Nothing of the backup was pruned by those refused pushes, and the store still holds the newer file's events.
        #expect(try await count(s, "SELECT max(seq) FROM till_store.event") == Int(second.storeLastSeq))
    }

    @Test func aPruningThatWouldWaitForTheTillOrFindsAnotherFileDeletesNothing() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        try j.startOutbox(nowMs: 0)   // pushed before: this push needs no write lock
        try settledSales(j, 12, atMs: 1_000)
        let keepNothing = sync(a, OutboxRetention(keepDays: 0, keepEvents: 0))
        // A writer of the journal holds its write lock longer than the pruning waits (0.1 s): the push goes through,
        // the pruning gives up without a word and leaves it to the next push.
        var config = Configuration()
        config.allowsUnsafeTransactions = true  // the transaction is left open across accesses on purpose
        let writer = try DatabaseQueue(path: a.journalPath, configuration: config)
        try writer.inDatabase { try $0.execute(sql: "BEGIN IMMEDIATE") }
        let held = try await keepNothing.pushOnce()
        try writer.inDatabase { try $0.execute(sql: "ROLLBACK") }
        try writer.close()
        #expect(held.pushed == 12 && held.pruned == 0 && held.pruneProblem == nil)
        #expect(try j.outbox().count == 12)
        let next = try await keepNothing.pushOnce()
        #expect(next.pushed == 0 && next.pruned == 11 && next.pruneProblem == nil)

        // Another journal put in the file's place between the push and the pruning: nothing of it is deleted.
        try settledSales(j, 8, atMs: 1_000)
        _ = try await Sync(journalPath: a.journalPath, address: a.address, retention: nil).pushOnce()
        let other = s.dir + "/other.sqlite"
        let jo = try Journal(path: other)
        try jo.startOutbox(nowMs: 0)
        try settledSales(jo, 30, atMs: 1_000)
        let store = try await StoreConnection.connect(a.address)
        var elsewhere = keepNothing
        elsewhere.journalPath = other
        await #expect(throws: OutboxPruneRefused.self) {
            _ = try await elsewhere.prune(try j.journalId(), storeHolds: 20, retention: OutboxRetention(keepDays: 0, keepEvents: 0), store)
        }
        await store.close()
        #expect(try jo.outbox().count == 30)
    }

    /// `--follow` prunes after its pushes too, and reports what it pruned.
    @Test func followPrunesAsItPushes() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        try settledSales(j, 20, atMs: 1_000)
        let pruned = Locked<Int64>(0)
        let follower = sync(a, OutboxRetention(keepDays: 0, keepEvents: 0))
        let follow = Task { await follower.follow(schedule: .quick) { r in
            if case .success(let p) = r { pruned.withLock { $0 += p.pruned } }
        } }
        defer { follow.cancel() }
        func waitFor(_ seqs: [Int64]) async throws {
            let deadline = ContinuousClock.now + .seconds(30)
            while try j.outbox().map(\.seq) != seqs, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(try j.outbox().map(\.seq) == seqs)
        }
        try await waitFor([20])
        try settledSales(j, 10, atMs: 1_000)
        try await waitFor([30])
        follow.cancel()
        _ = await follow.value
        #expect(pruned.withLock { $0 } == 29)
        #expect(try await count(s, "SELECT count(*) FROM till_store.event") == 30)
        #expect(try await storeNets(s, till: "A") == (try tillNets(j)))
    }

    /// `till-sync push` as a process: the retention options, the default chunk (1,000), and --no-prune.
    @Test func theCommandsOptionsSayWhatIsKept() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        try settledSales(j, 2_500, atMs: 1_000)
        func push(_ options: [String]) throws -> (status: Int32, out: String, err: String) {
            try Spawned([Binaries.tillSync, "push", "--once", "--journal", a.journalPath] + options + storeArgs(a.address), dir: s.dir).wait()
        }
        // 1,000 kept of 2,500: 1,500 go (a chunk and a half).
        let r = try push(["--keep-days", "0", "--keep-events", "1000"])
        #expect(r.status == 0 && r.out.contains("pushed 2500 events") && r.out.contains("pruned 1500 old events"), "\(r.out) \(r.err)")
        #expect(try j.outbox().first?.seq == 1_501)
        // Fewer than a chunk may go: nothing yet.
        try settledSales(j, 500, atMs: 1_000)
        let few = try push(["--keep-days", "0", "--keep-events", "1000"])
        #expect(few.status == 0 && !few.out.contains("pruned"), "\(few.out)")
        try settledSales(j, 600, atMs: 1_000)
        let none = try push(["--no-prune", "--keep-days", "0", "--keep-events", "0"])
        #expect(none.status == 0 && none.out.contains("pushed 600 events") && !none.out.contains("pruned"), "\(none.out)")
        #expect(try j.outbox().first?.seq == 1_501 && j.outboxLastSeq() == 3_600)
        let bad = try push(["--keep-days", "-1"])
        #expect(bad.status != 0 && bad.err.contains("--keep-days"), "\(bad.err)")
        #expect(try await count(s, "SELECT count(*) FROM till_store.event") == 3_600)
    }
}
}
