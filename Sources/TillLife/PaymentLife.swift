import TillModel
import TillProtocol

/// The life of one request till sends and waits for (a payment, a look-up, a batch command, a standalone abort), from
/// the moment it is journaled until it is settled: one value, with no timer, task or continuation of its own (as
/// quinn-proto's connection or h11's state machine are). Events come in as calls (handed over, an answer, the time
/// reached, an abort asked, the cashier stopping the wait, till stopping), each with `now` from the caller; what the
/// driver must do comes out as `LifeEffect`s; `nextDeadline` says when the driver must call `timeReached` next. The
/// controller drives it with the wall clock and a real transport; the virtual-clock simulation drives the very same
/// value with a clock and a terminal of its own, delivering each answer at every kind of moment.
///
/// The rules of which answer settles what are `AnswerDesk`'s (and the pure `AnswerRules`); this value holds what a
/// flight knows between events: whether its request was handed over, the unnamed answers it holds, its abort and the
/// look-up after the abort's "aborted", and its deadlines.
public struct PaymentLife: Sendable {
    /// How long each kind of wait lasts.
    public struct Waits: Sendable, Hashable {
        /// How long till waits for the request's answer before it calls the outcome unknown.
        public var answerMs: Int64
        /// How long `abort()` waits for the abort's own answer.
        public var abortMs: Int64
        /// How long the look-up after the abort's "aborted" may take (a look-up's, as recovery's).
        public var lookUpMs: Int64
        /// How long a request that carries no reference waits, after a failure, for an answer that contradicts it.
        public var unnamedGraceMs: Int64
        public init(answerMs: Int64, abortMs: Int64, lookUpMs: Int64, unnamedGraceMs: Int64) {
            self.answerMs = answerMs; self.abortMs = abortMs; self.lookUpMs = lookUpMs; self.unnamedGraceMs = unnamedGraceMs
        }
    }

    public enum Kind: Sendable, Hashable {
        /// A request of the cashier's or of recovery's.
        case request
        /// An abort sent with nothing of this till's in flight (`abort --force`): it settles nothing but itself.
        case standaloneAbort
    }

    /// The abort of the payment in flight.
    struct Abort: Sendable {
        var entry: JournalEntry
        /// Being handed over to the transport.
        var handingOver = true
        /// `abort()` is waiting for how the abort ends.
        var waiting = false
        /// Until when `abort()` waits for the abort's own answer (nil: for the look-up after its "aborted").
        var waitDeadlineMs: Int64?
        /// The abort's answer "aborted", once it came: not proof (the card may have been read), so the payment waits
        /// for the look-up below (or its own answer).
        var answered: CallbackResponse?
        /// The look-up (`transactionDetails`) till sent after that answer, asking whether the payment was charged.
        var lookUp: JournalEntry?
    }

    public internal(set) var inFlight: InFlight
    public let kind: Kind
    /// The crash hooks are armed for the cashier's own requests, not recovery's queries.
    public let hooks: Bool
    let caller: Caller
    let waits: Waits
    /// Whether the flight's own deadline runs: from the hand-over on (or once a failure shortened the wait).
    var deadlineRuns = false
    /// Set when the deadline passed and the transport is asked whether it can take the request back: the note the
    /// entry was marked unknown with, and the journal's complaint if that could not be written.
    var givingUp: (note: String, journalError: String?)?
    /// A failure that came without naming this payment (a payment with a reference: unknown if its own answer never
    /// comes), or the failure of a request that carries no reference (settled by it unless contradicted within
    /// `unnamedGraceMs`).
    var unnamedFailure: CallbackResponse?
    /// An approval that came without naming this payment: it could be another payment's, so it never settles the
    /// payment; with no answer of the payment's own in the flight's time, the entry is left for review with it.
    var unnamedApproval: CallbackResponse?
    var abort: Abort?
    /// How the abort's wait ended while the abort was still being handed over: given to `abort()` once it is.
    var abortResult: AbortResult?
    /// How the flight ended; nil while it waits.
    public internal(set) var outcome: ActionOutcome?

