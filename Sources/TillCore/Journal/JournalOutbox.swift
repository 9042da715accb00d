import Foundation
import GRDB

/// One change of the journal, as the outbox keeps it for the central store: numbered in the order SQLite committed it.
public struct OutboxEvent: Sendable, Hashable, Codable {
    /// The outbox's own sequence: gapless within a journal only as far as SQLite's AUTOINCREMENT is, which never reuses
    /// a number and only skips one when a transaction rolls back (nothing of it is then in the outbox either).
    public var seq: Int64
    /// `entry` (a full snapshot of the row after the change), `batch_event`, `z_report`, `z_report_restated`.
    public var kind: String
    /// The changed row's key in its table: the entry's id, the batch event's id, the Z report's batch key.
    public var entityKey: String
    /// The row as JSON (SQLite's `json_object`), as the journal held it right after the change.
    public var payload: String
    /// The till's clock when the change was made (the row's own time); the store keeps its own beside it.
    public var atMs: Int64
    /// The event's link in the outbox's hash chain (`OutboxChain`); nil: journaled before the chain began.
    public var hash: Data?
    public init(seq: Int64, kind: String, entityKey: String, payload: String, atMs: Int64, hash: Data? = nil) {
        self.seq = seq; self.kind = kind; self.entityKey = entityKey; self.payload = payload; self.atMs = atMs; self.hash = hash
    }

    init(row: Row) {
        self.init(seq: row["seq"], kind: row["kind"], entityKey: row["entityKey"], payload: row["payload"], atMs: row["atMs"], hash: row["hash"])
    }
}

extension Journal {
    /// The entry's columns as the outbox and the store read them. Every column but `updatedAtMs` is compared by the
    /// update trigger: a change of any of them is an event, an update that changed nothing is none.
    static let outboxEntryColumns = [
        "requestId", "action", "origin", "parentId", "clientTransactionId", "amountCents", "tipCents", "requestURL",
        "state", "createdAtMs", "sentAtMs", "answeredAtMs", "updatedAtMs", "batchId", "batchName", "status", "message",
        "stan", "orderCode", "shortOrderCode", "transactionId", "cardType", "verificationMethod", "response", "note",
        "requestedAmountCents", "requestedTipCents", "retryConfirmedAtMs", "tipIncluded",
    ]

    static func outboxEntryPayload(_ row: String) -> String {
        "json_object('id', \(row).id, " + outboxEntryColumns.map { "'\($0)', \(row).\($0)" }.joined(separator: ", ") + ")"
    }

    /// The transactional outbox: every change of the journal (an entry made or changed, a batch event, a Z report stored
    /// or restated) also adds a row to `outbox`, by triggers, so in the same SQLite transaction as the change itself: no
    /// code path can write one without the other, and a write that rolls back leaves neither. `till-sync` reads it and
    /// pushes it to the store; the cashier's path never waits for that.
    ///
    /// `journal_identity` names this journal with a random id made once, when the outbox is first made. The id is in
    /// the file: a copy of the file (a backup restored, a journal carried to another till) has the same id, and the
    /// store tells them apart by what it already holds (see StoreSchema).
    static func registerOutboxMigration(_ m: inout DatabaseMigrator) {
        m.registerMigration("v7-outbox") { db in
            let changed = (outboxEntryColumns.filter { $0 != "updatedAtMs" })
                .map { "OLD.\($0) IS NOT NEW.\($0)" }.joined(separator: " OR ")
            try db.execute(sql: """
            CREATE TABLE journal_identity (
              one INTEGER PRIMARY KEY CHECK (one = 1),
              journalId TEXT NOT NULL,
              createdAtMs INTEGER NOT NULL
            );
            INSERT INTO journal_identity VALUES (1, lower(hex(randomblob(16))), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
            CREATE TABLE outbox (
              seq INTEGER PRIMARY KEY AUTOINCREMENT,
              kind TEXT NOT NULL,
              entityKey TEXT NOT NULL,
              payload TEXT NOT NULL,
              atMs INTEGER NOT NULL
            );
            CREATE TRIGGER outbox_entry_insert AFTER INSERT ON entry BEGIN
              INSERT INTO outbox (kind, entityKey, payload, atMs) VALUES ('entry', NEW.id, \(outboxEntryPayload("NEW")), NEW.updatedAtMs);
            END;
            CREATE TRIGGER outbox_entry_update AFTER UPDATE ON entry WHEN \(changed) BEGIN
              INSERT INTO outbox (kind, entityKey, payload, atMs) VALUES ('entry', NEW.id, \(outboxEntryPayload("NEW")), NEW.updatedAtMs);
            END;
            CREATE TRIGGER outbox_batch_event_insert AFTER INSERT ON batch_event BEGIN
              INSERT INTO outbox (kind, entityKey, payload, atMs) VALUES ('batch_event', NEW.id,
                json_object('id', NEW.id, 'entryId', NEW.entryId, 'command', NEW.command, 'batchId', NEW.batchId,
                            'batchName', NEW.batchName, 'atMs', NEW.atMs), NEW.atMs);
            END;
            CREATE TRIGGER outbox_z_report_insert AFTER INSERT ON z_report BEGIN
              INSERT INTO outbox (kind, entityKey, payload, atMs) VALUES ('z_report', NEW.batchKey,
                json_object('batchKey', NEW.batchKey, 'closedAtMs', NEW.closedAtMs, 'report', json(NEW.report)),
                COALESCE(NEW.closedAtMs, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)));
            END;
            CREATE TRIGGER outbox_z_report_delete AFTER DELETE ON z_report BEGIN
              INSERT INTO outbox (kind, entityKey, payload, atMs) VALUES ('z_report_restated', OLD.batchKey,
                json_object('batchKey', OLD.batchKey), CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
            END;
            -- What the journal held before it had an outbox goes first, in the order it was made: the store gets the
            -- whole history, not only what happens from today.
            INSERT INTO outbox (kind, entityKey, payload, atMs)
              SELECT kind, entityKey, payload, atMs FROM (
                SELECT 0 AS o, id AS k, 'entry' AS kind, id AS entityKey, \(outboxEntryPayload("entry")) AS payload, updatedAtMs AS atMs FROM entry
                UNION ALL
                SELECT 1, id, 'batch_event', id, json_object('id', id, 'entryId', entryId, 'command', command, 'batchId', batchId,
                            'batchName', batchName, 'atMs', atMs), atMs FROM batch_event
              ) ORDER BY o, k;
            INSERT INTO outbox (kind, entityKey, payload, atMs)
              SELECT 'z_report', batchKey, json_object('batchKey', batchKey, 'closedAtMs', closedAtMs, 'report', json(report)),
                     COALESCE(closedAtMs, 0) FROM z_report ORDER BY closedAtMs, batchKey;
            """)
        }
    }
}

