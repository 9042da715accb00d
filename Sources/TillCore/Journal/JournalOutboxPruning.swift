import Foundation
import GRDB
import TillIO

/// How much of the outbox the sync keeps once the store holds it: every event newer than `keepDays` days (the till's
/// clock, the event's `atMs`) and the newest `keepEvents` events, whichever keeps more. What is kept is always one run
/// at the outbox's end: the oldest events go first, and only while every one of them is past both.
public struct OutboxRetention: Sendable, Hashable {
    public var keepDays: Int
    public var keepEvents: Int
    /// Days beyond a million (some 2,700 years) keep the same and would overflow the cut-off's milliseconds.
    public init(keepDays: Int, keepEvents: Int) {
        self.keepDays = min(max(0, keepDays), 1_000_000); self.keepEvents = max(0, keepEvents)
    }
    /// A week covers a till left off over a long weekend or a holiday and looked at afterwards; 10,000 events are a
    /// few days of a busy till, a few MB of the file.
    public static let standard = OutboxRetention(keepDays: 7, keepEvents: 10_000)
}

/// The journal's file no longer goes on from what the store confirmed (another file put in its place between the push
/// and the pruning, or a different journal): nothing is deleted.
public struct OutboxPruneRefused: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// Deletes from a journal's outbox the old events the store holds, for the sync: the only writer of the journal besides
/// till itself. It writes through a connection of its own, in transactions of one small chunk each, and waits for the
/// journal's write lock only briefly (`busyTimeout`): a chunk holds that lock for milliseconds, and a sale waiting for
/// it gets it between two chunks. It never touches the entries, batch events or Z reports (reports and exports read
/// those, never the outbox).
///
/// The pages a chunk frees stay in the file, on SQLite's free list, and the journal's next writes take them first: the
/// file stops growing at the outbox's largest (the retention's events), whatever the journal's age. They are not given
/// back to the file system (no vacuum, incremental or whole): the file never shrinks while a till has it open, which is
/// how till tells a journal cut short by someone else (`Journal.checkFile`).
public final class OutboxPruner: JournalSideWriter {
    public let side: JournalSideConnection

    public init(path: String, busyTimeout: TimeInterval = 0.1) throws {
        side = try JournalSideConnection(path: path, busyTimeout: busyTimeout,
                                         missing: "there is no journal there (moved or deleted since the push)")
    }

    /// The last outbox event that may go now (nil: fewer than `minimum` may), judged on the journal and on what the
    /// store holds (`storeHolds`, its last event of this journal). The event the store holds last is always kept: every
    /// push starts with it, and the store compares it with its own (the proof that the file goes on from there).
    public func bound(retention: OutboxRetention, storeHolds: Int64, nowMs: Int64, minimum: Int) throws -> Int64? {
        try queue.read { db in
            guard let head = try Int64.fetchOne(db, sql: "SELECT MIN(seq) FROM outbox") else { return nil }
            let last = try Journal.outboxLastSeq(in: db)
            let cap = min(storeHolds - 1, last - Int64(retention.keepEvents))
            guard cap >= head else { return nil }
            let cutoff = nowMs - Int64(retention.keepDays) * 86_400_000
            // The first event still within the days kept ends the run that may go (the run stays one, see
            // OutboxRetention); found walking up from the head, which is past a few events at most on a till pruned
            // at every push.
            let recent = try Int64.fetchOne(db, sql: "SELECT seq FROM outbox WHERE seq <= ? AND atMs >= ? ORDER BY seq LIMIT 1",
                                            arguments: [cap, cutoff])
            let bound = recent.map { $0 - 1 } ?? cap
            guard bound >= head else { return nil }
            let n = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox WHERE seq <= ?", arguments: [bound]) ?? 0
            return n >= max(1, minimum) ? bound : nil
        }
    }

    /// Deletes up to `limit` of the oldest events, none past `bound` nor at or past `storeHolds`, in one transaction;
    /// returns how many went (0: none left to go; nil: the till held the write lock longer than the busy timeout, so
    /// this pruning stops and the next push goes on). Refuses when the file is not the journal `journalId` or holds
    /// less than the store confirmed: then it is not the file that was pushed.
    public func deleteChunk(journalId: String, storeHolds: Int64, through bound: Int64, limit: Int) throws -> Int? {
        var deleted = 0
        do {
            try queue.inTransaction(.immediate) { db in
                guard try String.fetchOne(db, sql: "SELECT journalId FROM journal_identity") == journalId else {
                    throw OutboxPruneRefused(description: "the file at \(path) is no longer journal \(journalId); nothing was pruned")
                }
                let last = try Journal.outboxLastSeq(in: db)
                guard last >= storeHolds else {
                    throw OutboxPruneRefused(description: "the journal file holds events up to \(last), less than the store confirmed (\(storeHolds)): it was replaced since the push; nothing was pruned")
                }
                try db.execute(sql: "DELETE FROM outbox WHERE seq IN (SELECT seq FROM outbox WHERE seq <= ? ORDER BY seq LIMIT ?)",
                               arguments: [min(bound, storeHolds - 1), limit])
                deleted = db.changesCount
                return .commit
            }
        } catch let e as DatabaseError where e.resultCode == .SQLITE_BUSY {
            return nil
        }
        return deleted
    }
}

extension Journal {
    /// The last sequence the outbox ever gave (0: none). SQLite's AUTOINCREMENT keeps it in `sqlite_sequence`, which a
    /// delete never lowers; the outbox's own largest is the same as long as its last event is there (the pruning always
    /// keeps it), and is read too for a file whose `sqlite_sequence` row was lost.
    static func outboxLastSeq(in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: """
            SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'outbox'), 0), COALESCE((SELECT MAX(seq) FROM outbox), 0))
            """) ?? 0
    }
}

/// A connection of the sync's own to the journal at `path`, that waits for the till's write lock at most `busyTimeout`,
/// with the outbox chain's function (a statement that fires the chain's trigger needs it): what the sync's two writers
/// of the journal (`OutboxStarter`, `OutboxPruner`) open. SQLite creates a missing file on a writable open: one taken
/// away is not made again (an lstat, not an open: a descriptor of the file closed in this process would drop SQLite's
/// locks on it); `missing` says why in the sync's words.
public final class JournalSideConnection: Sendable {
    let queue: DatabaseQueue
    public let path: String

    init(path: String, busyTimeout: TimeInterval, missing: String) throws {
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { throw JournalOpenError(path: path, reason: missing) }
        var config = Configuration()
        config.busyMode = .timeout(busyTimeout)
        config.prepareDatabase { db in db.add(function: OutboxChain.function) }
        self.path = path
        queue = try DatabaseQueue(path: path, configuration: config)
    }

    public func close() { try? queue.close() }
}

/// The sync's writers of a journal: each through a `JournalSideConnection` of its own.
public protocol JournalSideWriter: Sendable {
    var side: JournalSideConnection { get }
}

extension JournalSideWriter {
    var queue: DatabaseQueue { side.queue }
    public var path: String { side.path }
    public func close() { side.close() }
}
