import TillModel
import TillProtocol

/// Every answer from the terminal, whenever it comes, goes here: which journal entry it settles and how. The flight
/// waiting now (if any) is one place an answer can go; an entry whose wait ended (unknown, declined, aborted, never
/// sent, marked by a person) is another, as is a row of its own for a person when it matches nothing. The rules are
/// the same whether the answer comes while the command listens, after it stopped, to the screen, or at the next start.
public struct AnswerDesk<Book: PaymentBook> {
    public let book: Book
    public let now: Int64
    /// Whether another till on the journal holds the sender lock now (asked only for an answer filed under a request
    /// this till is not waiting for).
    let anotherTillSending: () -> Bool
    /// A new request id, for the look-up sent after the abort's "aborted".
    let newRequestId: () -> String

    public init(book: Book, now: Int64, anotherTillSending: @escaping () -> Bool, newRequestId: @escaping () -> String) {
        self.book = book; self.now = now; self.anotherTillSending = anotherTillSending; self.newRequestId = newRequestId
    }

    /// Takes one answer: `flight` is the life this till has in flight (settled or not), changed in place.
    public func take(_ a: IncomingAnswer, flight: inout PaymentLife?) -> [LifeEffect] {
        var out: [LifeEffect] = []
        let response: CallbackResponse
        do {
            response = try CallbackResponse.decode(a.text)
        } catch {
            let reason = error.description
            out.append(.reject(reason))
            out.append(.emit(.rejectedAnswer(file: a.receipt ?? "(bridge line)", reason: reason)))
            return out
        }
        do {
            try settle(a, response, flight: &flight, &out)
        } catch {
            // Not journaled: not acknowledged either (a file stays where the next start finds it), and said at once.
            let m = LifeProblems.say("the terminal's answer (\(response.rawAction ?? "no action"), \(response.status))", error, &out)
            if let f = flight, f.outcome == nil,
               f.inFlight.entry.requestId == a.requestIdHint || AnswerRules.link(response, to: f.inFlight.entry, hint: a.requestIdHint) != .none {
                let known = response.isApproved ? "The terminal APPROVED it, but " : "The terminal answered (\(response.status)), but "
                flight?.finish(.journalFailed(f.inFlight.entry, known + m + " It is journaled at the next start; do not charge again before."),
                               book: book, now: now, &out)
            }
        }
        return out
    }

