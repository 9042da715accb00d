import Foundation
import TillIO
#if canImport(Glibc)
import Glibc
#endif

// The state file as an append-only log of JSON lines, so that a save costs the same after a year of training as on
// the first day. Each save appends one line: the small state whole (rng, counters, batch, pending, set-up) and only the
// transactions and closed batches that are new or changed since the last save, by position. Loading replays the
// lines; another process's saves are read from the byte offset this one last read. The file is rewritten whole
// (atomically) only when a state is saved to a file it did not come from, or when the log has grown far longer than
// its transactions (`compactIfBloated`, under the runner's lock). A file of the former format (one JSON object of
// the whole state) reads as the first line of a log.

/// Where a state stands against its state file: what the file holds of it, so that a save appends only the rest.
struct LogMark: Sendable {
    var path: String?
    var inode: UInt64 = 0
    /// The end of the last complete line read or written.
    var offset: Int64 = 0
    var lines = 0
    /// How many transactions and closed batches the file holds.
    var savedTransactions = 0
    var savedClosedBatches = 0
    /// Transactions the file holds that changed since (refunded, captured).
    var changed: Set<Int> = []
    /// The small part as last written: a save that changes nothing appends nothing.
    var lastSmall: SmallState?
}

/// The part of the state that does not grow, written whole on every line.
struct SmallState: Codable, Equatable, Sendable {
    var rng: UInt64?
    var nextStan: Int
    var batchCount: Int
    var orderCount: Int
    var activeBatch: SimBatch?
    var pending: PendingTransaction?
    var lastInstant: Int64?
    var setup: SimSetup
}

/// One line of the log.
struct LogRecord: Codable {
    struct Entry: Codable {
        /// The transaction's position: the next one appends it, an earlier one replaces it.
        var at: Int
        var t: SimTransaction
    }
    /// The log's format; its presence tells a line from a whole state of the former format.
    var log: Int = 1
    var state: SmallState?
    var transactions: [Entry]?
    /// `closedBatches` from position `closedFrom` on.
    var closedFrom: Int?
    var closedBatches: [SimBatch]?
}

/// A state file that cannot be read back.
public struct StateFileError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "simulator state \(path): \(reason)" }
}

extension SimulatorState {
    var small: SmallState {
        get {
            SmallState(rng: rng, nextStan: nextStan, batchCount: batchCount, orderCount: orderCount, activeBatch: activeBatch,
                       pending: pending, lastInstant: lastInstant, setup: setup)
        }
        set {
            rng = newValue.rng; nextStan = newValue.nextStan; batchCount = newValue.batchCount; orderCount = newValue.orderCount
            activeBatch = newValue.activeBatch; pending = newValue.pending; lastInstant = newValue.lastInstant; setup = newValue.setup
        }
    }

    /// Replays one line of the log.
    mutating func apply(_ r: LogRecord) -> String? {
        if let s = r.state { small = s }
        for e in r.transactions ?? [] {
            if e.at == transactions.count {
                append(e.t)
            } else if e.at >= 0 && e.at < transactions.count {
                let old = transactions[e.at]
                transactions[e.at] = e.t
                if old.referenceNumber != e.t.referenceNumber || old.shortOrderCode != e.t.shortOrderCode
                    || old.accountNumber != e.t.accountNumber || old.clientTransactionId != e.t.clientTransactionId
                    || old.kind != e.t.kind { rebuildIndices() }
            } else {
                return "transaction \(e.at) comes before transaction \(transactions.count)"
            }
        }
        if let from = r.closedFrom, let batches = r.closedBatches {
            guard from >= 0 && from <= closedBatches.count else { return "closed batch \(from) comes before \(closedBatches.count)" }
            closedBatches.replaceSubrange(from..<min(from + batches.count, closedBatches.count), with: batches)
        }
        return nil
    }

    /// Everything in memory is in the file at `path` (its inode), `offset` bytes in `lines` lines: where the next save
    /// appends, and what it compares with.
    mutating func markSaved(path: String, inode: ino_t, offset: Int64, lines: Int) {
        log = LogMark(path: path, inode: UInt64(inode), offset: offset, lines: lines, savedTransactions: transactions.count,
                      savedClosedBatches: closedBatches.count, changed: [], lastSmall: small)
    }

