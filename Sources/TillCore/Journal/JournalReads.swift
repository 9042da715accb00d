import Foundation
import GRDB
import TillIO
import TillProtocol
#if canImport(Glibc)
import Glibc
#endif

// Reading the journal: entries, the unresolved, batches and totals.
extension Journal {
    // MARK: reading

    static let columns = "id, requestId, action, clientTransactionId, amountCents, tipCents, requestURL, state, createdAtMs, updatedAtMs, response, batchId, batchName, note, tipIncluded"

    /// A row this build cannot read as an entry (an action or state a newer till wrote): an error, never a guess.
    struct UnreadableRow: Error, CustomStringConvertible {
        /// The entry, or nil for a line of the report summary (which belongs to no one entry).
        var id: Int64?; var what: String
        /// What the row is: an entry, or a batch event (the shifts' history).
        var kind = "journal entry"
        var description: String {
            (id.map { "\(kind) \($0)" } ?? "the journal's report summary") + " has \(what) this version of till does not know; use a newer till to read it"
        }
    }

    static func entry(from row: Row) throws -> JournalEntry {
        let responseText: String? = row["response"]
        // The answer as journaled (JSON this code wrote); the money columns, state and summary never depend on it, so a
        // row whose JSON could not be read still counts right and shows its columns.
        let response = responseText.flatMap { try? JSONDecoder().decode(CallbackResponse.self, from: Data($0.utf8)) }
        let amount: Int? = row["amountCents"]
        let tip: Int? = row["tipCents"]
        guard let action = Action(rawValue: row["action"]) else { throw UnreadableRow(id: row["id"], what: "an action ('\(String(describing: row["action"] as String?))')") }
        guard let state = EntryState(rawValue: row["state"]) else { throw UnreadableRow(id: row["id"], what: "a state ('\(String(describing: row["state"] as String?))')") }
        return JournalEntry(id: row["id"], requestId: row["requestId"], action: action,
                            clientTransactionId: row["clientTransactionId"], amount: amount.map(Money.init(cents:)),
                            tipAmount: tip.map(Money.init(cents:)), requestURL: row["requestURL"],
                            state: state, createdAtMs: row["createdAtMs"],
                            updatedAtMs: row["updatedAtMs"], response: response, batchId: row["batchId"],
                            batchName: row["batchName"], note: row["note"],
                            tipStyle: (row["tipIncluded"] as Int?) == 1 ? .included : .onTop)
    }

    public func entry(id: Int64) throws -> JournalEntry? {
        try reading { db in
            try Row.fetchOne(db, sql: "SELECT \(Journal.columns) FROM entry WHERE id = ?", arguments: [id]).map(Journal.entry(from:))
        }
    }

    /// Answers journaled for review after `e` that carry its reference: the terminal said something else about the
    /// same payment (its decline, then its approval). What `e` holds is then not certain.
    public func answersContradicting(_ e: JournalEntry) throws -> [JournalEntry] {
        guard let ctid = e.clientTransactionId else { return [] }
        return try reading { db in
            try Row.fetchAll(db, sql: "SELECT \(Journal.columns) FROM entry WHERE origin = 'unmatched' AND state = 'review' "
                             + "AND clientTransactionId = ? AND id > ? ORDER BY id", arguments: [ctid, e.id]).map(Journal.entry(from:))
        }
    }

    public func entry(requestId: String) throws -> JournalEntry? {
        try reading { db in
            try Row.fetchOne(db, sql: "SELECT \(Journal.columns) FROM entry WHERE requestId = ?", arguments: [requestId])
                .map(Journal.entry(from:))
        }
    }