    func settle(_ a: IncomingAnswer, _ response: CallbackResponse, flight: inout PaymentLife?, _ out: inout [LifeEffect]) throws {
        // A file name (or tag) counts only when it names a request of till's; otherwise match by content.
        var a = a
        if let h = a.requestIdHint, h != flight?.requestId, h != flight?.abortRequestId, try book.entry(requestId: h) == nil {
            a.requestIdHint = nil
        }

        // An answer filed under a request this till is not waiting for, while another till on the journal is sending:
        // it is that till's answer (file drop: both watch one folder). Left where it is, untouched, for it to take.
        if let h = a.requestIdHint, h != flight?.requestId, h != flight?.abortRequestId, anotherTillSending() {
            out.append(.leave)
            return
        }

        // The answer to the look-up sent after the abort's "aborted": what the terminal's record says of the payment.
        if let f = flight, f.outcome == nil, let ab = f.abort, let lookUp = ab.lookUp, let abortAnswer = ab.answered,
           response.action?.isLookUp == true,
           a.requestIdHint == lookUp.requestId || (a.requestIdHint == nil && (response.clientTransactionId == nil
               || AnswerRules.sameReference(response.clientTransactionId, lookUp.clientTransactionId))) {
            try settleAfterAbort(response, lookUp: lookUp, abortAnswer: abortAnswer, flight: &flight, &out)
            return
        }

        // The abort's own answer. One that names another payment is not about this flight.
        if let f = flight, f.outcome == nil, let ab = f.abort, ab.answered == nil,
           response.action == .abort || a.requestIdHint == ab.entry.requestId,
           AnswerRules.abortNames(response, f.inFlight.entry) {
            let outcome = response.abortOutcome ?? .other
            let abortState: EntryState = outcome == .aborted ? .aborted : (outcome == .nothingToAbort ? .resolved : .declined)
            try book.recordAnswer(ab.entry.id, response: response, state: abortState,
                                  note: outcome == .aborted ? "The terminal aborted entry \(f.inFlight.entry.id)."
                                      : outcome == .nothingToAbort ? "The terminal had nothing to abort." : response.message,
                                  onlyIf: nil, nowMs: now)
            if outcome == .aborted, AnswerRules.abortNeedsALookUp(f.inFlight.entry) {
                // An abort is not proof: the card may have been read before it, and the payment's approval follow.
                // The payment waits while till asks the terminal's record, as recovery does for an unknown outcome;
                // `abort()` waits with it.
                flight?.abort?.answered = response
                flight?.abort?.waitDeadlineMs = nil
                out.append(.acknowledge)
                flight?.askAfterAbort(book: book, requestId: newRequestId(), now: now, &out)
                return
            }
            if outcome == .aborted {
                try book.recordAnswer(f.inFlight.entry.id, response: response, state: .aborted, note: "Aborted by the till.",
                                      onlyIf: [.pending, .sent, .unknown], nowMs: now)
            }
            flight?.endAbortWait(.answered(outcome, response), &out)
            out.append(.acknowledge)
            if outcome == .aborted {
                let e = try book.entry(id: f.inFlight.entry.id)
                flight?.abort = nil
                flight?.finish(.answered(e ?? f.inFlight.entry), book: book, now: now, &out)
            } else {
                flight?.abort = nil
                flight?.inFlight.abortRequested = false
            }
            return
        }

        var flightLink: AnswerLink = flight.map { f in
            f.outcome == nil ? AnswerRules.link(response, to: f.inFlight.entry, hint: a.requestIdHint) : .none
        } ?? .none
        // Another waiting refund (capture) of the same payment asked exactly this answer's amount: its late answer.
        var askedElsewhere: JournalEntry?
        if let f = flight, flightLink != .none {
            askedElsewhere = try waitingThatAsked(response, besides: f.inFlight.entry, hint: a.requestIdHint)
            if askedElsewhere != nil { flightLink = .none }
        }
        let namesFlight = flightLink == .exact && response.clientTransactionId != nil

        // A repeat of a transaction the journal already holds is that transaction's, never a new one for the flight
        // (unless it carries the flight's own reference: then the flight is answered, as a duplicate).
        let namesARequest = try response.clientTransactionId.map { try !book.entries(clientTransactionId: $0).isEmpty } ?? false
        if !namesFlight, !namesARequest, response.isApproved, let action = response.action,
           let same = try book.entry(sameTransactionAs: response, action: action, excluding: nil, countedOnly: false) {
            if consistent(same, response) { out.append(.acknowledge); return }
            try journalRepeat(a, response, of: same, &out)
            return
        }

        // The answer to what is in flight.
        if let f = flight, f.outcome == nil, flightLink != .none {
            let entry = f.inFlight.entry
            let (state, note) = try verdict(response, for: entry)
            // A request that carries no reference (refund, capture) has no answer that names it: its first failure
            // is as weak as an unnamed one, since a stray could stand before the real approval.
            let referenceless = entry.clientTransactionId == nil && a.requestIdHint == nil && entry.action.movesMoney
            let failed = state != .approved && state != .review && state != .duplicate
            if flightLink == .unnamed, let held = f.unnamedApproval {
                // The held stray sent again (a bridge that repeats a line): nothing new. Another answer naming no
                // payment: journaled on its own for a person (the held approval stays with the entry), never dropped.
                if AnswerRules.sameTransaction(response, held) { out.append(.acknowledge); return }
                try keepStray(response, whileWaiting: entry, &out)
                out.append(.acknowledge)
                return
            }
            if flightLink == .unnamed && !failed {
                // An approval that does not name the payment may be another payment's, and a customer may not even
                // have tapped a card yet: it never settles the payment by itself. Kept with the entry (still waiting)
                // for the payment's own answer; if none comes in the flight's time, the entry is left for a person.
                try book.recordAnswer(entry.id, response: response, state: .sent,
                                      note: "The terminal approved without naming this payment; waiting for its own answer.",
                                      onlyIf: [.pending, .sent], nowMs: now)
                flight?.unnamedApproval = response
                out.append(.acknowledge)
                return
            }
            if failed && flightLink == .unnamed {
                // Taken as a decline, a stray would hide a charge: kept with the entry (still waiting) for the
                // payment's own answer; if none comes in the flight's time, the outcome is unknown.
                // In words: the terminal's own message (a result code and its name) stays in the answer's raw fields.
                try book.recordAnswer(entry.id, response: response, state: .sent,
                                      note: "The terminal answered 'not approved' without naming this payment; waiting for its own answer.",
                                      onlyIf: [.pending, .sent], nowMs: now)
                if flight?.unnamedFailure == nil { flight?.unnamedFailure = response }
                out.append(.acknowledge)
                return
            }
            if failed && referenceless && f.unnamedFailure == nil {
                // A request that carries no reference has no answer that names it better: its failure settles it,
                // unless another answer contradicts it within a short wait.
                try book.recordAnswer(entry.id, response: response, state: .sent,
                                      note: "The terminal answered 'not approved'; waiting a moment for an answer that contradicts it.",
                                      onlyIf: [.pending, .sent], nowMs: now)
                flight?.unnamedFailure = response
                flight?.shortenWait(now: now, &out)
                out.append(.acknowledge)
                return
            }
            try book.recordAnswer(entry.id, response: response, state: state, note: note, onlyIf: nil, nowMs: now)
            if f.hooks { out.append(.crashPoint("answer-journaled")) }
            out.append(.acknowledge)
            // Settled: no request of it may be left for a peer to run later (file drop: matched by content, unclaimed).
            out.append(.withdraw(requestId: entry.requestId))
            let e = try book.entry(id: entry.id) ?? entry
            flight?.finish(.answered(e), book: book, now: now, &out)
            return
        }

        // A late answer for an entry left sent/unknown, the same answer again, or the exact answer of an entry settled
        // without it (an unnamed answer, an abort's, a person's mark).
        let stillInFlight = flight.flatMap { $0.outcome == nil ? $0.inFlight.entry.id : nil }
        let late = try askedElsewhere ?? lateTarget(for: response, hint: a.requestIdHint)
        if let target = late, target.id != stillInFlight {
            let exact = AnswerRules.sameReference(response.clientTransactionId, target.clientTransactionId)
                || (a.requestIdHint != nil && a.requestIdHint == target.requestId)
            let overturns = AnswerRules.approvalOverturns(target, response, exact: exact)
            if target.state.awaitsTerminal || overturns
                || (exact && AnswerRules.settledWithoutItsOwnAnswer(target) && !consistent(target, response)) {
                let (state, settledNote) = try verdict(response, for: target)
                let was = target.state
                let note = (settledNote.map { $0 + " " } ?? "") + (was.awaitsTerminal
                    ? "The answer arrived after till stopped waiting for it."
                    : overturns
                    ? (state == .approved ? AnswerRules.overturnedNote : AnswerRules.overturnedForReviewNote)
                        + " (It was \(was.rawValue)" + (target.note.map { ": " + $0 } ?? "") + ".)"
                        + (try paidAgain(after: target, response))
                    : "The terminal's own answer for this payment replaced what was journaled before it came (\(was.rawValue)"
                        + (target.note.map { ": " + $0 } ?? "") + "). Check the terminal.")
                try keepStoredStray(of: target, &out)
                if try book.recordAnswer(target.id, response: response, state: state, note: note,
                                         onlyIf: was.awaitsTerminal ? [.pending, .sent, .unknown] : [was], nowMs: now) {
                    out.append(.acknowledge)
                    out.append(.withdraw(requestId: target.requestId))
                    if let e = try book.entry(id: target.id) {
                        let what = was.awaitsTerminal ? "A late answer settled" : "CHECK THE TERMINAL: the terminal's own answer changed"
                        out.append(.emit(.unmatchedAnswer(response, note: "\(what) journal entry \(e.id) (\(e.action.rawValue)): \(e.state.rawValue).")))
                        out.append(was.awaitsTerminal ? .recovered(e) : .changed(e))
                    }
                    return
                }
            } else if consistent(target, response) {
                // Already journaled (till stopped between journaling and archiving), or the sale's own word after the
                // abort's: nothing new. Archive it.
                out.append(.acknowledge)
                return
            } else if response.isApproved, target.state == .approved,
                      try book.entry(sameTransactionAs: response, action: target.action, excluding: nil, countedOnly: false)?.id == target.id {
                // The entry's own approval told again in other words (a field more or less): the same transaction.
                try journalRepeat(a, response, of: target, &out)
                return
            }
        }

        // Matches nothing (or contradicts what is journaled): journal it once, for a person to review; never counted,
        // never a batch event.
        // In words: the answer's action and status are in its raw fields (the journal detail's `r`).
        let note = late.map { t in
            "An answer for journal entry \(t.id) (\(t.action.rawValue), \(t.state.rawValue)) that contradicts what is journaled for it: "
                + "check the terminal, and settle this one as charged only for a charge no other entry counts."
        } ?? "An answer that matches nothing this till sent or is waiting for: check the terminal."
        let (row, inserted) = try book.insertUnmatched(response: response, text: a.text, note: note, batch: try book.batch(nowMs: now),
                                                       state: .review, nowMs: now)
        out.append(.acknowledge)
        if inserted { out.append(.emit(.unmatchedAnswer(response, note: note + " (journal entry \(row.id))"))) }
    }

