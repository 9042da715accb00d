import Foundation
import GRDB
import Synchronization
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
    /// One connection, in WAL mode: the till's reads and writes are short and one at a time, and other processes
    /// (the headless commands, the sync) read and write through their own. A pool would open a second connection (and
    /// parse the schema again) for the first read, and GRDB's pool writes a marker transaction into an empty WAL at
    /// every open, with its syncs, before the first frame.
    let database: DatabaseQueue

    /// `$XDG_DATA_HOME/till/journal.sqlite`, else `~/.local/share/till/journal.sqlite`.
    public static func defaultPath(environment: Environment = .process) -> String {
        if let x = environment["XDG_DATA_HOME"], x.hasPrefix("/") { return x + "/till/journal.sqlite" }
        let home = environment["HOME"] ?? "/tmp"
        return home + "/.local/share/till/journal.sqlite"
    }

    /// Test-only fault injection: makes journal writes fail as a full disk would (the randomized whole-system test
    /// and the disk-full regression test use it; nothing else sets it).
    let faults = JournalFaults()

    /// This journal's file (device and inode) as registered in `openFiles`; nil when it could not be looked at.
    let fileID: FileID?
    /// Opened for reading only (`init(readOnly:)`): every write throws.
    public let readOnly: Bool
    let closed = Mutex(false)
    /// The size the journal file had at the last look; it never shrinks while till uses it (no vacuum; checkpoints
    /// only grow it), so a smaller one was cut short by someone else.
    let knownSize = Mutex<Int64>(0)

    deinit {
        guard let id = fileID else { return }
        Journal.openFiles.withLock { files in
            if let n = files[id] { files[id] = n > 1 ? n - 1 : nil }
        }
    }

    /// Opens (creating if needed) the journal. A folder till creates is 0700; the file and its WAL are 0600.
    /// Refuses, and changes nothing, when the path is a symbolic link, not a regular file, or a file that is not a
    /// till journal: till never chmods or writes a file that is not already its own journal.
    /// How the terminal's amounts relate to its tips, for the reports (config `tip`).
    public let tipStyle: TipStyle

    /// `readOnly` opens an existing journal for reading only (nothing is created, changed, migrated or chmodded): for
    /// the commands that only read (`journal`, `report`, `export`, `batches`) when the file cannot be written.
    /// A journal found damaged earlier (its mark, `Journal.damageMark`) is refused, unless `checking` (`till check`, which
    /// looks at it again and takes the mark away once the file is whole).
    public init(path: String, tipStyle: TipStyle = .onTop, readOnly: Bool = false, checking: Bool = false) throws {
        self.tipStyle = tipStyle
        self.readOnly = readOnly
        guard !path.isEmpty else { throw JournalOpenError(path: path, reason: "no journal path was given (journal = \"\")") }
        self.path = path
        if !checking, let mark = Journal.damageMark(journal: path) {
            throw JournalDamagedError(path: path, findings: [mark.trimmingCharacters(in: .whitespacesAndNewlines)], earlier: true)
        }
        let dir = Path.directory(of: path)
        if !Path.exists(dir) { try Path.makeDirectories(dir, mode: 0o700) }
        // Guarded as the config and the drop folder are: whoever else can write the folder can swap the journal for a
        // forged one (or plant its -wal), and another user's file is theirs to rewrite. Checked before a byte is read.
        if let problem = PrivateFolder.problem(dir, allowLink: true, danger: PrivateFolder.journalDanger) {
            throw JournalOpenError(path: path, reason: problem)
        }
        var st = stat()
        var created = false
        var marked = false
        if lstat(path, &st) == 0 {
            if (st.st_mode & S_IFMT) == S_IFLNK {
                throw JournalOpenError(path: path, reason: "it is a symbolic link; give the journal's real path")
            }
            if (st.st_mode & S_IFMT) != S_IFREG { throw JournalOpenError(path: path, reason: "it is not a regular file") }
            if st.st_uid != geteuid() {
                throw JournalOpenError(path: path, reason: "it belongs to another user (uid \(st.st_uid)), who could rewrite the books. "
                                       + "Make it yours: chown \(geteuid()) \(path) && chmod 600 \(path)")
            }
            // Never open and close the file while an SQLite connection of this process has it open: closing any
            // descriptor of a file drops all of the process's POSIX locks on it, and another process could then
            // checkpoint and delete the WAL under our feet (our next commits lost). A journal already open here was
            // checked when it was opened.
            if st.st_size > 0, !Journal.isOpenInProcess(st) {
                guard let mark = Journal.carriesJournalMark(path) else {
                    throw JournalOpenError(path: path, reason: "it is not a till journal (not an SQLite file); till leaves it alone")
                }
                marked = mark
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
            // WAL, so that other processes read while till writes; every commit synced before it returns.
            if !readOnly, try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") != "wal" {
                throw DatabaseError(message: "could not turn the journal's write-ahead log on")
            }
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // Every b-tree page SQLite reads is checked more closely as it is read (cell sizes and offsets), so that a
            // damaged page is reported by the command that reads it: no command reads the whole file first.
            try db.execute(sql: "PRAGMA cell_size_check = ON")
            // The outbox's trigger links each event to the one before (`OutboxChain`).
            db.add(function: OutboxChain.function)
        }
        config.busyMode = .timeout(10)
        // A file that was there is checked first through a read-only connection of its own, after the checks above
        // (their own open and close of the file must not overlap an SQLite connection of this process) and before
        // the writer, whose set-up turns the file to WAL: someone else's SQLite database is found foreign without a
        // byte of it changed. SQLite keeps the locks of its connections in one process apart.
        // A file whose header carries the journal's application_id is till's own: no connection needed to know it.
        var checked = marked
        if !created, !marked, let foreign = Journal.isForeignReadOnly(path) {
            checked = true
            if foreign {
                throw JournalOpenError(path: path, reason: "it is an SQLite database, but not a till journal; till leaves it alone")
            }
        }
        if readOnly {
            config.readonly = true
            database = try DatabaseQueue(path: path, configuration: config)
            if !checked, try database.read(Journal.isForeign) {
                throw JournalOpenError(path: path, reason: "it is an SQLite database, but not a till journal; till leaves it alone")
            }
            fileID = lstat(path, &st) == 0 ? Journal.register(st) : nil
            knownSize.withLock { $0 = Int64(st.st_size) }
            return
        }
        database = try Journal.openDatabase(path, config)
        if !created, !checked {
            // When the read-only connection could not read it: on the writer, which is open already.
            if try database.writeWithoutTransaction(Journal.isForeign) {
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
        do { try Journal.migrate(database, tipStyle: tipStyle) } catch let error as DatabaseError where Journal.isDamage(error) {
            throw markDamaged([error.message ?? "\(error)"])
        }
    }

    /// Opens the connection. A new journal is turned to WAL by the first till that opens it; another doing the same
    /// at that moment is told "database is locked" at once (SQLite's busy wait does not cover that change), and tries
    /// again shortly, for up to two seconds: by then the file is in WAL and nothing needs to change.
    static func openDatabase(_ path: String, _ config: Configuration) throws -> DatabaseQueue {
        var tries = 0
        while true {
            do { return try DatabaseQueue(path: path, configuration: config) } catch let error as DatabaseError
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
    static func migrate(_ database: DatabaseQueue, tipStyle: TipStyle) throws {
        var tries = 0
        while true {
            do { return try migrator(tipStyle: tipStyle).migrate(database) } catch {
                tries += 1
                if tries > 4 { throw error }
            }
        }
    }
}

