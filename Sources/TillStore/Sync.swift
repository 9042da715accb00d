import Foundation
import PostgresNIO
import Synchronization
import TillCore
import TillIO

/// What one push did.
public struct PushResult: Sendable, Hashable {
    public var journalId: String
    /// Events the store took in this push (0: it was up to date).
    public var pushed: Int64
    /// Round trips of events (batches of up to `batchSize`).
    public var batches: Int
    /// The last sequence the store holds now, and the journal's own last.
    public var storeLastSeq: Int64
    public var journalLastSeq: Int64
    public var toSend: Int64 { max(0, journalLastSeq - storeLastSeq) }
    /// Events deleted from the journal's outbox after the push (see `Sync.retention`).
    public var pruned: Int64 = 0
    /// Why pruning failed (the push itself went through): a journal the sync's user may not write, a file replaced.
    public var pruneProblem: String?
}

/// Pushes a journal's outbox to the store, in order, in batches of one round trip each, idempotently: it always starts
/// from the last sequence the store holds, and the store skips what it has (a push repeated after a timeout adds
/// nothing). The push only reads the journal, in read transactions of their own, never while a write lock is held: a
/// sale never waits for the network. After it, old events the store holds are pruned from the outbox (`retention`),
/// in small transactions of their own.
public struct Sync: Sendable {
    public var journalPath: String
    public var address: StoreAddress
    public var batchSize: Int
    /// What the outbox keeps of what the store holds; nil: everything, nothing is ever deleted.
    public var retention: OutboxRetention?
    /// Events deleted per transaction: a chunk holds the journal's write lock for milliseconds. Pruning also waits
    /// until a chunk's worth may go, so that a till pruned at every push deletes whole chunks, not a row a push.
    public var pruneChunk: Int = 1_000
    /// Chunks per push at most (the rest at the next push): a first pruning of a long history delays no push long.
    public var pruneMaxChunks: Int = 100
    /// Between two chunks, so that a sale waiting for the write lock takes it (SQLite's busy wait polls; a lock taken
    /// again at once could be missed by every poll).
    public var prunePause: Duration = .milliseconds(20)

    /// Events a round trip carries at most: one transaction of the store each. A first push of a long history goes at
    /// the store's pace with batches of a few thousand (BENCHMARKS.md, "Central store"); a till at work sends a few.
    public static let defaultBatchSize = 2_000

    public init(journalPath: String, address: StoreAddress, batchSize: Int = Sync.defaultBatchSize, retention: OutboxRetention? = .standard) {
        self.journalPath = journalPath; self.address = address; self.batchSize = max(2, batchSize); self.retention = retention
    }

    /// Pushes everything the outbox holds now, then returns; and records how it went for the cashier's status line
    /// (`SyncStatus`, beside the journal).
    public func pushOnce() async throws -> PushResult {
        try await recorded { try await pushOnceUnrecorded() }
    }

    /// What `body` did, recorded for the status line: the store's answer, or why it failed and since when.
    func recorded(_ body: () async throws -> PushResult) async throws -> PushResult {
        do {
            let r = try await body()
            record(SyncStatus(journalId: r.journalId, storeLastSeq: r.storeLastSeq, sentAtMs: WallClock.nowMs()))
            return r
        } catch {
            let e = (error as? StoreError) ?? StoreError("\(error)", transient: true)
            let before = SyncStatus.read(journal: journalPath)
            record(SyncStatus(journalId: before?.journalId ?? "", storeLastSeq: before?.storeLastSeq ?? 0, sentAtMs: before?.sentAtMs,
                              problem: e.message, failingSinceMs: before?.failingSinceMs ?? WallClock.nowMs(), needsSetUp: !e.transient))
            throw error
        }
    }

    /// The status is advisory: a file that cannot be written (a full disk) must not stop the pushing it reports on.
    func record(_ status: SyncStatus) { try? status.write(journal: journalPath) }

    func pushOnceUnrecorded() async throws -> PushResult {
        let reader = try OutboxReader(path: journalPath)
        defer { reader.close() }
        return try await StoreConnection.using(address) { store in try await pushAndPrune(reader, store) }
    }

