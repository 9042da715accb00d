import Foundation
import GRDB
import TillIO

/// What `till-sync` last knew of the store, in a small file beside the journal (`<journal>.sync-status.json`), for the
/// cashier's status line: the till never talks to the store and never links its client, and the sync writes to the
/// journal only to prune its outbox (`OutboxPruner`), never what it tells. Missing file: no sync has run.
public struct SyncStatus: Sendable, Hashable, Codable {
    public var journalId: String
    /// The last outbox sequence the store holds (what was sent).
    public var storeLastSeq: Int64
    /// When the store last took a push or said it was up to date (till-sync's clock).
    public var sentAtMs: Int64?
    /// Why the last try failed, and since when tries have failed; nil when the last one worked.
    public var problem: String?
    public var failingSinceMs: Int64?
    /// A refusal that needs a person (a wrong password, a refused journal), not the network.
    public var needsSetUp: Bool

    public init(journalId: String, storeLastSeq: Int64, sentAtMs: Int64?, problem: String? = nil, failingSinceMs: Int64? = nil,
                needsSetUp: Bool = false) {
        self.journalId = journalId; self.storeLastSeq = storeLastSeq; self.sentAtMs = sentAtMs; self.problem = problem
        self.failingSinceMs = failingSinceMs; self.needsSetUp = needsSetUp
    }

    public static func path(journal: String) -> String { journal + ".sync-status.json" }

    public static func read(journal: String) -> SyncStatus? {
        AtomicFile.read(path(journal: journal)).flatMap { try? JSONDecoder().decode(SyncStatus.self, from: Data($0.utf8)) }
    }

    /// Written whole or not at all (a reader never sees half of it).
    public func write(journal: String) throws {
        let text = String(decoding: try JSONEncoder().encode(self), as: UTF8.self)
        try AtomicFile.write(text, to: SyncStatus.path(journal: journal))
    }
}

extension Journal {
    /// The last sequence the outbox gave (0: none): with `SyncStatus.storeLastSeq`, how many events are still to send.
    /// Pruning does not change it (see `outboxLastSeq(in:)`).
    public func outboxLastSeq() throws -> Int64 {
        try reading { db in try Journal.outboxLastSeq(in: db) }
    }

    /// What the sync last wrote beside the journal, with how many of the journal's changes the store does not hold
    /// yet; nil when no sync ever ran for it. Never the network: a file and the journal's own outbox.
    public func storeSync() -> StoreSync? {
        guard let status = SyncStatus.read(journal: path) else { return nil }
        let last = (try? outboxLastSeq()) ?? 0
        let held = (try? journalId()) == status.journalId ? status.storeLastSeq : 0
        return StoreSync(toSend: max(0, last - held), sentAtMs: status.sentAtMs, failingSinceMs: status.failingSinceMs,
                         needsSetUp: status.needsSetUp)
    }
}
