#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What reading a file of a shared folder found. Only a regular file is ever read: a FIFO would block the reader,
/// a device could do anything on open, a symbolic link could point out of the folder.
public enum RegularFileRead: Sendable, Equatable {
    case text(String)
    /// Not a regular file: what it is, in words ("a FIFO (named pipe)", "a symbolic link", "a folder", …).
    case notRegular(String)
    /// Larger than the limit (its size in bytes, or more than the limit when it grew while being read).
    case tooLarge(Int64)
    /// No such file (any more).
    case gone
    /// It could not be opened or read (errno).
    case unreadable(Int32)
}

public enum FileKind {
    /// A file type (`st_mode`) in words.
    public static func describe(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: return "a regular file"
        case S_IFDIR: return "a folder"
        case S_IFLNK: return "a symbolic link"
        case S_IFIFO: return "a FIFO (named pipe)"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        default: return "not a regular file"
        }
    }
    public static func isRegular(_ mode: mode_t) -> Bool { mode & S_IFMT == S_IFREG }
    public static func isDirectory(_ mode: mode_t) -> Bool { mode & S_IFMT == S_IFDIR }
}

extension AtomicFile {
    /// Reads a regular file as UTF-8 (invalid bytes replaced), never blocking and never following a link:
    /// `lstat` first (anything but a regular file is not opened at all), then `open` with `O_NOFOLLOW | O_NONBLOCK`
    /// and `fstat` of what was opened (a file swapped for a FIFO or a link in between is caught there).
    public static func readRegular(_ path: String, limit: Int) -> RegularFileRead {
        readRegular(path, limit: limit, checkOpened: { _ in })
    }

    /// `readRegular`, with `checkOpened` seeing the `fstat` of what was opened before a byte is read: a check of its
    /// owner or mode there holds for the bytes read, where one made on the path beforehand would not.
    public static func readRegular(_ path: String, limit: Int, checkOpened: (stat) throws -> Void) rethrows -> RegularFileRead {
        var st = stat()
        if lstat(path, &st) != 0 { return errno == ENOENT ? .gone : .unreadable(errno) }
        guard FileKind.isRegular(st.st_mode) else { return .notRegular(FileKind.describe(st.st_mode)) }
        if st.st_size > Int64(limit) { return .tooLarge(Int64(st.st_size)) }
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else {
            switch errno {
            case ENOENT: return .gone
            case ELOOP: return .notRegular("a symbolic link")
            case ENXIO: return .notRegular("a socket")
            default: return .unreadable(errno)
            }
        }
        defer { close(fd) }
        guard fstat(fd, &st) == 0 else { return .unreadable(errno) }
        guard FileKind.isRegular(st.st_mode) else { return .notRegular(FileKind.describe(st.st_mode)) }
        try checkOpened(st)
        var out = [UInt8]()
        var buf = [UInt8](repeating: 0, count: 8192)
        while true {
            let n = buf.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; return .unreadable(errno) }
            if n == 0 { break }
            out.append(contentsOf: buf[0..<n])
            if out.count > limit { return .tooLarge(Int64(out.count)) }
        }
        return .text(String(decoding: out, as: UTF8.self))
    }
}

/// A folder that is a channel between two programs (the file drop) must be this user's alone: whoever else can
/// write to it can plant a request (a charge) or an answer (an approval).
public enum PrivateFolder {
    /// What whoever else can write the drop folder could do.
    public static let dropDanger = (who: "could plant requests or answers in it", anyone: "could plant a request or an answer")
    /// What whoever else can write the journal's folder could do.
    public static let journalDanger = (who: "could replace or forge the journal (the books) in it",
                                       anyone: "could replace or forge the journal (the books)")

    /// Nil when `path` is a real folder (a symbolic link only when `allowLink`), owned by this user, writable by
    /// no group and no other user; else why not, in words (`danger`: what another could do there), with the command
    /// that fixes it. The file drop's folders and the journal's folder are checked by this one rule.
    public static func problem(_ path: String, allowLink: Bool,
                               danger: (who: String, anyone: String) = PrivateFolder.dropDanger) -> String? {
        var st = stat()
        if lstat(path, &st) != 0 {
            return "The folder \(path) cannot be checked: \(String(cString: strerror(errno)))."
        }
        if st.st_mode & S_IFMT == S_IFLNK {
            guard allowLink else {
                return "\(path) is a symbolic link; it must be a real folder inside the drop folder. "
                    + "Replace it: rm \(path) && mkdir -m 700 \(path)"
            }
            if stat(path, &st) != 0 {
                return "The folder \(path) cannot be checked: \(String(cString: strerror(errno)))."
            }
        }
        guard FileKind.isDirectory(st.st_mode) else {
            return "\(path) is \(FileKind.describe(st.st_mode)), not a folder. Move it away and run: mkdir -m 700 \(path)"
        }
        if st.st_uid != geteuid() {
            return "The folder \(path) belongs to another user (uid \(st.st_uid)), who \(danger.who). "
                + "Make it yours: chown \(geteuid()) \(path) && chmod 700 \(path)"
        }
        let mode = st.st_mode & 0o7777
        if mode & 0o022 != 0 {
            let who = mode & 0o002 != 0 ? "every user on this machine" : "the folder's group"
            return "The folder \(path) is writable by \(who) (mode \(String(mode, radix: 8))): anyone there \(danger.anyone). "
                + "Make it yours alone: chmod 700 \(path)"
        }
        return nil
    }
}

/// A pipe whose both ends are non-blocking and closed on exec (a bridge never inherits them): for waking a thread
/// that waits in `poll` (a byte written to `write` makes `read` readable). Nil when no pipe could be made.
public func makeWakePipe() -> (read: Int32, write: Int32)? {
    var p: [Int32] = [0, 0]
    guard pipe(&p) == 0 else { return nil }
    for fd in p {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }
    return (p[0], p[1])
}
