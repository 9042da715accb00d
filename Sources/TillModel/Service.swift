import TillProtocol

// The contract between the controller layer and whoever drives it (the UI, the headless
// commands). The UI never builds URLs or touches the journal: it calls a `TillService`.

/// Where one journaled request stands.
public enum EntryState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Journaled, not yet handed to the transport (a crash here: it was never sent).
    case pending
    /// Handed to the transport; no answer yet.
    case sent
    /// Answered `status=success`.
    case approved
    /// Answered with anything but success (declined, cancelled by the cardholder, failed).
    case declined
    /// Ended by an abort.
    case aborted
    /// No answer in time, the transport failed after sending, or till stopped while waiting:
    /// the terminal may or may not have done it. Never shown as failed.
    case unknown
    /// An unknown outcome that a cashier or recovery has since settled as not charged (the note says how).
    case resolved
    /// The terminal answered, but the answer needs a person before it counts: approved for another amount than
    /// was asked, or an answer that matched nothing till sent. Never in the clean totals until resolved.
    case review
    /// An answer that repeats a transaction the journal already holds (same transaction id / STAN): nothing new was
    /// charged. Never counted.
    case duplicate

    /// Still needs the cashier's attention: shown in Unresolved, blocks a clean close.
    public var needsAttention: Bool { self == .pending || self == .sent || self == .unknown || self == .review }
    /// Still waiting for the terminal's word (start-up recovery may ask the terminal about it).
    public var awaitsTerminal: Bool { isWithItsSender || self == .unknown }
    /// Journaled to be sent, or sent, and its till still waiting for the answer (one that stopped leaves it unknown):
    /// while that till runs, it is that till's to settle ("in progress on another till").
    public var isWithItsSender: Bool { self == .pending || self == .sent }
    public var isFinal: Bool { !needsAttention }
    /// A person who learned the truth from the terminal may settle it: what needs attention, and a decline or an abort
    /// (the terminal's "not charged" is not proof: it may have charged the card after all, and shows it).
    public var personMaySettle: Bool { needsAttention || self == .declined || self == .aborted }
    /// The states `personMaySettle` holds.
    public static var settledByAPerson: Set<EntryState> { Set(allCases.filter(\.personMaySettle)) }
}

/// One request and everything known about its outcome, as the journal keeps it.
/// Never holds a secret in clear: `requestURL` is redacted, card numbers are masked.
public struct JournalEntry: Sendable, Hashable, Codable, Identifiable {
    public var id: Int64
    /// The transport-level id (file name in the drop folder), a UUID.
    public var requestId: String
    public var action: Action
    public var clientTransactionId: String?
    /// What it moved, as every total counts it: the amount the terminal's answer stated (an abort's answer states
    /// none of the payment's), or the one a person gave when settling it, else what was asked. The answer itself, as
    /// it came, is in `response`.
    public var amount: Money?
    public var tipAmount: Money?
    /// The request URL with secrets redacted.
    public var requestURL: String
    public var state: EntryState
    /// Milliseconds since 1970, till's clock.
    public var createdAtMs: Int64
    public var updatedAtMs: Int64
    /// The decoded answer, when one arrived (raw callback kept inside, masked).
    public var response: CallbackResponse?
    /// The batch (shift) till believes this entry belongs to.
    public var batchId: String?
    public var batchName: String?
    /// Why the outcome is unknown, or how it was resolved, in the cashier's words.
    public var note: String?
    /// How the terminal read this entry's tip when it was journaled (config `tip` then): every total of the entry reads
    /// this, never the config of the day it is shown, so changing `tip` restates nothing already journaled.
    public var tipStyle: TipStyle