    /// Starts the life of `entry`, journaled `pending` just now: its request is to be handed over.
    public init(entry: JournalEntry, url: String, kind: Kind = .request, hooks: Bool, caller: Caller, waits: Waits, now: Int64,
                effects: inout [LifeEffect]) {
        let wait = kind == .standaloneAbort ? waits.abortMs : waits.answerMs
        self.inFlight = InFlight(entry: entry, startedAtMs: now, deadlineMs: now + wait)
        self.kind = kind
        self.hooks = hooks
        self.caller = caller
        self.waits = waits
        if kind == .request { effects.append(.emit(.inFlight(inFlight))) }
        effects.append(.send(requestId: entry.requestId, url: url, role: .request))
    }

    public var isSettled: Bool { outcome != nil }
    public var requestId: String { inFlight.entry.requestId }
    /// The abort's request id, while the flight has one.
    public var abortRequestId: String? { abort?.entry.requestId }
    /// The ids of the journal entries this flight is waiting on (the payment and its abort): not "unresolved" while it waits.
    public var entryIds: [Int64] { [inFlight.entry.id, abort?.entry.id].compactMap { $0 } }
    /// How the abort's wait ends if the flight is collected while its abort is still being handed over (its answer, or
    /// none): nil when no abort is being handed over. The driver gives it to `abort()`, which would otherwise wait for
    /// a hand-over that no life hears of any more.
    public var abortResultIfHandingOver: AbortResult? { abort?.handingOver == true ? (abortResult ?? .noAnswer) : nil }
    /// Whether `abort()` may wait for an abort of this flight now (none is waiting already).
    public var abortWaiting: Bool { abort.map { $0.handingOver || $0.waiting } ?? false }

    /// When the driver must call `timeReached` next; nil: nothing is timed (settled, or handing over, or asking the
    /// transport to take the request back).
    public var nextDeadline: Int64? {
        guard outcome == nil else { return nil }
        let own: Int64? = deadlineRuns && givingUp == nil ? inFlight.deadlineMs : nil
        let abortWait = abort?.waiting == true && abort?.answered == nil ? abort?.waitDeadlineMs : nil
        switch (own, abortWait) {
        case let (a?, b?): return min(a, b)
        case let (a, b): return a ?? b
        }
    }

    // MARK: events

    /// The transport took the request (`role`).
    public mutating func handedOver(_ role: SendRole, book: some PaymentBook, now: Int64) -> [LifeEffect] {
        var out: [LifeEffect] = []
        switch role {
        case .request:
            guard outcome == nil else { return [] }
            do { try book.markSent(inFlight.entry.id, nowMs: now) } catch {
                // Sent, but the journal still says pending: said loudly; the answer (or recovery) settles it.
                _ = problem("that the request was sent", error, &out)
            }
            if inFlight.entry.state == .pending { inFlight.entry.state = .sent }
            if kind == .request { out.append(.emit(.inFlight(inFlight))) }
            deadlineRuns = true
        case .abort:
            guard var a = abort else { return endedAbortWait(&out) }
            do { try book.markSent(a.entry.id, nowMs: now) } catch { _ = problem("that the abort was sent", error, &out) }
            a.handingOver = false
            abort = a
            if outcome != nil || abortResult != nil { return endedAbortWait(&out) }
            abort?.waiting = true
            if a.answered == nil { abort?.waitDeadlineMs = now + waits.abortMs }
        case .lookUp:
            guard let lookUp = abort?.lookUp else { return [] }
            do { try book.markSent(lookUp.id, nowMs: now) } catch { _ = problem("that the look-up was sent", error, &out) }
        }
        return out
    }

