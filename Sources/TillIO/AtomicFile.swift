#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file-system error with the path and the system's reason, readable by a person.
public struct FileError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var operation: String
    public var code: Int32
    public init(path: String, operation: String, code: Int32 = errno) {
        self.path = path; self.operation = operation; self.code = code
    }
    public var description: String { "\(operation) \(path): \(String(cString: strerror(code)))" }
}

/// Durable, atomic file writes: a hidden temp file in the same folder, fsync, rename, fsync of the folder.
/// A reader of the folder sees either no file or the whole file, never a part.
public enum AtomicFile {
    public static func write(_ contents: String, to path: String, mode: mode_t = 0o600) throws {
        let file = try AtomicFileWriter(path: path, mode: mode)
        try file.write(contents)
        try file.commit()
    }

    /// Moves a file (same file system), then makes the move durable.
    public static func move(_ from: String, to: String) throws {
        if rename(from, to) != 0 { throw FileError(path: from, operation: "move") }
        syncDirectory(Path.directory(of: to))
        syncDirectory(Path.directory(of: from))
    }

    public static func syncDirectory(_ dir: String) {
        let fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 { fsync(fd); close(fd) }
    }

    /// Reads a whole file as UTF-8 (invalid bytes replaced), or nil if it cannot be read.
    public static func read(_ path: String, limit: Int = 1 << 20) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out = [UInt8]()
        var buf = [UInt8](repeating: 0, count: 8192)
        while out.count <= limit {
            let n = buf.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; return nil }
            if n == 0 { break }
            out.append(contentsOf: buf[0..<n])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

public enum Path {
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
    public static func lastComponent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// Creates a folder and its parents with the given mode (0700 by default: owner only).
    public static func makeDirectories(_ path: String, mode: mode_t = 0o700) throws {
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/" + part
            if mkdir(current, mode) != 0 && errno != EEXIST { throw FileError(path: current, operation: "create folder") }
        }
    }

    /// Names of the entries of a folder (not `.`/`..`), sorted.
    public static func list(_ dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafePointer(to: e.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}

/// A file written piece by piece and put in place whole (as `AtomicFile.write`): an export of any size is written
/// as it is read, in constant memory. Until `commit`, the path shows the file as it was (or no file); a writer that is
/// never committed leaves nothing behind.
public final class AtomicFileWriter {
    public let path: String
    private let temp: String
    private var fd: Int32
    private var buffer: [UInt8] = []
    private static let blockSize = 1 << 16

    public init(path: String, mode: mode_t = 0o600) throws {
        self.path = path
        temp = Path.directory(of: path) + "/." + Path.lastComponent(of: path) + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw FileError(path: temp, operation: "create") }
        buffer.reserveCapacity(Self.blockSize + 4096)
    }

    public func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.blockSize { try flush() }
    }

    private func flush() throws {
        var written = 0
        while written < buffer.count {
            let n = buffer[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; throw FileError(path: temp, operation: "write", code: errno) }
            written += n
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is left, syncs, and renames the file into place (then syncs its folder).
    public func commit() throws {
        try flush()
        if fsync(fd) != 0 { throw FileError(path: temp, operation: "fsync", code: errno) }
        close(fd)
        fd = -1
        if rename(temp, path) != 0 { let e = errno; unlink(temp); throw FileError(path: path, operation: "rename into", code: e) }
        AtomicFile.syncDirectory(Path.directory(of: path))
    }

    deinit {
        if fd >= 0 { close(fd); unlink(temp) }
    }
}
