import TillModel
import TillProtocol

/// What a payment's life reads and writes of the journal. The journal (TillCore, SQLite) is the book a till keeps;
/// the virtual-clock simulation keeps one in memory. Writes are made at once, not returned as effects: every rule after
/// a write reads what it wrote, and a write that fails changes what the cashier is told (`LifeError`). Every write takes
/// `nowMs` from its caller, so that a run on a virtual clock journals virtual times.
public protocol PaymentBook {
    func entry(id: Int64) throws -> JournalEntry?
    func entry(requestId: String) throws -> JournalEntry?
    /// Request entries (not unmatched answers) with this client transaction id, newest first.
    func entries(clientTransactionId: String) throws -> [JournalEntry]
    /// Requests of this action that carry no reference and still wait for the terminal, newest first (a few).
    func awaitingWithoutReference(action: Action) throws -> [JournalEntry]
    /// An approved (or for-review) entry of the card transaction `r` reports (same transaction id, else same STAN and
    /// order code). `countedOnly`: not an unmatched answer waiting for review.
    func entry(sameTransactionAs r: CallbackResponse, action: Action, excluding id: Int64?, countedOnly: Bool) throws -> JournalEntry?
    /// Payments of this till's of `action`, journaled after entry `id`, that count as charged `charged` (amount with
    /// its tip): the cashier may have charged the customer again after a "not charged" that turned out charged.
    func approved(_ action: Action, after id: Int64, charged: Money) throws -> [JournalEntry]
    /// What the request asked for, before any answer.
    func requestedAmounts(of id: Int64) throws -> (amount: Money?, tip: Money?)
    /// The batch (shift) as at `nowMs`.
    func batch(nowMs: Int64) throws -> BatchInfo
    /// Whether the terminal's close (the id and name of the batch it says it closed) closes `open`.
    func closeNames(batchId: String?, batchName: String?, open: BatchInfo) -> Bool
    /// Whether two answers say the same thing as the journal keeps them (secrets redacted, fields in one order).
    func sameStoredAnswer(_ a: CallbackResponse, _ b: CallbackResponse) -> Bool

    /// Journals a request before it is sent (state `pending`).
    func insertPending(requestId: String, request: TerminalRequest, batch: BatchInfo, parentId: Int64?, nowMs: Int64) throws -> JournalEntry
    /// `pending` → `sent`; false when the entry had moved on.
    @discardableResult func markSent(_ id: Int64, nowMs: Int64) throws -> Bool
    /// Compare-and-set of the state: only from one of `from`.
    @discardableResult func transition(_ id: Int64, to state: EntryState, note: String?, from: Set<EntryState>, nowMs: Int64) throws -> Bool
    /// An answer onto an entry, and its state (nil `onlyIf`: whatever the state was).
    @discardableResult func recordAnswer(_ id: Int64, response: CallbackResponse, state: EntryState, note: String?,
                                         onlyIf: Set<EntryState>?, nowMs: Int64) throws -> Bool
    /// An answer that matched nothing: a row of its own, once per answer text.
    func insertUnmatched(response: CallbackResponse, text: String, note: String, batch: BatchInfo, state: EntryState,
                         nowMs: Int64) throws -> (entry: JournalEntry, inserted: Bool)
    /// An answer that named no payment while `waiting` waited for its own: a row of its own, for review.
    func keepStray(_ response: CallbackResponse, whileWaiting waiting: JournalEntry, nowMs: Int64) throws -> (entry: JournalEntry, inserted: Bool)
    /// Before something else settles `e`: the approval naming no payment it held, kept on its own. Nil: none held.
    func keepStoredStray(of e: JournalEntry, nowMs: Int64) throws -> (entry: JournalEntry, inserted: Bool)?
}
