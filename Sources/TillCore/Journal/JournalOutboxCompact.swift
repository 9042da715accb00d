import Foundation
import GRDB
import TillIO

// The compact outbox: an entry's change carries only the columns that changed, and a journal that no sync ever pushed
// keeps no outbox at all.
//
// When does a journal have a store? Neither till's config nor anything else on the till names the store (`till-sync`
// takes it on its command line, from /etc/default/till-sync), so the journal itself says it: its outbox starts
// (`journal_identity.outboxFromMs`) the first time a `till-sync push` reads it, and from then on every change is an
// event, as before. Until then the triggers write nothing: a till that never syncs keeps no outbox. A journal that gets
// a store later still gives it its whole history: the start puts every entry as it is now, every batch event and
// every Z report in the outbox first (the states an entry went through before the start are not in the store's log;
// its rows are the journal's). The start goes in chunks of entries (`OutboxStart.step`), each a short write
// transaction, so that a sale is never held up long: the triggers are on from the first chunk, and an entry changed
// before its chunk comes is sent whole by that chunk (the store takes a change of an entry it does not hold yet as
// nothing, and the whole row that follows as the entry).
//
// A journal of the previous version whose outbox ever gave an event keeps recording (a store may hold its events).
extension Journal {
    /// The event of an entry's change: its id, its update time and the columns whose value changed (`json_remove` of
    /// every other one from the whole row: one expression, no subquery, in the trigger). The store applies it on top of
    /// the row it holds (StoreSchema v7).
    static func outboxEntryChange() -> String {
        let paths = outboxEntryColumns.filter { $0 != "updatedAtMs" }
            .map { "CASE WHEN OLD.\($0) IS NOT NEW.\($0) THEN '$.-' ELSE '$.\($0)' END" }
        return "json_remove(\(outboxEntryPayload("NEW")), " + paths.joined(separator: ", ") + ")"
    }

    /// The triggers' condition: the outbox has started (see above); a look-up of the one identity row by its key.
    static let outboxOn = "(SELECT outboxFromMs FROM journal_identity WHERE one = 1) IS NOT NULL"

    static func registerCompactOutboxMigration(_ m: inout DatabaseMigrator) {
        m.registerMigration("v12-outbox-changes") { db in
            let changed = (outboxEntryColumns.filter { $0 != "updatedAtMs" })
                .map { "OLD.\($0) IS NOT NEW.\($0)" }.joined(separator: " OR ")
            try db.execute(sql: """
            ALTER TABLE journal_identity ADD COLUMN outboxFromMs INTEGER;
            ALTER TABLE journal_identity ADD COLUMN startEntryTo INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE journal_identity ADD COLUMN startEntryDone INTEGER NOT NULL DEFAULT 0;
            UPDATE journal_identity SET outboxFromMs = createdAtMs
             WHERE EXISTS (SELECT 1 FROM outbox) OR EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'outbox' AND seq > 0);
            DROP TRIGGER outbox_entry_insert;
            DROP TRIGGER outbox_entry_update;
            DROP TRIGGER outbox_batch_event_insert;
            DROP TRIGGER outbox_z_report_insert;
            DROP TRIGGER outbox_z_report_delete;
            CREATE TRIGGER outbox_entry_insert AFTER INSERT ON entry WHEN \(outboxOn) BEGIN
              INSERT INTO outbox (kind, entityKey, payload, atMs) VALUES ('entry', NEW.id, \(outboxEntryPayload("NEW")), NEW.updatedAtMs);
            END;
            CREATE TRIGGER outbox_entry_update AFTER UPDATE ON entry WHEN (\(changed)) AND \(outboxOn) BEGIN
              INSERT INTO outbox (kind, entityKey, payload, atMs) VALUES ('entry_change', NEW.id, \(outboxEntryChange()), NEW.updatedAtMs);
            END;
            CREATE TRIGGER outbox_batch_event_insert AFTER INSERT ON batch_event WHEN \(outboxOn) BEGIN
              INSERT INTO outbox (kind, entityKey, payload, atMs) VALUES ('batch_event', NEW.id, \(batchEventPayload("NEW")), NEW.atMs);
            END;
            CREATE TRIGGER outbox_z_report_insert AFTER INSERT ON z_report WHEN \(outboxOn) BEGIN
              INSERT INTO outbox (kind, entityKey, payload, atMs) VALUES ('z_report', NEW.batchKey, \(zReportPayload("NEW")),
                COALESCE(NEW.closedAtMs, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)));
            END;
            CREATE TRIGGER outbox_z_report_delete AFTER DELETE ON z_report WHEN \(outboxOn) BEGIN
              INSERT INTO outbox (kind, entityKey, payload, atMs) VALUES ('z_report_restated', OLD.batchKey,
                json_object('batchKey', OLD.batchKey), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
            END;
            """)
        }
    }

    static func batchEventPayload(_ row: String) -> String {
        "json_object('id', \(row).id, 'entryId', \(row).entryId, 'command', \(row).command, 'batchId', \(row).batchId, 'batchName', \(row).batchName, 'atMs', \(row).atMs)"
    }

