import Foundation
import GRDB
import Testing
@testable import TillCore
import TillIO
import TillProtocol

/// The open batch is read from the events since the last open (one indexed look-up), not from the whole history: the
/// same answer as folding every event, for any history (opens, closes by id, by name or none, 48-hour gaps).
@Suite struct CurrentBatchTests {
    @Test func theCurrentBatchFromTheLastOpenIsTheWholeHistorysLast() throws {
        var failures: [String] = []
        for seed in 1...60 {
            let dir = TempDir(); defer { dir.cleanup() }
            let j = try Journal(path: dir.path + "/j.sqlite")
            var rng = SeededRandom(seed: UInt64(seed))
            var t: Int64 = 1_700_000_000_000
            let gaps: [Int64] = [60_000, 3_600_000, 30 * 3_600_000, 50 * 3_600_000, 200 * 3_600_000]
            try j.write { db in
                for i in 0..<(1 + rng.next(30)) {
                    t += gaps[rng.next(gaps.count)]
                    let open = rng.next(2) == 0
                    let id: String? = rng.next(4) == 0 ? nil : "b\(rng.next(max(1, i)))"
                    let name: String? = rng.next(3) == 0 ? nil : "name \(rng.next(4))"
                    let command = open ? "open" : "close"
                    try db.execute(sql: "INSERT INTO batch_event (entryId, command, batchId, batchName, atMs) VALUES (NULL, ?, ?, ?, ?)",
                                   arguments: [command, id, name, t])
                }
            }
            let laters: [Int64] = [0, 3_600_000, 49 * 3_600_000, 500 * 3_600_000]
            for later in laters {
                let now = t + later
                let whole = try j.batches(nowMs: now).last
                let quick = try j.latestBatch(nowMs: now)
                if whole != quick { failures.append("seed \(seed) +\(later): \(String(describing: whole)) ≠ \(String(describing: quick))") }
                if try j.batch(nowMs: now) != (whole?.info ?? BatchInfo()) { failures.append("seed \(seed): batch() differs") }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }
}

/// A row this build cannot read (an action or state a newer till wrote) is an error, never read as a sale.
@Suite struct UnreadableRowTests {
    @Test func anUnknownActionIsAnErrorNotASale() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let j = try Journal(path: dir.path + "/j.sqlite")
        try j.write { db in
            try db.execute(sql: """
                INSERT INTO entry (requestId, action, origin, amountCents, requestURL, state, createdAtMs, updatedAtMs)
                VALUES ('r1', 'refund_v2', 'request', 500, '', 'approved', 1, 1)
                """)
        }
        #expect(throws: Journal.UnreadableRow.self) { try j.entries(JournalFilter()) }
        #expect(throws: Journal.UnreadableRow.self) { try j.report(for: nil) }
        let r = try runTillCapturing(["journal", "--journal", dir.path + "/j.sqlite"])
        #expect(r.status != 0)
        #expect(r.errors.contains("refund_v2") && r.errors.contains("newer till"), "\(r.errors)")
    }

    /// A batch command this build does not know was read as a close: the shift shown closed while the terminal's open.
    @Test func anUnknownBatchCommandIsAnErrorNotAClose() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let j = try Journal(path: dir.path + "/j.sqlite")
        try j.write { db in
            try db.execute(sql: "INSERT INTO batch_event (command, batchId, batchName, atMs) VALUES ('open', 'B-1', 'Morning', 1)")
            try db.execute(sql: "INSERT INTO batch_event (command, batchId, batchName, atMs) VALUES ('suspend', 'B-1', 'Morning', 2)")
        }
        #expect { try j.lastBatchEvent() } throws: { "\($0)".contains("batch event") && "\($0)".contains("suspend") }
        #expect(throws: Journal.UnreadableRow.self) { try j.batchEvents() }
    }
}

/// The file drop's watcher ends its wait when told to, so a headless command does not sit out the watcher's timeout
/// on its way out (it did: 250 of a file-drop sale's 320 ms).
@Suite struct WatcherWakeTests {
    @Test func wakeEndsAWaitAtOnce() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let watcher = try DirectoryWatcher(directory: dir.path)
        let returned = Outcome<[DirectoryWatcher.Event]>()
        Thread { returned.set(.success(watcher.events(timeoutMs: 120_000))) }.start()
        try await Task.sleep(nanoseconds: 50_000_000)
        watcher.wake()
        #expect(await eventuallyAsync(30) { returned.result != nil }, "a wait of two minutes did not end when woken")
    }
}

/// The status line's store cell comes from what the sync wrote beside the journal and the journal's own outbox: the
/// till never asks the store.
@Suite struct StoreSyncCellTests {
    @Test func whatIsLeftToSendIsTheOutboxBeyondWhatTheStoreHolds() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let c = try await simulatorController(dir)
        #expect(await c.storeSync() == nil)   // no sync has run: no cell
        try c.journal.startOutbox(nowMs: 0)   // as the sync's first push does
        _ = await c.perform(.batch(BatchRequest(command: .open, batchName: "Morning")))
        _ = await c.perform(sale(1200))
        let last = try c.journal.outboxLastSeq()
        #expect(last > 0)
        try SyncStatus(journalId: try c.journal.journalId(), storeLastSeq: 1, sentAtMs: 1_000).write(journal: c.journal.path)
        #expect(await c.storeSync() == StoreSync(toSend: last - 1, sentAtMs: 1_000))
        // A status written for another journal (a replaced file) holds nothing of this one.
        try SyncStatus(journalId: "another", storeLastSeq: last, sentAtMs: 1_000, failingSinceMs: 500).write(journal: c.journal.path)
        #expect(await c.storeSync() == StoreSync(toSend: last, sentAtMs: 1_000, failingSinceMs: 500))
        await c.shutdown()
        // `till report` says it under the report, as the Z report on screen does.
        let r = try await runTillCapturing(["report", "--journal", c.journal.path])
        #expect(r.status == 0 && r.output.contains("Central store: \(last) journal changes not yet sent; offline since"), "\(r.output)")
    }
}