/// Reads a journal's outbox for the sync, through a read-only connection of its own: never a write lock, so a sale is
/// never held up by a push, and each read is one snapshot (one read transaction).
public final class OutboxReader: Sendable {
    let queue: DatabaseQueue
    public let path: String

    public init(path: String) throws {
        self.path = path
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(10)
        guard Journal.hasSQLiteHeader(path) else {
            throw JournalOpenError(path: path, reason: "it is not a till journal (missing, or not an SQLite file)")
        }
        // A journal found damaged is not pushed: what the store would get could be a history with pages missing.
        if let mark = Journal.damageMark(journal: path) {
            throw JournalDamagedError(path: path, findings: [mark.trimmingCharacters(in: .whitespacesAndNewlines)], earlier: true)
        }
        queue = try DatabaseQueue(path: path, configuration: config)
        let hasOutbox = try queue.read { db in try db.tableExists("outbox") && db.tableExists("journal_identity") }
        guard hasOutbox else {
            throw JournalOpenError(path: path, reason: "it has no outbox yet; start this version of till on it once (it adds one), then sync")
        }
    }

    /// The journal's id and the last sequence its outbox gave (0: none), in one snapshot: the file's own count of its
    /// events, which pruning leaves as it is (`Journal.outboxLastSeq`).
    public func identity() throws -> (journalId: String, lastSeq: Int64) {
        try queue.read { db in
            guard let id = try String.fetchOne(db, sql: "SELECT journalId FROM journal_identity") else {
                throw JournalOpenError(path: path, reason: "its identity row is missing")
            }
            return (id, try Journal.outboxLastSeq(in: db))
        }
    }

    /// Whether the journal's outbox records (`OutboxStart`): a journal no sync read before does not.
    public func started() throws -> Bool {
        try queue.read { db in try OutboxStart.state(db) == .on }
    }

    /// The oldest event the outbox still holds (nil: none): the ones before it were pruned once the store held them.
    public func firstSeq() throws -> Int64? {
        try queue.read { db in try Int64.fetchOne(db, sql: "SELECT MIN(seq) FROM outbox") }
    }

    /// Up to `limit` events after `seq`, oldest first.
    public func events(after seq: Int64, limit: Int) throws -> [OutboxEvent] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT seq, kind, entityKey, payload, atMs, hash FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?",
                             arguments: [seq, limit]).map(OutboxEvent.init(row:))
        }
    }

    public func close() { try? queue.close() }
}

extension Journal {
    /// This journal's id (see `registerOutboxMigration`).
    public func journalId() throws -> String {
        try reading { db in try String.fetchOne(db, sql: "SELECT journalId FROM journal_identity") ?? "" }
    }

    /// The outbox from `seq` on, oldest first (tests and `till-sync` read it; a read, never a write).
    public func outbox(after seq: Int64 = 0, limit: Int = .max) throws -> [OutboxEvent] {
        try reading { db in
            try Row.fetchAll(db, sql: "SELECT seq, kind, entityKey, payload, atMs, hash FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?",
                             arguments: [seq, min(limit, Int(Int32.max))]).map(OutboxEvent.init(row:))
        }
    }
}
