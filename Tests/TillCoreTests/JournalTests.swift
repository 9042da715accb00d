import Foundation
import Testing
@testable import TillCore
import TillIO
import TillProtocol

@Suite struct JournalTests {
    @Test func createsOwnerOnlyFolderAndFileInWALMode() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.path + "/nested/till/journal.sqlite"
        let j = try Journal(path: path)
        var st = stat()
        #expect(stat(dir.path + "/nested/till", &st) == 0)
        #expect(st.st_mode & 0o777 == 0o700)
        #expect(stat(path, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o600)
        #expect(try j.pragma("journal_mode") == "wal")
        #expect(try j.pragma("synchronous") == "2")  // FULL
    }

    /// Every commit is synced before it returns (`synchronous = FULL`), on a journal opened again too, with its WAL there:
    /// GRDB's own WAL set-up (a pool's) would set NORMAL after `prepareDatabase`, so the journal turns WAL on itself.
    @Test func theJournalCommitsWithSynchronousFull() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.path + "/j.sqlite"
        let first = try Journal(path: path)
        #expect(try first.pragma("synchronous") == "2")
        let again = try Journal(path: path)
        #expect(try again.pragma("synchronous") == "2")
        #expect(try again.pragma("journal_mode") == "wal")
    }

    @Test func defaultPathFollowsXDG() {
        #expect(Journal.defaultPath(environment: ["XDG_DATA_HOME": "/x/data", "HOME": "/home/a"]) == "/x/data/till/journal.sqlite")
        #expect(Journal.defaultPath(environment: ["HOME": "/home/a"]) == "/home/a/.local/share/till/journal.sqlite")
        #expect(Journal.defaultPath(environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/a"]) == "/home/a/.local/share/till/journal.sqlite")
    }

    @Test func pendingSentAnsweredWithRedactedURL() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let j = try Journal(path: dir.path + "/j.sqlite")
        let req = TerminalRequest(caller: testCaller, request: sale(1200, ctid: "c-1", tip: 200))
        let e = try j.insertPending(requestId: "r-1", request: req, batch: BatchInfo(id: "B1", name: "morning", openedAtMs: 1, isOpen: true))
        #expect(e.state == .pending)
        #expect(!e.requestURL.contains("MK-test-key-0042"))
        #expect(e.requestURL.contains("merchantKey=%5Bredacted%5D") || e.requestURL.contains("redacted"))
        try j.markSent(e.id)
        #expect(try j.entry(id: e.id)?.state == .sent)
        let r = try CallbackResponse.decode("interapp-callback://result?status=success&message=ok&action=sale&clientTransactionId=c-1&amount=1200&tipAmount=200&referenceNumber=000007&accountNumber=4792751234569999")
        try j.recordAnswer(e.id, response: r, state: .approved, note: nil)
        let got = try #require(try j.entry(id: e.id))
        #expect(got.state == .approved)
        #expect(got.batchId == "B1")
        #expect(got.response?.referenceNumber == "000007")
        #expect(got.response?.accountNumber == "479275******9999")
        #expect(got.amount == Money(cents: 1200) && got.tipAmount == Money(cents: 200))
        // markSent never moves an answered entry back.
        try j.markSent(e.id)
        #expect(try j.entry(id: e.id)?.state == .approved)
    }

    @Test func totalsPerBatchAndListing() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let j = try Journal(path: dir.path + "/j.sqlite")
        try j.insertSettled([
            (.sale, .approved, 1000, 100, "A", 1), (.sale, .approved, 500, 0, "A", 2), (.sale, .declined, 700, 0, "A", 3),
            (.cancel, .approved, 300, 0, "A", 4), (.capturePreAuth, .approved, 2000, 0, "A", 5), (.preAuth, .approved, 2500, 0, "A", 6),
            (.sale, .unknown, 900, 0, "A", 7), (.sale, .approved, 9999, 0, "B", 8),
        ])
        let t = try j.running(batchId: "A")
        #expect(t.sales == Tally(count: 2, cents: 1500) && t.tips == Tally(count: 1, cents: 100))
        #expect(t.refunds == Tally(count: 1, cents: 300))
        #expect(t.captures.cents == 2000 && t.preAuths.count == 1)
        #expect(t.notYetKnown.count + t.review.count == 1 && t.declined.count + t.aborted.count == 1)
        #expect(try j.running(batchId: "B").sales.cents == 9999)
        #expect(try j.entries(JournalFilter(scope: .batch("B"))).count == 1)
        #expect(try j.entries(JournalFilter(scope: .all, limit: 3)).map(\.id) == [8, 7, 6])
        #expect(try j.entries(JournalFilter(scope: .all, text: "99.99")).count == 1)
        #expect(try j.unresolved().count == 1)
        // The totals come from the summary table, which agrees with a fresh aggregation of the entries.
        let fresh = Report(kind: .running, batch: nil, generatedAtMs: 0, buckets: ReportBucket.aggregate(try j.entries(batchId: "A")))
        #expect(fresh == t)
    }

    @Test func batchFromEvents() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let j = try Journal(path: dir.path + "/j.sqlite")
        #expect(try j.batch().isOpen == false)
        let req = TerminalRequest(caller: testCaller, request: .batch(BatchRequest(command: .open, batchName: "morning")))
        let e = try j.insertPending(requestId: "b1", request: req, batch: BatchInfo())
        let r = try CallbackResponse.decode("interapp-callback://result?status=success&message=Batch%20opened&action=batch&command=open&batchName=morning&batchId=7885F4F1-59CA-42C2-81BB-6DB48AA138A6")
        try j.recordAnswer(e.id, response: r, state: .approved, note: nil, nowMs: 1_000)
        let b = try j.batch(nowMs: 2_000)
        #expect(b.isOpen && b.name == "morning" && b.id == "7885F4F1-59CA-42C2-81BB-6DB48AA138A6")
        // batch.txt:10: after 48 hours the terminal closes it and starts a new one, which is the open batch from then on.
        let later = try j.batch(nowMs: 1_000 + 48 * 3_600_000)
        #expect(later.isOpen && later.name == Journal.terminalStartedBatchName && later.id != b.id)
    }

    /// When till ends, the journal file alone holds everything (issue 11): what the write-ahead log held is copied
    /// into it and the log emptied, so a copy of just the file (a backup, the accountant's) misses nothing, and the
    /// next start has no log to read through. With another process still reading, closing neither waits nor loses
    /// anything. Closing twice is harmless; a closed journal refuses reads and writes loudly rather than silently.
    @Test func closingLeavesTheFileAloneComplete() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.path + "/j.sqlite"
        let j = try Journal(path: path)
        for i in 1...40 {
            let req = TerminalRequest(caller: testCaller, request: sale(100 * i, ctid: "c-\(i)", tip: 0))
            let e = try j.insertPending(requestId: "r\(i)", request: req, batch: BatchInfo())
            try j.markSent(e.id)
        }
        let walBefore = fileSize(path + "-wal")
        #expect(walBefore > 0, "the test needs entries in the log")
        // A copy of the file alone, before closing, lacks the entries still in the log: what closing prevents.
        try FileManager.default.copyItem(atPath: path, toPath: dir.path + "/before.sqlite")
        #expect(try Journal(path: dir.path + "/before.sqlite").unresolved().count < 40)
        j.close()
        j.close()
        #expect(fileSize(path + "-wal") == 0)
        #expect(throws: (any Error).self) { try j.unresolved() }
        try FileManager.default.copyItem(atPath: path, toPath: dir.path + "/after.sqlite")
        #expect(try Journal(path: dir.path + "/after.sqlite").unresolved().count == 40)

        // Another reader with a transaction open: closing returns at once, and every entry is still there for it.
        let other = try Journal(path: path)
        let j2 = try Journal(path: path)
        let req = TerminalRequest(caller: testCaller, request: sale(4100, ctid: "c-41", tip: 0))
        _ = try j2.insertPending(requestId: "r41", request: req, batch: BatchInfo())
        let reading = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let reader = Thread {
            try? other.database.read { db in
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM entry")
                reading.signal()
                release.wait()
            }
        }
        reader.start()
        reading.wait()
        let t0 = Date()
        j2.close()
        // Waiting would take the journal's 10 s busy timeout; 5 s leaves a loaded machine room and still tells them apart.
        #expect(Date().timeIntervalSince(t0) < 5, "closing waited for another reader")
        release.signal()
        #expect(try other.unresolved().count == 41)
        other.close()
        try FileManager.default.copyItem(atPath: path, toPath: dir.path + "/last.sqlite")
        #expect(try Journal(path: dir.path + "/last.sqlite").unresolved().count == 41)
    }

    private func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.intValue ?? 0
    }

    /// Two tills (or a till and a headless command) opening a new journal at the same moment: both found it to be
    /// made, the loser failed ("File exists", "table entry already exists", "duplicate column name"). Found when an
    /// e2e test restarted till while the one before was still opening its journal. Here: threads, as processes
    /// would, each with its own journal object, many rounds.
    @Test func twoOpeningANewJournalAtOnceBothSucceed() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        for round in 0..<40 {
            let path = dir.path + "/j\(round).sqlite"
            let failures = Locked<[String]>([])
            let start = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            for _ in 0..<3 {
                group.enter()
                Thread.detachNewThread {
                    start.wait()
                    do { _ = try Journal(path: path).count() } catch { failures.withLock { $0.append("\(error)") } }
                    group.leave()
                }
            }
            // Released together, so that the three opens overlap.
            for _ in 0..<3 { start.signal() }
            group.wait()
            #expect(failures.withLock { $0 }.isEmpty, "round \(round): \(failures.withLock { $0 })")
        }
    }
}