    /// The transport could not take the request (`role`).
    public mutating func notHandedOver(_ role: SendRole, _ error: TransportError, book: some PaymentBook, now: Int64) -> [LifeEffect] {
        var out: [LifeEffect] = []
        switch role {
        case .request:
            guard outcome == nil else { return [] }
            if kind == .standaloneAbort {
                abortNotSent(inFlight.entry, error, book: book, now: now, &out)
                outcome = .transportError(inFlight.entry, error.description)
                out.append(.settled(outcome!))
                return out
            }
            let state = error.journalState
            let note: String
            switch error {
            case .notSent(let m): note = "Not sent: \(m)"
            case .maybeSent(let m): note = "Maybe sent, no answer: \(m) Check the terminal."
            }
            var e = inFlight.entry
            do { try book.transition(e.id, to: state, note: note, from: [.pending, .sent], nowMs: now) } catch {
                let m = problem("that the request was not sent", error, &out)
                outcome = .journalFailed(e, m)
                out.append(.settled(outcome!))
                return out
            }
            e.state = state; e.note = note
            inFlight.entry = e
            out.append(.emit(.transportProblem(error.description)))
            outcome = .transportError(e, error.description)
            out.append(.settled(outcome!))
        case .abort:
            guard let a = abort else { return [] }
            abortNotSent(a.entry, error, book: book, now: now, &out)
            abort = nil
            inFlight.abortRequested = false
            out.append(.abortEnded(.transportError(error.description)))
        case .lookUp:
            guard let lookUp = abort?.lookUp else { return [] }
            abortNotSent(lookUp, error, book: book, now: now, &out)
            if outcome == nil { endUnknown(note: AnswerRules.abortNotAskedNote, book: book, now: now, &out) }
        }
        return out
    }

    /// The time reached `now` (the driver calls it at `nextDeadline`, or later; early calls do nothing).
    public mutating func timeReached(book: some PaymentBook, now: Int64) -> [LifeEffect] {
        var out: [LifeEffect] = []
        guard outcome == nil else { return out }
        if let a = abort, a.waiting, a.answered == nil, let w = a.waitDeadlineMs, now >= w {
            // The abort got no answer in its time: the request was past the point of no return, and its own answer
            // follows. A stale abort file must never abort a later sale: taken back if no peer claimed it.
            abort?.waiting = false
            abort?.waitDeadlineMs = nil
            do {
                try book.transition(a.entry.id, to: .resolved, note: "No abort answer: the request was past the point of no return; its own answer follows.",
                                    from: [.pending, .sent], nowMs: now)
            } catch { _ = problem("how the abort ended", error, &out) }
            out.append(.abortEnded(.noAnswer))
            out.append(.withdraw(requestId: a.entry.requestId))
        }
        guard deadlineRuns, givingUp == nil, now >= inFlight.deadlineMs else { return out }
        if kind == .standaloneAbort {
            let note = "No abort answer: what the terminal is doing (if anything) was past the point of no return."
            do { try book.transition(inFlight.entry.id, to: .resolved, note: note, from: [.pending, .sent], nowMs: now) } catch {
                _ = problem("how the abort ended", error, &out)
            }
            inFlight.entry.state = .resolved; inFlight.entry.note = note
            finish(.unknown(inFlight.entry), book: book, now: now, &out)
            return out
        }
        // The flight's own wait (recovery's queries wait less than a payment), not the controller's timeout.
        let waitedMs = inFlight.deadlineMs - inFlight.startedAtMs
        let seconds = waitedMs % 1000 == 0 ? String(waitedMs / 1000) : String(Double(waitedMs) / 1000)
        // The only answer that came, if it may settle the entry: an approval that did not name the payment leaves it
        // for a person with that approval; a failure of a request that carries no reference, nothing contradicting
        // it, settles it.
        let unnamedApprovalNote = "The terminal approved a payment of this amount without naming it (no client transaction id), "
            + "and never answered for this one: it may be another payment's. Not counted until checked: check the terminal."
        let settling: (response: CallbackResponse, state: EntryState, note: String?)? = unnamedApproval.map { ($0, .review, unnamedApprovalNote) }
            ?? unnamedFailure.flatMap { r in inFlight.entry.clientTransactionId == nil ? (r, AnswerRules.state(for: r), nil) : nil }
        if let (response, state, note) = settling {
            do {
                try book.recordAnswer(inFlight.entry.id, response: response, state: state, note: note, onlyIf: [.pending, .sent], nowMs: now)
                finish(.answered(try book.entry(id: inFlight.entry.id) ?? inFlight.entry), book: book, now: now, &out)
            } catch {
                finish(.journalFailed(inFlight.entry, problem("the terminal's answer", error, &out)), book: book, now: now, &out)
            }
            return out
        }
        let note = abort?.answered != nil
            ? "The terminal answered the abort ABORTED, but did not answer in time whether the card was charged all the same "
                + "(its look-up): the outcome is unknown; check the terminal."
            : unnamedFailure.map { _ in
                "The terminal answered 'not approved' without naming this payment, and never named it: "
                    + "it may be another payment's answer, so the outcome is unknown. Check the terminal."
            } ?? "No answer within \(seconds) s: the outcome is unknown; check the terminal."
        let journalError = markUnknown(note: note, book: book, now: now, &out)
        // Whether the request can still be taken back (the peer never took it: never sent) is the transport's to say.
        givingUp = (note, journalError)
        out.append(.giveUp(requestId: inFlight.entry.requestId))
        return out
    }