    /// True when everything in memory is in the file (so another process's lines may be replayed on top).
    var isSaved: Bool {
        log.changed.isEmpty && transactions.count == log.savedTransactions && closedBatches.count == log.savedClosedBatches
    }
}

enum StateLog {
    static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return e
    }

    /// Transactions (and closed batches) per line of a whole rewrite.
    static let chunk = 1000

    /// Loads the state a log holds; nil when the file does not exist.
    static func load(_ path: String) throws -> SimulatorState? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw FileError(path: path, operation: "open")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw FileError(path: path, operation: "stat") }
        let bytes = try readAll(fd, from: 0, path: path)
        var state = SimulatorState()
        let (end, lines) = try replay(bytes, into: &state, first: true, path: path)
        guard lines > 0 else { throw StateFileError(path: path, reason: bytes.isEmpty ? "empty" : "line 1 is damaged") }
        state.markSaved(path: path, inode: st.st_ino, offset: Int64(end), lines: lines)
        return state
    }

    /// Replays the lines another process appended since this state last read or wrote the file. False when that
    /// cannot be done (another file, a rewritten one, or another process wrote while this state holds changes it
    /// could not save): load it whole instead, as the runner always did when another process had written.
    static func catchUp(_ state: inout SimulatorState, _ path: String) throws -> Bool {
        guard state.log.path == path else { return false }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, UInt64(st.st_ino) == state.log.inode, Int64(st.st_size) >= state.log.offset else { return false }
        // Nobody else wrote: what this state has not saved yet (a save that failed) stays, for the next save.
        if Int64(st.st_size) == state.log.offset { return true }
        guard state.isSaved else { return false }
        let bytes = try readAll(fd, from: state.log.offset, path: path)
        let (end, lines) = try replay(bytes, into: &state, first: false, path: path)
        state.log.offset += Int64(end); state.log.lines += lines
        state.log.savedTransactions = state.transactions.count; state.log.savedClosedBatches = state.closedBatches.count
        if lines > 0 { state.log.lastSmall = state.small }
        return true
    }

    /// Replays the complete lines of `bytes`; returns where the last good line ends and how many lines were read.
    /// A last line that is incomplete (no newline: a save cut short) or unreadable is left out; the next save
    /// writes over it. A damaged line before the last is an error.
    static func replay(_ bytes: [UInt8], into state: inout SimulatorState, first: Bool, path: String) throws -> (Int, Int) {
        let decoder = JSONDecoder()
        var start = 0, good = 0, lines = 0
        let lastNewline = bytes.lastIndex(of: 0x0A)
        while let nl = bytes[start...].firstIndex(of: 0x0A) {
            let data = Data(bytes[start..<nl])
            let isLast = nl == lastNewline
            if let r = try? decoder.decode(LogRecord.self, from: data) {
                if let problem = state.apply(r) { throw StateFileError(path: path, reason: "line \(lines + 1): \(problem)") }
            } else if first && lines == 0, let whole = try? StateCoding.decode(String(decoding: data, as: UTF8.self)) {
                state = whole    // the former format: the whole state as one object
            } else if isLast && lines > 0 || isLast && !first {
                break
            } else {
                throw StateFileError(path: path, reason: "line \(lines + 1) is damaged")
            }
            lines += 1
            start = nl + 1
            good = start
        }
        // The former format written without a final newline, or by hand across several lines.
        if first && lines == 0, !bytes.isEmpty, let whole = try? StateCoding.decode(String(decoding: bytes, as: UTF8.self)) {
            state = whole
            return (bytes.count, 1)
        }
        return (good, lines)
    }

    /// Saves: appends what changed when the file is the one this state last read or wrote, else writes it whole.
    static func save(_ state: inout SimulatorState, to path: String) throws {
        let small = state.small
        guard state.log.path == path, state.transactions.count >= state.log.savedTransactions,
              state.closedBatches.count >= state.log.savedClosedBatches else { return try writeWhole(&state, to: path) }
        if state.isSaved && small == state.log.lastSmall && Path.exists(path) { return }
        var record = LogRecord(state: small)
        var entries = state.log.changed.sorted().map { LogRecord.Entry(at: $0, t: state.transactions[$0]) }
        for i in state.log.savedTransactions..<state.transactions.count { entries.append(.init(at: i, t: state.transactions[i])) }
        if !entries.isEmpty { record.transactions = entries }
        if state.closedBatches.count > state.log.savedClosedBatches {
            record.closedFrom = state.log.savedClosedBatches
            record.closedBatches = Array(state.closedBatches[state.log.savedClosedBatches...])
        }
        let line = Array(try encoder().encode(record)) + [0x0A]
        guard try append(line, to: path, at: state.log.offset, inode: state.log.inode) else { return try writeWhole(&state, to: path) }
        state.log.offset += Int64(line.count); state.log.lines += 1
        state.log.savedTransactions = state.transactions.count; state.log.savedClosedBatches = state.closedBatches.count
        state.log.changed = []; state.log.lastSmall = small
    }

    /// Writes `line` at `offset` when the file is still the one at that offset (a cut-short line after it is
    /// dropped); false when it is not (rewritten, or holding lines this state has not read).
    private static func append(_ line: [UInt8], to path: String, at offset: Int64, inode: UInt64) throws -> Bool {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, UInt64(st.st_ino) == inode, Int64(st.st_size) >= offset else { return false }
        if Int64(st.st_size) > offset {
            guard try !readAll(fd, from: offset, path: path).contains(0x0A) else { return false }
            guard ftruncate(fd, off_t(offset)) == 0 else { throw FileError(path: path, operation: "truncate") }
        }
        var written = 0
        while written < line.count {
            let n = line[written...].withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset) + off_t(written)) }
            if n < 0 { if errno == EINTR { continue }; throw FileError(path: path, operation: "append to") }
            written += n
        }
        guard fsync(fd) == 0 else { throw FileError(path: path, operation: "fsync") }
        return true
    }

    /// Rewrites the file whole, atomically: lines of up to `chunk` transactions and closed batches, the last one
    /// with the small state.
    static func writeWhole(_ state: inout SimulatorState, to path: String) throws {
        let e = encoder()
        let parts = max(1, (state.transactions.count + chunk - 1) / chunk, (state.closedBatches.count + chunk - 1) / chunk)
        // Written line by line as it is encoded, put in place whole (`AtomicFileWriter`).
        let file = try AtomicFileWriter(path: path)
        var bytes = 0
        for k in 0..<parts {
            var r = LogRecord()
            let ts = min(k * chunk, state.transactions.count)..<min((k + 1) * chunk, state.transactions.count)
            if !ts.isEmpty { r.transactions = ts.map { .init(at: $0, t: state.transactions[$0]) } }
            let bs = min(k * chunk, state.closedBatches.count)..<min((k + 1) * chunk, state.closedBatches.count)
            if !bs.isEmpty { r.closedFrom = bs.lowerBound; r.closedBatches = Array(state.closedBatches[bs]) }
            if k == parts - 1 { r.state = state.small }
            let line = String(decoding: try e.encode(r), as: UTF8.self) + "\n"
            try file.write(line)
            bytes += line.utf8.count
        }
        try file.commit()
        var st = stat()
        guard stat(path, &st) == 0 else { throw FileError(path: path, operation: "stat") }
        state.markSaved(path: path, inode: st.st_ino, offset: Int64(bytes), lines: parts)
    }

    /// Rewrites a log that has grown far past what it holds (most lines carry only the small state). Rare: after a
    /// rewrite it takes about twice as many saves as there are transactions before the next.
    static func compactIfBloated(_ state: inout SimulatorState, _ path: String) throws {
        guard state.log.path == path, state.log.lines > 2 * (state.transactions.count + state.closedBatches.count) + 1000 else { return }
        try writeWhole(&state, to: path)
    }

    private static func readAll(_ fd: Int32, from offset: Int64, path: String) throws -> [UInt8] {
        var out = [UInt8]()
        var buf = [UInt8](repeating: 0, count: 1 << 16)
        var at = off_t(offset)
        while true {
            let n = buf.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, at) }
            if n < 0 { if errno == EINTR { continue }; throw FileError(path: path, operation: "read") }
            if n == 0 { return out }
            out.append(contentsOf: buf[0..<n])
            at += off_t(n)
        }
    }
}
