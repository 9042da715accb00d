import TillProtocol

/// How strongly an answer names a journal entry.
public enum AnswerLink: Sendable, Hashable {
    /// The answer names this entry: the entry's own client transaction id, or the transport's address for its request
    /// (a file drop's `responses/<request id>.url`), or, for an action that carries no reference at all (refund,
    /// capture, batch, abort), the same action, not contradicted by amount or batch command.
    case exact
    /// Same action, but without the reference the entry has (and without an amount that contradicts it). It may settle
    /// a flight only as far as nothing contradicts it: an approval for the amount asked stands until the exact answer
    /// comes; anything else leaves the outcome unknown, since it could be a stray that hides the real approval.
    case unnamed
    /// Not an answer to this entry.
    case none
}

/// Which entry an answer settles, and how: the controller's rules as pure values, so that each is tested on its own.
///
/// The rule everything else follows: an answer that carries the entry's own reference (client transaction id) is the
/// truth about that entry. Anything weaker (no reference, another action, a look-up, an abort) never overrides it,
/// never makes the cashier believe a charge did not happen, and never moves money in or out of a report without a
/// person deciding.
public enum AnswerRules {
    /// How `r` names entry `e`. `hint` is the request id the transport filed the answer under, when it did.
    public static func link(_ r: CallbackResponse, to e: JournalEntry, hint: String?) -> AnswerLink {
        if let hint, hint != e.requestId { return .none }
        guard let action = r.action, action == e.action else { return .none }
        if let a = r.clientTransactionId, let b = e.clientTransactionId { return sameReference(a, b) ? .exact : .none }
        // A refund's answer carries no client transaction id (the pages list none): one that does is another payment's.
        if e.action == .cancel, r.clientTransactionId != nil, hint == nil { return .none }
        if let asked = batchCommand(of: e), r.batchCommand != asked { return .none }
        if let got = r.amount, let want = e.amount, got != want, !e.action.amountMayBeLess {
            return .none
        }
        if e.clientTransactionId != nil, hint == nil {
            // A look-up has nothing to hide: any answer to it, in its time, ends it (it settles no money by itself).
            return e.action.isLookUp ? .exact : .unnamed
        }
        return .exact
    }

    /// Whether two client transaction ids are the same reference: byte for byte, as the journal finds a reference
    /// already used. Swift's `==` holds `café` typed two ways (é, or e and a combining accent) equal, where the journal
    /// took them for two references: one payment's answer then settled the other.
    public static func sameReference(_ a: String?, _ b: String?) -> Bool {
        guard let a, let b else { return false }
        return a.utf8.elementsEqual(b.utf8)
    }

    /// Whether two answers tell of one terminal transaction: the same transaction id, or the same STAN and order code.
    public static func sameTransaction(_ a: CallbackResponse, _ b: CallbackResponse) -> Bool {
        if let x = a.transactionId, !x.isEmpty, let y = b.transactionId, !y.isEmpty { return x == y }
        guard let s = a.referenceNumber, !s.isEmpty, let o = a.orderCode, !o.isEmpty else { return false }
        return s == b.referenceNumber && o == b.orderCode
    }

    /// The batch command a journaled batch request asked for (open or close).
    public static func batchCommand(of e: JournalEntry) -> BatchCommand? {
        BatchAction.command(of: e.action, requestURL: e.requestURL)
    }

    /// Whether a settled entry's outcome came from something weaker than its own answer: an answer that did not name it
    /// (no client transaction id where the entry has one), another request's answer (an abort's, a look-up's), or no
    /// answer at all (a person's mark on the Unresolved screen, till's own "never sent"). Then the entry's exact answer,
    /// when it comes, is the truth and replaces it: a cashier's guess never outlives what the terminal says.
    public static func settledWithoutItsOwnAnswer(_ e: JournalEntry) -> Bool {
        guard e.clientTransactionId != nil, !e.state.awaitsTerminal else { return false }
        guard let stored = e.response else { return true }
        return stored.clientTransactionId == nil || stored.action != e.action
    }

