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
    public static func defaultPath(environment: Environment = .process) -> String {
        if let x = environment["XDG_DATA_HOME"], x.hasPrefix("/") { return x + "/till/journal.sqlite" }
        let home = environment["HOME"] ?? "/tmp"
        return home + "/.local/share/till/journal.sqlite"
    }

    /// Test-only fault injection: makes journal writes fail as a full disk would (the randomized whole-system test
    /// and the disk-full regression test use it; nothing else sets it).
    public let faults = JournalFaults()

    /// Opens (creating if needed) the journal. A folder till creates is 0700; the file and its WAL are 0600.
    /// Refuses, and changes nothing, when the path is a symbolic link, not a regular file, or a file that is not a
    /// till journal: till never chmods or writes a file that is not already its own journal.
    /// How the terminal's amounts relate to its tips, for the reports (config `tip`).
    public let tipStyle: TipStyle

    /// `readOnly` opens an existing journal for reading only (nothing is created, changed, migrated or chmodded): for
    /// the commands that only read (`journal`, `report`, `export`, `batches`) when the file cannot be written.
    public init(path: String, tipStyle: TipStyle = .onTop, readOnly: Bool = false) throws {
        self.tipStyle = tipStyle
        self.readOnly = readOnly
        guard !path.isEmpty else { throw JournalOpenError(path: path, reason: "no journal path was given (journal = \"\")") }
        self.path = path
        let dir = Path.directory(of: path)
        if !Path.exists(dir) { try Path.makeDirectories(dir, mode: 0o700) }
        var st = stat()
        var created = false
        if lstat(path, &st) == 0 {
            if (st.st_mode & S_IFMT) == S_IFLNK {
                throw JournalOpenError(path: path, reason: "it is a symbolic link; give the journal's real path")
            }
            if (st.st_mode & S_IFMT) != S_IFREG { throw JournalOpenError(path: path, reason: "it is not a regular file") }
            // Never open and close the file while an SQLite connection of this process has it open: closing any
            // descriptor of a file drops all of the process's POSIX locks on it, and another process could then
            // checkpoint and delete the WAL under our feet (our next commits lost). A journal already open here was
            // checked when it was opened.
            if st.st_size > 0, !Journal.isOpenInProcess(st), !Journal.hasSQLiteHeader(path) {
                throw JournalOpenError(path: path, reason: "it is not a till journal (not an SQLite file); till leaves it alone")
            }
        } else if readOnly {
            throw JournalOpenError(path: path, reason: "there is no journal there to read")
        } else {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 {
                Glibc.close(fd)
                created = true
            } else if errno == EEXIST, lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG {
                // Another till made it between the look and the making: it is opened as theirs (the migrations
                // below wait for theirs), and checked as any existing journal is, by SQLite (the tables).
            } else {
                throw FileError(path: path, operation: "create journal")
            }
        }
        var config = Configuration()
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        config.busyMode = .timeout(10)
        // A file that was there is checked first through a read-only connection of its own, after the checks above
        // (their own open and close of the file must not overlap an SQLite connection of this process) and before
        // the writer, whose set-up turns the file to WAL: someone else's SQLite database is found foreign without a
        // byte of it changed. SQLite keeps the locks of its connections in one process apart.
        var checked = false
        if !created, let foreign = Journal.isForeignReadOnly(path) {
            checked = true
            if foreign {
                throw JournalOpenError(path: path, reason: "it is an SQLite database, but not a till journal; till leaves it alone")
            }
        }
        if readOnly {
            config.readonly = true
            pool = try DatabasePool(path: path, configuration: config)
            if !checked, try pool.read(Journal.isForeign) {
                throw JournalOpenError(path: path, reason: "it is an SQLite database, but not a till journal; till leaves it alone")
            }
            fileID = lstat(path, &st) == 0 ? Journal.register(st) : nil
            knownSize.withLock { $0 = Int64(st.st_size) }
            return
        }
        pool = try Journal.openPool(path, config)
        // GRDB turns WAL on with `synchronous = NORMAL` on the writer, after `prepareDatabase`: its commits would
        // reach the disk only at the next checkpoint. Every commit of the journal is synced before it returns.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        if !created, !checked {
            // When the read-only connection could not read it: on the writer, which is open already.
            if try pool.writeWithoutTransaction(Journal.isForeign) {
                throw JournalOpenError(path: path, reason: "it is an SQLite database, but not a till journal; till leaves it alone")
            }
        }
        // Only now, with the file known to be a till journal (or new), make it private: owner only, never through a
        // symbolic link (checked again right before), and by path, never by opening it (see above).
        if lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_uid == geteuid(), (st.st_mode & 0o077) != 0 {
            chmod(path, 0o600)
        }
        fileID = lstat(path, &st) == 0 ? Journal.register(st) : nil
        knownSize.withLock { $0 = Int64(st.st_size) }
        Journal.openJournals.withLock { $0.append(WeakJournal(journal: self)) }
        Journal.closeAtExit()
        for suffix in ["-wal", "-shm"] where Path.exists(path + suffix) {
            var s2 = stat()
            if lstat(path + suffix, &s2) == 0, (s2.st_mode & S_IFMT) == S_IFREG, s2.st_uid == geteuid() { chmod(path + suffix, 0o600) }
        }
        try Journal.migrate(pool, tipStyle: tipStyle)
    }

    /// Opens the pool. A new journal is turned to WAL by the first till that opens it; another doing the same at
    /// that moment is told "database is locked" at once (SQLite's busy wait does not cover that change), and tries
    /// again shortly, for up to two seconds: by then the file is in WAL and nothing needs to change.
    static func openPool(_ path: String, _ config: Configuration) throws -> DatabasePool {
        var tries = 0
        while true {
            do { return try DatabasePool(path: path, configuration: config) } catch let error as DatabaseError
                where error.resultCode == .SQLITE_BUSY && tries < 200 {
                tries += 1
                usleep(10_000)
            }
        }
    }

    /// Two tills opening a new journal at once both find its migrations to do; the one that loses the race fails on
    /// a table or column the other has just made (SQLite's write lock makes it wait for the other's transaction
    /// first). Each try reads again which migrations are done, so every failure is a step further; a lasting
    /// failure (a full disk) is thrown after a few.
    static func migrate(_ pool: DatabasePool, tipStyle: TipStyle) throws {
        var tries = 0
        while true {
            do { return try migrator(tipStyle: tipStyle).migrate(pool) } catch {
                tries += 1
                if tries > 4 { throw error }
            }
        }
    }

    /// The journal files this process has open (device and inode), once per open `Journal`. An array, not a
    /// dictionary: it is read before the first frame, and the first use of a dictionary keyed by a new type costs a
    /// scan of every protocol conformance in the binary (about 0.1 ms).
    private static let openFiles = Locked<[FileID]>([])
    struct FileID: Equatable { var dev: UInt64; var ino: UInt64 }
    private let fileID: FileID?
    /// Opened for reading only (`init(readOnly:)`): every write throws.
    public let readOnly: Bool

    static func isOpenInProcess(_ st: stat) -> Bool {
        let id = FileID(dev: UInt64(st.st_dev), ino: UInt64(st.st_ino))
        return openFiles.withLock { $0.contains(id) }
    }

    static func register(_ st: stat) -> FileID {
        let id = FileID(dev: UInt64(st.st_dev), ino: UInt64(st.st_ino))
        openFiles.withLock { $0.append(id) }
        return id
    }

    /// Ends this process's use of the journal: what the write-ahead log holds is copied into the journal file
    /// (a checkpoint) and the log emptied, then the connections are closed; later reads and writes throw.
    /// So the file alone is complete (a copy of it for a backup or the accountant misses nothing, where without
    /// its `-wal` beside it the copy would lack every entry since the last checkpoint), and the next start has no
    /// log to read through before its first frame (a busy day's log is megabytes: about a millisecond a start).
    /// Never waits for another process: one still reading keeps the log, which it empties when it closes in turn,
    /// and nothing is lost either way (the log is part of the journal until it is copied). Called for every open
    /// journal when the process ends (`closeAll`); twice is harmless.
    public func close() {
        guard !closed.withLock({ c in defer { c = true }; return c }) else { return }
        try? pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA busy_timeout = 0")
            _ = try? db.checkpoint(.truncate)
        }
        try? pool.close()
    }
    private let closed = Locked(false)

    /// Closes every journal this process has open (`close()`): when the process ends, by `exit` (an `atexit`
    /// handler, set at the first open) or by a signal (`SignalPipe.terminate` calls it before the signal ends it).
    public static func closeAll() {
        let open = openJournals.withLock { list in defer { list = [] }; return list.compactMap(\.journal) }
        for j in open { j.close() }
    }

    private struct WeakJournal { weak var journal: Journal? }
    private static let openJournals = Locked<[WeakJournal]>([])
    private static let exitHandler = Locked(false)
    private static func closeAtExit() {
        guard !exitHandler.withLock({ set in defer { set = true }; return set }) else { return }
        atexit { Journal.closeAll() }
    }

    deinit {
        guard let id = fileID else { return }
        Journal.openFiles.withLock { files in
            if let i = files.firstIndex(of: id) { files.remove(at: i) }
        }
    }

    static func hasSQLiteHeader(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { Glibc.close(fd) }
        var buf = [UInt8](repeating: 0, count: 16)
        let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, 16) }
        return n == 16 && buf == Array("SQLite format 3\0".utf8)
    }

    /// Every write goes through here, so an injected fault (tests) fails it exactly as a full disk would; and every
    /// write is checked to have gone to the journal at the path: before it (nothing is written to a journal that is
    /// not the one on disk) and after it, before its success is reported (a file replaced meanwhile got the write:
    /// the cashier would be told "approved" while the journal on disk says pending).
    @discardableResult
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try faults.check()
        try checkFile()
        let result = try pool.write(body)
        try checkFile()
        return result
    }

    /// The size the journal file had at the last look; it never shrinks while till uses it (no vacuum; checkpoints
    /// only grow it), so a smaller one was cut short by someone else.
    private let knownSize = Locked<Int64>(0)

    /// Throws `JournalFileError` when the file at the journal's path is not the one this journal has open any more
    /// (deleted, moved, replaced: another device or inode) or was truncated. A look at the path (`lstat`), never an
    /// open: closing a descriptor of the file would drop SQLite's locks on it.
    public func checkFile() throws {
        guard let id = fileID else { return }
        var st = stat()
        guard lstat(path, &st) == 0 else {
            throw JournalFileError(path: path, problem: "was deleted or moved while till ran (\(String(cString: strerror(errno))))")
        }
        if FileID(dev: UInt64(st.st_dev), ino: UInt64(st.st_ino)) != id {
            throw JournalFileError(path: path, problem: "was replaced by another file while till ran")
        }
        let size = Int64(st.st_size)
        let shrunk = knownSize.withLock { known -> Bool in
            if size < known { return true }
            known = size
            return false
        }
        if shrunk { throw JournalFileError(path: path, problem: "was cut short (truncated to \(size) bytes) while till ran") }
    }

    /// SQLite's own check of the file: `quick_check` (every page readable and well-formed; linear in the journal's
    /// size), or with `full` `integrity_check` (also that every index agrees with its table: an export reads through
    /// an index, and a damaged one silently leaves rows out). Throws `JournalDamagedError` with SQLite's findings.
    public func checkIntegrity(full: Bool = false) throws {
        let findings: [String]
        do {
            findings = try pool.read { db in
                try String.fetchAll(db, sql: full ? "PRAGMA integrity_check(20)" : "PRAGMA quick_check(20)")
            }
        } catch {
            throw JournalDamagedError(path: path, findings: ["\(error)"])
        }
        if findings != ["ok"] { throw JournalDamagedError(path: path, findings: findings) }
    }

    /// `tipStyle`: the style entries journaled before the journal kept one per entry are read with (the config's when
    /// the journal is first opened by a till that keeps it).
    static func migrator(tipStyle: TipStyle) -> DatabaseMigrator {
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
        m.registerMigration("v3-money") { db in
            try db.execute(sql: """
            ALTER TABLE entry ADD COLUMN requestedAmountCents INTEGER;
            ALTER TABLE entry ADD COLUMN requestedTipCents INTEGER;
            ALTER TABLE entry ADD COLUMN retryConfirmedAtMs INTEGER;
            UPDATE entry SET requestedAmountCents = amountCents, requestedTipCents = tipCents WHERE origin = 'request';
            CREATE INDEX entry_transaction ON entry(transactionId);
            -- Answers that matched nothing were counted as sales and could open or close batches: they need review.
            DELETE FROM batch_event WHERE entryId IN (SELECT id FROM entry WHERE origin = 'unmatched');
            UPDATE entry SET state = 'review' WHERE origin = 'unmatched' AND state IN ('approved', 'declined', 'aborted');
            """)
        }
        m.registerMigration("v4-z-restated") { db in
            // A Z report holds every entry journaled in its batch: one settled after the close (a sale in flight when a
            // late close answer came) makes the stored one stale, so it is dropped and made again when next asked for.
            try db.execute(sql: """
            CREATE TRIGGER z_report_restated AFTER UPDATE OF state, amountCents, tipCents ON entry WHEN NEW.batchId IS NOT NULL BEGIN
              DELETE FROM z_report WHERE batchKey = NEW.batchId;
            END;
            """)
        }
        registerTipStyleMigration(&m, tipStyle: tipStyle)
        registerBatchIndexMigration(&m)
        registerOutboxMigration(&m)
        return m
    }

    // MARK: writing

    /// Journals a request before it is sent (state `pending`). Returns the entry with its id.
    public func insertPending(requestId: String, request: TerminalRequest, batch: BatchInfo, parentId: Int64? = nil,
                              nowMs: Int64 = WallClock.nowMs()) throws -> JournalEntry {
        let (amount, tip) = Journal.amounts(of: request.request)
        let url = request.redactedURL
        let id = try write { db -> Int64 in
            try db.execute(sql: """
                INSERT INTO entry (requestId, action, origin, parentId, clientTransactionId, amountCents, tipCents, requestURL,
                                   state, createdAtMs, updatedAtMs, batchId, batchName, requestedAmountCents, requestedTipCents, tipIncluded)
                VALUES (?, ?, 'request', ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [requestId, request.request.action.rawValue, parentId, request.request.clientTransactionId,
                                 amount?.cents, tip?.cents, url, nowMs, nowMs, batch.isOpen ? batch.id : nil,
                                 batch.isOpen ? batch.name : nil, amount?.cents, tip?.cents, tipStyle == .included])
            return db.lastInsertedRowID
        }
        return JournalEntry(id: id, requestId: requestId, action: request.request.action,
                            clientTransactionId: request.request.clientTransactionId, amount: amount, tipAmount: tip,
                            requestURL: url, state: .pending, createdAtMs: nowMs, updatedAtMs: nowMs,
                            batchId: batch.isOpen ? batch.id : nil, batchName: batch.isOpen ? batch.name : nil, tipStyle: tipStyle)
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

    /// `pending` → `sent`. False when the entry had already moved on (an answer came first).
    @discardableResult
    public func markSent(_ id: Int64, nowMs: Int64 = WallClock.nowMs()) throws -> Bool {
        try write { db in
            try db.execute(sql: "UPDATE entry SET state = 'sent', sentAtMs = ?, updatedAtMs = ? WHERE id = ? AND state = 'pending'",
                           arguments: [nowMs, nowMs, id])
            return db.changesCount > 0
        }
    }

    /// Sets state and note (no answer involved), whatever the state was. Prefer `transition`, which cannot overwrite
    /// what another process journaled meanwhile.
    public func setState(_ id: Int64, _ state: EntryState, note: String?, nowMs: Int64 = WallClock.nowMs()) throws {
        try write { db in
            try db.execute(sql: "UPDATE entry SET state = ?, note = ?, updatedAtMs = ? WHERE id = ?",
                           arguments: [state.rawValue, note, nowMs, id])
        }
    }

    /// Compare-and-set: moves the entry to `state` only if it is still in one of `from`. Returns whether it moved.
    /// Two processes on one journal can never overwrite each other's answer this way (an approved entry is never
    /// rewritten to unknown by another process's recovery).
    @discardableResult
    public func transition(_ id: Int64, to state: EntryState, note: String?, from: Set<EntryState>,
                           nowMs: Int64 = WallClock.nowMs()) throws -> Bool {
        let only = Journal.stateCondition(from)
        return try write { db in
            try db.execute(sql: "UPDATE entry SET state = ?, note = ?, updatedAtMs = ? WHERE id = ?" + only.sql,
                           arguments: StatementArguments([state.rawValue, note, nowMs, id] as [(any DatabaseValueConvertible)?]) + only.arguments)
            return db.changesCount > 0
        }
    }

    /// ` AND state IN (?, …)` and its values: the compare part of every compare-and-set.
    static func stateCondition(_ states: Set<EntryState>) -> (sql: String, arguments: StatementArguments) {
        let values = states.map(\.rawValue).sorted()
        return (" AND state IN (" + values.map { _ in "?" }.joined(separator: ",") + ")", StatementArguments(values))
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
        // Encoding a CallbackResponse (strings only) cannot fail; an empty text would read back as "no answer".
        let data = (try? JSONEncoder().encode(storable(r))) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Journals an answer onto an entry and settles its state. Also records batch events for batch answers of
    /// requests till sent. With `onlyIf`, only when the entry is still in one of those states (returns false otherwise).
    @discardableResult
    public func recordAnswer(_ id: Int64, response: CallbackResponse, state: EntryState, note: String?,
                             onlyIf: Set<EntryState>? = nil, nowMs: Int64 = WallClock.nowMs()) throws -> Bool {
        try write { db in
            var sql = """
                UPDATE entry SET state = ?, note = ?, answeredAtMs = ?, updatedAtMs = ?, status = ?, message = ?, stan = ?,
                  orderCode = ?, shortOrderCode = ?, transactionId = ?, cardType = ?, verificationMethod = ?, response = ?,
                  amountCents = COALESCE(?, amountCents), tipCents = COALESCE(?, tipCents),
                  clientTransactionId = COALESCE(clientTransactionId, ?)
                WHERE id = ?
                """
            let values: [(any DatabaseValueConvertible)?] = [
                state.rawValue, note, nowMs, nowMs, response.status.description, response.message,
                response.referenceNumber, response.orderCode, response.shortOrderCode, response.transactionId,
                response.cardType, response.verificationMethod, Journal.encode(response), response.amount?.cents,
                response.tipAmount?.cents, response.clientTransactionId, id]
            var args = StatementArguments(values)
            if let onlyIf {
                let only = Journal.stateCondition(onlyIf)
                sql += only.sql
                args += only.arguments
            }
            try db.execute(sql: sql, arguments: args)
            guard db.changesCount > 0 else { return false }
            let origin = try String.fetchOne(db, sql: "SELECT origin FROM entry WHERE id = ?", arguments: [id])
            if state == .approved, origin == EntryOrigin.request.rawValue {
                // The same transaction journaled earlier as an answer that matched nothing (it came while nothing was
                // waiting for it) is this entry's answer: no longer for review, never counted twice.
                try Journal.absorbUnmatched(db, response, into: id, nowMs: nowMs)
            }
            if response.action == .batch, response.isApproved, state == .approved, origin == EntryOrigin.request.rawValue {
                try Journal.insertBatchEvent(db, entryId: id, response: response, nowMs: nowMs)
                if response.batchCommand == .open {
                    // The entry that opened a batch belongs to it.
                    try db.execute(sql: "UPDATE entry SET batchId = ?, batchName = ? WHERE id = ?",
                                   arguments: [response.batchId, response.batchName, id])
                }
                try Journal.storeZReportOnClose(db, nowMs: nowMs)
            }
            return true
        }
    }

    static func insertBatchEvent(_ db: Database, entryId: Int64?, response: CallbackResponse, nowMs: Int64) throws {
        guard let c = response.batchCommand else { return }
        try db.execute(sql: "INSERT INTO batch_event (entryId, command, batchId, batchName, atMs) VALUES (?, ?, ?, ?, ?)",
                       arguments: [entryId, c.rawValue, response.batchId, response.batchName, nowMs])
    }

    /// A stable key of an answer's text: the same answer delivered again (after a restart, or from a file that could
    /// not be archived) maps to the same journal row. Two independent 64-bit FNV-1a hashes and the length.
    public static func answerKey(_ text: String) -> String {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325, b: UInt64 = 0x8422_2325_cbf2_9ce4
        var n = 0
        for byte in text.utf8 {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            b = (b &+ UInt64(byte)) &* 0x9e37_79b9_7f4a_7c15
            b ^= b >> 29
            n += 1
        }
        return String(a, radix: 16) + "-" + String(b, radix: 16) + "-" + String(n)
    }

    static func absorbUnmatched(_ db: Database, _ r: CallbackResponse, into id: Int64, nowMs: Int64) throws {
        let note = "The answer of journal entry \(id), journaled before it was known whose it was: nothing more was charged."
        if let t = r.transactionId, !t.isEmpty {
            try db.execute(sql: "UPDATE entry SET state = 'duplicate', note = ?, updatedAtMs = ? WHERE origin = 'unmatched' AND state = 'review' AND transactionId = ?",
                           arguments: [note, nowMs, t])
        } else if let stan = r.referenceNumber, !stan.isEmpty, let order = r.orderCode, !order.isEmpty {
            try db.execute(sql: "UPDATE entry SET state = 'duplicate', note = ?, updatedAtMs = ? WHERE origin = 'unmatched' AND state = 'review' AND stan = ? AND orderCode = ?",
                           arguments: [note, nowMs, stan, order])
        }
    }

    /// Journals an answer that matched nothing: a row of its own (origin `unmatched`, state `review` — or
    /// `duplicate` when it repeats a transaction the journal already holds). Never counted in totals, never opens or
    /// closes a batch. Idempotent: the same answer text journaled twice is one row. Returns the row and whether
    /// this call inserted it.
    @discardableResult
    public func insertUnmatched(response: CallbackResponse, text: String, note: String, batch: BatchInfo,
                                state: EntryState = .review, nowMs: Int64 = WallClock.nowMs()) throws -> (entry: JournalEntry, inserted: Bool) {
        let requestId = "unmatched-" + Journal.answerKey(text)
        let action = response.action ?? .sale
        let inserted = try write { db -> Bool in
            try db.execute(sql: """
                INSERT OR IGNORE INTO entry (requestId, action, origin, clientTransactionId, amountCents, tipCents, requestURL, state,
                                   createdAtMs, answeredAtMs, updatedAtMs, batchId, batchName, status, message, stan, orderCode,
                                   shortOrderCode, transactionId, cardType, verificationMethod, response, note, tipIncluded)
                VALUES (?, ?, 'unmatched', ?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [requestId, action.rawValue, response.clientTransactionId, response.amount?.cents,
                                 response.tipAmount?.cents, state.rawValue, nowMs, nowMs, nowMs,
                                 batch.isOpen ? batch.id : nil, batch.isOpen ? batch.name : nil,
                                 response.status.description, response.message, response.referenceNumber, response.orderCode,
                                 response.shortOrderCode, response.transactionId, response.cardType, response.verificationMethod,
                                 Journal.encode(response), note, tipStyle == .included])
            return db.changesCount > 0
        }
        guard let e = try entry(requestId: requestId) else { throw FileError(path: path, operation: "read back the unmatched answer in") }
        return (e, inserted)
    }

    /// An approved (or duplicate-flagged) entry of a card transaction the terminal already reported: same transaction id,
    /// else same STAN and order code. Used to recognise an answer that repeats one already journaled.
    /// `countedOnly`: leave out answers that matched nothing and wait for review (an entry's own answer that came
    /// while nothing waited for it: the entry that it answers takes it over, see `absorbUnmatched`).
    public func entry(sameTransactionAs r: CallbackResponse, action: Action, excluding id: Int64? = nil,
                      countedOnly: Bool = false) throws -> JournalEntry? {
        let which = "state IN ('approved', 'review') AND id IS NOT ? AND action = ?"
            + (countedOnly ? " AND NOT (origin = 'unmatched' AND state = 'review')" : "")
        return try pool.read { db in
            if let t = r.transactionId, !t.isEmpty {
                return try Row.fetchOne(db, sql: "SELECT \(Journal.columns) FROM entry WHERE transactionId = ? AND \(which) ORDER BY id LIMIT 1",
                                        arguments: [t, id, action.rawValue]).map(Journal.entry(from:))
            }
            guard let stan = r.referenceNumber, !stan.isEmpty, let order = r.orderCode, !order.isEmpty else { return nil }
            return try Row.fetchOne(db, sql: "SELECT \(Journal.columns) FROM entry WHERE stan = ? AND orderCode = ? AND \(which) ORDER BY id LIMIT 1",
                                    arguments: [stan, order, id, action.rawValue]).map(Journal.entry(from:))
        }
    }

    /// Settles an entry that needs attention as a person found it on the terminal. Charged: `approved` (it counts, with
    /// the terminal's amount when an answer gave one); not charged: `resolved` (never counts). Compare-and-set: an entry
    /// that was settled meanwhile (a late answer, another process) is left alone and this throws.
    public func resolve(_ id: Int64, charged: Bool, note: String, nowMs: Int64 = WallClock.nowMs()) throws {
        let from: Set<EntryState> = [.pending, .sent, .unknown, .review]
        let moved = try transition(id, to: charged ? .approved : .resolved, note: note, from: from, nowMs: nowMs)
        if !moved { throw ResolveError(message: "Entry \(id) no longer needs attention (it was settled meanwhile); nothing changed.") }
    }

    /// Records that the cashier checked these unknown outcomes and chose to charge again.
    public func confirmRetry(_ ids: Set<Int64>, nowMs: Int64 = WallClock.nowMs()) throws {
        guard !ids.isEmpty else { return }
        try write { db in
            for id in ids {
                try db.execute(sql: "UPDATE entry SET retryConfirmedAtMs = ? WHERE id = ? AND retryConfirmedAtMs IS NULL", arguments: [nowMs, id])
            }
        }
    }

    /// Card payments whose outcome is unknown and that the cashier has not yet confirmed before charging again.
    public func unconfirmedUnknownPayments() throws -> [JournalEntry] {
        try pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Journal.columns) FROM entry WHERE state IN ('pending', 'sent', 'unknown') AND action IN ('sale', 'pre_auth')
                  AND origin = 'request' AND retryConfirmedAtMs IS NULL ORDER BY id
                """).map(Journal.entry(from:))
        }
    }

    /// When the cashier confirmed, before charging again, that this unknown payment was checked (nil: never).
    public func retryConfirmedAtMs(of id: Int64) throws -> Int64? {
        try pool.read { db in try Int64.fetchOne(db, sql: "SELECT retryConfirmedAtMs FROM entry WHERE id = ?", arguments: [id]) }
    }

    /// What the request asked for, before any answer (the answer's amount is in `amount`).
    public func requestedAmounts(of id: Int64) throws -> (amount: Money?, tip: Money?) {
        try pool.read { db in
            guard let r = try Row.fetchOne(db, sql: "SELECT requestedAmountCents, requestedTipCents FROM entry WHERE id = ?", arguments: [id]) else {
                return (nil, nil)
            }
            let a: Int? = r["requestedAmountCents"], t: Int? = r["requestedTipCents"]
            return (a.map(Money.init(cents:)), t.map(Money.init(cents:)))
        }
    }

    // MARK: reading

    static let columns = "id, requestId, action, clientTransactionId, amountCents, tipCents, requestURL, state, createdAtMs, updatedAtMs, response, batchId, batchName, note, tipIncluded"

    /// A row this build cannot read as an entry (an action or state a newer till wrote): an error, never a guess.
    struct UnreadableRow: Error, CustomStringConvertible {
        /// The entry, or nil for a line of the report summary (which belongs to no one entry).
        var id: Int64?; var what: String
        var description: String {
            (id.map { "journal entry \($0)" } ?? "the journal's report summary") + " has \(what) this version of till does not know; use a newer till to read it"
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

    /// Requests of this action that carry no reference and still wait for the terminal, newest first (a few: an
    /// indexed read whatever the journal's size, so that a flood of stray answers costs the same on any journal).
    public func awaitingWithoutReference(action: Action, limit: Int = 16) throws -> [JournalEntry] {
        try pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Journal.columns) FROM entry WHERE state IN ('pending', 'sent', 'unknown') AND action = ?
                  AND clientTransactionId IS NULL AND origin = 'request' ORDER BY id DESC LIMIT ?
                """, arguments: [action.rawValue, limit]).map(Journal.entry(from:))
        }
    }

    /// Entries that need attention (pending, sent, unknown, or an answer to review), oldest first.
    public func unresolved() throws -> [JournalEntry] {
        try pool.read(Journal.unresolved)
    }

    static func unresolved(_ db: Database) throws -> [JournalEntry] {
        try Row.fetchAll(db, sql: unresolvedSQL).map(Journal.entry(from:))
    }

    static let unresolvedSQL = "SELECT \(Journal.columns) FROM entry WHERE state IN ('pending', 'sent', 'unknown', 'review') ORDER BY id"

    /// What the first frame shows: the shift and what needs attention, read at once (one snapshot) through the
    /// writer, which start-up has open already, so that no reader connection is made before the first frame.
    public func glance(nowMs: Int64 = WallClock.nowMs()) throws -> JournalGlance {
        try pool.writeWithoutTransaction { db in
            var glance = JournalGlance()
            // A deferred transaction that only reads: it waits for no other writer and commits nothing.
            try db.inTransaction(.deferred) {
                glance = try Journal.glance(db, nowMs: nowMs)
                return .commit
            }
            return glance
        }
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
        let events = try Row.fetchAll(db, sql: currentBatchEventsSQL).map(Journal.batchEvent(from:))
        return JournalGlance(batch: batches(events: events, nowMs: nowMs).last?.info ?? BatchInfo(),
                             unresolved: try Journal.unresolved(db))
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
    /// The open batch as the batch history tells it, including one the terminal started by itself after a 48-hour
    /// auto-close (batch.txt:10), so entries made meanwhile are filed under it.
    public func batch(nowMs: Int64 = WallClock.nowMs()) throws -> BatchInfo {
        guard let last = try latestBatch(nowMs: nowMs) else { return BatchInfo() }
        return last.info
    }

    /// A PRAGMA's value as text (`journal_mode`, `synchronous`), for checks.
    public func pragma(_ name: String) throws -> String? {
        try pool.read { db in try String.fetchOne(db, sql: "PRAGMA \(name)") }
    }

    /// The same on the writer: the connection whose commits must reach the disk.
    func writerPragma(_ name: String) throws -> String? {
        try pool.writeWithoutTransaction { db in try String.fetchOne(db, sql: "PRAGMA \(name)") }
    }

    public func count() throws -> Int {
        try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM entry") ?? 0 }
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

/// Why a journal path was refused.
public struct JournalOpenError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "cannot use \(path.isEmpty ? "\"\"" : path) as the journal: \(reason)." }
}