    /// A push on a connection the caller holds, then the outbox's pruning.
    func pushAndPrune(_ reader: OutboxReader, _ store: StoreConnection) async throws -> PushResult {
        var r = try await push(reader, store)
        if let retention {
            do { r.pruned = try await prune(r.journalId, storeHolds: r.storeLastSeq, retention: retention, store) } catch is CancellationError {
                // The service stopping between two chunks: what went is gone, the rest goes at the next start.
            } catch {
                r.pruneProblem = "pruning the outbox: \(error)"
            }
        }
        return r
    }

    /// Deletes the outbox's old events that the store holds (see `OutboxRetention`, `OutboxPruner`); returns how many.
    /// What the store holds is asked again first, on its own, rather than taken from the push's answer: that answer may
    /// come before the store's commit, and only a later statement sees what was committed. Nothing at or past what the
    /// store holds ever goes, nor the last event it holds (every push starts with it). Best effort: a chunk that would
    /// have to wait for the till stops it until the next push.
    func prune(_ journalId: String, storeHolds pushed: Int64, retention: OutboxRetention, _ store: StoreConnection) async throws -> Int64 {
        guard pushed > 1 else { return 0 }
        let pruner = try OutboxPruner(path: journalPath)
        defer { pruner.close() }
        let chunk = max(1, pruneChunk)
        // On the journal alone first: most pushes have nothing to prune, and then cost the store nothing more.
        guard try pruner.bound(retention: retention, storeHolds: pushed, nowMs: WallClock.nowMs(), minimum: chunk) != nil else { return 0 }
        let (held, status) = try await Sync.lastSeq(store, journalId)
        guard status == "active",
              let bound = try pruner.bound(retention: retention, storeHolds: held, nowMs: WallClock.nowMs(), minimum: chunk) else { return 0 }
        var pruned: Int64 = 0
        for n in 0..<max(1, pruneMaxChunks) {
            if n > 0 { try await Task.sleep(for: prunePause) }
            guard let deleted = try pruner.deleteChunk(journalId: journalId, storeHolds: held, through: bound, limit: chunk) else { break }
            pruned += Int64(deleted)
            if deleted < chunk { break }
        }
        return pruned
    }

    func push(_ reader: OutboxReader, _ store: StoreConnection) async throws -> PushResult {
        do { return try await pushChecked(reader, store) } catch let e as StoreError where e.sqlState == StoreSchema.diverged {
            // A history that differs from the store's: told to the store, so that `reconcile` lists it (best effort).
            if let (journalId, journalLast) = try? reader.identity() {
                _ = try? await store.query("SELECT till_store.behind(\(journalId), \(journalLast))")
            }
            throw e
        }
    }

    func pushChecked(_ reader: OutboxReader, _ store: StoreConnection) async throws -> PushResult {
        let starting = try await Sync.startOutbox(reader, store)
        do {
            let r = try await pushEvents(reader, store, starting: starting)
            try await starting?.finish()
            return r
        } catch {
            await starting?.stop()
            throw error
        }
    }

