import Foundation
import TillIO
import TillProtocol
#if canImport(Glibc)
import Glibc
#endif

/// Why the sender lock could not be taken.
public struct SenderLockError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// One terminal, one sender: an exclusive `flock` on `<journal>.lock`, taken (without waiting) by a process for as
/// long as one of its requests is in flight or its recovery runs. Another till process on the same journal is refused
/// with "another till is waiting for the terminal" instead of sending beside it. Read-only commands never take it, so
/// they never wait. Re-entrant within a process (recovery's own queries). The kernel drops the lock when the process
/// dies, so a killed till never leaves it held.
public final class SenderLock: @unchecked Sendable {
    public let path: String
    private let mutex = NSLock()
    private var fd: Int32 = -1
    private var depth = 0

    public init(path: String) { self.path = path }

    public func acquire() throws(SenderLockError) {
        mutex.lock(); defer { mutex.unlock() }
        if depth > 0 { depth += 1; return }
        let f = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard f >= 0 else {
            throw SenderLockError(description: "cannot open the journal's lock file \(path): \(String(cString: strerror(errno)))")
        }
        if flock(f, LOCK_EX | LOCK_NB) != 0 {
            let holder = SenderLock.readHolder(f)
            close(f)
            throw SenderLockError(description: "another till on this journal\(holder.map { " (process \($0))" } ?? "") is waiting for the terminal; "
                                  + "nothing was sent. Try again when it is done.")
        }
        // Say who holds it (for the message above); the lock itself is the flock, not this text.
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(f, 0)
        _ = text.withUnsafeBytes { pwrite(f, $0.baseAddress, $0.count, 0) }
        fd = f
        depth = 1
    }

    public func release() {
        mutex.lock(); defer { mutex.unlock() }
        guard depth > 0 else { return }
        depth -= 1
        if depth == 0 {
            _ = ftruncate(fd, 0)
            flock(fd, LOCK_UN)
            close(fd)
            fd = -1
        }
    }

    /// Lets go whatever this process holds (the kernel does this when a process dies; tests of a kill use it).
    func forceRelease() {
        mutex.lock(); defer { mutex.unlock() }
        if depth > 0 { flock(fd, LOCK_UN); close(fd); fd = -1; depth = 0 }
    }

    /// Whether some process holds the lock right now (for tests and status lines).
    public func isHeldElsewhere() -> Bool {
        let f = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard f >= 0 else { return false }
        defer { close(f) }
        if flock(f, LOCK_EX | LOCK_NB) != 0 { return true }
        flock(f, LOCK_UN)
        return false
    }

    static func readHolder(_ f: Int32) -> Int32? {
        var buf = [UInt8](repeating: 0, count: 32)
        let n = buf.withUnsafeMutableBytes { pread(f, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        return Int32(String(decoding: buf[0..<n], as: UTF8.self).trimmingWhitespace())
    }
}