    /// Said with an overturned payment: the payments of the same figure charged after it, which the customer may
    /// have paid with instead (a decline, Enter again by habit, another card; then the first one's approval came).
    func paidAgain(after target: JournalEntry, _ r: CallbackResponse) throws -> String {
        guard target.action.startsPayment else { return "" }
        let charged = Money(cents: (r.amount ?? target.amount ?? .zero).cents + (r.tipAmount?.cents ?? 0))
        let again = try book.approved(target.action, after: target.id, charged: charged)
        guard !again.isEmpty else { return "" }
        let stans = again.compactMap { $0.response?.referenceNumber }.filter { !$0.isEmpty }.map { "STAN \($0)" }
        let which = stans.isEmpty ? "" : " (" + stans.joined(separator: ", ") + ")"
        return " The same \(charged) was charged again after it\(which): the customer may have paid twice. Refund one."
    }

    /// The look-up's answer after the abort's "aborted" settles the payment: charged if the terminal's record says it
    /// went through, aborted if its record says it did not (or it has none), unknown otherwise.
    func settleAfterAbort(_ response: CallbackResponse, lookUp: JournalEntry, abortAnswer: CallbackResponse,
                          flight: inout PaymentLife?, _ out: inout [LifeEffect]) throws {
        guard let payment = flight?.inFlight.entry else { return }
        let (lookUpState, lookUpNote) = try verdict(response, for: lookUp)
        try book.recordAnswer(lookUp.id, response: response, state: lookUpState, note: lookUpNote, onlyIf: [.pending, .sent], nowMs: now)
        out.append(.acknowledge)
        switch AnswerRules.afterAbort(lookUp: response, payment: payment) {
        case .approved?:
            var (state, note) = try verdict(response, for: payment)
            note = (note.map { $0 + " " } ?? "") + "The terminal answered the abort ABORTED, but its record says the payment went through: "
                + "it was charged (settled by asking the terminal, its transaction details)."
            try book.recordAnswer(payment.id, response: response, state: state, note: note, onlyIf: [.pending, .sent], nowMs: now)
            flight?.finish(.answered(try book.entry(id: payment.id) ?? payment), book: book, now: now, &out)
        case .aborted?:
            let note = AnswerRules.isNotFound(response)
                ? "Aborted by the till; the terminal has no record of the payment: not charged."
                : "Aborted by the till; the terminal's record says it was not charged."
            try book.recordAnswer(payment.id, response: abortAnswer, state: .aborted, note: note, onlyIf: [.pending, .sent, .unknown], nowMs: now)
            flight?.finish(.answered(try book.entry(id: payment.id) ?? payment), book: book, now: now, &out)
        default:
            flight?.endUnknown(note: "The terminal answered the abort ABORTED, but its record does not say the payment stopped ('"
                               + SafeText.terminal(response.message ?? response.status.description) + "'): the outcome is unknown; check the terminal.",
                               book: book, now: now, &out)
        }
    }