    /// What the transport said when till gave up waiting: `withdrawn`, the peer never took the request.
    public mutating func gaveUp(withdrawn: Bool, book: some PaymentBook, now: Int64) -> [LifeEffect] {
        var out: [LifeEffect] = []
        guard outcome == nil, let (note, journalError) = givingUp else { return out }
        givingUp = nil
        var e = inFlight.entry
        if withdrawn {
            let waitedMs = inFlight.deadlineMs - inFlight.startedAtMs
            let seconds = waitedMs % 1000 == 0 ? String(waitedMs / 1000) : String(Double(waitedMs) / 1000)
            let why = "Never sent: the terminal did not take the request within \(seconds) s, so till withdrew it."
            var failed = journalError
            do { try book.transition(e.id, to: .resolved, note: why, from: [.unknown, .pending, .sent], nowMs: now) } catch {
                failed = problem("that the request was withdrawn", error, &out)
            }
            e.state = .resolved; e.note = why
            inFlight.entry = e
            out.append(.emit(.transportProblem(why)))
            finish(failed.map { .journalFailed(e, $0 + " " + why) } ?? .transportError(e, why), book: book, now: now, &out)
            return out
        }
        finish(journalError.map { .journalFailed(e, $0 + " " + note) } ?? .unknown(e), book: book, now: now, &out)
        return out
    }

    /// The wall clock stepped by `deltaMs` (an RTC or NTP step, a virtual machine's snapshot restored): every deadline
    /// moves with it, so that each wait lasts as long as it was meant to, whatever the clock says. (Without it, a step
    /// back of 49 h had a sale wait 49 h for its answer, and a step forward ended every wait at once.)
    public mutating func clockStepped(by deltaMs: Int64) {
        inFlight.startedAtMs += deltaMs
        inFlight.deadlineMs += deltaMs
        if let w = abort?.waitDeadlineMs { abort?.waitDeadlineMs = w + deltaMs }
    }

    /// The cashier stops waiting: the request becomes unknown (the terminal may still be working on it) and goes to
    /// Unresolved; a late answer still settles it.
    public mutating func stopWaiting(book: some PaymentBook, now: Int64) -> [LifeEffect] {
        var out: [LifeEffect] = []
        guard outcome == nil else { return out }
        endUnknown(note: "The cashier stopped waiting: the outcome is unknown; check the terminal.", book: book, now: now, &out)
        return out
    }

    /// The transport says the request will get no answer through it (the bridge died while it was pending).
    public mutating func lost(_ reason: String, book: some PaymentBook, now: Int64) -> [LifeEffect] {
        var out: [LifeEffect] = []
        guard outcome == nil else { return out }
        endUnknown(note: reason + " The outcome is unknown; check the terminal.", book: book, now: now, &out)
        return out
    }

    /// till stops while waiting. The driver first asked the transport to take back the abort (`abortWithdrawn`) and the
    /// request (`withdrawn`): a request taken back was never sent; any other is unknown.
    public mutating func stopping(withdrawn: Bool, abortWithdrawn: Bool, book: some PaymentBook, now: Int64) -> [LifeEffect] {
        var out: [LifeEffect] = []
        guard outcome == nil else { return out }
        if let a = abort, abortWithdrawn {
            do { try book.transition(a.entry.id, to: .resolved, note: "Never sent: withdrawn when till stopped.", from: [.pending, .sent], nowMs: now) }
            catch { _ = problem("that the abort was withdrawn", error, &out) }
        }
        var note = "till stopped while waiting for the answer: the outcome is unknown; check the terminal."
        var state = EntryState.unknown
        if withdrawn {
            note = "Never sent: till stopped before the terminal app took the request, and withdrew it."
            state = .resolved
        }
        do { try book.transition(inFlight.entry.id, to: state, note: note, from: [.pending, .sent], nowMs: now) } catch {
            _ = problem("how the request ended", error, &out)
        }
        inFlight.entry.state = state
        inFlight.entry.note = note
        finish(.unknown(inFlight.entry), book: book, now: now, &out)
        return out
    }

