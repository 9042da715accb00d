import Foundation
import TillIO
import TillProtocol
#if canImport(Glibc)
import Glibc
#endif

/// Broadcasts controller events to every stream handed out by `events()`.
final class EventHub: Sendable {
    private let subscribers = Locked<[UUID: AsyncStream<ControllerEvent>.Continuation]>([:])

    func stream() -> AsyncStream<ControllerEvent> {
        let (stream, continuation) = AsyncStream<ControllerEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        subscribers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.subscribers.withLock { $0.removeValue(forKey: id) } }
        return stream
    }

    func emit(_ e: ControllerEvent) {
        for c in subscribers.withLock({ Array($0.values) }) { c.yield(e) }
    }

    func finish() {
        for c in subscribers.withLock({ s -> [AsyncStream<ControllerEvent>.Continuation] in
            let all = Array(s.values); s.removeAll(); return all
        }) { c.finish() }
    }
}

/// Test-only crash points: `TILL_CRASH_AT=journaled|sent|received|answer-journaled` makes the process SIGKILL
/// itself at that step of the first request it performs (the crash tests use it; nothing else sets it).
enum CrashHook {
    static let point: String? = Environment.process["TILL_CRASH_AT"]
    static func hit(_ name: String, armed: Bool) {
        guard armed, point == name else { return }
        kill(getpid(), SIGKILL)
    }
}