    /// The state an answer settles an entry in, after the money checks: an answer that gives its status or amounts
    /// twice needs review, whatever the first one said; an approval that repeats a transaction already journaled is a
    /// duplicate; one for another amount than was asked, or whose amount cannot be read, needs review. With the note why.
    public func verdict(_ r: CallbackResponse, for e: JournalEntry) throws -> (EntryState, String?) {
        let twice = AnswerRules.moneyFieldsGivenTwice(r)
        if e.action.movesMoney, !twice.isEmpty {
            return (.review, "The terminal's answer gives " + twice.map { "'\($0)'" }.joined(separator: " and ")
                    + " more than once: what it says cannot be read for certain. Not counted until checked: check the terminal, "
                    + "then settle it as charged or not charged.")
        }
        if e.action.movesMoney, r.action != .abort, case .other(let said) = r.status {
            // The pages' status is success or fail: `succ` (a line cut short), `approved` or a quoted "success" says
            // neither, and read as a decline it could be a charged card the cashier charges again.
            return (.review, "The terminal's answer says status '\(SafeText.terminal(said))', neither success nor fail: what it "
                    + "did cannot be read for certain. Not counted until checked: check the terminal, then settle it as charged or not charged.")
        }
        let state = AnswerRules.state(for: r)
        if state == .resolved, AnswerRules.terminalWasBusy(r) {
            // A look-up is made about a payment whose outcome is not known, and the terminal may be busy with that
            // very payment: "nothing was charged" beside it would read as its outcome.
            if e.action.isLookUp {
                return (state, "The terminal was busy and did not look the payment up: this says nothing of the payment. Ask again.")
            }
            return (state, "The terminal was busy with another transaction and did not start this one: nothing was charged. Try again.")
        }
        if state == .approved, BatchAction.closes(e.action, answer: r), let named = r.batchId {
            // The close of another batch than the open one (its id and name both another's) closes nothing here.
            let open = try book.batch(nowMs: now)
            if open.isOpen, !book.closeNames(batchId: named, batchName: r.batchName, open: open) {
                return (.review, "The terminal closed batch '\(SafeText.terminal(named))', not the open one ('\(SafeText.terminal(open.name ?? open.id ?? ""))'), "
                        + "which stays open. Check the terminal's batches, then settle this one.")
            }
        }
        guard state == .approved, e.action.movesMoney else { return (state, nil) }
        if let same = try book.entry(sameTransactionAs: r, action: e.action, excluding: e.id, countedOnly: true) {
            return (.duplicate, "The terminal answered with a transaction already journaled as entry \(same.id) "
                    + "(\(r.transactionId ?? r.referenceNumber ?? "same STAN")): nothing new was charged for this request. Check the terminal.")
        }
        let asked = try book.requestedAmounts(of: e.id)
        let problems = AnswerRules.moneyProblems(r, action: e.action, askedAmount: asked.amount, askedTip: asked.tip)
        if !problems.isEmpty {
            return (.review, "The terminal approved with " + problems.joined(separator: " and ")
                    + ": not counted until checked. Check the terminal and the receipt, then settle it as charged or not charged.")
        }
        return (.approved, nil)
    }