    // MARK: abort

    /// The cashier asks to abort the payment in flight: the abort is journaled (a child of the payment) and sent.
    /// Nil effects with a result: refused, nothing sent.
    public mutating func askAbort(book: some PaymentBook, requestId: String, now: Int64) -> (effects: [LifeEffect], refused: AbortResult?) {
        var out: [LifeEffect] = []
        guard outcome == nil else { return ([], .nothingInFlight) }
        if abortWaiting { return ([], .transportError("An abort is already waiting for its answer.")) }
        let request = TerminalRequest(caller: caller, request: .abort)
        let entry: JournalEntry
        do {
            entry = try book.insertPending(requestId: requestId, request: request, batch: try book.batch(nowMs: now),
                                           parentId: inFlight.entry.id, nowMs: now)
        } catch {
            return (out, .transportError(problem("the abort, so it was not sent", error, &out)))
        }
        abort = Abort(entry: entry)
        abortResult = nil
        inFlight.abortRequested = true
        out.append(.emit(.inFlight(inFlight)))
        out.append(.send(requestId: requestId, url: request.url, role: .abort))
        return (out, nil)
    }

    /// The abort's wait ended while it was being handed over (or it is gone): `abort()` hears it at once.
    mutating func endedAbortWait(_ out: inout [LifeEffect]) -> [LifeEffect] {
        let r = abortResult ?? .noAnswer
        abortResult = nil
        abort?.waiting = false
        abort?.waitDeadlineMs = nil
        out.append(.abortEnded(r))
        return out
    }

    /// Wakes `abort()` with `r`: at once if it waits; once its abort is handed over, if it is being handed over.
    mutating func endAbortWait(_ r: AbortResult, _ out: inout [LifeEffect]) {
        guard let a = abort else { return }
        if a.handingOver { abortResult = r; return }
        guard a.waiting else { return }
        abort?.waiting = false
        abort?.waitDeadlineMs = nil
        out.append(.abortEnded(r))
    }

    /// An abort (or the look-up after it) the transport could not hand over: never sent (resolved) or perhaps sent (unknown).
    func abortNotSent(_ entry: JournalEntry, _ error: TransportError, book: some PaymentBook, now: Int64, _ out: inout [LifeEffect]) {
        do {
            try book.transition(entry.id, to: error.journalState, note: "Abort not sent: \(error.description)", from: [.pending, .sent], nowMs: now)
        } catch { _ = problem("that the abort was not sent", error, &out) }
    }

    /// After the abort's "aborted": the look-up (`transactionDetails`) of the payment is journaled and sent, with its own
    /// time (a look-up's, as recovery's); the screen says "aborting — asking the terminal" meanwhile.
    mutating func askAfterAbort(book: some PaymentBook, requestId: String, now: Int64, _ out: inout [LifeEffect]) {
        guard outcome == nil, let ctid = inFlight.entry.clientTransactionId else { return }
        let request = TerminalRequest(caller: caller, request: .transactionDetails(DetailsRequest(clientTransactionId: ctid)))
        let entry: JournalEntry
        do {
            entry = try book.insertPending(requestId: requestId, request: request, batch: try book.batch(nowMs: now),
                                           parentId: inFlight.entry.id, nowMs: now)
        } catch {
            endUnknown(note: problem("the look-up after the abort", error, &out) + " " + AnswerRules.abortNotAskedNote, book: book, now: now, &out)
            return
        }
        abort?.lookUp = entry
        inFlight.askingAfterAbort = true
        inFlight.deadlineMs = now + waits.lookUpMs
        deadlineRuns = true
        out.append(.emit(.inFlight(inFlight)))
        out.append(.send(requestId: requestId, url: request.url, role: .lookUp))
    }