    /// Whether an approval that names `e` itself (`exact`: its own reference, or the transport's address for its
    /// request) overturns what `e` holds: a payment settled "not charged" (declined, aborted, never sent, marked by a
    /// person) whose own approval comes after all. The terminal's approval naming the payment is the truth whenever it
    /// comes (a terminal that corrects itself, a card read before an abort, a bridge that delivers again at its next
    /// start): it settles the payment as charged, loudly, and is counted; nothing later (a decline, an abort) takes a
    /// charge back out of the totals.
    public static func approvalOverturns(_ e: JournalEntry, _ r: CallbackResponse, exact: Bool) -> Bool {
        guard exact, e.action.movesMoney, r.action == e.action, state(for: r) == .approved else { return false }
        return notChargedStates.contains(e.state)
    }

    /// The note an overturned entry carries (screens and commands look for its first words to say it loudly).
    public static let overturnedNote = "CHECK THE TERMINAL: the terminal approved this payment after till had it as not charged; "
        + "it is counted as charged. Do not charge the customer again; if they paid again meanwhile, refund one."
    /// The same, where the approval's figures are not those asked: the entry needs a person, and is not counted yet.
    public static let overturnedForReviewNote = "CHECK THE TERMINAL: the terminal approved this payment after till had it as not "
        + "charged, for figures other than were asked; it is not counted until a person checks it on the terminal. Do not charge the customer again."

    /// Whether the abort's "aborted" for payment `e` is checked with a look-up before the payment is called not
    /// charged: a payment that carries a reference the terminal can be asked about.
    public static func abortNeedsALookUp(_ e: JournalEntry) -> Bool {
        e.action.movesMoney && e.clientTransactionId != nil
    }

    /// What a look-up sent after the abort's "aborted" says of `payment`: approved (charged all the same), aborted
    /// (its record says not charged, or it has none), or nil: it does not say for certain (another payment's record,
    /// a status given twice, no transaction status, the terminal busy).
    public static func afterAbort(lookUp r: CallbackResponse, payment: JournalEntry) -> EntryState? {
        guard moneyFieldsGivenTwice(r).isEmpty, !terminalWasBusy(r) || isNotFound(r) else { return nil }
        if isNotFound(r) { return r.clientTransactionId == nil || sameReference(r.clientTransactionId, payment.clientTransactionId) ? .aborted : nil }
        guard sameReference(r.clientTransactionId, payment.clientTransactionId) else { return nil }
        switch detailsState(r) {
        case .approved?: return .approved
        case .declined?, .aborted?: return .aborted
        default: return nil
        }
    }

    /// Why a payment whose abort was answered "aborted" stays unknown when the terminal could not be asked.
    public static let abortNotAskedNote = "The terminal answered the abort ABORTED, and could not be asked whether the card was "
        + "charged all the same: the outcome is unknown; check the terminal."

    /// The settled states that say "not charged": what a late approval of the payment's own overturns.
    public static let notChargedStates: Set<EntryState> = [.declined, .aborted, .resolved]

    /// The state an answer gives the entry it belongs to, before any money check.
    public static func state(for r: CallbackResponse) -> EntryState {
        if r.action == .abort {
            // An abort's own answer: `success` means the terminal took the abort, never a payment's approval; the
            // page's `status=success&message=nothing to abort` is nothing done (abort.txt).
            switch r.abortOutcome {
            case .aborted?: return .aborted
            case .nothingToAbort?: return .resolved
            default: return r.isApproved ? .resolved : .declined
            }
        }
        if r.isApproved { return .approved }
        if r.abortOutcome == .aborted { return .aborted }
        // The terminal refused to start it (busy with another transaction): nothing was charged, and it is no decline
        // (a cashier reading DECLINED asks for another card). Settled as not charged; reports count it apart.
        if terminalWasBusy(r) { return .resolved }
        return .declined
    }

    /// `(-20) TRANSACTION_IN_PROGRESS`, `TERMINAL_BUSY`, "terminal busy": the terminal did not start the request.
    public static func terminalWasBusy(_ r: CallbackResponse) -> Bool {
        guard !r.isApproved else { return false }
        if r.messageCode == -20 { return true }
        let m = (r.messageName ?? r.message ?? "").uppercased()
        return m.contains("BUSY") || m.contains("TRANSACTION_IN_PROGRESS") || m.contains("TRANSACTION IN PROGRESS")
    }

    /// Whether an abort's answer may end payment `e` in flight: it names it, or names no payment at all.
    public static func abortNames(_ r: CallbackResponse, _ e: JournalEntry) -> Bool {
        guard let named = r.clientTransactionId else { return true }
        return sameReference(named, e.clientTransactionId)
    }