    /// The push's rounds; `starting`: the journal's outbox being started beside them (its first push).
    func pushEvents(_ reader: OutboxReader, _ store: StoreConnection, starting: OutboxStartRun?) async throws -> PushResult {
        let (journalId, journalLast) = try reader.identity()
        var (storeLast, status) = try await Sync.lastSeq(store, journalId)
        if status == "refused" || status == "retired" { throw Sync.refused(journalId) }
        if storeLast > journalLast {
            // The store has events this file never had: a journal restored from an older backup, or a copy. Pushing
            // from here would skip nothing silently, but it would mix two histories under one id: a person decides.
            // The store is told, so that the back office sees it too (`reconcile`); that telling is best effort.
            _ = try? await store.query("SELECT till_store.behind(\(journalId), \(journalLast))")
            throw StoreError("the store holds journal \(journalId) up to event \(storeLast), but this journal file holds only \(journalLast): it was restored from a backup or copied; nothing was pushed. Keep the newer file, or have the back office retire this journal and give the till a new one")
        }
        var pushed: Int64 = 0, batches = 0, gaps = 0
        while true {
            // Asked before the read: once the start has ended, the read sees every event it made.
            let startEnded = starting?.ended ?? true
            // While the start is still making the history's events: whole round trips only, as a push of it always
            // had, and the outbox's count asked until there is one (not a round trip's events read again and again
            // while the till works).
            if !startEnded, try reader.identity().lastSeq < max(0, storeLast - 1) + Int64(batchSize) {
                try await Task.sleep(for: .milliseconds(10))
                continue
            }
            // From the last event the store holds, which the store compares with its own: the proof that this file
            // goes on from what the store has (see the store's push).
            let events = try reader.events(after: max(0, storeLast - 1), limit: batchSize)
            guard events.contains(where: { $0.seq > storeLast }) else {
                // Nothing to send: an empty push all the same, so the back office sees the till is there and when
                // (reconcile's "stopped pushing" reads the store's clock of the last call, not of the last sale). It
                // carries the last event the store holds, whose hash the store checks: a file whose history differs,
                // with as many events as the store's, is refused here rather than said to be up to date.
                if batches == 0 { try await store.query(Sync.pushRows(journalId, events)) }
                break
            }
            guard events[0].seq == max(1, storeLast), zip(events, events.dropFirst()).allSatisfy({ $1.seq == $0.seq + 1 }) else {
                // Another sync of this journal may have pushed and pruned meanwhile: go on from what the store holds.
                let now = try await Sync.lastSeq(store, journalId).0
                if now > storeLast, gaps < 3 {
                    gaps += 1
                    storeLast = now
                    continue
                }
                if events[0].seq > max(1, storeLast), let first = try reader.firstSeq(), first == events[0].seq {
                    // Pruning deletes only what the store had confirmed: a store that holds less now lost it.
                    throw StoreError("the store holds journal \(journalId) only up to event \(storeLast), but this journal's outbox starts at event \(first): the events before it were pruned once the store held them, so the store has lost them since (restored from an older backup?); nothing was pushed. The journal's entries are all still in the file (till export)")
                }
                throw StoreError("the journal's outbox has a gap after event \(storeLast): it was changed by something other than till; nothing more was pushed")
            }
            do {
                if events.contains(where: { $0.kind == "entry_change" }) { try await Sync.requireChanges(store) }
                let rows = try await store.query(Sync.pushRows(journalId, events))
                guard let row = rows.first, let last = try row.decode(Int64?.self) else { throw StoreError("the store's push answered nothing") }
                if last < 0 { throw Sync.refused(journalId) }
                pushed += max(0, last - storeLast)
                storeLast = last
                batches += 1
            } catch let e as StoreError where e.sqlState == StoreSchema.gap && gaps < 3 {
                // Another push of this till moved on meanwhile: go on from what the store holds.
                gaps += 1
                storeLast = try await Sync.lastSeq(store, journalId).0
            }
        }
        // A start beside the push made the journal's events as it went: its count now.
        let fileLast = starting == nil ? journalLast : try reader.identity().lastSeq
        return PushResult(journalId: journalId, pushed: pushed, batches: batches, storeLastSeq: storeLast,
                          journalLastSeq: max(fileLast, storeLast))
    }

    /// Whether the store was seen to apply an entry's changes (schema v7): asked once per process, at the first push
    /// that holds one (a store is migrated forward only).
    static let storeTakesChanges = Mutex(false)

    /// An older store would park every change as an unknown kind of event (the payments' states would stop there):
    /// nothing is pushed to it until it is migrated.
    static func requireChanges(_ store: StoreConnection) async throws {
        if storeTakesChanges.withLock({ $0 }) { return }
        let rows = try await store.query("SELECT to_regprocedure('till_store.jsonb_merge(jsonb)') IS NOT NULL")
        guard let row = rows.first, try row.decode(Bool.self) else {
            throw StoreError("the store's schema is older than this till-sync (it cannot apply an entry's changes); nothing was pushed. Have its administrator run till-sync init-store")
        }
        storeTakesChanges.withLock { $0 = true }
    }

