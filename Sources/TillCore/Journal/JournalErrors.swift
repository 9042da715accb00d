import Foundation
import Synchronization

/// Why a journal path was refused.
public struct JournalOpenError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "cannot use \(path.isEmpty ? "\"\"" : path) as the journal: \(reason)." }
}

/// A use of a journal after `close()`: a program error, said plainly rather than handed to SQLite.
public struct JournalClosedError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public var description: String { "the journal \(path) was already closed by this process" }
}

/// A journal write that failed because of an injected fault (tests only), worded as a full disk.
public struct InjectedJournalFault: Error, Sendable, CustomStringConvertible {
    public var description: String { "database or disk is full (injected fault)" }
}

/// Test-only switch that makes the next journal writes fail, as a full disk would.
final class JournalFaults: Sendable {
    /// How many more writes fail.
    private let failing = Mutex(0)
    /// Makes the next `count` writes fail (`Int.max`: until `clear()`).
    func failWrites(_ count: Int = .max) { failing.withLock { $0 = count } }
    func clear() { failing.withLock { $0 = 0 } }
    func check() throws {
        let fails = failing.withLock { f -> Bool in
            guard f > 0 else { return false }
            if f != .max { f -= 1 }
            return true
        }
        if fails { throw InjectedJournalFault() }
    }
}

/// The journal file at the path is not the one till has open, or was cut short: what till would write or report would
/// not be what is on disk.
public struct JournalFileError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var problem: String
    public var description: String {
        "THE JOURNAL FILE \(path) \(problem). Nothing more is written to it: stop till, keep every file beside it "
            + "(\(path)-wal too) and have it checked before taking more payments."
    }
}

/// SQLite (or `till check`) found the journal file damaged, now or earlier (`earlier`: the mark beside the journal).
public struct JournalDamagedError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var findings: [String]
    public var earlier = false
    public init(path: String, findings: [String], earlier: Bool = false) {
        self.path = path; self.findings = findings; self.earlier = earlier
    }
    public var description: String {
        "THE JOURNAL \(path) IS DAMAGED (\(earlier ? "found earlier, " : "")\(findings.prefix(3).joined(separator: "; "))). "
            + "Nothing was read from it as if whole: keep a copy of the file and restore the last backup, or have it repaired, "
            + "then run `till check`, before relying on it."
    }
}