    /// Why an approval of a money action cannot be counted as it stands: an amount or tip other than asked, or one
    /// that cannot be read (a field present but not a number of cents, or none at all). Empty: it counts.
    ///
    /// Every money answer states its amount (the pages list `amount` for sale, pre-auth, refund and capture): a full
    /// refund or capture asks none, and the answer's is then the only figure, so without one nothing can be counted.
    /// A tip asked must come back stated too: counted at the tip asked, a total would hold money the terminal never
    /// said it took.
    public static func moneyProblems(_ r: CallbackResponse, action: Action, askedAmount: Money?, askedTip: Money?) -> [String] {
        var out: [String] = []
        let amountText = r["amount"]
        if amountText != nil && r.amount == nil {
            out.append("an amount that cannot be read ('\(SafeText.terminal(amountText ?? ""))')")
        } else if r.amount == nil {
            out.append("no amount")
        } else if let want = askedAmount, let got = r.amount, want != got {
            out.append("amount \(got) instead of \(want)")
        } else if askedAmount == nil, r.amount?.cents == 0 {
            // A full refund or capture asks no amount: an answer of 0.00 counts nothing for what may be all of it.
            out.append("an amount of 0.00 for the full amount")
        }
        if action.takesTip {
            let asked = askedTip ?? Money(cents: 0)
            let tipText = r["tipAmount"]?.trimmingWhitespace() ?? ""
            if !tipText.isEmpty, r.tipAmount == nil {
                out.append("a tip that cannot be read ('\(SafeText.terminal(tipText))')")
            } else if r.tipAmount == nil, asked.cents != 0 {
                out.append("no tip where \(asked) was asked")
            } else if let got = r.tipAmount, got != asked {
                out.append("tip \(got) instead of \(asked)")
            }
        }
        return out
    }

    /// The fields that decide what a money answer says (its status, action, amounts, reference, and a look-up's
    /// transaction status) that it gives more than once. The decoder keeps the first, but which one the terminal meant
    /// cannot be known: `status=fail&…&status=success` read as declined may be a charged card.
    public static func moneyFieldsGivenTwice(_ r: CallbackResponse) -> [String] {
        let decisive: Set<String> = ["status", "action", "amount", "tipAmount", "clientTransactionId", "transactionStatus"]
        return r.warnings.compactMap { w in
            if case .duplicateField(let f) = w, decisive.contains(f) { return f }
            return nil
        }
    }

    /// `TRANSACTION_NOT_FOUND` (or a failed details answer naming no transaction).
    public static func isNotFound(_ r: CallbackResponse) -> Bool {
        let m = (r.messageName ?? r.message ?? "").uppercased()
        return m.contains("NOT_FOUND") || m.contains("NOT FOUND")
    }

    /// What a look-up (`transactionDetails`) answer says about the payment it looked up: only its transaction status
    /// (`transactionStatus`) says. Its own `status=success` says the look-up worked, not that the payment did; without
    /// a transaction status the payment stays unknown, for a person.
    public static func detailsState(_ r: CallbackResponse) -> EntryState? {
        guard let s = r["transactionStatus"]?.trimmingWhitespace().lowercased(), !s.isEmpty else { return nil }
        if s == "success" || s == "approved" { return .approved }
        if s.contains("abort") || (r["transactionMessage"] ?? "").uppercased().contains("ABORTED") { return .aborted }
        if s == "fail" || s == "failed" || s == "declined" { return .declined }
        return nil
    }
}

extension JournalEntry {
    /// What a look-up (`transactionDetails`) found about the payment it asked about: "payment approved", "payment
    /// declined", "no record" …; nil for any other entry, or a look-up not answered. The look-up's own state says only
    /// that the terminal answered it: shown as "approved" beside the payment's row, it read as a second sale, or as an
    /// approval where the terminal had said the payment failed.
    public var lookUpFinding: String? {
        guard action.isLookUp, let r = response else { return nil }
        if AnswerRules.isNotFound(r) { return "no record" }
        switch AnswerRules.detailsState(r) {
        case .approved?: return "payment approved"
        case .declined?: return "payment declined"
        case .aborted?: return "payment aborted"
        default: return r.isApproved ? "payment status not given" : "not answered"
        }
    }

    /// The entry's state in the journal's words: a look-up by what it found ("look-up: payment declined").
    public var stateWords: String { lookUpFinding.map { "look-up: " + $0 } ?? state.rawValue }
}
