import Foundation
import TillIO
import TillProtocol
#if canImport(Glibc)
import Glibc
#endif

// Abort: of the payment in flight, or on its own when till has none (the terminal may still be busy).
extension TillController {
    public func abort() async -> AbortResult { await abort(force: false) }

    /// `force`: with nothing of this till's in flight, send the abort all the same (another process, or a till that
    /// restarted, may have started what the terminal is doing) and wait up to `abortWaitMs` for its answer.
    public func abort(force: Bool) async -> AbortResult {
        if current == nil && force {
            if let why = await ensureStarted() { return .transportError(why + " The abort was not sent.") }
            // Still nothing in flight once the transport has started (a request may have begun meanwhile).
            if current == nil { return await standaloneAbort() }
        }
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
            abortNotSent(entry, error)
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
        return await withCheckedContinuation { c in
            current?.abort?.continuation = c
            current?.abort?.timer = timer(at: WallClock.nowMs() + abortWaitMs) { await $0.abortWaitEnded(entry.id) }
        }
    }

    /// An abort the transport could not hand over: journaled as never sent (resolved) or perhaps sent (unknown).
    func abortNotSent(_ entry: JournalEntry, _ error: TransportError) {
        do {
            try journal.transition(entry.id, to: error.journalState, note: "Abort not sent: \(error.description)",
                                   from: [.pending, .sent])
        } catch { _ = journalProblem("that the abort was not sent", error) }
    }

    func standaloneAbort() async -> AbortResult {
        let terminalRequest = TerminalRequest(caller: caller, request: .abort)
        let requestId = UUID().uuidString.lowercased()
        let entry: JournalEntry
        do { entry = try journal.insertPending(requestId: requestId, request: terminalRequest, batch: try journal.batch()) } catch {
            return .transportError(journalProblem("the abort, so it was not sent", error))
        }
        let now = WallClock.nowMs()
        current = Flight(inFlight: InFlight(entry: entry, startedAtMs: now, deadlineMs: now + abortWaitMs), hooks: false)
        do { try await transport.send(id: requestId, url: terminalRequest.url) } catch {
            abortNotSent(entry, error)
            current = nil
            return .transportError(error.description)
        }
        do { try journal.markSent(entry.id) } catch { _ = journalProblem("that the abort was sent", error) }
        let deadline = now + abortWaitMs
        current?.timer = timer(at: deadline) { await $0.standaloneAbortExpired(requestId) }
        let outcome = await wait(for: requestId)
        if case .answered(let e) = outcome, let r = e.response {
            return .answered(r.abortOutcome ?? .other, r)
        }
        return .noAnswer
    }

    func standaloneAbortExpired(_ requestId: String) {
        guard let f = current, f.inFlight.entry.requestId == requestId, f.result == nil else { return }
        let note = "No abort answer: what the terminal is doing (if anything) was past the point of no return."
        do { try journal.transition(f.inFlight.entry.id, to: .resolved, note: note, from: [.pending, .sent]) } catch {
            _ = journalProblem("how the abort ended", error)
        }
        var e = f.inFlight.entry
        e.state = .resolved; e.note = note
        finish(.unknown(e))
    }

    func abortWaitEnded(_ abortEntryId: Int64) {
        // An abort answered "aborted" waits for the look-up that checks it (the flight's own time), not for this.
        guard let a = current?.abort, a.entry.id == abortEntryId, a.answered == nil, let c = a.continuation else { return }
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
}
