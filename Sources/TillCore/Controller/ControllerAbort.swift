import Foundation
import TillIO
import TillLife
import TillProtocol

// Abort: of the payment in flight, or on its own when till has none (the terminal may still be busy).
extension TillController {
    public func abort() async -> AbortResult { await abort(force: false) }

    /// `force`: with nothing of this till's in flight, send the abort all the same (another process, or a till that
    /// restarted, may have started what the terminal is doing) and wait up to `abortWaitMs` for its answer.
    public func abort(force: Bool) async -> AbortResult {
        if life == nil && force {
            if let why = await ensureStarted() { return .transportError(why + " The abort was not sent.") }
            // Still nothing in flight once the transport has started (a request may have begun meanwhile).
            if life == nil { return await standaloneAbort() }
        }
        guard !killed, let l = life, !l.isSettled else { return .nothingInFlight }
        let wall = now()
        let (effects, refused) = life!.askAbort(book: journal, requestId: UUID().uuidString.lowercased(), now: wall)
        if let refused {
            await run(effects)
            return refused
        }
        abortEnded = nil
        await run(effects)
        return await withCheckedContinuation { c in
            if let r = abortEnded {
                abortEnded = nil
                c.resume(returning: r)
            } else {
                abortWaiter = c
            }
        }
    }

    func standaloneAbort() async -> AbortResult {
        let terminalRequest = TerminalRequest(caller: caller, request: .abort)
        let requestId = UUID().uuidString.lowercased()
        let entry: JournalEntry
        do { entry = try journal.insertPending(requestId: requestId, request: terminalRequest, batch: try journal.batch()) } catch {
            return .transportError(journalProblem("the abort, so it was not sent", error))
        }
        var effects: [LifeEffect] = []
        life = PaymentLife(entry: entry, url: terminalRequest.url, kind: .standaloneAbort, hooks: false, caller: caller, waits: waits,
                           now: now(), effects: &effects)
        await run(effects)
        switch await wait(for: requestId) {
        case .answered(let e):
            if let r = e.response { return .answered(r.abortOutcome ?? .other, r) }
            return .noAnswer
        case .transportError(_, let why): return .transportError(why)
        default: return .noAnswer
        }
    }
}
