import Foundation
import TillIO
import TillProtocol
#if canImport(Glibc)
import Glibc
#endif

// A payment in flight: journaled before it is sent, waited on (abortably, up to the timeout), settled once.
extension TillController {
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

    /// Refusals before anything is journaled or sent: a reference already used, unknown payments not confirmed (for a
    /// refund or capture: an earlier one of the same payment whose outcome is not known).
    func refusal(for request: Request, confirmingUnknown: Set<Int64>) throws -> ActionOutcome? {
        let open: [JournalEntry]
        switch request {
        case .sale, .preAuth:
            if let ctid = request.clientTransactionId, let used = try journal.entries(clientTransactionId: ctid).first {
                return .invalid([TillController.reusedReference(ctid, used)])
            }
            // A confirmation is given for an outcome not known; one found charged meanwhile (recovery's look-up at
            // this command's start, a late answer) is a payment made: charging again on it made the customer pay twice.
            for id in confirmingUnknown.sorted() {
                guard let e = try journal.entry(id: id), e.state == .approved, e.action == .sale || e.action == .preAuth else { continue }
                return .invalid([ValidationError(field: "confirmUnknown", message: "Journal entry \(id) is no longer unknown: the terminal "
                                                 + "charged it (\(e.charged?.description ?? "approved")). Nothing was sent; if the customer is to pay "
                                                 + "again, send without confirming it.")])
            }
            open = try journal.unconfirmedUnknownPayments()
        case .cancel(let r):
            if let beyond = try beyondWhatIsLeft(r, capture: false) { return beyond }
            open = try journal.unconfirmedUnknown(.cancel, sameKeyAs: r.finder)
        case .capturePreAuth(let r):
            if let beyond = try beyondWhatIsLeft(r, capture: true) { return beyond }
            open = try journal.unconfirmedUnknown(.capturePreAuth, sameKeyAs: r.finder)
        default:
            return nil
        }
        let unconfirmed = open.filter { !confirmingUnknown.contains($0.id) }
        if !unconfirmed.isEmpty { return .needsConfirmation(unconfirmed) }
        try journal.confirmRetry(Set(open.map(\.id)).intersection(confirmingUnknown))
        return nil
    }

    /// A refund (capture) of more than the journal says is left of the payment (pre-auth) its key names, refused before
    /// anything is journaled or sent: the rule the screen's box warns with (`RefundLinks.beyond`). Refunds of
    /// 10 + 10 + 500 on a 10.00 sale, and a capture of 200 on a 100.00 pre-auth, were all sent.
    func beyondWhatIsLeft(_ r: FinderRequest, capture: Bool) throws -> ActionOutcome? {
        guard let key = r.finder.key else { return nil }
        let entries = try journal.entries(JournalFilter(scope: .all))
        guard let payment = RefundLinks.payment(named: key, in: entries, capture: capture),
              let beyond = RefundLinks.beyond(payment, entries: entries, amount: r.amount, capture: capture) else { return nil }
        return .invalid([ValidationError(field: "amount", message: beyond.sentence + " Nothing was sent.")])
    }

    static func reusedReference(_ ctid: String, _ e: JournalEntry) -> ValidationError {
        let what = [e.action.rawValue, e.amount?.description, e.state.rawValue].compactMap { $0 }.joined(separator: " ")
        return ValidationError(field: "clientTransactionId",
                               message: "Reference '\(ctid)' was already used by journal entry \(e.id) (\(what)): use a new reference. Nothing was sent.")
    }

    func perform(_ request: Request, hooks: Bool, timeoutMs: Int64? = nil, confirmingUnknown: Set<Int64> = []) async -> ActionOutcome {
        if let why = await ensureStarted() { return .transportError(nil, why + " Nothing was sent.") }
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
            let state = error.journalState
            let note: String
            switch error {
            case .notSent(let m): note = "Not sent: \(m)"
            case .maybeSent(let m): note = "Maybe sent, no answer: \(m) Check the terminal."
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
            current?.timer = timer(at: deadline) { await $0.timedOut(requestId) }
        }
        return await wait(for: requestId)
    }

