import Foundation
import GRDB
import TillIO
import TillProtocol
#if canImport(Glibc)
import Glibc
#endif

/// Where an entry came from.
public enum EntryOrigin: String, Sendable, Hashable, Codable {
    /// A request till sent (or meant to send).
    case request
    /// An answer that matched nothing till had in flight or left unknown: kept, not dropped.
    case unmatched
}

/// Counts and sums of one batch's approved entries, per action.
public struct ActionTotals: Sendable, Hashable, Codable {
    public var count: Int
    public var amountCents: Int
    public var tipCents: Int
    public init(count: Int = 0, amountCents: Int = 0, tipCents: Int = 0) {
        self.count = count; self.amountCents = amountCents; self.tipCents = tipCents
    }
}

public struct BatchTotals: Sendable, Hashable, Codable {
    public var sales = ActionTotals()
    public var refunds = ActionTotals()
    public var preAuths = ActionTotals()
    public var captures = ActionTotals()
    /// Entries of the batch still needing attention (pending/sent/unknown).
    public var unresolved = 0
    /// Declined or aborted sales.
    public var declinedSales = 0
    public init() {}
}

/// One batch open/close event as the terminal confirmed it.
public struct BatchEvent: Sendable, Hashable, Codable {
    public var id: Int64
    public var entryId: Int64?
    public var command: BatchCommand
    public var batchId: String?
    public var batchName: String?
    public var atMs: Int64
}

/// The write-ahead journal: every request and answer, in a SQLite file (WAL, synchronous=FULL).
///
/// Schema (table `entry`, one row per request or unmatched answer):
/// `id, requestId (unique), action, origin (request|unmatched), parentId (an abort: the entry it aborts),
///  clientTransactionId, amountCents, tipCents (integer cents: the answer's when it carried one, else the request's),
///  requestURL (redacted), state, createdAtMs, sentAtMs, answeredAtMs, updatedAtMs, batchId, batchName,
///  status, message, stan, orderCode, shortOrderCode, transactionId, cardType, response (JSON, masked), note`.
/// Table `batch_event`: `id, entryId, command (open|close), batchId, batchName, atMs`.
/// Indexes: `(batchId)` lists a batch newest first; `(state)` finds what needs attention; `(clientTransactionId)`,
/// `(createdAtMs)`. Batch totals come from `batch_summary`, kept by triggers (see JournalReports.swift).
public final class Journal: Sendable {
    public let path: String
    let pool: DatabasePool