    static func zReportPayload(_ row: String) -> String {
        "json_object('batchKey', \(row).batchKey, 'closedAtMs', \(row).closedAtMs, 'report', json(\(row).report))"
    }

    /// Starts this journal's outbox now, whole (every chunk): for tests and tools; `till-sync` starts it through
    /// `OutboxStarter`, chunk by chunk.
    public func startOutbox(nowMs: Int64 = WallClock.nowMs()) throws {
        while try !write({ db in try OutboxStart.step(db, nowMs: nowMs, chunk: 10_000) }) {}
    }

    /// Whether the outbox has started (see above).
    public func outboxStarted() throws -> Bool {
        try reading { db in try OutboxStart.state(db) != .off }
    }
}

public enum OutboxStart {
    public enum State: Sendable, Hashable { case off, starting, on }

    /// Where the journal's outbox stands. A journal of the version before (no start columns) has always recorded.
    public static func state(_ db: Database) throws -> State {
        guard try db.columns(in: "journal_identity").contains(where: { $0.name == "outboxFromMs" }) else { return .on }
        guard let row = try Row.fetchOne(db, sql: "SELECT outboxFromMs, startEntryTo, startEntryDone FROM journal_identity WHERE one = 1") else {
            return .on
        }
        let from: Int64? = row["outboxFromMs"]
        guard from != nil else { return .off }
        return (row["startEntryDone"] as Int64) < (row["startEntryTo"] as Int64) ? .starting : .on
    }

    /// One step of the start, in the caller's write transaction; true when the outbox is whole. The first step turns the
    /// triggers on and puts the batch events and Z reports in (a few per shift); each step after it the next `chunk`
    /// entries of those the journal held at the first step, whole, as they are now.
    public static func step(_ db: Database, nowMs: Int64, chunk: Int) throws -> Bool {
        switch try state(db) {
        case .on: return true
        case .off:
            try db.execute(sql: """
                UPDATE journal_identity SET outboxFromMs = ?, startEntryTo = COALESCE((SELECT MAX(id) FROM entry), 0), startEntryDone = 0
                 WHERE one = 1
                """, arguments: [nowMs])
            try db.execute(sql: """
                INSERT INTO outbox (kind, entityKey, payload, atMs)
                  SELECT 'batch_event', id, \(Journal.batchEventPayload("batch_event")), atMs FROM batch_event ORDER BY id;
                INSERT INTO outbox (kind, entityKey, payload, atMs)
                  SELECT 'z_report', batchKey, \(Journal.zReportPayload("z_report")), COALESCE(closedAtMs, 0) FROM z_report
                   ORDER BY closedAtMs, batchKey;
                """)
            return try state(db) == .on
        case .starting:
            guard let row = try Row.fetchOne(db, sql: "SELECT startEntryTo, startEntryDone FROM journal_identity WHERE one = 1") else { return true }
            let to: Int64 = row["startEntryTo"], done: Int64 = row["startEntryDone"]
            let last = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM (SELECT id FROM entry WHERE id > ? AND id <= ? ORDER BY id LIMIT ?)",
                                          arguments: [done, to, max(1, chunk)]) ?? to
            try db.execute(sql: """
                INSERT INTO outbox (kind, entityKey, payload, atMs)
                  SELECT 'entry', id, \(Journal.outboxEntryPayload("entry")), updatedAtMs FROM entry WHERE id > ? AND id <= ? ORDER BY id
                """, arguments: [done, last])
            try db.execute(sql: "UPDATE journal_identity SET startEntryDone = ? WHERE one = 1", arguments: [last])
            return last >= to
        }
    }
}

/// Starts a journal's outbox for `till-sync` (see `OutboxStart`), through a connection of its own that waits for the
/// till's write lock only briefly: each chunk is a transaction of milliseconds, and a sale waiting for the lock gets it
/// between two chunks.
public final class OutboxStarter: JournalSideWriter {
    public let side: JournalSideConnection

    public init(path: String, busyTimeout: TimeInterval = 2) throws {
        side = try JournalSideConnection(path: path, busyTimeout: busyTimeout, missing: "there is no journal there")
    }

    /// Runs the start to its end (nothing when the outbox is on), or until `stop` says so between two chunks (the rest
    /// goes on at the next run); returns the chunks it took.
    @discardableResult
    public func run(nowMs: Int64, chunk: Int = 250, pause: useconds_t = 5_000, stop: () -> Bool = { false }) throws -> Int {
        var steps = 0, done = false
        while !done {
            if steps > 0 {
                if stop() { break }
                usleep(pause)
            }
            try queue.inTransaction(.immediate) { db in
                done = try OutboxStart.step(db, nowMs: nowMs, chunk: chunk)
                return .commit
            }
            steps += 1
        }
        return steps
    }

    /// Whether the outbox must still be started (a read, no lock).
    public func needed() throws -> Bool { try queue.read { db in try OutboxStart.state(db) != .on } }
}