    /// A second answer for an entry already settled tells the same story (the sale's own "aborted" after the abort's
    /// answer, or the very same answer again).
    func consistent(_ stored: JournalEntry, _ r: CallbackResponse) -> Bool {
        if let s = stored.response, book.sameStoredAnswer(s, r) { return true }
        // Aborted and declined tell the same story for the money (nothing charged), whichever word the terminal used.
        let notCharged: Set<EntryState> = [.aborted, .declined]
        return notCharged.contains(stored.state) && notCharged.contains(AnswerRules.state(for: r))
    }

    /// Before something else settles `e`: the approval naming no payment it held, journaled on its own and said.
    public func keepStoredStray(of e: JournalEntry, _ out: inout [LifeEffect]) throws {
        if let (row, inserted) = try book.keepStoredStray(of: e, nowMs: now), inserted, let r = row.response {
            out.append(.emit(.unmatchedAnswer(r, note: (row.note ?? "") + " (journal entry \(row.id))")))
        }
    }

    /// An answer that named no payment while `waiting` waited for its own: journaled on its own for review (an
    /// approval may be a charge the terminal made for something else), never counted, never dropped; and said.
    func keepStray(_ response: CallbackResponse, whileWaiting waiting: JournalEntry, _ out: inout [LifeEffect]) throws {
        let (row, inserted) = try book.keepStray(response, whileWaiting: waiting, nowMs: now)
        if inserted { out.append(.emit(.unmatchedAnswer(response, note: (row.note ?? "") + " (journal entry \(row.id))"))) }
    }