/// A journal write that failed because of an injected fault (tests only), worded as a full disk.
public struct InjectedJournalFault: Error, Sendable, CustomStringConvertible {
    public var description: String { "database or disk is full (injected fault)" }
}

/// Test-only switch that makes the next journal writes fail, as a full disk would.
public final class JournalFaults: @unchecked Sendable {
    private let lock = NSLock()
    private var failing = 0
    /// Makes the next `count` writes fail (`Int.max`: until `clear()`).
    public func failWrites(_ count: Int = .max) { lock.lock(); failing = count; lock.unlock() }
    public func clear() { lock.lock(); failing = 0; lock.unlock() }
    func check() throws {
        lock.lock(); defer { lock.unlock() }
        guard failing > 0 else { return }
        if failing != .max { failing -= 1 }
        throw InjectedJournalFault()
    }
}

/// The journal file at the path is not the one till has open, or was cut short: what till would write or report would
/// not be what is on disk.
public struct JournalFileError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var problem: String
    public var description: String {
        "THE JOURNAL FILE \(path) \(problem). Nothing more is written to it: stop till, keep every file beside it "
            + "(\(path)-wal too) and have it checked before taking more payments."
    }
}

/// SQLite found the journal file damaged.
public struct JournalDamagedError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var findings: [String]
    public var description: String {
        "THE JOURNAL \(path) IS DAMAGED (SQLite: \(findings.prefix(3).joined(separator: "; "))). Nothing was read from it as if "
            + "whole: keep a copy of the file and restore the last backup, or have it repaired, before relying on it."
    }
}