    public init(id: Int64, requestId: String, action: Action, clientTransactionId: String?, amount: Money?, tipAmount: Money?,
                requestURL: String, state: EntryState, createdAtMs: Int64, updatedAtMs: Int64, response: CallbackResponse? = nil,
                batchId: String? = nil, batchName: String? = nil, note: String? = nil, tipStyle: TipStyle = .onTop) {
        self.id = id; self.requestId = requestId; self.action = action; self.clientTransactionId = clientTransactionId
        self.amount = amount; self.tipAmount = tipAmount; self.requestURL = requestURL; self.state = state
        self.createdAtMs = createdAtMs; self.updatedAtMs = updatedAtMs; self.response = response
        self.batchId = batchId; self.batchName = batchName; self.note = note; self.tipStyle = tipStyle
    }

    /// A sale or pre-auth of this till's whose money may have moved with nothing counted yet: its outcome unknown (or
    /// still waiting), or an answer left for review (an approval for another amount, one that named no payment, a status
    /// neither success nor fail). Charging again before someone checks the terminal could charge the customer twice.
    /// (An answer journaled on its own, with no request of this till's, has no request URL.)
    public var mayHaveCharged: Bool {
        guard action.startsPayment, !requestURL.isEmpty else { return false }
        return mayHaveMovedMoney
    }

    /// Its outcome not known (still waiting, unknown) or left for a person (review): the money may have moved.
    public var mayHaveMovedMoney: Bool { state.awaitsTerminal || state == .review }

    /// What the card paid (or was asked to pay), read with the entry's own tip style.
    public var charged: Money? { amount.map { tipStyle.charged(amount: $0, tip: tipAmount) } }
    /// The goods, without the tip, read with the entry's own tip style.
    public var goods: Money? { amount.map { tipStyle.goods(amount: $0, tip: tipAmount) } }
}

/// The request currently waiting for the terminal.
public struct InFlight: Sendable, Hashable {
    public var entry: JournalEntry
    public var startedAtMs: Int64
    /// When till stops waiting and calls the outcome unknown.
    public var deadlineMs: Int64
    public var abortRequested: Bool
    /// The terminal answered the abort "aborted", and till asks it (a look-up) whether the card was charged all the
    /// same before it says "not charged": the screen says "aborting — asking the terminal".
    public var askingAfterAbort: Bool
    public init(entry: JournalEntry, startedAtMs: Int64, deadlineMs: Int64, abortRequested: Bool = false, askingAfterAbort: Bool = false) {
        self.entry = entry; self.startedAtMs = startedAtMs; self.deadlineMs = deadlineMs; self.abortRequested = abortRequested
        self.askingAfterAbort = askingAfterAbort
    }
}

/// How one `perform` ended. Maps onto the headless exit codes: approved/success 0,
/// declined/failed/aborted 1, invalid 2, transport error/timeout/unknown 3.
public enum ActionOutcome: Sendable, Hashable {
    /// Refused before anything was journaled or sent.
    case invalid([ValidationError])
    /// Another request is in flight; nothing was sent.
    case busy(InFlight)
    /// The terminal answered; `entry.state` says approved, declined or aborted.
    case answered(JournalEntry)
    /// Sent (or maybe sent), but no answer: outcome unknown. `entry.note` says why.
    case unknown(JournalEntry)
    /// The transport could not take the request at all; `entry` is set when it was journaled.
    case transportError(JournalEntry?, String)
    /// Not sent: another till process on this journal is waiting for the terminal (one terminal, one sender).
    case otherTillBusy(String)
    /// Not sent: earlier sales have an unknown outcome; the cashier must confirm, naming them, before charging again
    /// (`perform(_:confirmingUnknown:)` with their ids).
    case needsConfirmation([JournalEntry])
    /// The journal could not record a step: loud, never silent. `entry` is the journal's last word on it, if any; the
    /// message says what is known (e.g. the terminal approved but the answer could not be recorded).
    case journalFailed(JournalEntry?, String)

    public var exitCode: Int32 {
        switch self {
        case .answered(let e): return e.state == .approved ? 0 : (e.state == .declined || e.state == .aborted ? 1 : 3)
        case .invalid: return 2
        case .busy, .unknown, .transportError, .otherTillBusy, .needsConfirmation, .journalFailed: return 3
        }
    }
}

