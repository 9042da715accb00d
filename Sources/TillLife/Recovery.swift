import TillModel
import TillProtocol

// Start-up recovery of what an earlier run left waiting on the terminal: the rules of each entry, as the desk's.
// The driver asks the look-ups (each a flight of its own) and hands their outcomes here.
extension AnswerDesk {
    static var awaiting: Set<EntryState> { [.pending, .sent, .unknown] }

    /// Moves entry `id` from waiting to `state`, and reports it; a journal failure is said.
    func recoverySettle(_ id: Int64, _ state: EntryState, _ note: String, _ out: inout [LifeEffect]) {
        do {
            if try book.transition(id, to: state, note: note, from: Self.awaiting, nowMs: now), let e = try book.entry(id: id) {
                out.append(.recovered(e))
            }
        } catch { _ = LifeProblems.say("what recovery found for entry \(id)", error, &out) }
    }

    /// A journal read for recovery: an error is said, never taken for "nothing there".
    func recoveryRead(_ id: Int64, _ out: inout [LifeEffect]) -> JournalEntry? {
        do { return try book.entry(id: id) } catch {
            out.append(.emit(.journalProblem("The journal could not be read (entry \(id)): \(error).")))
            return nil
        }
    }

    /// A request an earlier run handed over and the transport has now taken back, unclaimed: never sent.
    public func recoverWithdrawn(requestId id: String, _ out: inout [LifeEffect]) {
        let e: JournalEntry?
        do { e = try book.entry(requestId: id) } catch {
            out.append(.emit(.journalProblem("The journal could not be read (the entry of request \(id)): \(error).")))
            return
        }
        guard let e, e.state.awaitsTerminal else {
            out.append(.emit(.transportProblem("Withdrew a request file left in requests/ (\(id)) that the terminal app never claimed.")))
            return
        }
        do {
            if try book.transition(e.id, to: .resolved, note: "Never sent: till withdrew the request the terminal app never claimed.",
                                   from: Self.awaiting, nowMs: now),
               let settled = try book.entry(id: e.id) { out.append(.recovered(settled)) }
        } catch { _ = LifeProblems.say("that request \(id) was withdrawn", error, &out) }
    }

    /// The first step of recovering `e`: settled at once (an abort or a look-up left open, a request with nothing to
    /// ask about), or the client transaction id to ask the terminal about (`reachable`: it answered the last look-up).
    public func recoverWithoutAsking(_ e: JournalEntry, reachable: Bool, _ out: inout [LifeEffect]) -> String? {
        switch e.action.recovery {
        case .nothingToSettle:
            recoverySettle(e.id, .resolved, "Left without an answer when till stopped; nothing to settle.", &out)
            return nil
        case .askByClientTransactionId:
            if let ctid = e.clientTransactionId {
                guard reachable else {
                    recoverySettle(e.id, .unknown, "Outcome unknown: the terminal did not answer at start-up. Check the terminal.", &out)
                    return nil
                }
                return ctid
            }
        case .flagUnknown: break
        }
        if e.state != .unknown || e.note == nil {
            recoverySettle(e.id, .unknown, "Outcome unknown: till stopped while waiting. Check the terminal.", &out)
        }
        return nil
    }

    /// What the look-up about entry `id` (client transaction id `ctid`) found, journaled. `peerOutlived`: this start
    /// found a bridge an earlier till left running, which could have read a request journaled `pending`. Returns
    /// whether the terminal answered (if not, recovery stops asking and flags the rest).
    public func recoverAfterLookUp(_ id: Int64, ctid: String, lookUp outcome: ActionOutcome, peerOutlived: Bool,
                                   _ out: inout [LifeEffect]) -> Bool {
        var reachable = true
        if case .answered = outcome {} else {
            reachable = false
            if let d = outcome.journalEntry, d.state.awaitsTerminal {
                recoverySettle(d.id, .resolved, "A recovery query that got no answer; nothing to settle.", &out)
            }
        }
        let latest = recoveryRead(id, &out)
        guard let now = latest, now.state.awaitsTerminal else {
            // Settled meanwhile (its own late answer arrived during the query): say so.
            if let latest { out.append(.recovered(latest)) }
            return reachable
        }
        guard case .answered(let d) = outcome, let r = d.response else {
            recoverySettle(now.id, .unknown, "Outcome unknown: the terminal could not be asked. Check the terminal.", &out)
            return reachable
        }
        if AnswerRules.isNotFound(r) {
            if now.state == .pending && peerOutlived {
                recoverySettle(now.id, .unknown, "Outcome unknown: the terminal has no record of it yet, but the bridge "
                               + "of the till that sent it ran on after that till stopped and could have read it. Check the terminal.", &out)
            } else if now.state == .pending {
                recoverySettle(now.id, .resolved, "Never sent: the terminal has no record of it.", &out)
            } else {
                recoverySettle(now.id, .unknown, "Outcome unknown: the terminal has no record of it. Check the terminal.", &out)
            }
            return reachable
        }
        let named = AnswerRules.sameReference(r.clientTransactionId, ctid)
        if !named || !AnswerRules.moneyFieldsGivenTwice(r).isEmpty {
            // A record that does not name the payment asked about (another transaction's STAN and id), or gives its
            // status twice, says nothing for certain about this one.
            recoverySettle(now.id, .unknown, "Outcome unknown: the terminal's record "
                           + (!named ? "does not name this payment" : "gives its status more than once")
                           + ". Check the terminal.", &out)
            return reachable
        }
        if let found = AnswerRules.detailsState(r) {
            do {
                var (state, note) = found == .approved ? try verdict(r, for: now) : (found, nil)
                note = (note.map { $0 + " " } ?? "") + "Settled by asking the terminal about the payment (its transaction details)."
                try keepStoredStray(of: now, &out)
                if try book.recordAnswer(now.id, response: r, state: state, note: note, onlyIf: Self.awaiting, nowMs: self.now),
                   let e = try book.entry(id: now.id) {
                    out.append(.recovered(e))
                }
            } catch { _ = LifeProblems.say("what recovery found for entry \(now.id)", error, &out) }
            return reachable
        }
        recoverySettle(now.id, .unknown, "Outcome unknown: the terminal's record does not say whether the payment went through "
                       + "('\(r.message ?? r.status.description)'). Check the terminal.", &out)
        return reachable
    }
}
