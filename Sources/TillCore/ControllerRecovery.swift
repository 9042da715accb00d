import Foundation
import TillIO
import TillProtocol
#if canImport(Glibc)
import Glibc
#endif

// Start-up recovery of what an earlier run left open, and the cashier's own settling of an entry.
extension TillController {
    /// What needs attention, but for what this till has in flight now: that is waiting here, not unresolved (listed,
    /// the screen called the cashier's own sale "in progress on another till" and counted it unresolved).
    public func unresolved() async -> [JournalEntry] {
        let list: [JournalEntry]
        do { list = try journal.unresolved() } catch {
            _ = journalProblem("(read) the unresolved entries", error)
            return []
        }
        let here = [current?.inFlight.entry.id, current?.abort?.entry.id].compactMap { $0 }
        return list.filter { !here.contains($0.id) }
    }

    /// Asks the terminal about every entry an earlier run left pending, sent or unknown. Holds the journal's sender
    /// lock while it works, so it never touches an entry another live process is waiting on (if another till is
    /// sending, recovery is left for later). Every entry it settles is reported as a `.recovered` event.
    public func recover() async -> [JournalEntry] {
        lastRecovery = RecoveryReport()
        if await ensureStarted() != nil { lastRecovery.skipped = true; return await unresolved() }
        guard current == nil else {
            // Not now: this till is sending (a sale typed ahead at start).
            lastRecovery.skipped = true
            return await unresolved()
        }
        return await recoverNow()
    }

    private func recoverNow() async -> [JournalEntry] {
        do { try senderLock.acquire() } catch {
            lastRecovery.skipped = true
            let open = await unresolved()
            // Said only when something waits on the terminal: with nothing to recover, nothing was left for later,
            // and the notice would hide what the start had to say (another till on the journal is simply at work).
            if open.contains(where: { $0.state.awaitsTerminal }) {
                hub.emit(.transportProblem("Recovery left for later: \(error.description)"))
            }
            return open
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
                        if now.state == .pending && transport.anEarlierPeerOutlivedItsTill {
                            settle(now.id, .unknown, "Outcome unknown: the terminal has no record of it yet, but the bridge "
                                   + "of the till that sent it ran on after that till stopped and could have read it. Check the terminal.")
                        } else if now.state == .pending {
                            settle(now.id, .resolved, "Never sent: the terminal has no record of it.")
                        } else {
                            settle(now.id, .unknown, "Outcome unknown: the terminal has no record of it. Check the terminal.")
                        }
                        continue
                    }
                    let named = AnswerRules.sameReference(r.clientTransactionId, ctid)
                    if !named || !AnswerRules.moneyFieldsGivenTwice(r).isEmpty {
                        // A record that does not name the payment asked about (another transaction's STAN and id), or
                        // gives its status twice, says nothing for certain about this one.
                        settle(now.id, .unknown, "Outcome unknown: the terminal's record "
                               + (!named ? "does not name this payment" : "gives its status more than once")
                               + ". Check the terminal.")
                        continue
                    }
                    if let found = AnswerRules.detailsState(r) {
                        do {
                            var (state, note) = found == .approved ? try settledState(r, for: now) : (found, nil)
                            note = (note.map { $0 + " " } ?? "") + "Settled by asking the terminal about the payment (its transaction details)."
                            try keepStoredStray(of: now)
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

    /// A request another live till is still waiting on (it holds the journal's sender lock, and the entry is pending
    /// or sent) is that till's to settle: marking it here would contradict the answer it is about to get.
    func refuseIfInProgressElsewhere(_ e: JournalEntry) throws {
        guard current?.inFlight.entry.id != e.id, senderLock.isHeldElsewhere() else { return }
        try Self.refuseInProgress(e)
    }

    /// Refuses to settle a pending or sent entry while another till holds the sender lock: it is that till's request
    /// (`till resolve`, which has no controller, asks the same once it has tried the lock itself).
    public static func refuseInProgress(_ e: JournalEntry) throws {
        guard e.state.isWithItsSender else { return }
        throw ResolveError(message: "Entry \(e.id) is in progress on another till, which is waiting for the terminal's answer: "
                           + "wait for it to finish; nothing changed.")
    }

    /// The entry, when the cashier may settle it now: it needs attention, and neither this till nor another waits on it.
    func resolvable(_ entryId: Int64) throws -> JournalEntry {
        guard let e = try journal.entry(id: entryId) else { throw ResolveError(message: "No journal entry \(entryId).") }
        guard e.state.personMaySettle else {
            throw ResolveError(message: "Entry \(entryId) is \(e.state.rawValue), not unknown: nothing to resolve.")
        }
        if current?.inFlight.entry.id == entryId { throw ResolveError(message: "Entry \(entryId) is in flight; wait or abort.") }
        try refuseIfInProgressElsewhere(e)
        return e
    }

    public func resolve(entryId: Int64, note: String) async throws {
        _ = try resolvable(entryId)
        let text = note.trimmingWhitespace()
        guard !text.isEmpty else { throw ResolveError(message: "Say how it was resolved (--note …).") }
        if !(try journal.transition(entryId, to: .resolved, note: text, from: EntryState.settledByAPerson)) {
            throw ResolveError(message: "Entry \(entryId) was settled meanwhile; nothing changed.")
        }
    }

    public func resolve(entryId: Int64, charged: Bool, note: String) async throws {
        _ = try resolvable(entryId)
        let text = note.trimmingWhitespace()
        let how = charged ? "Marked charged by the cashier" : "Marked not charged by the cashier"
        try journal.resolve(entryId, charged: charged, note: text.isEmpty ? how + "." : how + ": " + text)
    }
}
