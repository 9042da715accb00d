import Foundation
import GRDB
import Synchronization
import TillIO
import TillProtocol
#if canImport(Glibc)
import Glibc
#endif

// The journal file's safety: which files this process has open, closing them at exit, and checks that the file
// at the path is still the one open and whole.
extension Journal {
    /// The journal files this process has open (device and inode), with how many `Journal`s have each open.
    static let openFiles = Mutex<[FileID: Int]>([:])
    struct FileID: Hashable {
        var dev: UInt64; var ino: UInt64
        init(_ st: stat) { dev = UInt64(st.st_dev); ino = UInt64(st.st_ino) }
    }

    static func isOpenInProcess(_ st: stat) -> Bool {
        openFiles.withLock { $0[FileID(st)] != nil }
    }

    static func register(_ st: stat) -> FileID {
        let id = FileID(st)
        openFiles.withLock { $0[id, default: 0] += 1 }
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
        let first = (try? database.writeWithoutTransaction { db -> Bool in
            guard !closed.withLock({ c in defer { c = true }; return c }) else { return false }
            try db.execute(sql: "PRAGMA busy_timeout = 0")
            _ = try? db.checkpoint(.truncate)
            return true
        }) ?? false
        if first { try? database.close() }
    }

    /// Every use of the connection goes through here: on its queue, one at a time, and refused once `close()` has
    /// run there (GRDB would hand SQLite the closed connection). The flag is read on the same queue as `close()`
    /// sets it, so no use can slip in between.
    /// SQLite's word that a page it read is damaged (`SQLITE_CORRUPT`, `SQLITE_NOTADB`) is the journal's damage mark
    /// (`markDamaged`): no command reads the whole file before it starts, so the first one that reads a damaged page
    /// finds it, and every later one is refused at its open.
    func onConnection<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try database.writeWithoutTransaction { db in
                if closed.withLock({ $0 }) { throw JournalClosedError(path: path) }
                return try body(db)
            }
        } catch let error as DatabaseError where Journal.isDamage(error) {
            throw markDamaged([error.message ?? "\(error)"])
        }
    }

    static func isDamage(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
    }

    /// A read: its statements see one state of the file (a deferred transaction, which waits for no writer), and
    /// the connection refuses to write meanwhile.
    func reading<T>(_ body: (Database) throws -> T) throws -> T {
        try onConnection { db in try db.readOnly { try Journal.committed(db, .deferred, body) } }
    }

    /// `body` in one transaction of `kind`, committed; its result.
    static func committed<T>(_ db: Database, _ kind: Database.TransactionKind, _ body: (Database) throws -> T) throws -> T {
        var result: T?
        try db.inTransaction(kind) { result = try body(db); return .commit }
        return result!
    }

    /// Closes every journal this process has open (`close()`): when the process ends, by `exit` (an `atexit`
    /// handler, set at the first open) or by a signal (the executable calls it before `SignalPipe.terminate` lets the signal end it).
    public static func closeAll() {
        let open = openJournals.withLock { list in defer { list = [] }; return list.compactMap(\.journal) }
        for j in open { j.close() }
    }

    struct WeakJournal { weak var journal: Journal? }
    static let openJournals = Mutex<[WeakJournal]>([])
    static let exitHandler = Mutex(false)
    static func closeAtExit() {
        guard !exitHandler.withLock({ set in defer { set = true }; return set }) else { return }
        atexit { Journal.closeAll() }
    }


    /// Which of this journal's files `other` is: the journal, its `-wal`, `-shm` or `.lock`; nil when none. The same
    /// file by device and inode (a hard link, a symbolic link, `./` or a relative path are all caught), and a name not
    /// there yet (a `-wal` between checkpoints) by the same name in the same folder, the folder by device and inode.
    /// An export written there would replace the books (`till export --output journal.sqlite` did, exit 0).
    public func ownFile(at other: String) -> String? {
        let mine = [path, path + "-wal", path + "-shm", path + ".lock"]
        func identity(_ p: String) -> FileID? { var st = stat(); return stat(p, &st) == 0 ? FileID(st) : nil }
        if let target = identity(other), let hit = mine.first(where: { identity($0) == target }) { return hit }
        guard let folder = identity(Path.directory(of: other)) else { return nil }
        return mine.first { Path.lastComponent(of: $0) == Path.lastComponent(of: other) && identity(Path.directory(of: $0)) == folder }
    }

    static func hasSQLiteHeader(_ path: String) -> Bool { carriesJournalMark(path) != nil }

    /// What the file's first 100 bytes say: nil when it is not an SQLite database; else whether it carries the
    /// journal's `application_id` (every journal till migrated does, once its header reached the file).
    static func carriesJournalMark(_ path: String) -> Bool? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var buf = [UInt8](repeating: 0, count: 100)
        let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, 100) }
        guard n >= 16, buf[0..<16].elementsEqual("SQLite format 3\0".utf8) else { return nil }
        let id = buf[68..<72].reduce(Int32(0)) { $0 << 8 | Int32($1) }
        return n == 100 && id == Journal.applicationId
    }

    /// Every write goes through here, so an injected fault (tests) fails it exactly as a full disk would; and every
    /// write is checked to have gone to the journal at the path: before it (nothing is written to a journal that is
    /// not the one on disk) and after it, before its success is reported (a file replaced meanwhile got the write:
    /// the cashier would be told "approved" while the journal on disk says pending).
    @discardableResult
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try faults.check()
        try checkFile()
        let result = try onConnection { db in try Journal.committed(db, .immediate, body) }
        try checkFile()
        return result
    }


    /// Throws `JournalFileError` when the file at the journal's path is not the one this journal has open any more
    /// (deleted, moved, replaced: another device or inode) or was truncated. A look at the path (`lstat`), never an
    /// open: closing a descriptor of the file would drop SQLite's locks on it.
    public func checkFile() throws {
        guard let id = fileID else { return }
        var st = stat()
        guard lstat(path, &st) == 0 else {
            throw JournalFileError(path: path, problem: "was deleted or moved while till ran (\(String(cString: strerror(errno))))")
        }
        if FileID(st) != id {
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

    /// Where a damage found in the journal is noted, beside it: `<journal>.damaged`.
    public static func damageMarkPath(journal: String) -> String { journal + ".damaged" }

    /// What an earlier command or check found (the mark's text); nil when nothing was found.
    public static func damageMark(journal: String) -> String? {
        guard Path.exists(damageMarkPath(journal: journal)) else { return nil }
        return AtomicFile.read(damageMarkPath(journal: journal)) ?? "(the mark cannot be read)"
    }

    /// Notes what SQLite (or a check) found beside the journal, so that every later command is refused at its open, not
    /// only one that happens to read the damaged page; `till check` takes the mark away once the file is whole again
    /// (restored or repaired). The note is best effort: a folder that cannot be written still gets the error.
    func markDamaged(_ findings: [String]) -> JournalDamagedError {
        let text = "found \(ISO8601DateFormatter().string(from: Date())): " + findings.prefix(3).joined(separator: "; ") + "\n"
        if !Path.exists(Journal.damageMarkPath(journal: path)) { try? AtomicFile.write(text, to: Journal.damageMarkPath(journal: path)) }
        return JournalDamagedError(path: path, findings: findings)
    }

    /// The whole file checked, for `till check` (and its run at shift close): SQLite's `integrity_check` (every page
    /// readable and well-formed, every index agreeing with its table, no page lost or used twice), then the report
    /// summary against a fresh count of the entries (a bucket's count and sums, per batch). Reads every page: its cost
    /// grows with the journal, which is why no other command runs it. Throws `JournalDamagedError` (and leaves the mark)
    /// with what was found; when all is whole, takes away a mark an earlier finding left.
    public func checkWhole() throws {
        // A page SQLite cannot read at all throws here, marked by `onConnection`.
        let findings = try reading { db -> [String] in
            let sqlite = try String.fetchAll(db, sql: "PRAGMA integrity_check(20)")
            if sqlite != ["ok"] { return sqlite }
            return try Journal.summaryDifferences(db)
        }
        if !findings.isEmpty { throw markDamaged(findings) }
        unlink(Journal.damageMarkPath(journal: path))
    }

    /// The report summary's buckets that differ from a fresh aggregation of the entries (empty: they agree).
    static func summaryDifferences(_ db: Database) throws -> [String] {
        let key = "COALESCE(batchId, ''), action, state, COALESCE(cardType, ''), COALESCE(verificationMethod, '')"
        func buckets(_ sql: String) throws -> [String: [Int64]] {
            var out: [String: [Int64]] = [:]
            for r in try Row.fetchAll(db, sql: sql) {
                let k = (0..<5).map { (r[$0] as String?) ?? "" }.joined(separator: " / ")
                out[k] = [r[5], r[6], r[7]]
            }
            return out
        }
        let summary = try buckets("SELECT batchKey, action, state, cardType, verificationMethod, n, amountCents, tipCents FROM batch_summary")
        let fresh = try buckets("""
            SELECT \(key), COUNT(*), COALESCE(SUM(amountCents), 0), COALESCE(SUM(tipCents), 0) FROM entry GROUP BY \(key)
            """)
        return Set(summary.keys).union(fresh.keys).sorted().compactMap { k in
            let s = summary[k] ?? [0, 0, 0], f = fresh[k] ?? [0, 0, 0]
            return s == f ? nil : "the report summary of \(k) counts \(s[0]) entries (\(s[1]) cents), the entries \(f[0]) (\(f[1]) cents)"
        }
    }
}
