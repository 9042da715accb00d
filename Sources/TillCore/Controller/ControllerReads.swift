import Foundation
import TillIO
import TillProtocol
#if canImport(Glibc)
import Glibc
#endif

// Reads for the screen and the reports: an error is said, never taken for "nothing there".
extension TillController {
    /// What the sync last wrote beside the journal, with how many of the journal's changes the store does not hold
    /// yet. Never the network: the till reads a file and its own outbox.
    public func storeSync() async -> StoreSync? { journal.storeSync() }

    /// Whether another till on this journal is waiting for the terminal now (its pending and sent entries are its own).
    public func anotherTillIsSending() async -> Bool { life == nil && senderLock.isHeldElsewhere() }

    /// A journal read for the screen or a report: an error is said (never taken for "nothing there") and the fallback
    /// is shown meanwhile.
    func read<T>(_ what: String, _ fallback: T, _ body: () throws -> T) -> T {
        do { return try body() } catch {
            hub.emit(.journalProblem("The journal could not be read (\(what)): \(error)."))
            return fallback
        }
    }

    public func entries(_ filter: JournalFilter) async -> [JournalEntry] {
        read("entries", []) { try journal.entries(filter, currentBatchId: try journal.batch().id) }
    }

    public func entries(about key: FinderKey) async -> [JournalEntry] { read("the payment's entries", []) { try journal.entries(about: key) } }

    public func entry(id: Int64) async -> JournalEntry? { read("entry \(id)", nil) { try journal.entry(id: id) } }

    /// Answers for review that say something else about `e`'s payment (`Journal.answersContradicting`).
    public func answersContradicting(_ e: JournalEntry) async -> [JournalEntry] { read("answers about entry \(e.id)", []) { try journal.answersContradicting(e) } }

    public func report(batch key: BatchKey) async -> Report? {
        read("the report", nil) {
            guard let b = try journal.reportBatch(key) else { return nil }
            return try journal.report(for: b)
        }
    }

    public func exportReport(batch key: BatchKey, format: ReportFormat) async throws -> [String] {
        try ReportFiles.write(journal: journal, batch: key, format: format)
    }

    public func batch() async -> BatchInfo { read("the batch", BatchInfo()) { try journal.batch() } }

    public func glance() async -> JournalGlance {
        read("the batch and the unresolved entries", JournalGlance()) { try journal.glance() }
    }
}