/// Why `resolve` refused.
public struct ResolveError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// The controller: validates, journals, sends through a transport, waits (abortably, up to the timeout),
/// journals the answer and hands it back. One request in flight at a time.
public actor TillController: TillService {
    public nonisolated let transportDescription: String
    public nonisolated let journal: Journal
    public nonisolated let caller: Caller
    /// How long till waits for an answer before it calls the outcome unknown.
    public nonisolated let timeoutMs: Int64
    /// How long `abort()` waits for the abort's own answer before it reports `noAnswer`.
    public nonisolated let abortWaitMs: Int64
    /// How long start-up recovery waits for each `transactionDetails` answer (at most the timeout); once the terminal
    /// does not answer one, recovery stops asking and flags the rest.
    public nonisolated let recoveryTimeoutMs: Int64 = 15_000
    let transport: any Transport
    let hub = EventHub()
    /// One terminal, one sender: the journal's lock file, held while a request is in flight or recovery runs.
    let senderLock: SenderLock

    struct AbortFlight {
        var entry: JournalEntry
        var continuation: CheckedContinuation<AbortResult, Never>?
        var timer: Task<Void, Never>?
    }
    struct Flight {
        var inFlight: InFlight
        var continuation: CheckedContinuation<ActionOutcome, Never>?
        /// Set when the outcome came before the waiter was in place.
        var result: ActionOutcome?
        var timer: Task<Void, Never>?
        var abort: AbortFlight?
        /// The crash hook is armed for the cashier's own requests, not recovery's queries.
        var hooks: Bool
        /// A failure that came without naming this payment: the flight waits a little longer for an answer that
        /// contradicts it, and settles by it if none comes (see `unnamedFailureGraceMs`).
        var unnamedFailure: CallbackResponse?
    }
    /// How long a flight waits for the payment's own answer after a failure that did not name it.
    static let unnamedFailureGraceMs: Int64 = 3_000
    var current: Flight?
    var started = false
    /// Set when `shutdown()` begins: nothing is sent after it.
    var stopped = false
    var consumer: Task<Void, Never>?
    var eventContinuation: AsyncStream<TransportEvent>.Continuation?

    public init(transport: any Transport, journal: Journal, caller: Caller, timeoutMs: Int64 = 90_000, abortWaitMs: Int64 = 5_000) {
        self.transport = transport
        self.transportDescription = transport.description
        self.journal = journal
        self.caller = caller
        self.timeoutMs = timeoutMs
        self.abortWaitMs = abortWaitMs
        self.senderLock = SenderLock(journalPath: journal.path)
    }

    // MARK: life cycle

    /// Starts the transport and handles any answers that waited for till (file drop), before anything else.
    public func start() async throws {
        guard !started else { return }
        started = true
        let (stream, continuation) = AsyncStream<TransportEvent>.makeStream()
        eventContinuation = continuation
        let backlog = try await transport.start(sink: { continuation.yield($0) })
        for a in backlog { await handleAnswer(a) }
        // A backlog answer that could not be journaled ended no flight; nothing else to do here (it was said).
        consumer = Task { [weak self] in
            for await e in stream {
                guard let self else { return }
                await self.handle(e)
            }
        }
        hub.emit(.transportReady(transportDescription))
    }

    /// Stops the transport; a request still in flight is journaled as unknown. From its first line on nothing more is
    /// sent: a request that comes after it (recovery's next question, the command's own sale, while the bridge is
    /// being stopped) is refused, never handed to a bridge started anew that would outlive till.
    public func shutdown() async {
        stopped = true
        if var f = current, f.result == nil {
            if let ab = f.abort, await transport.withdrawIfUnclaimed(id: ab.entry.requestId) {
                do { try journal.transition(ab.entry.id, to: .resolved, note: "Never sent: withdrawn when till stopped.", from: [.pending, .sent]) }
                catch { _ = journalProblem("that the abort was withdrawn", error) }
            }
            var note = "till stopped while waiting for the answer: the outcome is unknown; check the terminal."
            var state = EntryState.unknown
            if await transport.withdrawIfUnclaimed(id: f.inFlight.entry.requestId) {
                note = "Never sent: till stopped before the terminal app took the request, and withdrew it."
                state = .resolved
            }
            do { try journal.transition(f.inFlight.entry.id, to: state, note: note, from: [.pending, .sent]) } catch {
                _ = journalProblem("how the request ended", error)
            }
            f.inFlight.entry.state = state
            f.inFlight.entry.note = note
            finish(.unknown(f.inFlight.entry))
        }
        await transport.stop()
        eventContinuation?.finish()
        consumer?.cancel()
        hub.finish()
    }

    public nonisolated func events() -> AsyncStream<ControllerEvent> { hub.stream() }

    /// What the last `recover()` did: the entries it settled (as `.recovered` events say), and whether it was left
    /// for later because another till on the journal was sending.
    public struct RecoveryReport: Sendable {
        public var settled: [JournalEntry] = []
        public var skipped = false
    }
    public private(set) var lastRecovery = RecoveryReport()

    /// Says what recovery (or a late answer) learned: the event for screens, the list for the command line.
    func reportRecovered(_ e: JournalEntry) {
        lastRecovery.settled.append(e)
        hub.emit(.recovered(e))
    }

    /// Test-only: the process dies here, as with SIGKILL. Nothing more is journaled, answers are no longer taken, the
    /// transport stops, the sender lock goes (as the kernel drops a dead process's locks), and a waiter is woken with
    /// "killed" so the test's task does not hang; what the journal says is what a real kill would leave.
    func simulateKill() async {
        killed = true
        if let f = current {
            f.timer?.cancel()
            f.abort?.timer?.cancel()
            f.abort?.continuation?.resume(returning: .noAnswer)
            f.continuation?.resume(returning: .transportError(nil, "killed"))
        }
        current = nil
        consumer?.cancel()
        eventContinuation?.finish()
        await transport.stop()
        senderLock.forceRelease()
        hub.finish()
    }
    var killed = false

    public func inFlight() async -> InFlight? { current?.inFlight }

    // MARK: perform

    public func perform(_ request: Request) async -> ActionOutcome {
        await perform(request, hooks: true, confirmingUnknown: [])
    }

    public func perform(_ request: Request, confirmingUnknown: Set<Int64>) async -> ActionOutcome {
        await perform(request, hooks: true, confirmingUnknown: confirmingUnknown)
    }

    /// Fills in a client transaction id for sales and pre-auths that have none.
    public static func withClientTransactionId(_ request: Request) -> Request {
        switch request {
        case .sale(var s) where s.clientTransactionId == nil:
            s.clientTransactionId = newClientTransactionId(); return .sale(s)
        case .preAuth(var p) where p.clientTransactionId == nil:
            p.clientTransactionId = newClientTransactionId(); return .preAuth(p)
        default: return request
        }
    }

    /// A new client transaction id: a lower-case UUID (36 characters, within the protocol's 64).
    public static func newClientTransactionId() -> String { UUID().uuidString.lowercased() }

    /// Journal trouble, said at once: an event for the screen, and the message for the outcome.
    func journalProblem(_ what: String, _ error: any Error) -> String {
        let m = "The journal could not record \(what): \(error)."
        hub.emit(.journalProblem(m))
        return m
    }

    /// Refusals before anything is journaled or sent: a reference already used, unknown payments not confirmed.
    func refusal(for request: Request, confirmingUnknown: Set<Int64>) throws -> ActionOutcome? {
        guard request.action == .sale || request.action == .preAuth else { return nil }
        if let ctid = request.clientTransactionId, let used = try journal.entries(clientTransactionId: ctid).first {
            return .invalid([TillController.reusedReference(ctid, used)])
        }
        let open = try journal.unconfirmedUnknownPayments()
        let unconfirmed = open.filter { !confirmingUnknown.contains($0.id) }
        if !unconfirmed.isEmpty { return .needsConfirmation(unconfirmed) }
        try journal.confirmRetry(Set(open.map(\.id)).intersection(confirmingUnknown))
        return nil
    }

    static func reusedReference(_ ctid: String, _ e: JournalEntry) -> ValidationError {
        let what = [e.action.rawValue, e.amount?.description, e.state.rawValue].compactMap { $0 }.joined(separator: " ")
        return ValidationError(field: "clientTransactionId",
                               message: "Reference '\(ctid)' was already used by journal entry \(e.id) (\(what)): use a new reference. Nothing was sent.")
    }

    func perform(_ request: Request, hooks: Bool, timeoutMs: Int64? = nil, confirmingUnknown: Set<Int64> = []) async -> ActionOutcome {
        if stopped { return .transportError(nil, "till is stopping: nothing was sent.") }
        if let c = current { return .busy(c.inFlight) }
        if case .abort = request {
            return .invalid([ValidationError(field: "action", message: "Use abort() to abort what is in flight.")])
        }
        let terminalRequest = TerminalRequest(caller: caller, request: TillController.withClientTransactionId(request))
        let errors = terminalRequest.validationErrors()
        if !errors.isEmpty { return .invalid(errors) }
        // One terminal, one sender: the journal's lock is held from here until the flight ends.
        do {
            try senderLock.acquire()
        } catch {
            return .otherTillBusy(error.description)
        }
        defer { senderLock.release() }
        let requestId = UUID().uuidString.lowercased()
        let batch: BatchInfo
        var entry: JournalEntry
        do {
            if hooks, let refused = try refusal(for: request, confirmingUnknown: confirmingUnknown) { return refused }
            batch = try journal.batch(for: request.action)
            entry = try journal.insertPending(requestId: requestId, request: terminalRequest, batch: batch)
        } catch {
            return .journalFailed(nil, journalProblem("the request, so it was not sent", error))
        }
        CrashHook.hit("journaled", armed: hooks)
        let now = WallClock.nowMs()
        current = Flight(inFlight: InFlight(entry: entry, startedAtMs: now, deadlineMs: now + (timeoutMs ?? self.timeoutMs)), hooks: hooks)
        hub.emit(.inFlight(current!.inFlight))
        do {
            try await transport.send(id: requestId, url: terminalRequest.url)
        } catch {
            let state: EntryState
            let note: String
            switch error {
            case .notSent(let m): state = .resolved; note = "Not sent: \(m)"
            case .maybeSent(let m): state = .unknown; note = "Maybe sent, no answer: \(m) Check the terminal."
            }
            if current?.inFlight.entry.requestId == requestId, current?.result == nil {
                current = nil
                do {
                    try journal.transition(entry.id, to: state, note: note, from: [.pending, .sent])
                } catch {
                    let m = journalProblem("that the request was not sent", error)
                    hub.emit(.settled(.journalFailed(entry, m)))
                    return .journalFailed(entry, m)
                }
                entry.state = state; entry.note = note
                let outcome = ActionOutcome.transportError(entry, error.description)
                hub.emit(.transportProblem(error.description))
                hub.emit(.settled(outcome))
                return outcome
            }
            return await wait(for: requestId)
        }
        // The crash point "sent" is right after the hand-over, whether or not the answer already came.
        CrashHook.hit("sent", armed: hooks)
        if current?.inFlight.entry.requestId == requestId, current?.result == nil {
            do { try journal.markSent(entry.id) } catch {
                // Sent, but the journal still says pending: said loudly; the answer (or recovery) settles it.
                _ = journalProblem("that the request was sent", error)
            }
            current?.inFlight.entry.state = .sent
            if let i = current?.inFlight { hub.emit(.inFlight(i)) }
            let deadline = current!.inFlight.deadlineMs
            current?.timer = Task { [weak self] in
                let ms = max(0, deadline - WallClock.nowMs())
                await Pause.sleep(nanoseconds: UInt64(ms) * 1_000_000)
                if Task.isCancelled { return }
                await self?.timedOut(requestId)
            }
        }
        return await wait(for: requestId)
    }

    private func wait(for requestId: String) async -> ActionOutcome {
        guard let f = current, f.inFlight.entry.requestId == requestId else {
            // Settled and cleared while the request was being handed over; the journal has the outcome.
            do {
                if let e = try journal.entry(requestId: requestId) { return e.state == .unknown ? .unknown(e) : .answered(e) }
            } catch {
                return .journalFailed(nil, journalProblem("(read back) request \(requestId)", error))
            }
            return .transportError(nil, "lost track of request \(requestId)")
        }
        if let r = f.result {
            f.timer?.cancel()
            current = nil
            return r
        }
        return await withCheckedContinuation { c in
            current?.continuation = c
        }
    }

    /// Ends the flight: resumes the waiter (or leaves the result for it) and reports it.
    private func finish(_ outcome: ActionOutcome) {
        guard var f = current else { return }
        f.timer?.cancel()
        if var a = f.abort {
            a.timer?.cancel()
            if let c = a.continuation {
                a.continuation = nil
                if case .answered(let e) = outcome, e.state == .aborted, let r = e.response {
                    c.resume(returning: .answered(.aborted, r))
                } else {
                    c.resume(returning: .noAnswer)
                }
            }
            do {
                try journal.transition(a.entry.id, to: .resolved, note: "No abort answer: the request it was meant to abort ended by itself.",
                                       from: [.pending, .sent, .unknown])
            } catch {
                _ = journalProblem("how the abort ended", error)
            }
        }
        hub.emit(.settled(outcome))
        if let c = f.continuation {
            current = nil
            c.resume(returning: outcome)
        } else {
            f.result = outcome
            f.abort = nil
            current = f
        }
    }

    private func timedOut(_ requestId: String) async {
        guard let f = current, f.inFlight.entry.requestId == requestId, f.result == nil else { return }
        let seconds = timeoutMs % 1000 == 0 ? String(timeoutMs / 1000) : String(Double(timeoutMs) / 1000)
        if let failure = f.unnamedFailure, f.inFlight.entry.clientTransactionId == nil {
            // A request that carries no reference: its only answer, a failure nothing contradicted, settles it.
            do {
                try journal.recordAnswer(f.inFlight.entry.id, response: failure, state: AnswerRules.state(for: failure),
                                         note: nil, onlyIf: [.pending, .sent])
                finish(.answered(try journal.entry(id: f.inFlight.entry.id) ?? f.inFlight.entry))
            } catch {
                finish(.journalFailed(f.inFlight.entry, journalProblem("the terminal's answer", error)))
            }
            return
        }
        let note = f.unnamedFailure.map { _ in
            "The terminal answered 'not approved' without naming this payment, and never named it: "
                + "it may be another payment's answer, so the outcome is unknown. Check the terminal."
        } ?? "No answer within \(seconds) s: the outcome is unknown; check the terminal."
        var e = f.inFlight.entry
        var journalError: String?
        do { try journal.transition(e.id, to: .unknown, note: note, from: [.pending, .sent]) } catch {
            journalError = journalProblem("that the outcome is unknown", error)
        }
        e.state = .unknown; e.note = note
        let withdrawn = await transport.gaveUp(on: requestId)
        guard current?.inFlight.entry.requestId == requestId, current?.result == nil else { return }
        if withdrawn {
            let why = "Never sent: the terminal did not take the request within \(seconds) s, so till withdrew it."
            do { try journal.transition(e.id, to: .resolved, note: why, from: [.unknown, .pending, .sent]) } catch {
                journalError = journalProblem("that the request was withdrawn", error)
            }
            e.state = .resolved; e.note = why
            hub.emit(.transportProblem(why))
            finish(journalError.map { .journalFailed(e, $0) } ?? .transportError(e, why))
            return
        }
        finish(journalError.map { .journalFailed(e, $0 + " " + note) } ?? .unknown(e))
    }

    /// After a failure that did not name the payment in flight: wait at most a short while more for its own answer.
    private func shortenWait(for requestId: String, failure: CallbackResponse) {
        guard var f = current, f.inFlight.entry.requestId == requestId, f.result == nil else { return }
        if f.unnamedFailure == nil { f.unnamedFailure = failure }
        let deadline = min(f.inFlight.deadlineMs, WallClock.nowMs() + TillController.unnamedFailureGraceMs)
        f.inFlight.deadlineMs = deadline
        f.timer?.cancel()
        f.timer = Task { [weak self] in
            await Pause.sleep(nanoseconds: UInt64(max(0, deadline - WallClock.nowMs())) * 1_000_000)
            if Task.isCancelled { return }
            await self?.timedOut(requestId)
        }
        current = f
        hub.emit(.inFlight(f.inFlight))
    }

    /// Stops waiting for the request in flight, at the cashier's word: it becomes unknown (the terminal may still be
    /// working on it) and goes to Unresolved; a late answer still settles it.
    public func stopWaiting() async -> ActionOutcome? {
        guard let f = current, f.result == nil else { return nil }
        let note = "The cashier stopped waiting: the outcome is unknown; check the terminal."
        var e = f.inFlight.entry
        do { try journal.transition(e.id, to: .unknown, note: note, from: [.pending, .sent]) } catch {
            let m = journalProblem("that the outcome is unknown", error)
            finish(.journalFailed(e, m))
            return .journalFailed(e, m)
        }
        e.state = .unknown; e.note = note
        finish(.unknown(e))
        return .unknown(e)
    }

    // MARK: abort

    public func abort() async -> AbortResult { await abort(force: false) }

    /// `force`: with nothing of this till's in flight, send the abort all the same (another process, or a till that
    /// restarted, may have started what the terminal is doing) and wait up to `abortWaitMs` for its answer.
    public func abort(force: Bool) async -> AbortResult {
        if current == nil && force { return await standaloneAbort() }
        guard let f = current, f.result == nil else { return .nothingInFlight }
        if f.abort?.continuation != nil { return .transportError("An abort is already waiting for its answer.") }
        let terminalRequest = TerminalRequest(caller: caller, request: .abort)
        let requestId = UUID().uuidString.lowercased()
        let entry: JournalEntry
        do {
            entry = try journal.insertPending(requestId: requestId, request: terminalRequest, batch: try journal.batch(),
                                              parentId: f.inFlight.entry.id)
        } catch {
            return .transportError(journalProblem("the abort, so it was not sent", error))
        }
        current?.abort = AbortFlight(entry: entry)
        current?.inFlight.abortRequested = true
        if let i = current?.inFlight { hub.emit(.inFlight(i)) }
        do {
            try await transport.send(id: requestId, url: terminalRequest.url)
        } catch {
            do {
                try journal.transition(entry.id, to: error.isNotSent ? .resolved : .unknown, note: "Abort not sent: \(error.description)",
                                       from: [.pending, .sent])
            } catch { _ = journalProblem("that the abort was not sent", error) }
            if current?.abort?.entry.id == entry.id { current?.abort = nil; current?.inFlight.abortRequested = false }
            return .transportError(error.description)
        }
        do { try journal.markSent(entry.id) } catch { _ = journalProblem("that the abort was sent", error) }
        guard current?.abort?.entry.id == entry.id, current?.result == nil else {
            // The flight ended while the abort was handed over.
            if let e = read("the abort", nil, { try journal.entry(id: entry.id) }), let r = e.response, let o = r.abortOutcome {
                return .answered(o, r)
            }
            return .noAnswer
        }
        let wait = abortWaitMs
        return await withCheckedContinuation { c in
            current?.abort?.continuation = c
            current?.abort?.timer = Task { [weak self] in
                await Pause.sleep(nanoseconds: UInt64(wait) * 1_000_000)
                if Task.isCancelled { return }
                await self?.abortWaitEnded(entry.id)
            }
        }
    }

    private func standaloneAbort() async -> AbortResult {
        let terminalRequest = TerminalRequest(caller: caller, request: .abort)
        let requestId = UUID().uuidString.lowercased()
        let entry: JournalEntry
        do { entry = try journal.insertPending(requestId: requestId, request: terminalRequest, batch: try journal.batch()) } catch {
            return .transportError(journalProblem("the abort, so it was not sent", error))
        }
        let now = WallClock.nowMs()
        current = Flight(inFlight: InFlight(entry: entry, startedAtMs: now, deadlineMs: now + abortWaitMs), hooks: false)
        do { try await transport.send(id: requestId, url: terminalRequest.url) } catch {
            do {
                try journal.transition(entry.id, to: error.isNotSent ? .resolved : .unknown, note: "Abort not sent: \(error.description)",
                                       from: [.pending, .sent])
            } catch { _ = journalProblem("that the abort was not sent", error) }
            current = nil
            return .transportError(error.description)
        }
        do { try journal.markSent(entry.id) } catch { _ = journalProblem("that the abort was sent", error) }
        let deadline = now + abortWaitMs
        current?.timer = Task { [weak self] in
            await Pause.sleep(nanoseconds: UInt64(max(0, deadline - WallClock.nowMs())) * 1_000_000)
            if Task.isCancelled { return }
            await self?.standaloneAbortExpired(requestId)
        }
        let outcome = await wait(for: requestId)
        if case .answered(let e) = outcome, let r = e.response {
            return .answered(r.abortOutcome ?? .other, r)
        }
        return .noAnswer
    }

    private func standaloneAbortExpired(_ requestId: String) {
        guard let f = current, f.inFlight.entry.requestId == requestId, f.result == nil else { return }
        let note = "No abort answer: what the terminal is doing (if anything) was past the point of no return."
        do { try journal.transition(f.inFlight.entry.id, to: .resolved, note: note, from: [.pending, .sent]) } catch {
            _ = journalProblem("how the abort ended", error)
        }
        var e = f.inFlight.entry
        e.state = .resolved; e.note = note
        finish(.unknown(e))
    }

    private func abortWaitEnded(_ abortEntryId: Int64) {
        guard let a = current?.abort, a.entry.id == abortEntryId, let c = a.continuation else { return }
        current?.abort?.continuation = nil
        do {
            try journal.transition(abortEntryId, to: .resolved,
                                   note: "No abort answer: the request was past the point of no return; its own answer follows.",
                                   from: [.pending, .sent])
        } catch { _ = journalProblem("how the abort ended", error) }
        c.resume(returning: .noAnswer)
        // A stale abort file must never abort a later sale: take it back if no peer claimed it.
        let t = transport, id = a.entry.requestId
        Task { _ = await t.withdrawIfUnclaimed(id: id) }
    }

    // MARK: incoming

    func handle(_ e: TransportEvent) async {
        switch e {
        case .answer(let a): await handleAnswer(a)
        case .lost(_, let reason):
            hub.emit(.transportProblem(reason))
            if let f = current, f.result == nil {
                let note = reason + " The outcome is unknown; check the terminal."
                var entry = f.inFlight.entry
                var journalError: String?
                do { try journal.transition(entry.id, to: .unknown, note: note, from: [.pending, .sent]) } catch {
                    journalError = journalProblem("that the outcome is unknown", error)
                }
                entry.state = .unknown; entry.note = note
                finish(journalError.map { .journalFailed(entry, $0) } ?? .unknown(entry))
            }
        case .rejected(let file, let reason): hub.emit(.rejectedAnswer(file: file, reason: reason))
        case .problem(let p): hub.emit(.transportProblem(p))
        case .ready(let r): hub.emit(.transportReady(r))
        }
    }

    /// The state an answer settles an entry in, after the money checks: an approval that repeats a transaction already
    /// journaled is a duplicate; one for another amount than was asked, or whose amount cannot be read, needs review.
    /// With the note why.
    func settledState(_ r: CallbackResponse, for e: JournalEntry) throws -> (EntryState, String?) {
        let state = AnswerRules.state(for: r)
        if state == .resolved, AnswerRules.terminalWasBusy(r) {
            return (state, "The terminal was busy with another transaction and did not start this one: nothing was charged. Try again.")
        }
        guard state == .approved, e.action.movesMoney else { return (state, nil) }
        if let same = try journal.entry(sameTransactionAs: r, action: e.action, excluding: e.id, countedOnly: true) {
            return (.duplicate, "The terminal answered with a transaction already journaled as entry \(same.id) "
                    + "(\(r.transactionId ?? r.referenceNumber ?? "same STAN")): nothing new was charged for this request. Check the terminal.")
        }
        let asked = try journal.requestedAmounts(of: e.id)
        let problems = AnswerRules.moneyProblems(r, action: e.action, askedAmount: asked.amount, askedTip: asked.tip)
        if !problems.isEmpty {
            return (.review, "The terminal approved with " + problems.joined(separator: " and ")
                    + ": not counted until checked. Check the terminal and the receipt, then settle it as charged or not charged.")
        }
        return (.approved, nil)
    }

    /// A second answer for an entry already settled tells the same story (the sale's own "aborted" after the abort's
    /// answer, or the very same answer again).
    static func consistent(_ stored: JournalEntry, _ r: CallbackResponse) -> Bool {
        if let s = stored.response, s.fields == Journal.storable(r).fields { return true }
        let new = AnswerRules.state(for: r)
        return new != .approved && (stored.state == .aborted || stored.state == .declined) && new == stored.state
    }

    func handleAnswer(_ a: IncomingAnswer) async {
        guard !killed else { return }
        let response: CallbackResponse
        do {
            response = try CallbackResponse.decode(a.text)
        } catch {
            let reason = error.description
            await transport.reject(a, reason: reason)
            hub.emit(.rejectedAnswer(file: a.receipt ?? "(bridge line)", reason: reason))
            return
        }
        let hooks = current?.hooks ?? false
        CrashHook.hit("received", armed: hooks)
        do {
            try await settleAnswer(a, response)
        } catch {
            // Not journaled: not acknowledged either (a file stays where the next start finds it), and said at once.
            let m = journalProblem("the terminal's answer (\(response.rawAction ?? "no action"), \(response.status))", error)
            if let f = current, f.result == nil,
               f.inFlight.entry.requestId == a.requestIdHint || AnswerRules.link(response, to: f.inFlight.entry, hint: a.requestIdHint) != .none {
                let known = response.isApproved ? "The terminal APPROVED it, but " : "The terminal answered (\(response.status)), but "
                finish(.journalFailed(f.inFlight.entry, known + m + " It is journaled at the next start; do not charge again before."))
            }
        }
    }

    private func settleAnswer(_ a: IncomingAnswer, _ response: CallbackResponse) async throws {
        // A file name (or tag) counts only when it names a request of till's; otherwise match by content.
        var a = a
        if let h = a.requestIdHint, h != current?.inFlight.entry.requestId, h != current?.abort?.entry.requestId,
           try journal.entry(requestId: h) == nil {
            a.requestIdHint = nil
        }

        // An answer filed under a request this till is not waiting for, while another till on the journal is sending:
        // it is that till's answer (file drop: both watch one folder). Left where it is, untouched, for it to take.
        if let h = a.requestIdHint, h != current?.inFlight.entry.requestId, h != current?.abort?.entry.requestId,
           senderLock.isHeldElsewhere() {
            await transport.leave(a)
            return
        }

        // The abort's own answer. One that names another payment is not about this flight.
        if let f = current, f.result == nil, let ab = f.abort,
           response.action == .abort || a.requestIdHint == ab.entry.requestId,
           AnswerRules.abortNames(response, f.inFlight.entry) {
            let outcome = response.abortOutcome ?? .other
            let abortState: EntryState = outcome == .aborted ? .aborted : (outcome == .nothingToAbort ? .resolved : .declined)
            try journal.recordAnswer(ab.entry.id, response: response, state: abortState,
                                     note: outcome == .aborted ? "The terminal aborted entry \(f.inFlight.entry.id)."
                                         : outcome == .nothingToAbort ? "The terminal had nothing to abort." : response.message)
            if outcome == .aborted {
                try journal.recordAnswer(f.inFlight.entry.id, response: response, state: .aborted, note: "Aborted by the till.",
                                         onlyIf: [.pending, .sent, .unknown])
            }
            if let c = ab.continuation {
                current?.abort?.continuation = nil
                current?.abort?.timer?.cancel()
                c.resume(returning: .answered(outcome, response))
            }
            await transport.acknowledge(a)
            if outcome == .aborted {
                let e = try journal.entry(id: f.inFlight.entry.id)
                current?.abort = nil
                finish(.answered(e ?? f.inFlight.entry))
            } else {
                current?.abort = nil
                current?.inFlight.abortRequested = false
            }
            return
        }

        let flightLink: AnswerLink = current.map { f in
            f.result == nil ? AnswerRules.link(response, to: f.inFlight.entry, hint: a.requestIdHint) : .none
        } ?? .none
        let namesFlight = flightLink == .exact && response.clientTransactionId != nil

        // A repeat of a transaction the journal already holds is that transaction's, never a new one for the flight
        // (unless it carries the flight's own reference: then the flight is answered, as a duplicate).
        let namesARequest = try response.clientTransactionId.map { try !journal.entries(clientTransactionId: $0).isEmpty } ?? false
        if !namesFlight, !namesARequest, response.isApproved, let action = response.action,
           let same = try journal.entry(sameTransactionAs: response, action: action) {
            if TillController.consistent(same, response) { await transport.acknowledge(a); return }
            let note = "An answer repeating the transaction of journal entry \(same.id): nothing new was charged."
            let (row, inserted) = try journal.insertUnmatched(response: response, text: a.text, note: note, batch: try journal.batch(),
                                                              state: .duplicate)
            await transport.acknowledge(a)
            if inserted { hub.emit(.unmatchedAnswer(response, note: note + " (journal entry \(row.id))")) }
            return
        }

        // The answer to what is in flight.
        if let f = current, f.result == nil, flightLink != .none {
            var (state, note) = try settledState(response, for: f.inFlight.entry)
            // A request that carries no reference (refund, capture) has no answer that names it: its first failure
            // is as weak as an unnamed one, since a stray could stand before the real approval.
            let referenceless = f.inFlight.entry.clientTransactionId == nil && a.requestIdHint == nil
                && f.inFlight.entry.action.movesMoney
            let failed = state != .approved && state != .review && state != .duplicate
            if flightLink == .unnamed && !failed {
                note = (note.map { $0 + " " } ?? "") + "The answer did not name the payment (no client transaction id); "
                    + "the terminal's own answer, if it comes, replaces it."
            } else if failed && (flightLink == .unnamed || (referenceless && f.unnamedFailure == nil)) {
                // Taken at once as a decline, a stray would hide a charge: kept with the entry (still waiting), and the
                // flight waits a little for an answer that contradicts it.
                // In words: the terminal's own message (a result code and its name) stays in the answer's raw fields.
                try journal.recordAnswer(f.inFlight.entry.id, response: response, state: .sent,
                                         note: "The terminal answered 'not approved' without naming this payment; waiting for its own answer.",
                                         onlyIf: [.pending, .sent])
                await transport.acknowledge(a)
                shortenWait(for: f.inFlight.entry.requestId, failure: response)
                return
            }
            try journal.recordAnswer(f.inFlight.entry.id, response: response, state: state, note: note)
            CrashHook.hit("answer-journaled", armed: f.hooks)
            await transport.acknowledge(a)
            // Settled: no request of it may be left for a peer to run later (file drop: matched by content, unclaimed).
            _ = await transport.withdrawIfUnclaimed(id: f.inFlight.entry.requestId)
            let e = try journal.entry(id: f.inFlight.entry.id) ?? f.inFlight.entry
            finish(.answered(e))
            return
        }

        // A late answer for an entry left sent/unknown, the same answer again, or the exact answer of an entry an
        // unnamed answer settled.
        let stillInFlight = current.flatMap { $0.result == nil ? $0.inFlight.entry.id : nil }
        if let target = try lateTarget(for: response, hint: a.requestIdHint), target.id != stillInFlight {
            let exact = response.clientTransactionId != nil && response.clientTransactionId == target.clientTransactionId
            if target.state.awaitsTerminal || (exact && AnswerRules.settledByUnnamed(target) && !TillController.consistent(target, response)) {
                var (state, note) = try settledState(response, for: target)
                let was = target.state
                note = (note.map { $0 + " " } ?? "") + (was.awaitsTerminal
                    ? "The answer arrived after till stopped waiting for it."
                    : "The terminal's own answer for this payment replaced an earlier one that did not name it (\(was.rawValue)). Check the terminal.")
                if try journal.recordAnswer(target.id, response: response, state: state, note: note, onlyIf: was.awaitsTerminal ? [.pending, .sent, .unknown] : [was]) {
                    await transport.acknowledge(a)
                    _ = await transport.withdrawIfUnclaimed(id: target.requestId)
                    if let e = try journal.entry(id: target.id) {
                        let what = was.awaitsTerminal ? "A late answer settled" : "CHECK THE TERMINAL: the terminal's own answer changed"
                        hub.emit(.unmatchedAnswer(response, note: "\(what) journal entry \(e.id) (\(e.action.rawValue)): \(e.state.rawValue)."))
                        hub.emit(.recovered(e))
                    }
                    return
                }
            } else if TillController.consistent(target, response) {
                // Already journaled (till stopped between journaling and archiving), or the sale's own word after the
                // abort's: nothing new. Archive it.
                await transport.acknowledge(a)
                return
            }
        }

        // Matches nothing (or contradicts what is journaled): journal it once, for a person to review; never counted,
        // never a batch event.
        // In words: the answer's action and status are in its raw fields (the journal detail's `r`).
        let note = "An answer that matches nothing this till sent or is waiting for: check the terminal."
        let (row, inserted) = try journal.insertUnmatched(response: response, text: a.text, note: note, batch: try journal.batch(),
                                                          state: .review)
        await transport.acknowledge(a)
        if inserted { hub.emit(.unmatchedAnswer(response, note: note + " (journal entry \(row.id))")) }
    }

    /// The journal entry a stray answer belongs to: by file name, then by client transaction id, then the latest
    /// entry still waiting of the same action that carries no reference (refund, capture, batch), as `AnswerRules.link`
    /// allows.
    func lateTarget(for r: CallbackResponse, hint: String?) throws -> JournalEntry? {
        if let hint, let e = try journal.entry(requestId: hint) { return e }
        guard let action = r.action, action != .transactionDetails else { return nil }
        if let ctid = r.clientTransactionId {
            return try journal.entries(clientTransactionId: ctid).first(where: { $0.action == action })
        }
        return try journal.awaitingWithoutReference(action: action).first { e in AnswerRules.link(r, to: e, hint: nil) == .exact }
    }

    // MARK: recovery and journal

    public func unresolved() async -> [JournalEntry] {
        do { return try journal.unresolved() } catch {
            _ = journalProblem("(read) the unresolved entries", error)
            return []
        }
    }

    /// Asks the terminal about every entry an earlier run left pending, sent or unknown. Holds the journal's sender
    /// lock while it works, so it never touches an entry another live process is waiting on (if another till is
    /// sending, recovery is left for later). Every entry it settles is reported as a `.recovered` event.
    public func recover() async -> [JournalEntry] {
        lastRecovery = RecoveryReport()
        guard current == nil else { lastRecovery.skipped = true; return await unresolved() }
        do { try senderLock.acquire() } catch {
            lastRecovery.skipped = true
            hub.emit(.transportProblem("Recovery left for later: \(error.description)"))
            return await unresolved()
        }
        defer { senderLock.release() }
        // Request files an earlier run left unclaimed (file drop): withdrawn, so the terminal app never runs them late.
        for id in await transport.unclaimedRequestIds() {
            guard await transport.withdrawIfUnclaimed(id: id) else { continue }
            if let e = read("the entry of request \(id)", nil, { try journal.entry(requestId: id) }), e.state.awaitsTerminal {
                do {
                    if try journal.transition(e.id, to: .resolved, note: "Never sent: till withdrew the request the terminal app never claimed.",
                                              from: [.pending, .sent, .unknown]),
                       let now = try journal.entry(id: e.id) { reportRecovered(now) }
                } catch { _ = journalProblem("that request \(id) was withdrawn", error) }
            } else {
                hub.emit(.transportProblem("Withdrew a request file left in requests/ (\(id)) that the terminal app never claimed."))
            }
        }
        var reachable = true
        let awaiting: Set<EntryState> = [.pending, .sent, .unknown]
        func settle(_ id: Int64, _ state: EntryState, _ note: String) {
            do {
                if try journal.transition(id, to: state, note: note, from: awaiting), let e = try journal.entry(id: id) { reportRecovered(e) }
            } catch { _ = journalProblem("what recovery found for entry \(id)", error) }
        }
        let candidates: [JournalEntry]
        do { candidates = try journal.unresolved() } catch {
            _ = journalProblem("(read) the entries to recover", error)
            return []
        }
        for e in candidates where e.state.awaitsTerminal {
            guard let fresh = read("entry \(e.id)", nil, { try journal.entry(id: e.id) }), fresh.state.awaitsTerminal else { continue }
            switch fresh.action {
            case .abort, .transactionDetails:
                settle(fresh.id, .resolved, "Left without an answer when till stopped; nothing to settle.")
                continue
            case .sale, .preAuth:
                guard let ctid = fresh.clientTransactionId else { break }
                guard reachable else {
                    settle(fresh.id, .unknown, "Outcome unknown: the terminal did not answer at start-up. Check the terminal.")
                    continue
                }
                let outcome = await perform(.transactionDetails(DetailsRequest(clientTransactionId: ctid)), hooks: false,
                                            timeoutMs: min(timeoutMs, recoveryTimeoutMs))
                if case .answered = outcome {} else {
                    reachable = false
                    if let d = outcome.journalEntry, d.state.awaitsTerminal {
                        settle(d.id, .resolved, "A recovery query that got no answer; nothing to settle.")
                    }
                }
                let latest = read("entry \(fresh.id)", nil) { try journal.entry(id: fresh.id) }
                guard let now = latest, now.state.awaitsTerminal else {
                    // Settled meanwhile (its own late answer arrived during the query): say so.
                    if let latest { reportRecovered(latest) }
                    continue
                }
                if case .answered(let d) = outcome, let r = d.response {
                    if AnswerRules.isNotFound(r) {
                        if now.state == .pending {
                            settle(now.id, .resolved, "Never sent: the terminal has no record of it.")
                        } else {
                            settle(now.id, .unknown, "Outcome unknown: the terminal has no record of it. Check the terminal.")
                        }
                        continue
                    }
                    if let found = AnswerRules.detailsState(r) {
                        do {
                            var (state, note) = found == .approved ? try settledState(r, for: now) : (found, nil)
                            note = (note.map { $0 + " " } ?? "") + "Settled at start-up: the till checked the earlier payment on the terminal."
                            if try journal.recordAnswer(now.id, response: r, state: state, note: note, onlyIf: awaiting),
                               let e = try journal.entry(id: now.id) {
                                reportRecovered(e)
                            }
                        } catch { _ = journalProblem("what recovery found for entry \(now.id)", error) }
                        continue
                    }
                    settle(now.id, .unknown, "Outcome unknown: the terminal's record does not say whether the payment went through "
                           + "('\(r.message ?? r.status.description)'). Check the terminal.")
                    continue
                }
                settle(now.id, .unknown, "Outcome unknown: the terminal could not be asked. Check the terminal.")
                continue
            default: break
            }
            if fresh.state != .unknown || fresh.note == nil {
                settle(fresh.id, .unknown, "Outcome unknown: till stopped while waiting. Check the terminal.")
            }
        }
        return await unresolved()
    }

    /// `TRANSACTION_NOT_FOUND` (or a failed details answer naming no transaction).
    static func isNotFound(_ r: CallbackResponse) -> Bool {
        let m = (r.messageName ?? r.message ?? "").uppercased()
        return m.contains("NOT_FOUND") || m.contains("NOT FOUND")
    }

    /// What a details answer says about the transaction: its own status field (`transactionStatus`, else `status`).
    static func detailsState(_ r: CallbackResponse) -> EntryState? {
        if let s = r["transactionStatus"]?.lowercased(), !s.isEmpty {
            if s == "success" || s == "approved" { return .approved }
            if s.contains("abort") || (r["transactionMessage"] ?? "").uppercased().contains("ABORTED") { return .aborted }
            return .declined
        }
        guard r.transactionId != nil || r.referenceNumber != nil || r.amount != nil else { return nil }
        return r.isApproved ? .approved : .declined
    }

    /// A request another live till is still waiting on (it holds the journal's sender lock, and the entry is pending
    /// or sent) is that till's to settle: marking it here would contradict the answer it is about to get.
    func refuseIfInProgressElsewhere(_ e: JournalEntry) throws {
        guard e.state == .pending || e.state == .sent, current?.inFlight.entry.id != e.id, senderLock.isHeldElsewhere() else { return }
        throw ResolveError(message: "Entry \(e.id) is in progress on another till, which is waiting for the terminal's answer: "
                           + "wait for it to finish; nothing changed.")
    }

    /// What the sync last wrote beside the journal, with how many of the journal's changes the store does not hold
    /// yet. Never the network: the till reads a file and its own outbox.
    public func storeSync() async -> StoreSync? {
        guard let status = SyncStatus.read(journal: journal.path) else { return nil }
        let last = (try? journal.outboxLastSeq()) ?? 0
        let held = (try? journal.journalId()) == status.journalId ? status.storeLastSeq : 0
        return StoreSync(toSend: max(0, last - held), sentAtMs: status.sentAtMs, failingSinceMs: status.failingSinceMs,
                         needsSetUp: status.needsSetUp)
    }

    /// Whether another till on this journal is waiting for the terminal now (its pending and sent entries are its own).
    public func anotherTillIsSending() async -> Bool { current == nil && senderLock.isHeldElsewhere() }

    public func resolve(entryId: Int64, note: String) async throws {
        guard let e = try journal.entry(id: entryId) else { throw ResolveError(message: "No journal entry \(entryId).") }
        guard e.state.needsAttention else {
            throw ResolveError(message: "Entry \(entryId) is \(e.state.rawValue), not unknown: nothing to resolve.")
        }
        if current?.inFlight.entry.id == entryId { throw ResolveError(message: "Entry \(entryId) is in flight; wait or abort.") }
        try refuseIfInProgressElsewhere(e)
        let text = note.trimmingWhitespace()
        guard !text.isEmpty else { throw ResolveError(message: "Say how it was resolved (--note …).") }
        if !(try journal.transition(entryId, to: .resolved, note: text, from: [.pending, .sent, .unknown, .review])) {
            throw ResolveError(message: "Entry \(entryId) was settled meanwhile; nothing changed.")
        }
    }

    public func resolve(entryId: Int64, charged: Bool, note: String) async throws {
        guard let e = try journal.entry(id: entryId) else { throw ResolveError(message: "No journal entry \(entryId).") }
        guard e.state.needsAttention else {
            throw ResolveError(message: "Entry \(entryId) is \(e.state.rawValue): nothing to resolve.")
        }
        if current?.inFlight.entry.id == entryId { throw ResolveError(message: "Entry \(entryId) is in flight; wait or abort.") }
        try refuseIfInProgressElsewhere(e)
        let text = note.trimmingWhitespace()
        let how = charged ? "Marked charged by the cashier" : "Marked not charged by the cashier"
        try journal.resolve(entryId, charged: charged, note: text.isEmpty ? how + "." : how + ": " + text)
    }

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

    public func entry(id: Int64) async -> JournalEntry? { read("entry \(id)", nil) { try journal.entry(id: id) } }

    public func report(batch key: BatchKey) async -> Report? {
        read("the report", nil) {
            guard let b = try journal.reportBatch(key) else { return nil }
            return try journal.report(for: b)
        }
    }

    public func exportReport(batch key: BatchKey, format: ReportFormat) async throws -> [String] {
        guard let b = try journal.reportBatch(key) else {
            throw ConfigError(message: "No batch '\(key)' in the journal.")
        }
        let report = try journal.report(for: b)
        let dir = Path.directory(of: journal.path) + "/exports"
        try Path.makeDirectories(dir)
        let stamp = format.time(report.generatedAtMs).replacingOccurrences(of: " ", with: "-").replacingOccurrences(of: ":", with: "")
        let base = dir + "/" + (b.name ?? "batch").map { $0.isLetter || $0.isNumber ? $0 : "-" } + "-" + report.kind.rawValue + "-" + stamp
        try AtomicFile.write(report.csv(format), to: base + "-report.csv")
        try AtomicFile.write(TransactionExport.csv(try journal.entries(batchId: b.id), format), to: base + "-transactions.csv")
        return [base + "-report.csv", base + "-transactions.csv"]
    }

    public func batch() async -> BatchInfo { read("the batch", BatchInfo()) { try journal.batch() } }

    public func glance() async -> JournalGlance {
        read("the batch and the unresolved entries", JournalGlance()) { try journal.glance() }
    }

    /// Totals of a batch (nil: the current one), for the shift report.
    public func totals(batchId: String? = nil) async -> BatchTotals {
        read("the totals", BatchTotals()) { try journal.totals(batchId: try batchId ?? journal.batch().id) }
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

extension TransportError {
    var isNotSent: Bool { if case .notSent = self { return true }; return false }
}