    func wait(for requestId: String) async -> ActionOutcome {
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
    func finish(_ outcome: ActionOutcome) {
        guard var f = current else { return }
        f.timer?.cancel()
        // A stray approval held with the entry that another answer replaced there (the payment's own, an abort's):
        // journaled on its own for a person, never dropped. One the entry still holds (the wait ended unknown or for
        // review) stays one row, the entry's, so that a person settles that charge once.
        if let held = f.unnamedApproval {
            do {
                let stored = try journal.entry(id: f.inFlight.entry.id)?.response
                if stored.map({ Journal.storedFields($0) == Journal.storedFields(held) }) != true {
                    try keepStray(held, whileWaiting: f.inFlight.entry)
                }
            } catch {
                _ = journalProblem("an approval that named no payment", error)
            }
        }
        if var a = f.abort {
            a.timer?.cancel()
            if let c = a.continuation {
                a.continuation = nil
                if case .answered(let e) = outcome, e.state == .aborted, let r = e.response {
                    c.resume(returning: .answered(.aborted, r))
                } else if let r = a.answered {
                    // The terminal said "aborted", and the payment turned out otherwise (charged, or not known): the
                    // abort's answer is told as an answer, not as the abort done.
                    c.resume(returning: .answered(.other, r))
                } else {
                    c.resume(returning: .noAnswer)
                }
            }
            if let lookUp = a.lookUp {
                do {
                    try journal.transition(lookUp.id, to: .resolved, note: "The payment it asked about was settled before its answer; nothing to settle.",
                                           from: [.pending, .sent])
                } catch { _ = journalProblem("how the look-up ended", error) }
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

    func timedOut(_ requestId: String) async {
        guard let f = current, f.inFlight.entry.requestId == requestId, f.result == nil else { return }
        // The flight's own wait (recovery's queries wait less than a payment), not the controller's timeout.
        let waitedMs = f.inFlight.deadlineMs - f.inFlight.startedAtMs
        let seconds = waitedMs % 1000 == 0 ? String(waitedMs / 1000) : String(Double(waitedMs) / 1000)
        // The only answer that came, if it may settle the entry: an approval that did not name the payment leaves it
        // for a person with that approval; a failure of a request that carries no reference, nothing contradicting
        // it, settles it.
        let unnamedApprovalNote = "The terminal approved a payment of this amount without naming it (no client transaction id), "
            + "and never answered for this one: it may be another payment's. Not counted until checked: check the terminal."
        let settling: (response: CallbackResponse, state: EntryState, note: String?)? = f.unnamedApproval.map { ($0, .review, unnamedApprovalNote) }
            ?? f.unnamedFailure.flatMap { r in f.inFlight.entry.clientTransactionId == nil ? (r, AnswerRules.state(for: r), nil) : nil }
        if let (response, state, note) = settling {
            do {
                try journal.recordAnswer(f.inFlight.entry.id, response: response, state: state, note: note, onlyIf: [.pending, .sent])
                finish(.answered(try journal.entry(id: f.inFlight.entry.id) ?? f.inFlight.entry))
            } catch {
                finish(.journalFailed(f.inFlight.entry, journalProblem("the terminal's answer", error)))
            }
            return
        }
        let note = f.abort?.answered != nil
            ? "The terminal answered the abort ABORTED, but did not answer in time whether the card was charged all the same "
                + "(its look-up): the outcome is unknown; check the terminal."
            : f.unnamedFailure.map { _ in
            "The terminal answered 'not approved' without naming this payment, and never named it: "
                + "it may be another payment's answer, so the outcome is unknown. Check the terminal."
        } ?? "No answer within \(seconds) s: the outcome is unknown; check the terminal."
        var (e, journalError) = markUnknown(f.inFlight.entry, note: note)
        let withdrawn = await transport.gaveUp(on: requestId)
        guard current?.inFlight.entry.requestId == requestId, current?.result == nil else { return }
        if withdrawn {
            let why = "Never sent: the terminal did not take the request within \(seconds) s, so till withdrew it."
            do { try journal.transition(e.id, to: .resolved, note: why, from: [.unknown, .pending, .sent]) } catch {
                journalError = journalProblem("that the request was withdrawn", error)
            }
            e.state = .resolved; e.note = why
            hub.emit(.transportProblem(why))
            finish(journalError.map { .journalFailed(e, $0 + " " + why) } ?? .transportError(e, why))
            return
        }
        finish(journalError.map { .journalFailed(e, $0 + " " + note) } ?? .unknown(e))
    }

    /// Journals that the outcome of the flight's entry is unknown (the terminal may still be working on it; a late
    /// answer still settles it), `note` saying why. Returns the entry as it now stands, and the journal's complaint
    /// (already said on the hub) when it could not be written.
    func markUnknown(_ entry: JournalEntry, note: String) -> (JournalEntry, String?) {
        var e = entry
        var journalError: String?
        do { try journal.transition(e.id, to: .unknown, note: note, from: [.pending, .sent]) } catch {
            journalError = journalProblem("that the outcome is unknown", error)
        }
        e.state = .unknown; e.note = note
        return (e, journalError)
    }

    /// `markUnknown`, and the flight ends with it; a journal failure is said with what till knows after it.
    func endUnknown(_ entry: JournalEntry, note: String) -> ActionOutcome {
        let (e, journalError) = markUnknown(entry, note: note)
        let outcome = journalError.map { ActionOutcome.journalFailed(e, $0 + " " + note) } ?? .unknown(e)
        finish(outcome)
        return outcome
    }

    /// After the failure of a request that carries no reference: wait at most a short while more for an answer that
    /// contradicts it.
    func shortenWait(for requestId: String, noting: (inout Flight) -> Void) {
        guard var f = current, f.inFlight.entry.requestId == requestId, f.result == nil else { return }
        noting(&f)
        let deadline = min(f.inFlight.deadlineMs, WallClock.nowMs() + unnamedAnswerGraceMs)
        f.inFlight.deadlineMs = deadline
        f.timer?.cancel()
        f.timer = timer(at: deadline) { await $0.timedOut(requestId) }
        current = f
        hub.emit(.inFlight(f.inFlight))
    }

    /// Stops waiting for the request in flight, at the cashier's word: it becomes unknown (the terminal may still be
    /// working on it) and goes to Unresolved; a late answer still settles it.
    public func stopWaiting() async -> ActionOutcome? {
        guard let f = current, f.result == nil else { return nil }
        return endUnknown(f.inFlight.entry, note: "The cashier stopped waiting: the outcome is unknown; check the terminal.")
    }
}