    /// Requests of this action that carry no reference and still wait for the terminal, newest first (a few: an
    /// indexed read whatever the journal's size, so that a flood of stray answers costs the same on any journal).
    public func awaitingWithoutReference(action: Action, limit: Int = 16) throws -> [JournalEntry] {
        try reading { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Journal.columns) FROM entry WHERE state IN ('pending', 'sent', 'unknown') AND action = ?
                  AND clientTransactionId IS NULL AND origin = 'request' ORDER BY id DESC LIMIT ?
                """, arguments: [action.rawValue, limit]).map(Journal.entry(from:))
        }
    }

    /// Entries that need attention (pending, sent, unknown, or an answer to review), oldest first.
    public func unresolved() throws -> [JournalEntry] {
        try reading(Journal.unresolved)
    }

    static func unresolved(_ db: Database) throws -> [JournalEntry] {
        try Row.fetchAll(db, sql: unresolvedSQL).map(Journal.entry(from:))
    }

    static let unresolvedSQL = "SELECT \(Journal.columns) FROM entry WHERE state IN ('pending', 'sent', 'unknown', 'review') ORDER BY id"

    /// What the first frame shows: the shift and what needs attention, read at once (one snapshot).
    public func glance(nowMs: Int64 = WallClock.nowMs()) throws -> JournalGlance {
        try reading { db in try Journal.glance(db, nowMs: nowMs) }
    }

    /// Someone else's SQLite database: tables, but none of till's.
    static func isForeign(_ db: Database) throws -> Bool {
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        return !tables.isEmpty && !tables.contains("grdb_migrations")
    }

    /// Whether the file at `path` is someone else's SQLite database, read through a read-only connection that is
    /// closed before this returns; nil when it cannot be read so (the writer then checks it).
    static func isForeignReadOnly(_ path: String) -> Bool? {
        var config = Configuration()
        config.readonly = true
        guard let queue = try? DatabaseQueue(path: path, configuration: config) else { return nil }
        defer { try? queue.close() }
        return try? queue.read(isForeign)
    }

    /// What the first frame shows: the current batch and the entries that need attention.
    static func glance(_ db: Database, nowMs: Int64) throws -> JournalGlance {
        JournalGlance(batch: try latestBatch(db, nowMs: nowMs)?.info ?? BatchInfo(), unresolved: try Journal.unresolved(db))
    }

    /// Request entries (not unmatched answers) with this client transaction id, newest first.
    public func entries(clientTransactionId: String) throws -> [JournalEntry] {
        try reading { db in
            try Row.fetchAll(db, sql: "SELECT \(Journal.columns) FROM entry WHERE clientTransactionId = ? AND origin = 'request' ORDER BY id DESC",
                             arguments: [clientTransactionId]).map(Journal.entry(from:))
        }
    }

    /// Lists entries newest first. `currentBatch` is resolved by the caller into `batch(id)`.
    public func entries(_ filter: JournalFilter, currentBatchId: String? = nil) throws -> [JournalEntry] {
        var out: [JournalEntry] = []
        try forEachEntry(filter, currentBatchId: currentBatchId) { out.append($0) }
        return out
    }

    /// The entries `entries(_:currentBatchId:)` lists, newest first, one at a time from one snapshot: a listing of the
    /// whole journal holds one row at a time, never all of them.
    public func forEachEntry(_ filter: JournalFilter, currentBatchId: String? = nil, _ body: (JournalEntry) throws -> Void) throws {
        var conditions: [String] = []
        var args: [(any DatabaseValueConvertible)?] = []
        switch filter.scope {
        case .all: break
        case .currentBatch:
            if let currentBatchId { conditions.append("batchId = ?"); args.append(currentBatchId) }
            else { conditions.append("batchId IS NULL") }
        case .batch(let id): conditions.append("batchId = ?"); args.append(id)
        }
        if let t = filter.text?.trimmingWhitespace(), !t.isEmpty {
            let like = "%" + t.replacingOccurrences(of: "%", with: "").replacingOccurrences(of: "_", with: "") + "%"
            var alternatives = ["stan LIKE ?", "orderCode LIKE ?", "shortOrderCode LIKE ?", "clientTransactionId LIKE ?",
                                "cardType LIKE ?", "message LIKE ?"]
            args.append(contentsOf: Array(repeating: like, count: alternatives.count))
            // Search text that reads as an amount also matches amounts; any other text is only searched as text.
            if let m = try? Money.parse(t) { alternatives.append("amountCents = ?"); args.append(m.cents) }
            conditions.append("(" + alternatives.joined(separator: " OR ") + ")")
        }
        var sql = "SELECT \(Journal.columns) FROM entry"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY id DESC LIMIT ?"
        args.append(max(0, filter.limit))
        let arguments = StatementArguments(args)
        try reading { db in
            let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            while let row = try rows.next() { try body(try Journal.entry(from: row)) }
        }
    }

    /// The last batch event, if any.
    public func lastBatchEvent() throws -> BatchEvent? {
        try reading { db in
            try Row.fetchOne(db, sql: "SELECT * FROM batch_event ORDER BY id DESC LIMIT 1").map(Journal.batchEvent(from:))
        }
    }

    public func batchEvents(limit: Int = 1000) throws -> [BatchEvent] {
        try reading { db in
            try Row.fetchAll(db, sql: "SELECT * FROM batch_event ORDER BY id DESC LIMIT ?", arguments: [limit]).map(Journal.batchEvent(from:))
        }
    }

    static func batchEvent(from r: Row) throws -> BatchEvent {
        guard let command = BatchCommand(rawValue: r["command"]) else {
            throw UnreadableRow(id: r["id"], what: "a batch command ('\(String(describing: r["command"] as String?))')", kind: "batch event")
        }
        return BatchEvent(id: r["id"], entryId: r["entryId"], command: command,
                          batchId: r["batchId"], batchName: r["batchName"], atMs: r["atMs"])
    }

    /// The batch as the journal knows it: open when the last event opened one (less than 48 hours ago).
    /// The open batch as the batch history tells it, including one the terminal started by itself after a 48-hour
    /// auto-close (batch.txt:10), so entries made meanwhile are filed under it.
    public func batch(nowMs: Int64 = WallClock.nowMs()) throws -> BatchInfo {
        try latestBatch(nowMs: nowMs)?.info ?? BatchInfo()
    }

    /// A PRAGMA's value as text (`journal_mode`, `synchronous`), for checks: on the journal's one connection, the one
    /// whose commits must reach the disk.
    public func pragma(_ name: String) throws -> String? {
        try reading { db in try String.fetchOne(db, sql: "PRAGMA \(name)") }
    }

    public func count() throws -> Int {
        try reading { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM entry") ?? 0 }
    }

    /// Bulk insert for benchmarks and tests of reports: settled entries, one transaction.
    public func insertSettled(_ rows: [(action: Action, state: EntryState, amountCents: Int, tipCents: Int, batchId: String?, atMs: Int64)]) throws {
        try write { db in
            let stmt = try db.makeStatement(sql: """
                INSERT INTO entry (requestId, action, origin, amountCents, tipCents, requestURL, state, createdAtMs, updatedAtMs, batchId, batchName)
                VALUES (?, ?, 'request', ?, ?, '', ?, ?, ?, ?, ?)
                """)
            for r in rows {
                try stmt.execute(arguments: [UUID().uuidString.lowercased(), r.action.rawValue, r.amountCents, r.tipCents,
                                             r.state.rawValue, r.atMs, r.atMs, r.batchId, r.batchId])
            }
        }
    }
}