/// What happened to an abort request.
public enum AbortResult: Sendable, Hashable {
    /// Nothing of till's is in flight: no abort was sent (the terminal may still be asked with `force`).
    case nothingInFlight
    /// Sent; the terminal answered with this outcome (aborted / nothing to abort).
    case answered(AbortOutcome, CallbackResponse)
    /// Sent; no abort answer (the sale was past the point of no return): its own result will follow.
    case noAnswer
    case transportError(String)
}

/// The batch (shift) as till knows it.
public struct BatchInfo: Sendable, Hashable, Codable {
    public var id: String?
    public var name: String?
    public var openedAtMs: Int64?
    /// The terminal closes a batch by itself 48 hours after it opened.
    public var autoCloseAtMs: Int64? { openedAtMs.map { $0 + 48 * 3_600_000 } }
    public var isOpen: Bool
    public init(id: String? = nil, name: String? = nil, openedAtMs: Int64? = nil, isOpen: Bool = false) {
        self.id = id; self.name = name; self.openedAtMs = openedAtMs; self.isOpen = isOpen
    }
}

/// Which journal entries to list.
public struct JournalFilter: Sendable, Hashable {
    public enum Scope: Sendable, Hashable { case all, currentBatch, batch(String) }
    public var scope: Scope
    /// Matches STAN, order code, client transaction id, card type, amount text or message.
    public var text: String?
    public var limit: Int
    public init(scope: Scope = .all, text: String? = nil, limit: Int = 500) {
        self.scope = scope; self.text = text; self.limit = limit
    }
}

/// Something the controller reports as it happens (for a live result pane).
public enum ControllerEvent: Sendable, Hashable {
    /// A request was journaled and sent; waiting.
    case inFlight(InFlight)
    /// The request in flight ended.
    case settled(ActionOutcome)
    /// Start-up recovery learned (or could not learn) the outcome of an entry an earlier run left open;
    /// `entry` is as the journal now has it (approved, declined, resolved as never sent, or still unknown).
    case recovered(JournalEntry)
    /// The payment's own answer, coming late, changed what a person's mark (or an answer that did not name it) had
    /// settled: `entry` as the journal now has it. The cashier must hear it: a customer may have gone on the mark.
    case changed(JournalEntry)
    /// The journal could not record something: loud, in the cashier's words.
    case journalProblem(String)
    /// An answer arrived that matches nothing in flight: journaled and reported, not dropped.
    case unmatchedAnswer(CallbackResponse, note: String)
    /// The transport had a problem (bridge died and restarts, folder unwritable …), in the cashier's words.
    case transportProblem(String)
    /// A file in the drop folder could not be decoded; moved to `rejected/` with the reason.
    case rejectedAnswer(file: String, reason: String)
    /// The transport is usable again.
    case transportReady(String)
}

/// What the UI and the headless commands need from the controller layer.
/// What the first frame shows from the journal: the shift and the entries that need attention.
public struct JournalGlance: Sendable {
    public var batch: BatchInfo
    public var unresolved: [JournalEntry]
    public init(batch: BatchInfo = BatchInfo(), unresolved: [JournalEntry] = []) {
        self.batch = batch
        self.unresolved = unresolved
    }
}

