import Foundation
import GRDB
import TillIO
import TillProtocol
#if canImport(Glibc)
import Glibc
#endif

// The journal file's safety: which files this process has open, closing them at exit, and checks that the file
// at the path is still the one open and whole.
extension Journal {
    /// The journal files this process has open (device and inode), with how many `Journal`s have each open.
    static let openFiles = Locked<[FileID: Int]>([:])
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
    func onConnection<T>(_ body: (Database) throws -> T) throws -> T {
        try database.writeWithoutTransaction { db in
            if closed.withLock({ $0 }) { throw JournalClosedError(path: path) }
            return try body(db)
        }
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
    static let openJournals = Locked<[WeakJournal]>([])
    static let exitHandler = Locked(false)
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

    /// SQLite's own check of the file: `quick_check` (every page readable and well-formed; linear in the journal's
    /// size), or with `full` `integrity_check` (also that every index agrees with its table: an export reads through
    /// an index, and a damaged one silently leaves rows out). Throws `JournalDamagedError` with SQLite's findings.
    public func checkIntegrity(full: Bool = false) throws {
        let findings: [String]
        do {
            findings = try reading { db in
                try String.fetchAll(db, sql: full ? "PRAGMA integrity_check(20)" : "PRAGMA quick_check(20)")
            }
        } catch {
            throw JournalDamagedError(path: path, findings: ["\(error)"])
        }
        if findings != ["ok"] { throw JournalDamagedError(path: path, findings: findings) }
    }
}