    /// `$XDG_DATA_HOME/till/journal.sqlite`, else `~/.local/share/till/journal.sqlite`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let x = environment["XDG_DATA_HOME"], x.hasPrefix("/") { return x + "/till/journal.sqlite" }
        let home = environment["HOME"] ?? "/tmp"
        return home + "/.local/share/till/journal.sqlite"
    }

    /// Opens (creating if needed) the journal. A folder till creates is 0700; the file and its WAL are 0600.
    public init(path: String) throws {
        self.path = path
        let dir = Path.directory(of: path)
        if !Path.exists(dir) { try Path.makeDirectories(dir, mode: 0o700) }
        if !Path.exists(path) {
            let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw FileError(path: path, operation: "create journal") }
            close(fd)
        }
        chmod(path, 0o600)
        var config = Configuration()
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        config.busyMode = .timeout(10)
        pool = try DatabasePool(path: path, configuration: config)
        for suffix in ["-wal", "-shm"] where Path.exists(path + suffix) { chmod(path + suffix, 0o600) }
        try Journal.migrator.migrate(pool)
    }

    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.execute(sql: """
            CREATE TABLE entry (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              requestId TEXT NOT NULL UNIQUE,
              action TEXT NOT NULL,
              origin TEXT NOT NULL DEFAULT 'request',
              parentId INTEGER,
              clientTransactionId TEXT,
              amountCents INTEGER,
              tipCents INTEGER,
              requestURL TEXT NOT NULL,
              state TEXT NOT NULL,
              createdAtMs INTEGER NOT NULL,
              sentAtMs INTEGER,
              answeredAtMs INTEGER,
              updatedAtMs INTEGER NOT NULL,
              batchId TEXT,
              batchName TEXT,
              status TEXT,
              message TEXT,
              stan TEXT,
              orderCode TEXT,
              shortOrderCode TEXT,
              transactionId TEXT,
              cardType TEXT,
              response TEXT,
              note TEXT
            );
            CREATE INDEX entry_batch ON entry(batchId);
            CREATE INDEX entry_state ON entry(state);
            CREATE INDEX entry_ctid ON entry(clientTransactionId);
            CREATE INDEX entry_created ON entry(createdAtMs);
            CREATE TABLE batch_event (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              entryId INTEGER,
              command TEXT NOT NULL,
              batchId TEXT,
              batchName TEXT,
              atMs INTEGER NOT NULL
            );
            """)
        }
        registerReportMigrations(&m)
        return m
    }

    // MARK: writing

    /// Journals a request before it is sent (state `pending`). Returns the entry with its id.
    public func insertPending(requestId: String, request: TerminalRequest, batch: BatchInfo, parentId: Int64? = nil,
                              nowMs: Int64 = WallClock.nowMs()) throws -> JournalEntry {
        let (amount, tip) = Journal.amounts(of: request.request)
        let url = request.redactedURL
        let id = try pool.write { db -> Int64 in
            try db.execute(sql: """
                INSERT INTO entry (requestId, action, origin, parentId, clientTransactionId, amountCents, tipCents, requestURL,
                                   state, createdAtMs, updatedAtMs, batchId, batchName)
                VALUES (?, ?, 'request', ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?)
                """, arguments: [requestId, request.request.action.rawValue, parentId, request.request.clientTransactionId,
                                 amount?.cents, tip?.cents, url, nowMs, nowMs, batch.isOpen ? batch.id : nil,
                                 batch.isOpen ? batch.name : nil])
            return db.lastInsertedRowID
        }
        return JournalEntry(id: id, requestId: requestId, action: request.request.action,
                            clientTransactionId: request.request.clientTransactionId, amount: amount, tipAmount: tip,
                            requestURL: url, state: .pending, createdAtMs: nowMs, updatedAtMs: nowMs,
                            batchId: batch.isOpen ? batch.id : nil, batchName: batch.isOpen ? batch.name : nil)
    }

    static func amounts(of r: Request) -> (Money?, Money?) {
        switch r {
        case .sale(let s): return (s.amount, s.tipAmount)
        case .preAuth(let p): return (p.amount, nil)
        case .cancel(let c): return (c.amount, nil)
        case .capturePreAuth(let c): return (c.amount, nil)
        default: return (nil, nil)
        }
    }

    public func markSent(_ id: Int64, nowMs: Int64 = WallClock.nowMs()) throws {
        try pool.write { db in
            try db.execute(sql: "UPDATE entry SET state = 'sent', sentAtMs = ?, updatedAtMs = ? WHERE id = ? AND state = 'pending'",
                           arguments: [nowMs, nowMs, id])
        }
    }

    /// Sets state and note (no answer involved): unknown, resolved.
    public func setState(_ id: Int64, _ state: EntryState, note: String?, nowMs: Int64 = WallClock.nowMs()) throws {
        try pool.write { db in
            try db.execute(sql: "UPDATE entry SET state = ?, note = ?, updatedAtMs = ? WHERE id = ?",
                           arguments: [state.rawValue, note, nowMs, id])
        }
    }

    /// The answer as it is stored: secrets that a peer echoed back are redacted too.
    static func storable(_ r: CallbackResponse) -> CallbackResponse {
        var r = r
        for i in r.fields.indices where Secrets.fieldNames.contains(r.fields[i].name) {
            r.fields[i].value = Secrets.placeholder
        }
        return r
    }

    static func encode(_ r: CallbackResponse) -> String {
        let data = (try? JSONEncoder().encode(storable(r))) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Journals an answer onto an entry and settles its state. Also records batch events for batch answers.
    public func recordAnswer(_ id: Int64, response: CallbackResponse, state: EntryState, note: String?,
                             nowMs: Int64 = WallClock.nowMs()) throws {
        try pool.write { db in
            try db.execute(sql: """
                UPDATE entry SET state = ?, note = ?, answeredAtMs = ?, updatedAtMs = ?, status = ?, message = ?, stan = ?,
                  orderCode = ?, shortOrderCode = ?, transactionId = ?, cardType = ?, verificationMethod = ?, response = ?,
                  amountCents = COALESCE(?, amountCents), tipCents = COALESCE(?, tipCents),
                  clientTransactionId = COALESCE(clientTransactionId, ?)
                WHERE id = ?
                """, arguments: [state.rawValue, note, nowMs, nowMs, response.status.description, response.message,
                                 response.referenceNumber, response.orderCode, response.shortOrderCode, response.transactionId,
                                 response.cardType, response.verificationMethod, Journal.encode(response), response.amount?.cents,
                                 response.tipAmount?.cents,
                                 response.clientTransactionId, id])
            if response.action == .batch, response.isApproved, state == .approved {
                try Journal.insertBatchEvent(db, entryId: id, response: response, nowMs: nowMs)
                if response.command?.lowercased() == "open" {
                    // The entry that opened a batch belongs to it.
                    try db.execute(sql: "UPDATE entry SET batchId = ?, batchName = ? WHERE id = ?",
                                   arguments: [response.batchId, response.batchName, id])
                }
                try Journal.storeZReportOnClose(db, nowMs: nowMs)
            }
        }
    }

    static func insertBatchEvent(_ db: Database, entryId: Int64?, response: CallbackResponse, nowMs: Int64) throws {
        guard let c = response.command.flatMap({ BatchCommand(rawValue: $0.lowercased()) }) else { return }
        try db.execute(sql: "INSERT INTO batch_event (entryId, command, batchId, batchName, atMs) VALUES (?, ?, ?, ?, ?)",
                       arguments: [entryId, c.rawValue, response.batchId, response.batchName, nowMs])
    }

    /// Journals an answer that matched nothing: a row of its own (origin `unmatched`).
    public func insertUnmatched(response: CallbackResponse, note: String, batch: BatchInfo,
                                nowMs: Int64 = WallClock.nowMs()) throws -> JournalEntry {
        let state: EntryState = response.isApproved ? .approved : (response.abortOutcome == .aborted ? .aborted : .declined)
        let requestId = "unmatched-" + UUID().uuidString.lowercased()
        let action = response.action ?? .sale
        let id = try pool.write { db -> Int64 in
            try db.execute(sql: """
                INSERT INTO entry (requestId, action, origin, clientTransactionId, amountCents, tipCents, requestURL, state,
                                   createdAtMs, answeredAtMs, updatedAtMs, batchId, batchName, status, message, stan, orderCode,
                                   shortOrderCode, transactionId, cardType, verificationMethod, response, note)
                VALUES (?, ?, 'unmatched', ?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [requestId, action.rawValue, response.clientTransactionId, response.amount?.cents,
                                 response.tipAmount?.cents, state.rawValue, nowMs, nowMs, nowMs,
                                 batch.isOpen ? batch.id : nil, batch.isOpen ? batch.name : nil,
                                 response.status.description, response.message, response.referenceNumber, response.orderCode,
                                 response.shortOrderCode, response.transactionId, response.cardType, response.verificationMethod,
                                 Journal.encode(response), note])
            let rowId = db.lastInsertedRowID
            if response.action == .batch, response.isApproved {
                try Journal.insertBatchEvent(db, entryId: rowId, response: response, nowMs: nowMs)
                try Journal.storeZReportOnClose(db, nowMs: nowMs)
            }
            return rowId
        }
        return try entry(id: id)!
    }

    // MARK: reading

    static let columns = "id, requestId, action, clientTransactionId, amountCents, tipCents, requestURL, state, createdAtMs, updatedAtMs, response, batchId, batchName, note"

    static func entry(from row: Row) -> JournalEntry {
        let responseText: String? = row["response"]
        let response = responseText.flatMap { try? JSONDecoder().decode(CallbackResponse.self, from: Data($0.utf8)) }
        let amount: Int? = row["amountCents"]
        let tip: Int? = row["tipCents"]
        return JournalEntry(id: row["id"], requestId: row["requestId"], action: Action(rawValue: row["action"]) ?? .sale,
                            clientTransactionId: row["clientTransactionId"], amount: amount.map(Money.init(cents:)),
                            tipAmount: tip.map(Money.init(cents:)), requestURL: row["requestURL"],
                            state: EntryState(rawValue: row["state"]) ?? .unknown, createdAtMs: row["createdAtMs"],
                            updatedAtMs: row["updatedAtMs"], response: response, batchId: row["batchId"],
                            batchName: row["batchName"], note: row["note"])
    }

    public func entry(id: Int64) throws -> JournalEntry? {
        try pool.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Journal.columns) FROM entry WHERE id = ?", arguments: [id]).map(Journal.entry(from:))
        }
    }

    public func entry(requestId: String) throws -> JournalEntry? {
        try pool.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Journal.columns) FROM entry WHERE requestId = ?", arguments: [requestId])
                .map(Journal.entry(from:))
        }
    }

    public func origin(of id: Int64) throws -> EntryOrigin? {
        try pool.read { db in
            try String.fetchOne(db, sql: "SELECT origin FROM entry WHERE id = ?", arguments: [id]).flatMap(EntryOrigin.init(rawValue:))
        }
    }

    public func parentId(of id: Int64) throws -> Int64? {
        try pool.read { db in try Int64.fetchOne(db, sql: "SELECT parentId FROM entry WHERE id = ?", arguments: [id]) }
    }

    /// Entries still pending, sent or unknown, oldest first.
    public func unresolved() throws -> [JournalEntry] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT \(Journal.columns) FROM entry WHERE state IN ('pending', 'sent', 'unknown') ORDER BY id")
                .map(Journal.entry(from:))
        }
    }

    /// Request entries (not unmatched answers) with this client transaction id, newest first.
    public func entries(clientTransactionId: String) throws -> [JournalEntry] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT \(Journal.columns) FROM entry WHERE clientTransactionId = ? AND origin = 'request' ORDER BY id DESC",
                             arguments: [clientTransactionId]).map(Journal.entry(from:))
        }
    }

    /// Lists entries newest first. `currentBatch` is resolved by the caller into `batch(id)`.
    public func entries(_ filter: JournalFilter, currentBatchId: String? = nil) throws -> [JournalEntry] {
        var conditions: [String] = []
        var args: [(any DatabaseValueConvertible)?] = []
        switch filter.scope {
        case .all: break
        case .currentBatch:
            if let currentBatchId { conditions.append("batchId = ?"); args.append(currentBatchId) }
            else { conditions.append("batchId IS NULL") }
        case .batch(let id): conditions.append("batchId = ?"); args.append(id)
        }
        if let t = filter.text?.trimmingCharacters(in: .whitespaces), !t.isEmpty {
            let like = "%" + t.replacingOccurrences(of: "%", with: "").replacingOccurrences(of: "_", with: "") + "%"
            var alternatives = ["stan LIKE ?", "orderCode LIKE ?", "shortOrderCode LIKE ?", "clientTransactionId LIKE ?",
                                "cardType LIKE ?", "message LIKE ?"]
            args.append(contentsOf: Array(repeating: like, count: alternatives.count))
            if let m = try? Money.parse(t) { alternatives.append("amountCents = ?"); args.append(m.cents) }
            conditions.append("(" + alternatives.joined(separator: " OR ") + ")")
        }
        var sql = "SELECT \(Journal.columns) FROM entry"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY id DESC LIMIT ?"
        args.append(max(0, filter.limit))
        let arguments = StatementArguments(args)
        return try pool.read { db in try Row.fetchAll(db, sql: sql, arguments: arguments).map(Journal.entry(from:)) }
    }

    /// Counts and sums of a batch's approved sales, refunds, pre-auths and captures (nil: entries outside any batch),
    /// read from the trigger-maintained `batch_summary` (the same rows the shift reports read).
    public func totals(batchId: String?) throws -> BatchTotals {
        var t = BatchTotals()
        for b in try reportBuckets(batchId: batchId) {
            let a = ActionTotals(count: b.count, amountCents: b.amountCents, tipCents: b.tipCents)
            if b.state.needsAttention { t.unresolved += b.count; continue }
            if b.action == .sale && (b.state == .declined || b.state == .aborted) { t.declinedSales += b.count }
            guard b.state == .approved else { continue }
            func add(_ x: inout ActionTotals) {
                x.count += a.count; x.amountCents += a.amountCents; x.tipCents += a.tipCents
            }
            switch b.action {
            case .sale: add(&t.sales)
            case .cancel: add(&t.refunds)
            case .preAuth: add(&t.preAuths)
            case .capturePreAuth: add(&t.captures)
            default: break
            }
        }
        return t
    }

    /// The last batch event, if any.
    public func lastBatchEvent() throws -> BatchEvent? {
        try pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM batch_event ORDER BY id DESC LIMIT 1").map(Journal.batchEvent(from:))
        }
    }

    public func batchEvents(limit: Int = 1000) throws -> [BatchEvent] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM batch_event ORDER BY id DESC LIMIT ?", arguments: [limit]).map(Journal.batchEvent(from:))
        }
    }

    static func batchEvent(from r: Row) -> BatchEvent {
        BatchEvent(id: r["id"], entryId: r["entryId"], command: BatchCommand(rawValue: r["command"]) ?? .close,
                   batchId: r["batchId"], batchName: r["batchName"], atMs: r["atMs"])
    }

    /// The batch as the journal knows it: open when the last event opened one (less than 48 hours ago).
    public func batch(nowMs: Int64 = WallClock.nowMs()) throws -> BatchInfo {
        guard let e = try lastBatchEvent(), e.command == .open else { return BatchInfo() }
        let info = BatchInfo(id: e.batchId, name: e.batchName, openedAtMs: e.atMs, isOpen: true)
        if let close = info.autoCloseAtMs, nowMs >= close { return BatchInfo(id: e.batchId, name: e.batchName, openedAtMs: e.atMs, isOpen: false) }
        return info
    }

    /// A PRAGMA's value as text (`journal_mode`, `synchronous`), for checks.
    public func pragma(_ name: String) throws -> String? {
        try pool.read { db in try String.fetchOne(db, sql: "PRAGMA \(name)") }
    }

    public func count() throws -> Int {
        try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM entry") ?? 0 }
    }

    /// Bulk insert for benchmarks and tests of reports: settled entries, one transaction.
    public func insertSettled(_ rows: [(action: Action, state: EntryState, amountCents: Int, tipCents: Int, batchId: String?, atMs: Int64)]) throws {
        try pool.write { db in
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