public protocol TillService: Sendable {
    /// A short description of the transport for the status line (`simulator`, `file:/srv/drop`, `pipe:…`).
    var transportDescription: String { get }
    /// Validates, fills in a client transaction id for sales and pre-auths, journals, sends, waits
    /// (abortably, up to the timeout) and journals the answer. Returns once the outcome is known or unknown.
    func perform(_ request: Request) async -> ActionOutcome
    /// Sends an abort for what is in flight and reports its outcome.
    func abort() async -> AbortResult
    /// The cashier stops waiting for the request in flight (the terminal said it has nothing to
    /// abort, or the cashier gives up): the entry becomes `unknown` and goes to Unresolved; its
    /// `perform` returns `.unknown`. Nothing is sent. Returns that outcome, or nil when nothing was in
    /// flight; `.journalFailed` when the journal could not record it.
    func stopWaiting() async -> ActionOutcome?
    /// Live events; each call returns a new stream.
    func events() -> AsyncStream<ControllerEvent>
    /// The request in flight, if any.
    func inFlight() async -> InFlight?
    /// Entries left pending/sent/unknown (after start-up recovery has asked the terminal what it could).
    func unresolved() async -> [JournalEntry]
    /// Runs start-up recovery: asks the terminal (`transactionDetails`) about every entry left
    /// pending or unknown; returns those still unresolved.
    func recover() async -> [JournalEntry]
    /// Marks an unknown entry as settled by the cashier (`resolved` with a note); never re-sends.
    func resolve(entryId: Int64, note: String) async throws
    /// Settles an entry that needs attention as the cashier found it on the terminal: `charged` makes it an approved
    /// entry (it counts, with the terminal's amount when one is known), not charged makes it `resolved` (never counts).
    func resolve(entryId: Int64, charged: Bool, note: String) async throws
    /// As `perform`, after the cashier confirmed that these earlier unknown outcomes (by journal id) were checked.
    func perform(_ request: Request, confirmingUnknown: Set<Int64>) async -> ActionOutcome
    func entries(_ filter: JournalFilter) async -> [JournalEntry]
    /// The entries about the payment `key` names: the payments that carry it, the refunds and captures of them, and
    /// those that named no payment and may have moved money. What a refund or capture box needs, whatever the
    /// journal's age.
    func entries(about key: FinderKey) async -> [JournalEntry]
    func entry(id: Int64) async -> JournalEntry?
    func batch() async -> BatchInfo
    /// What the first frame shows: the shift and the entries that need attention, as one reading.
    func glance() async -> JournalGlance
    /// The report of a batch: running X while open, the stored Z once closed. `.current` with no batch open gives
    /// the last batch's. Nil when the journal knows no such batch.
    func report(batch: BatchKey) async -> Report?
    /// Writes the batch's report and transactions as CSV files beside the journal (`exports/`);
    /// returns the paths written.
    func exportReport(batch: BatchKey, format: ReportFormat) async throws -> [String]
    /// Whether another till on this journal is waiting for the terminal now: its pending and sent entries are its own
    /// ("in progress on another till"), and cannot be settled here.
    func anotherTillIsSending() async -> Bool
    /// What the central store holds of this journal, as the sync last wrote it beside the journal (nil: no sync ran).
    func storeSync() async -> StoreSync?
}

extension TillService {
    public func entries(about key: FinderKey) async -> [JournalEntry] { await entries(JournalFilter(scope: .all)) }
    public func anotherTillIsSending() async -> Bool { false }
    public func storeSync() async -> StoreSync? { nil }
}

/// What the cashier's status line says of the chain's central store: one cell, never a box. Nil when no sync has run
/// for this journal (a till without a store shows nothing).
public struct StoreSync: Sendable, Hashable {
    /// Journal changes the store does not hold yet.
    public var toSend: Int64
    /// When the store last took a push or said it was up to date.
    public var sentAtMs: Int64?
    /// Since when the sync's tries have failed (the network, the store down); nil when the last one worked.
    public var failingSinceMs: Int64?
    /// The store refused this till in a way that needs a person (a wrong password, a journal not adopted).
    public var needsSetUp: Bool
    public init(toSend: Int64, sentAtMs: Int64? = nil, failingSinceMs: Int64? = nil, needsSetUp: Bool = false) {
        self.toSend = toSend; self.sentAtMs = sentAtMs; self.failingSinceMs = failingSinceMs; self.needsSetUp = needsSetUp
    }
}

extension ActionOutcome {
    /// The journal entry the outcome is about, when there is one.
    public var journalEntry: JournalEntry? {
        switch self {
        case .answered(let e), .unknown(let e): return e
        case .transportError(let e, _): return e
        case .busy(let f): return f.entry
        case .journalFailed(let e, _): return e
        case .invalid, .otherTillBusy, .needsConfirmation: return nil
        }
    }
}
