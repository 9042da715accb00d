#if canImport(Glibc)
import Glibc

/// Waits for files to appear in a folder without busy polling (Linux inotify).
/// Reports a file once it is complete: closed after writing, or renamed into the folder; and, separately, every
/// name created in place (`created`), so a caller can catch what never gets a "complete" event: a FIFO, a link,
/// a folder. Asked for (`modifications`), also every write to a file in the folder (`modified`): how a database's
/// commit shows (SQLite appends to its `-wal` file in place; nothing is closed or renamed).
///
/// `wake()` (from any thread) ends a wait at once, so the thread that waits can stop without sitting out its timeout.
public final class DirectoryWatcher: @unchecked Sendable {
    public let directory: String
    private let fd: Int32
    private var wd: Int32 = -1
    /// A pipe whose read end the wait also polls: `wake()` writes a byte.
    private let wakePipe: (read: Int32, write: Int32)

    public enum Kind: Sendable, Equatable {
        /// Closed after writing. Whole only if its writer is done: one that closes after half a line and opens it again
        /// to write the rest brings a close in the middle (a file without its final newline may be cut).
        case complete
        /// Renamed into the folder: written elsewhere and moved in whole.
        case renamedIn
        /// Created in place (a regular file is still being written; anything else will get no other event).
        case created
        /// Written to in place (only when the watcher was made with `modifications`).
        case modified
        /// The kernel's event queue overflowed: events were lost; list the folder.
        case overflow
    }
    public struct Event: Sendable, Equatable {
        public var name: String
        public var kind: Kind
    }

    public init(directory: String, modifications: Bool = false) throws {
        self.directory = directory
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { throw FileError(path: directory, operation: "watch (inotify_init)") }
        wd = inotify_add_watch(fd, directory, UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE) | (modifications ? UInt32(IN_MODIFY) : 0))
        guard wd >= 0 else { let e = errno; close(fd); throw FileError(path: directory, operation: "watch", code: e) }
        guard let p = makeWakePipe() else {
            let e = errno; close(fd); throw FileError(path: directory, operation: "watch (pipe)", code: e)
        }
        wakePipe = p
    }

    deinit { close(fd); close(wakePipe.read); close(wakePipe.write) }

    /// Ends the current (or next) wait at once.
    public func wake() {
        var one: UInt8 = 1
        _ = write(wakePipe.write, &one, 1)
    }

    /// Blocks up to `timeoutMs` (-1: forever) for events; returns the names of files that were closed after writing or
    /// renamed in (hidden names, starting with `.`, are left out). Empty on timeout.
    public func wait(timeoutMs: Int32) -> [String] {
        events(timeoutMs: timeoutMs).filter { $0.kind == .complete || $0.kind == .renamedIn }.map(\.name)
    }

    /// Blocks up to `timeoutMs` (-1: forever) for events; returns them in order (hidden names left out).
    public func events(timeoutMs: Int32) -> [Event] {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0)]
        let r = poll(&fds, 2, timeoutMs)
        guard r > 0 else { return [] }
        if fds[1].revents != 0 {
            var drain = [UInt8](repeating: 0, count: 64)
            while drain.withUnsafeMutableBytes({ read(wakePipe.read, $0.baseAddress, $0.count) }) > 0 {}
        }
        guard fds[0].revents != 0 else { return [] }
        var out: [Event] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            var offset = 0
            buffer.withUnsafeBytes { raw in
                while offset + MemoryLayout<inotify_event>.size <= n {
                    let mask = raw.load(fromByteOffset: offset + 4, as: UInt32.self)
                    let len = Int(raw.load(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameStart = offset + MemoryLayout<inotify_event>.size
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 { out.append(Event(name: "", kind: .overflow)) }
                    if len > 0 {
                        let bytes = raw[nameStart..<min(nameStart + len, n)].prefix { $0 != 0 }
                        let name = String(decoding: bytes, as: UTF8.self)
                        if !name.isEmpty && !name.hasPrefix(".") {
                            let kind: Kind = mask & UInt32(IN_CREATE) != 0 ? .created
                                : mask & UInt32(IN_MOVED_TO) != 0 ? .renamedIn
                                : mask & UInt32(IN_MODIFY) != 0 ? .modified : .complete
                            out.append(Event(name: name, kind: kind))
                        }
                    }
                    offset = nameStart + len
                }
            }
        }
        return out
    }
}
#endif
