import Foundation
import Synchronization
import TillIO
import TillProtocol
#if canImport(Glibc)
import Glibc
#endif

/// Why the sender lock could not be taken.
public struct SenderLockError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// One terminal, one sender: an exclusive `flock` on the journal file itself, taken (without waiting) by a process
/// for as long as one of its requests is in flight or its recovery runs. Another till process on the same journal is
/// refused with "another till is waiting for the terminal" instead of sending beside it. Read-only commands never take
/// it, so they never wait. Re-entrant within one `SenderLock` (recovery's own queries); two `SenderLock`s of one
/// process on one journal exclude each other as two processes do. The kernel drops the lock when the process dies, so
/// a killed till never leaves it held.
///
/// The lock is on the journal, not on a file of its own: a lock file can be deleted while its lock is held, and the
/// next till would then lock a new file of the same name and send beside the first. The journal cannot go without
/// the sale going with it, and a journal replaced under a live till is refused here (its device and inode differ).
/// `flock` locks are apart from SQLite's POSIX locks on the same file (a journal is on a local file system: WAL
/// needs one). The descriptor is opened once per journal file and process and never closed: closing any descriptor
/// of a file drops all of the process's POSIX locks on it, SQLite's included (see `Journal.init`).
///
/// `<journal>.lock` still holds the holder's process id, for the message; it is a note, not the lock.
public final class SenderLock: Sendable {
    /// The journal whose file is locked.
    public let journalPath: String
    /// The note of who holds it.
    public let path: String
    /// The file this `SenderLock` holds, and how many `acquire`s it holds it for (re-entrant).
    private struct Holding { var held: FileKey?; var depth = 0 }
    private let holding = Mutex(Holding())

    public init(journalPath: String) {
        self.journalPath = journalPath
        self.path = journalPath + ".lock"
    }

    deinit {
        holding.withLock { h in if h.depth > 0 { unlockHeld(&h, note: true) } }
    }

    /// Device and inode of a file.
    struct FileKey: Equatable { var dev: UInt64; var ino: UInt64 }

    /// Per journal file (device and inode): the process's one descriptor of it, and whether a `SenderLock` of this
    /// process holds the lock on it. An array: a process has one or two journals.
    private struct OpenLock { var key: FileKey; var fd: Int32; var holder: ObjectIdentifier? }
    private static let table = Mutex<[OpenLock]>([])

    /// The journal's device and inode at its path now, or an error saying why there is no journal there.
    private func currentKey() throws(SenderLockError) -> FileKey {
        var st = stat()
        guard lstat(journalPath, &st) == 0 else {
            throw SenderLockError(description: "the journal \(journalPath) is gone (\(String(cString: strerror(errno)))): "
                                  + "it was deleted or moved while till ran; nothing was sent. Stop till and check the journal.")
        }
        return FileKey(dev: UInt64(st.st_dev), ino: UInt64(st.st_ino))
    }

    /// The process's descriptor of the journal file with this key, opened the first time.
    private static func descriptor(for key: FileKey, path: String) throws(SenderLockError) -> Int32 {
        let found: Int32? = table.withLock { t in t.first(where: { $0.key == key })?.fd }
        if let fd = found { return fd }
        let f = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard f >= 0 else {
            throw SenderLockError(description: "cannot open the journal \(path) to lock it: \(String(cString: strerror(errno)))")
        }
        var st = stat()
        guard fstat(f, &st) == 0, FileKey(dev: UInt64(st.st_dev), ino: UInt64(st.st_ino)) == key else {
            // Replaced between the look and the open: keep the descriptor (closing it could drop SQLite's locks on
            // whatever file it is), and let the caller look again.
            throw SenderLockError(description: "the journal \(path) was replaced while till ran; nothing was sent. Stop till and check the journal.")
        }
        return table.withLock { t in
            if let other = t.first(where: { $0.key == key }) { return other.fd }   // another thread opened it meanwhile
            t.append(OpenLock(key: key, fd: f, holder: nil))
            return f
        }
    }