    /// A journal no sync read before keeps no outbox (`OutboxStart`): the first push starts it, with the journal's
    /// whole history as it is now, and pushes it. A start cut short (the service stopped) goes on at the next push.
    /// When the store holds nothing of the journal (its first push), the start runs beside the push (`OutboxStartRun`),
    /// which sends its events as its chunks commit: the journal's writes and the store's work overlap, and a long
    /// history's first push takes about the longer of the two rather than their sum (BENCHMARKS.md, "Fast catch-up").
    /// Otherwise (the store holds events of this journal: a start cut short, or a file restored from before the store
    /// had it) the start ends first, so that the push compares the whole file with what the store holds.
    static func startOutbox(_ reader: OutboxReader, _ store: StoreConnection) async throws -> OutboxStartRun? {
        guard try !reader.started() else { return nil }
        let (journalId, _) = try reader.identity()
        if try await lastSeq(store, journalId).0 == 0 { return OutboxStartRun(path: reader.path) }
        do {
            let starter = try OutboxStarter(path: reader.path)
            defer { starter.close() }
            try starter.run(nowMs: WallClock.nowMs())
        } catch {
            throw startFailed(error, reader.path)
        }
        return nil
    }

    /// Mostly the till holding the journal's write lock a while: tried again at the next push.
    static func startFailed(_ error: any Error, _ path: String) -> StoreError {
        StoreError("starting the journal's outbox (its first push): \(error); till-sync must be able to write the journal \(path)",
                   transient: true)
    }

    static func refused(_ journalId: String) -> StoreError {
        StoreError("the store refuses journal \(journalId): this till has another active journal (a replaced or new journal file); nothing of it is taken until the back office adopts it (till-sync adopt-journal)", sqlState: "TS002")
    }

    /// The store's push of a run of events: each field an array, bound in the binary protocol (see `StoreSchema.pushRows`).
    static func pushRows(_ journalId: String, _ events: [OutboxEvent]) -> PostgresQuery {
        var binds = PostgresBindings(capacity: 7)
        binds.append(journalId)
        binds.append(events.map(\.seq))
        binds.append(events.map(\.kind))
        binds.append(events.map(\.entityKey))
        binds.append(events.map(\.payload))
        binds.append(events.map(\.atMs))
        binds.append(events.map { $0.hash.map(OutboxChain.hex) ?? "" })
        return PostgresQuery(unsafeSQL: "SELECT till_store.push_chained($1, $2, $3, $4, $5, $6, $7)", binds: binds)
    }

    static func lastSeq(_ store: StoreConnection, _ journalId: String) async throws -> (Int64, String) {
        let rows = try await store.query("SELECT last_seq, status FROM till_store.last_seq(\(journalId))")
        guard let row = rows.first else { throw StoreError("the store's last_seq answered nothing") }
        return try row.decode((Int64, String).self)
    }
}

/// A journal's outbox start (`OutboxStarter`) on a thread of its own beside the push (see `Sync.startOutbox`): the
/// starter sleeps between its chunks and waits for the till's write lock, which no task of the push's may do.
final class OutboxStartRun: Sendable {
    let path: String
    private let stopping = Atomic<Bool>(false)
    /// `done`: whole, or stopped after a chunk (`stop`; the rest goes on at the next push).
    private enum Outcome { case running, done, failed(StoreError) }
    private let outcome = Mutex(Outcome.running)

    init(path: String) {
        self.path = path
        Thread.detachNewThread { [self] in
            let ended: Outcome
            do {
                let starter = try OutboxStarter(path: path)
                defer { starter.close() }
                try starter.run(nowMs: WallClock.nowMs(), stop: { self.stopping.load(ordering: .relaxed) })
                ended = .done
            } catch {
                ended = .failed(Sync.startFailed(error, path))
            }
            outcome.withLock { $0 = ended }
        }
    }

    /// Whether the start has ended (whole, stopped or failed): every event it made is committed.
    var ended: Bool {
        outcome.withLock { if case .running = $0 { return false } else { return true } }
    }

    /// Waits for the end; the start's failure, if it failed.
    func finish() async throws {
        while true {
            switch outcome.withLock({ $0 }) {
            case .running: try? await Task.sleep(for: .milliseconds(5))
            case .done: return
            case .failed(let e): throw e
            }
        }
    }

    /// Stops it after its current chunk (the rest goes on at the next push) and waits for that.
    func stop() async {
        stopping.store(true, ordering: .relaxed)
        try? await finish()
    }
}
