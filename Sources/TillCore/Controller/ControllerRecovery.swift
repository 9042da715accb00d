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
        let here = life?.entryIds ?? []
        return list.filter { !here.contains($0.id) }
    }

    /// Asks the terminal about every entry an earlier run left pending, sent or unknown. Holds the journal's sender
    /// lock while it works, so it never touches an entry another live process is waiting on (if another till is
    /// sending, recovery is left for later). Every entry it settles is reported as a `.recovered` event.
    public func recover() async -> [JournalEntry] {
        lastRecovery = RecoveryReport()
        if await ensureStarted() != nil { lastRecovery.skipped = true; return await unresolved() }
        guard life == nil else {
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
            var effects: [LifeEffect] = []
            desk().recoverWithdrawn(requestId: id, &effects)
            await run(effects)
        }
        var reachable = true
        let candidates: [JournalEntry]
        do { candidates = try journal.unresolved() } catch {
            _ = journalProblem("(read) the entries to recover", error)
            return []
        }
        for e in candidates where e.state.awaitsTerminal {
            guard let fresh = read("entry \(e.id)", nil, { try journal.entry(id: e.id) }), fresh.state.awaitsTerminal else { continue }
            var effects: [LifeEffect] = []
            let ask = desk().recoverWithoutAsking(fresh, reachable: reachable, &effects)
            await run(effects)
            guard let ctid = ask else { continue }
            let outcome = await perform(.transactionDetails(DetailsRequest(clientTransactionId: ctid)), hooks: false,
                                        timeoutMs: min(timeoutMs, recoveryTimeoutMs))
            effects = []
            reachable = desk().recoverAfterLookUp(fresh.id, ctid: ctid, lookUp: outcome, peerOutlived: transport.anEarlierPeerOutlivedItsTill, &effects)
            await run(effects)
        }
        return await unresolved()
    }

    /// A request another live till is still waiting on (it holds the journal's sender lock, and the entry is pending
    /// or sent) is that till's to settle: marking it here would contradict the answer it is about to get.
    func refuseIfInProgressElsewhere(_ e: JournalEntry) throws {
        guard life?.inFlight.entry.id != e.id, senderLock.isHeldElsewhere() else { return }
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
        if life?.inFlight.entry.id == entryId { throw ResolveError(message: "Entry \(entryId) is in flight; wait or abort.") }
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