    public func acquire() throws(SenderLockError) {
        try holding.withLock { (h: inout sending Holding) throws(SenderLockError) -> Void in
            if h.depth > 0 { h.depth += 1; return }
            let key = try currentKey()
            let fd = try SenderLock.descriptor(for: key, path: journalPath)
            let me = ObjectIdentifier(self)
            let takenHere: Bool = SenderLock.table.withLock { t in
                guard let i = t.firstIndex(where: { $0.key == key }) else { return true }
                if t[i].holder != nil { return true }
                t[i].holder = me
                return false
            }
            if takenHere { throw busy() }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                SenderLock.table.withLock { t in if let i = t.firstIndex(where: { $0.key == key }) { t[i].holder = nil } }
                throw busy()
            }
            // Locked the file that was at the path: still the journal there? (Replaced after the look above: the lock
            // is on a file no other till will open.)
            if let now = try? currentKey(), now == key {} else {
                flock(fd, LOCK_UN)
                SenderLock.table.withLock { t in if let i = t.firstIndex(where: { $0.key == key }) { t[i].holder = nil } }
                throw SenderLockError(description: "the journal \(journalPath) was replaced while till ran; nothing was sent. Stop till and check the journal.")
            }
            h.held = key
            h.depth = 1
            writeNote("\(getpid())\n")
        }
    }

    private func busy() -> SenderLockError {
        let holder = SenderLock.readHolder(path)
        return SenderLockError(description: "another till on this journal\(holder.map { " (process \($0))" } ?? "") is waiting for the terminal; "
                               + "nothing was sent. Try again when it is done.")
    }

    public func release() {
        holding.withLock { h in
            guard h.depth > 0 else { return }
            h.depth -= 1
            if h.depth == 0 { unlockHeld(&h, note: true) }
        }
    }

    /// Lets go whatever this process holds (the kernel does this when a process dies; tests of a kill use it).
    func forceRelease() {
        holding.withLock { h in if h.depth > 0 { unlockHeld(&h, note: false); h.depth = 0 } }
    }

    private func unlockHeld(_ h: inout Holding, note: Bool) {
        guard let key = h.held else { return }
        if note { writeNote("") }
        SenderLock.table.withLock { t in
            if let i = t.firstIndex(where: { $0.key == key }) {
                flock(t[i].fd, LOCK_UN)
                t[i].holder = nil
            }
        }
        h.held = nil
    }

    /// Whether another process, or another `SenderLock` of this one, holds the lock right now (for tests and
    /// status lines).
    public func isHeldElsewhere() -> Bool {
        holding.withLock { h in
            if h.depth > 0 { return false }
            guard let key = try? currentKey(), let fd = try? SenderLock.descriptor(for: key, path: journalPath) else { return false }
            return SenderLock.table.withLock { t in
                guard let i = t.firstIndex(where: { $0.key == key }) else { return false }
                if t[i].holder != nil { return true }
                if flock(fd, LOCK_EX | LOCK_NB) != 0 { return true }
                flock(fd, LOCK_UN)
                return false
            }
        }
    }

    /// Writes who holds the lock into `<journal>.lock` (a note for the busy message; losing it loses only the
    /// process id in that message, so failures are ignored).
    private func writeNote(_ text: String) {
        let f = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard f >= 0 else { return }
        let bytes = Array(text.utf8)
        _ = ftruncate(f, 0)
        _ = bytes.withUnsafeBytes { pwrite(f, $0.baseAddress, $0.count, 0) }
        close(f)
    }

    static func readHolder(_ path: String) -> Int32? {
        let f = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard f >= 0 else { return nil }
        defer { close(f) }
        var buf = [UInt8](repeating: 0, count: 32)
        let n = buf.withUnsafeMutableBytes { pread(f, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        return Int32(String(decoding: buf[0..<n], as: UTF8.self).trimmingWhitespace())
    }
}