    /// After the failure of a request that carries no reference: wait at most a short while more for an answer that
    /// contradicts it.
    mutating func shortenWait(now: Int64, _ out: inout [LifeEffect]) {
        inFlight.deadlineMs = min(inFlight.deadlineMs, now + waits.unnamedGraceMs)
        deadlineRuns = true
        out.append(.emit(.inFlight(inFlight)))
    }

    // MARK: ending

    /// Journal trouble, said at once: an event for the screen, and the message for the outcome.
    func problem(_ what: String, _ error: any Error, _ out: inout [LifeEffect]) -> String {
        LifeProblems.say(what, error, &out)
    }

    /// Journals that the outcome of the flight's entry is unknown (the terminal may still be working on it; a late
    /// answer still settles it), `note` saying why. Returns the journal's complaint when it could not be written.
    mutating func markUnknown(note: String, book: some PaymentBook, now: Int64, _ out: inout [LifeEffect]) -> String? {
        var journalError: String?
        do { try book.transition(inFlight.entry.id, to: .unknown, note: note, from: [.pending, .sent], nowMs: now) } catch {
            journalError = problem("that the outcome is unknown", error, &out)
        }
        inFlight.entry.state = .unknown; inFlight.entry.note = note
        return journalError
    }

    /// `markUnknown`, and the flight ends with it; a journal failure is said with what till knows after it.
    mutating func endUnknown(note: String, book: some PaymentBook, now: Int64, _ out: inout [LifeEffect]) {
        let journalError = markUnknown(note: note, book: book, now: now, &out)
        let e = inFlight.entry
        finish(journalError.map { .journalFailed(e, $0 + " " + note) } ?? .unknown(e), book: book, now: now, &out)
    }

    /// Ends the flight with `outcome`: what it held is journaled on its own, its abort and look-up are closed, and the
    /// command waiting on it is woken.
    mutating func finish(_ result: ActionOutcome, book: some PaymentBook, now: Int64, _ out: inout [LifeEffect]) {
        guard outcome == nil else { return }
        // A stray approval held with the entry that another answer replaced there (the payment's own, an abort's):
        // journaled on its own for a person, never dropped. One the entry still holds (the wait ended unknown or for
        // review) stays one row, the entry's, so that a person settles that charge once.
        if let held = unnamedApproval {
            do {
                let stored = try book.entry(id: inFlight.entry.id)?.response
                if stored.map({ book.sameStoredAnswer($0, held) }) != true {
                    let (row, inserted) = try book.keepStray(held, whileWaiting: inFlight.entry, nowMs: now)
                    if inserted { out.append(.emit(.unmatchedAnswer(held, note: (row.note ?? "") + " (journal entry \(row.id))"))) }
                }
            } catch {
                _ = problem("an approval that named no payment", error, &out)
            }
        }
        if let a = abort {
            if case .answered(let e) = result, e.state == .aborted, let r = e.response {
                endAbortWait(.answered(.aborted, r), &out)
            } else if let r = a.answered {
                // The terminal said "aborted", and the payment turned out otherwise (charged, or not known): the
                // abort's answer is told as an answer, not as the abort done.
                endAbortWait(.answered(.other, r), &out)
            } else {
                endAbortWait(.noAnswer, &out)
            }
            if let lookUp = a.lookUp {
                do {
                    try book.transition(lookUp.id, to: .resolved, note: "The payment it asked about was settled before its answer; nothing to settle.",
                                        from: [.pending, .sent], nowMs: now)
                } catch { _ = problem("how the look-up ended", error, &out) }
            }
            do {
                try book.transition(a.entry.id, to: .resolved, note: "No abort answer: the request it was meant to abort ended by itself.",
                                    from: [.pending, .sent, .unknown], nowMs: now)
            } catch {
                _ = problem("how the abort ended", error, &out)
            }
        }
        outcome = result
        out.append(.settled(result))
    }
}

/// How journal trouble is said: one sentence, the same from every rule.
public enum LifeProblems {
    public static func say(_ what: String, _ error: any Error, _ out: inout [LifeEffect]) -> String {
        let m = "The journal could not record \(what): \(error)."
        out.append(.emit(.journalProblem(m)))
        return m
    }
}
