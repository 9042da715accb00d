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
        var out: [Event] = []
        var buffer = [UInt8](repeating: 0, count: DirectoryWatcher.chunkSize)
        var wait = timeoutMs
        // What the kernel holds now, read to its end (the descriptor does not block); the first read waits.
        while case .read(let n) = buffer.withUnsafeMutableBytes({ DescriptorReader.readOnce(fd, wake: wakePipe.read, timeoutMs: wait, into: $0) }) {
            out += DirectoryWatcher.events(in: buffer[0..<n])
            wait = 0
        }
        return out
    }

    /// The events as an async sequence, one batch a read (hidden names left out), for a task that watches until it is
    /// cancelled; `idleMs`: an empty batch after that long without any (see `DescriptorReader`). `wake()` does not
    /// reach it: cancel the task that reads it.
    public func eventBatches(thread name: String, idleMs: Int32? = nil) -> AsyncMapSequence<DescriptorReader, [Event]> {
        let reader = DescriptorReader(fd: fd, name: name, chunkSize: DirectoryWatcher.chunkSize, idleMs: idleMs,
                                      closesDescriptor: false, owner: self)
        return reader.map { DirectoryWatcher.events(in: $0[...]) }
    }

    /// A read holds whole events; 64 KiB hold hundreds.
    static let chunkSize = 64 * 1024

    /// The events in what one read of the inotify descriptor gave.
    static func events(in bytes: ArraySlice<UInt8>) -> [Event] {
        var out: [Event] = []
        bytes.withUnsafeBytes { raw in
            let n = raw.count
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= n {
                let mask = raw.load(fromByteOffset: offset + 4, as: UInt32.self)
                let len = Int(raw.load(fromByteOffset: offset + 12, as: UInt32.self))
                let nameStart = offset + MemoryLayout<inotify_event>.size
                if mask & UInt32(IN_Q_OVERFLOW) != 0 { out.append(Event(name: "", kind: .overflow)) }
                if len > 0 {
                    let name = String(decoding: raw[nameStart..<min(nameStart + len, n)].prefix { $0 != 0 }, as: UTF8.self)
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
        return out
    }
}
#endif