    /// An approval repeating the transaction journaled as `same`: journaled once beside it as `duplicate` (never
    /// counted), so that what the terminal said is kept and nothing new is charged.
    func journalRepeat(_ a: IncomingAnswer, _ response: CallbackResponse, of same: JournalEntry, _ out: inout [LifeEffect]) throws {
        let note = "An answer repeating the transaction of journal entry \(same.id): nothing new was charged."
        let (row, inserted) = try book.insertUnmatched(response: response, text: a.text, note: note, batch: try book.batch(nowMs: now),
                                                       state: .duplicate, nowMs: now)
        out.append(.acknowledge)
        if inserted { out.append(.emit(.unmatchedAnswer(response, note: note + " (journal entry \(row.id))"))) }
    }

    /// The journal entry a stray answer belongs to: by file name, then by client transaction id, then the latest
    /// entry still waiting of the same action that carries no reference (refund, capture, batch), as `AnswerRules.link`
    /// allows.
    func lateTarget(for r: CallbackResponse, hint: String?) throws -> JournalEntry? {
        // The name an answer is filed under is its request's, unless the answer is of another action (a late sale
        // approval filed under its look-up's name is the sale's, found by its reference below).
        if let hint, let e = try book.entry(requestId: hint), r.action == nil || r.action == e.action { return e }
        guard let action = r.action, !action.isLookUp else { return nil }
        if let ctid = r.clientTransactionId {
            return try book.entries(clientTransactionId: ctid).first(where: { $0.action == action })
        }
        let waiting = try book.awaitingWithoutReference(action: action).filter { e in AnswerRules.link(r, to: e, hint: nil) == .exact }
        // Of refunds or captures waiting, the answer is that of the one that asked exactly its amount, if one did.
        return try firstThatAsked(r, among: waiting) ?? waiting.first
    }

    /// The refund or capture of the same payment as `flight`, still waiting, that asked exactly the amount of this
    /// answer, which `flight` did not ask (or it asked none: a full one). Their answers name no payment: two refunds
    /// whose answers cross each take their own.
    func waitingThatAsked(_ r: CallbackResponse, besides flight: JournalEntry, hint: String?) throws -> JournalEntry? {
        guard hint == nil, flight.clientTransactionId == nil, r.clientTransactionId == nil, r.action == flight.action,
              flight.action.amountMayBeLess, let got = r.amount,
              try book.requestedAmounts(of: flight.id).amount != got else { return nil }
        let key = RefundLinks.finder(of: flight).key
        let others = try book.awaitingWithoutReference(action: flight.action).filter { $0.id != flight.id && RefundLinks.finder(of: $0).key == key }
        return try firstThatAsked(r, among: others)
    }

    /// The first of `entries` whose request asked exactly the answer's amount.
    func firstThatAsked(_ r: CallbackResponse, among entries: [JournalEntry]) throws -> JournalEntry? {
        guard let got = r.amount else { return nil }
        return try entries.first { try book.requestedAmounts(of: $0.id).amount == got }
    }
}
