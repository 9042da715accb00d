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
    static let point: String? = ProcessInfo.processInfo.environment["TILL_CRASH_AT"]
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
    }
    var current: Flight?
    var started = false
    var consumer: Task<Void, Never>?
    var eventContinuation: AsyncStream<TransportEvent>.Continuation?

    public init(transport: any Transport, journal: Journal, caller: Caller, timeoutMs: Int64 = 90_000, abortWaitMs: Int64 = 5_000) {
        self.transport = transport
        self.transportDescription = transport.description
        self.journal = journal
        self.caller = caller
        self.timeoutMs = timeoutMs
        self.abortWaitMs = abortWaitMs
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
        consumer = Task { [weak self] in
            for await e in stream {
                guard let self else { return }
                await self.handle(e)
            }
        }
        hub.emit(.transportReady(transportDescription))
    }

    /// Stops the transport; a request still in flight is journaled as unknown.
    public func shutdown() async {
        if var f = current {
            let note = "till stopped while waiting for the answer: the outcome is unknown; check the terminal."
            try? journal.setState(f.inFlight.entry.id, .unknown, note: note)
            f.inFlight.entry.state = .unknown
            f.inFlight.entry.note = note
            finish(.unknown(f.inFlight.entry))
        }
        await transport.stop()
        eventContinuation?.finish()
        consumer?.cancel()
        hub.finish()
    }

    public nonisolated func events() -> AsyncStream<ControllerEvent> { hub.stream() }

    public func inFlight() async -> InFlight? { current?.inFlight }

    // MARK: perform

    public func perform(_ request: Request) async -> ActionOutcome {
        await perform(request, hooks: true)
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

    func perform(_ request: Request, hooks: Bool, timeoutMs: Int64? = nil) async -> ActionOutcome {
        if let c = current { return .busy(c.inFlight) }
        if case .abort = request {
            return .invalid([ValidationError(field: "action", message: "Use abort() to abort what is in flight.")])
        }
        let request = TillController.withClientTransactionId(request)
        let terminalRequest = TerminalRequest(caller: caller, request: request)
        let errors = terminalRequest.validationErrors()
        if !errors.isEmpty { return .invalid(errors) }
        let requestId = UUID().uuidString.lowercased()
        let batch = (try? journal.batch()) ?? BatchInfo()
        var entry: JournalEntry
        do {
            entry = try journal.insertPending(requestId: requestId, request: terminalRequest, batch: batch)
        } catch {
            return .transportError(nil, "The journal could not record the request, so it was not sent: \(error)")
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
                try? journal.setState(entry.id, state, note: note)
                entry.state = state; entry.note = note
                current = nil
                let outcome = ActionOutcome.transportError(entry, error.description)
                hub.emit(.transportProblem(error.description))
                hub.emit(.settled(outcome))
                return outcome
            }
            return await wait(for: requestId)
        }
        if current?.inFlight.entry.requestId == requestId, current?.result == nil {
            try? journal.markSent(entry.id)
            current?.inFlight.entry.state = .sent
            CrashHook.hit("sent", armed: hooks)
            if let i = current?.inFlight { hub.emit(.inFlight(i)) }
            let deadline = current!.inFlight.deadlineMs
            current?.timer = Task { [weak self] in
                let ms = max(0, deadline - WallClock.nowMs())
                try? await Task.sleep(nanoseconds: UInt64(ms) * 1_000_000)
                if Task.isCancelled { return }
                await self?.timedOut(requestId)
            }
        }
        return await wait(for: requestId)
    }

    private func wait(for requestId: String) async -> ActionOutcome {
        guard var f = current, f.inFlight.entry.requestId == requestId else {
            // Settled and cleared while the request was being handed over; the journal has the outcome.
            if let e = try? journal.entry(requestId: requestId) { return e.state == .unknown ? .unknown(e) : .answered(e) }
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
            if let e = try? journal.entry(id: a.entry.id), e.state.needsAttention {
                try? journal.setState(a.entry.id, .resolved, note: "No abort answer: the request it was meant to abort ended by itself.")
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
        let note = "No answer within \(seconds) s: the outcome is unknown; check the terminal."
        try? journal.setState(f.inFlight.entry.id, .unknown, note: note)
        var e = f.inFlight.entry
        e.state = .unknown; e.note = note
        let withdrawn = await transport.gaveUp(on: requestId)
        guard current?.inFlight.entry.requestId == requestId, current?.result == nil else { return }
        if withdrawn {
            let why = "Never sent: the terminal did not take the request within \(seconds) s, so till withdrew it."
            try? journal.setState(e.id, .resolved, note: why)
            e.state = .resolved; e.note = why
            hub.emit(.transportProblem(why))
            finish(.transportError(e, why))
            return
        }
        finish(.unknown(e))
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
        let batch = (try? journal.batch()) ?? BatchInfo()
        let entry: JournalEntry
        do {
            entry = try journal.insertPending(requestId: requestId, request: terminalRequest, batch: batch, parentId: f.inFlight.entry.id)
        } catch {
            return .transportError("The journal could not record the abort, so it was not sent: \(error)")
        }
        current?.abort = AbortFlight(entry: entry)
        current?.inFlight.abortRequested = true
        if let i = current?.inFlight { hub.emit(.inFlight(i)) }
        do {
            try await transport.send(id: requestId, url: terminalRequest.url)
        } catch {
            try? journal.setState(entry.id, error.isNotSent ? .resolved : .unknown, note: "Abort not sent: \(error.description)")
            if current?.abort?.entry.id == entry.id { current?.abort = nil; current?.inFlight.abortRequested = false }
            return .transportError(error.description)
        }
        try? journal.markSent(entry.id)
        guard current?.abort?.entry.id == entry.id, current?.result == nil else {
            // The flight ended while the abort was handed over.
            if let e = try? journal.entry(id: entry.id), let r = e.response, let o = r.abortOutcome { return .answered(o, r) }
            return .noAnswer
        }
        let wait = abortWaitMs
        return await withCheckedContinuation { c in
            current?.abort?.continuation = c
            current?.abort?.timer = Task { [weak self] in
                try? await Task.sleep(nanoseconds: UInt64(wait) * 1_000_000)
                if Task.isCancelled { return }
                await self?.abortWaitEnded(entry.id)
            }
        }
    }

    private func standaloneAbort() async -> AbortResult {
        let terminalRequest = TerminalRequest(caller: caller, request: .abort)
        let requestId = UUID().uuidString.lowercased()
        let batch = (try? journal.batch()) ?? BatchInfo()
        let entry: JournalEntry
        do { entry = try journal.insertPending(requestId: requestId, request: terminalRequest, batch: batch) } catch {
            return .transportError("The journal could not record the abort, so it was not sent: \(error)")
        }
        let now = WallClock.nowMs()
        current = Flight(inFlight: InFlight(entry: entry, startedAtMs: now, deadlineMs: now + abortWaitMs), hooks: false)
        do { try await transport.send(id: requestId, url: terminalRequest.url) } catch {
            try? journal.setState(entry.id, error.isNotSent ? .resolved : .unknown, note: "Abort not sent: \(error.description)")
            current = nil
            return .transportError(error.description)
        }
        try? journal.markSent(entry.id)
        let deadline = now + abortWaitMs
        current?.timer = Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(max(0, deadline - WallClock.nowMs())) * 1_000_000)
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
        try? journal.setState(f.inFlight.entry.id, .resolved, note: note)
        var e = f.inFlight.entry
        e.state = .resolved; e.note = note
        finish(.unknown(e))
    }

    private func abortWaitEnded(_ abortEntryId: Int64) {
        guard let a = current?.abort, a.entry.id == abortEntryId, let c = a.continuation else { return }
        current?.abort?.continuation = nil
        try? journal.setState(abortEntryId, .resolved,
                              note: "No abort answer: the request was past the point of no return; its own answer follows.")
        c.resume(returning: .noAnswer)
    }

    // MARK: incoming

    func handle(_ e: TransportEvent) async {
        switch e {
        case .answer(let a): await handleAnswer(a)
        case .lost(_, let reason):
            hub.emit(.transportProblem(reason))
            if let f = current, f.result == nil {
                let note = reason + " The outcome is unknown; check the terminal."
                try? journal.setState(f.inFlight.entry.id, .unknown, note: note)
                var entry = f.inFlight.entry
                entry.state = .unknown; entry.note = note
                finish(.unknown(entry))
            }
        case .rejected(let file, let reason): hub.emit(.rejectedAnswer(file: file, reason: reason))
        case .problem(let p): hub.emit(.transportProblem(p))
        case .ready(let r): hub.emit(.transportReady(r))
        }
    }

    static func state(for r: CallbackResponse) -> EntryState {
        if r.isApproved { return .approved }
        if r.abortOutcome == .aborted { return .aborted }
        return .declined
    }

    /// Whether an answer belongs to this request: same action, same client transaction id when both carry one,
    /// and no file name pointing elsewhere.
    static func matches(_ r: CallbackResponse, _ e: JournalEntry, hint: String?) -> Bool {
        if let hint, hint == e.requestId { return true }
        if hint != nil { return false }
        guard r.action == e.action || (r.action == nil && e.action != .abort) else { return false }
        if let a = r.clientTransactionId, let b = e.clientTransactionId, a != b { return false }
        if e.action == .transactionDetails { return true }
        return true
    }

    func handleAnswer(_ a: IncomingAnswer) async {
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
        // A file name (or tag) counts only when it names a request of till's; otherwise match by content.
        var a = a
        if let h = a.requestIdHint, h != current?.inFlight.entry.requestId, h != current?.abort?.entry.requestId,
           ((try? journal.entry(requestId: h)) ?? nil) == nil {
            a.requestIdHint = nil
        }

        // The abort's own answer.
        if let f = current, f.result == nil, let ab = f.abort,
           response.action == .abort || a.requestIdHint == ab.entry.requestId {
            let outcome = response.abortOutcome ?? .other
            try? journal.recordAnswer(ab.entry.id, response: response, state: outcome == .aborted ? .approved : .declined,
                                      note: outcome == .aborted ? "Aborted." : response.message)
            if let c = ab.continuation {
                current?.abort?.continuation = nil
                current?.abort?.timer?.cancel()
                c.resume(returning: .answered(outcome, response))
            }
            if outcome == .aborted {
                try? journal.recordAnswer(f.inFlight.entry.id, response: response, state: .aborted, note: "Aborted by the till.")
                await transport.acknowledge(a)
                let e = (try? journal.entry(id: f.inFlight.entry.id)) ?? nil
                current?.abort = nil
                finish(.answered(e ?? f.inFlight.entry))
            } else {
                await transport.acknowledge(a)
                current?.abort = nil
                current?.inFlight.abortRequested = false
            }
            return
        }

        // The answer to what is in flight.
        if let f = current, f.result == nil, TillController.matches(response, f.inFlight.entry, hint: a.requestIdHint) {
            let state = TillController.state(for: response)
            do {
                try journal.recordAnswer(f.inFlight.entry.id, response: response, state: state, note: nil)
            } catch {
                // Not journaled: not acknowledged either (the file stays for the next start).
                hub.emit(.transportProblem("The journal could not record the answer: \(error)"))
                return
            }
            CrashHook.hit("answer-journaled", armed: f.hooks)
            await transport.acknowledge(a)
            let e = (try? journal.entry(id: f.inFlight.entry.id)) ?? nil
            finish(.answered(e ?? f.inFlight.entry))
            return
        }

        // A late answer for an entry left sent/unknown, or the same answer again.
        if let target = lateTarget(for: response, hint: a.requestIdHint) {
            if target.state.needsAttention {
                try? journal.recordAnswer(target.id, response: response, state: TillController.state(for: response),
                                          note: "The answer arrived after till stopped waiting for it.")
                await transport.acknowledge(a)
                if let e = try? journal.entry(id: target.id) {
                    hub.emit(.unmatchedAnswer(response, note: "A late answer settled journal entry \(e.id) (\(e.action.rawValue)): \(e.state.rawValue)."))
                }
                return
            }
            if let stored = target.response, stored.fields == Journal.storable(response).fields {
                // Already journaled (till stopped between journaling and archiving): archive it now.
                await transport.acknowledge(a)
                return
            }
        }

        // Matches nothing: journal it and say so.
        let note = "An answer that matches nothing till sent or is waiting for (\(response.rawAction ?? "no action"), \(response.status))."
        do {
            let batch = (try? journal.batch()) ?? BatchInfo()
            _ = try journal.insertUnmatched(response: response, note: note, batch: batch)
        } catch {
            hub.emit(.transportProblem("The journal could not record an unmatched answer: \(error)"))
            return
        }
        await transport.acknowledge(a)
        hub.emit(.unmatchedAnswer(response, note: note))
    }

    /// The journal entry a stray answer belongs to: by file name, then by client transaction id, then the latest
    /// unresolved entry of the same action (with the same amount when both say).
    func lateTarget(for r: CallbackResponse, hint: String?) -> JournalEntry? {
        if let hint, let e = try? journal.entry(requestId: hint) { return e }
        if let ctid = r.clientTransactionId, r.action != .transactionDetails,
           let list = try? journal.entries(clientTransactionId: ctid) {
            if let e = list.first(where: { $0.action == r.action || r.action == nil }) { return e }
        }
        guard let action = r.action, action != .transactionDetails, r.clientTransactionId == nil else { return nil }
        let open = ((try? journal.unresolved()) ?? []).reversed()
        return open.first { e in
            e.action == action && e.clientTransactionId == nil && (r.amount == nil || e.amount == nil || r.amount == e.amount)
        }
    }

    // MARK: recovery and journal

    public func unresolved() async -> [JournalEntry] { (try? journal.unresolved()) ?? [] }

    public func recover() async -> [JournalEntry] {
        guard current == nil else { return await unresolved() }
        var reachable = true
        for e in (try? journal.unresolved()) ?? [] {
            guard let fresh = try? journal.entry(id: e.id), fresh.state.needsAttention else { continue }
            switch fresh.action {
            case .abort, .transactionDetails:
                try? journal.setState(fresh.id, .resolved, note: "Left without an answer when till stopped; nothing to settle.")
                continue
            case .sale, .preAuth:
                guard let ctid = fresh.clientTransactionId else { break }
                guard reachable else {
                    try? journal.setState(fresh.id, fresh.state == .pending ? .unknown : fresh.state == .sent ? .unknown : fresh.state,
                                          note: "Outcome unknown: the terminal did not answer at start-up. Check the terminal.")
                    continue
                }
                let outcome = await perform(.transactionDetails(DetailsRequest(clientTransactionId: ctid)), hooks: false,
                                            timeoutMs: min(timeoutMs, recoveryTimeoutMs))
                if case .answered = outcome {} else {
                    reachable = false
                    if let d = outcome.journalEntry, d.state.needsAttention {
                        try? journal.setState(d.id, .resolved, note: "A recovery query that got no answer; nothing to settle.")
                    }
                }
                guard let now = try? journal.entry(id: fresh.id), now.state.needsAttention else { continue }
                if case .answered(let d) = outcome, let r = d.response {
                    if TillController.isNotFound(r) {
                        if now.state == .pending {
                            try? journal.setState(now.id, .resolved, note: "Never sent: the terminal has no record of it.")
                        } else {
                            try? journal.setState(now.id, .unknown, note: "Outcome unknown: the terminal has no record of it. Check the terminal.")
                        }
                        continue
                    }
                    if let settled = TillController.detailsState(r) {
                        try? journal.recordAnswer(now.id, response: r, state: settled,
                                                  note: "Settled at start-up from the terminal's record (transactionDetails).")
                        continue
                    }
                }
                try? journal.setState(now.id, .unknown, note: "Outcome unknown: the terminal could not be asked. Check the terminal.")
                continue
            default: break
            }
            if fresh.state != .unknown || fresh.note == nil {
                try? journal.setState(fresh.id, .unknown, note: "Outcome unknown: till stopped while waiting. Check the terminal.")
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

    public func resolve(entryId: Int64, note: String) async throws {
        guard let e = try journal.entry(id: entryId) else { throw ResolveError(message: "No journal entry \(entryId).") }
        guard e.state.needsAttention else {
            throw ResolveError(message: "Entry \(entryId) is \(e.state.rawValue), not unknown: nothing to resolve.")
        }
        if current?.inFlight.entry.id == entryId { throw ResolveError(message: "Entry \(entryId) is in flight; wait or abort.") }
        let text = note.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw ResolveError(message: "Say how it was resolved (--note …).") }
        try journal.setState(entryId, .resolved, note: text)
    }

    public func entries(_ filter: JournalFilter) async -> [JournalEntry] {
        let batch = (try? journal.batch()) ?? BatchInfo()
        return (try? journal.entries(filter, currentBatchId: batch.id)) ?? []
    }

    public func entry(id: Int64) async -> JournalEntry? { try? journal.entry(id: id) }

    public func report(batch key: String) async -> Report? {
        guard let b = try? journal.reportBatch(key) else { return nil }
        return try? journal.report(for: b)
    }

    public func exportReport(batch key: String, format: ReportFormat) async throws -> [String] {
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

    public func batch() async -> BatchInfo { (try? journal.batch()) ?? BatchInfo() }

    /// Totals of a batch (nil: the current one), for the shift report.
    public func totals(batchId: String? = nil) async -> BatchTotals {
        let id = batchId ?? ((try? journal.batch())?.id)
        return (try? journal.totals(batchId: id)) ?? BatchTotals()
    }
}

extension ActionOutcome {
    /// The journal entry the outcome is about, when there is one.
    public var journalEntry: JournalEntry? {
        switch self {
        case .answered(let e), .unknown(let e): return e
        case .transportError(let e, _): return e
        case .busy(let f): return f.entry
        case .invalid: return nil
        }
    }
}

extension TransportError {
    var isNotSent: Bool { if case .notSent = self { return true }; return false }
}

// MARK: stop waiting (the cashier gives up on the request in flight)

extension TillController {
    /// See `TillService.stopWaiting()`. Like the timeout, but now: the entry is journaled `unknown`
    /// first (a failed write throws and nothing changes), then the waiter gets `.unknown`.
    /// A late answer still settles the entry, as after a timeout.
    public func stopWaiting() async throws -> JournalEntry? {
        guard let f = current, f.result == nil else { return nil }
        let note = "The cashier stopped waiting: the outcome is unknown; check the terminal."
        try journal.setState(f.inFlight.entry.id, .unknown, note: note)
        var e = f.inFlight.entry
        e.state = .unknown; e.note = note
        guard current?.inFlight.entry.id == e.id, current?.result == nil else { return e }
        finish(.unknown(e))
        return e
    }
}
