import TillLife
import TillModel
import TillProtocol

/// The journal as the virtual-clock simulation keeps it: in memory, with the same compare-and-set writes as the SQLite
/// journal (`Journal`, TillCore), so that a run of a million events takes seconds. A write can be made to fail
/// (`failNextWrite`), as a full disk does.
final class MemoryBook: PaymentBook {
    struct Row {
        var entry: JournalEntry
        var unmatched: Bool
        var requested: (amount: Money?, tip: Money?)
    }
    struct WriteFailed: Error, CustomStringConvertible { var description: String { "disk I/O error (simulated)" } }

    private(set) var rows: [Row] = []
    private var byRequestId: [String: Int64] = [:]
    private var byReference: [String: [Int64]] = [:]
    private var byTransaction: [String: [Int64]] = [:]
    private var byStanOrder: [String: [Int64]] = [:]
    private var transactionOf: [Int64: String] = [:]
    var open = BatchInfo(id: "b1", name: "Shift", openedAtMs: 0, isOpen: true)
    /// The next write throws, and nothing of it is kept.
    var failNextWrite = false
    private(set) var writes = 0

    var entries: [JournalEntry] { rows.map(\.entry) }

    /// Entries written since the simulation's last look (`takeChanged`).
    private var changed = Set<Int64>()

    func takeChanged() -> Set<Int64> {
        defer { changed.removeAll(keepingCapacity: true) }
        return changed
    }

    private func writing() throws {
        writes += 1
        if failNextWrite { failNextWrite = false; throw WriteFailed() }
    }

    private func row(_ id: Int64) -> Int? { id >= 1 && Int(id) <= rows.count ? Int(id) - 1 : nil }

    func entry(id: Int64) throws -> JournalEntry? { row(id).map { rows[$0].entry } }

    func entry(requestId: String) throws -> JournalEntry? { byRequestId[requestId].flatMap { try? entry(id: $0) } }

    func entries(clientTransactionId: String) throws -> [JournalEntry] {
        (byReference[clientTransactionId] ?? []).reversed().compactMap { id in
            rows[Int(id) - 1].unmatched ? nil : rows[Int(id) - 1].entry
        }
    }

    func awaitingWithoutReference(action: Action) throws -> [JournalEntry] {
        var out: [JournalEntry] = []
        for r in rows.reversed() where !r.unmatched && r.entry.action == action && r.entry.clientTransactionId == nil
            && r.entry.state.awaitsTerminal {
            out.append(r.entry)
            if out.count == 16 { break }
        }
        return out
    }

    func entry(sameTransactionAs r: CallbackResponse, action: Action, excluding id: Int64?, countedOnly: Bool) throws -> JournalEntry? {
        let candidates: [Int64]
        if let t = r.transactionId, !t.isEmpty {
            candidates = byTransaction[t] ?? []
        } else if let stan = r.referenceNumber, !stan.isEmpty, let order = r.orderCode, !order.isEmpty {
            candidates = byStanOrder[stan + "/" + order] ?? []
        } else {
            return nil
        }
        return candidates.sorted().lazy.map { self.rows[Int($0) - 1] }.first { row in
            let e = row.entry
            return (e.state == .approved || e.state == .review) && e.id != id && e.action == action
                && !(countedOnly && row.unmatched && e.state == .review)
        }?.entry
    }

    /// The transaction id of the answer entry `id` holds (kept when the answer is journaled: reading it again parses).
    func transactionId(of id: Int64) -> String? { transactionOf[id] }

    private func indexAnswer(_ r: CallbackResponse, of id: Int64) {
        if let t = r.transactionId, !t.isEmpty {
            byTransaction[t, default: []].append(id)
            transactionOf[id] = t
        } else {
            transactionOf[id] = nil
        }
        if let stan = r.referenceNumber, !stan.isEmpty, let order = r.orderCode, !order.isEmpty {
            byStanOrder[stan + "/" + order, default: []].append(id)
        }
    }

    func approved(_ action: Action, after id: Int64, charged: Money) throws -> [JournalEntry] {
        rows.filter { !$0.unmatched && $0.entry.id > id && $0.entry.action == action && $0.entry.state == .approved
            && $0.entry.charged == charged }.prefix(50).map(\.entry)
    }

    func requestedAmounts(of id: Int64) throws -> (amount: Money?, tip: Money?) { row(id).map { rows[$0].requested } ?? (nil, nil) }

    func batch(nowMs: Int64) throws -> BatchInfo { open }

    func closeNames(batchId: String?, batchName: String?, open: BatchInfo) -> Bool { batchId == nil || batchId == open.id }

    func sameStoredAnswer(_ a: CallbackResponse, _ b: CallbackResponse) -> Bool { Self.stored(a) == Self.stored(b) }

    static func stored(_ r: CallbackResponse) -> [String] { r.fields.map { $0.name + "=" + $0.value }.sorted() }

