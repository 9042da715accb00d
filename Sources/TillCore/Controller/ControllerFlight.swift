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
        case .sale, .preAuth, .cancel, .abort, .batch, .capturePreAuth, .transactionDetails, .reprint, .getPrintingSettings,
             .setPrintingSettings, .sendLogs, .getActivationCode, .activatePos:
            return request
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
                guard let e = try journal.entry(id: id), e.state == .approved, e.action.startsPayment else { continue }
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
        case .abort, .batch, .transactionDetails, .reprint, .getPrintingSettings, .setPrintingSettings, .sendLogs,
             .getActivationCode, .activatePos:
            return nil   // nothing to refuse: no payment of the customer's could be charged twice by it
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
        let entries = try journal.entries(about: key)
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
        if let l = life { return .busy(l.inFlight) }
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
        var effects: [LifeEffect] = []
        let w = timeoutMs.map { t in var w = waits; w.answerMs = t; return w } ?? waits
        life = PaymentLife(entry: entry, url: terminalRequest.url, hooks: hooks, caller: caller, waits: w, now: now(), effects: &effects)
        await run(effects)
        return await wait(for: requestId)
    }

    /// The outcome of request `requestId`, once its life has settled; the command waits here meanwhile.
    func wait(for requestId: String) async -> ActionOutcome {
        guard let l = life, l.requestId == requestId else {
            // Settled and collected meanwhile; the journal has the outcome.
            do {
                if let e = try journal.entry(requestId: requestId) { return e.state == .unknown ? .unknown(e) : .answered(e) }
            } catch {
                return .journalFailed(nil, journalProblem("(read back) request \(requestId)", error))
            }
            return .transportError(nil, "lost track of request \(requestId)")
        }
        if let outcome = l.outcome {
            life = nil
            armTimer()
            return outcome
        }
        return await withCheckedContinuation { c in waiter = c }
    }

    /// Stops waiting for the request in flight, at the cashier's word: it becomes unknown (the terminal may still be
    /// working on it) and goes to Unresolved; a late answer still settles it.
    public func stopWaiting() async -> ActionOutcome? {
        guard !killed, let l = life, !l.isSettled else { return nil }
        let wall = now()
        let effects = life!.stopWaiting(book: journal, now: wall)
        let outcome = life?.outcome
        await run(effects)
        return outcome
    }
}