    private func add(_ e: JournalEntry, unmatched: Bool, requested: (Money?, Money?)) -> JournalEntry {
        var e = e
        e.id = Int64(rows.count + 1)
        rows.append(Row(entry: e, unmatched: unmatched, requested: requested))
        changed.insert(e.id)
        byRequestId[e.requestId] = e.id
        if let c = e.clientTransactionId { byReference[c, default: []].append(e.id) }
        return e
    }

    func insertPending(requestId: String, request: TerminalRequest, batch: BatchInfo, parentId: Int64?, nowMs: Int64) throws -> JournalEntry {
        try writing()
        let asked = request.request.asked
        return add(JournalEntry(id: 0, requestId: requestId, action: request.request.action, clientTransactionId: request.request.clientTransactionId,
                                amount: asked.amount, tipAmount: asked.tip, requestURL: request.redactedURL, state: .pending,
                                createdAtMs: nowMs, updatedAtMs: nowMs, batchId: batch.id, batchName: batch.name),
                   unmatched: false, requested: (asked.amount, asked.tip))
    }

    func markSent(_ id: Int64, nowMs: Int64) throws -> Bool {
        try writing()
        guard let i = row(id), rows[i].entry.state == .pending else { return false }
        rows[i].entry.state = .sent
        rows[i].entry.updatedAtMs = nowMs
        changed.insert(id)
        return true
    }

    func transition(_ id: Int64, to state: EntryState, note: String?, from: Set<EntryState>, nowMs: Int64) throws -> Bool {
        try writing()
        guard let i = row(id), from.contains(rows[i].entry.state) else { return false }
        rows[i].entry.state = state
        rows[i].entry.note = note
        rows[i].entry.updatedAtMs = nowMs
        changed.insert(id)
        return true
    }

    func recordAnswer(_ id: Int64, response: CallbackResponse, state: EntryState, note: String?, onlyIf: Set<EntryState>?, nowMs: Int64) throws -> Bool {
        try writing()
        guard let i = row(id) else { return false }
        if let onlyIf, !onlyIf.contains(rows[i].entry.state) { return false }
        var e = rows[i].entry
        e.state = state
        e.note = note
        e.response = response
        e.updatedAtMs = nowMs
        // An abort's answer says nothing of the payment's amounts: the payment keeps its own.
        if response.action != .abort {
            if let a = response.amount { e.amount = a }
            if let t = response.tipAmount { e.tipAmount = t }
        }
        if e.clientTransactionId == nil, let c = response.clientTransactionId {
            e.clientTransactionId = c
            byReference[c, default: []].append(e.id)
        }
        rows[i].entry = e
        changed.insert(id)
        indexAnswer(response, of: e.id)
        if state == .approved, !rows[i].unmatched {
            // The same transaction journaled earlier as an answer that matched nothing is this entry's answer.
            var same = Set<Int64>()
            if let t = response.transactionId, !t.isEmpty { same.formUnion(byTransaction[t] ?? []) }
            else if let stan = response.referenceNumber, !stan.isEmpty, let order = response.orderCode, !order.isEmpty {
                same.formUnion(byStanOrder[stan + "/" + order] ?? [])
            }
            for j in same.map({ Int($0) - 1 }) where rows[j].unmatched && rows[j].entry.state == .review {
                rows[j].entry.state = .duplicate
            }
        }
        return true
    }

    func insertUnmatched(response: CallbackResponse, text: String, note: String, batch: BatchInfo, state: EntryState,
                         nowMs: Int64) throws -> (entry: JournalEntry, inserted: Bool) {
        let requestId = "unmatched-" + text
        if let e = try entry(requestId: requestId) { return (e, false) }
        try writing()
        let e = add(JournalEntry(id: 0, requestId: requestId, action: response.action ?? .sale, clientTransactionId: response.clientTransactionId,
                                 amount: response.amount, tipAmount: response.tipAmount, requestURL: "", state: state, createdAtMs: nowMs,
                                 updatedAtMs: nowMs, response: response, batchId: batch.id, batchName: batch.name, note: note),
                    unmatched: true, requested: (nil, nil))
        indexAnswer(response, of: e.id)
        return (e, true)
    }

    func keepStray(_ response: CallbackResponse, whileWaiting waiting: JournalEntry, nowMs: Int64) throws -> (entry: JournalEntry, inserted: Bool) {
        let note = "An answer that named no payment, while journal entry \(waiting.id) waited for its own: "
            + (response.isApproved ? "it may be a charge for another payment. " : "") + "Check the terminal."
        return try insertUnmatched(response: response, text: "stray:" + Self.stored(response).joined(separator: "&"), note: note,
                                   batch: open, state: .review, nowMs: nowMs)
    }

    func keepStoredStray(of e: JournalEntry, nowMs: Int64) throws -> (entry: JournalEntry, inserted: Bool)? {
        guard let old = e.response, old.isApproved, old.clientTransactionId == nil, e.clientTransactionId != nil,
              old.action == e.action else { return nil }
        return try keepStray(old, whileWaiting: e, nowMs: nowMs)
    }

    /// Entries that wait on the terminal, oldest first (what start-up recovery goes through).
    func awaiting() -> [JournalEntry] { rows.filter { !$0.unmatched && $0.entry.state.awaitsTerminal }.map(\.entry) }
}
