import Foundation
import Testing
@testable import TillCore
import TillIO
import TillProtocol
import TillSimulator
import TillSimulatorTransport

@Suite struct ControllerTests {
    @Test func approvedAndDeclinedSalesAreJournaled() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let c = try await simulatorController(dir)
        let ok = await c.perform(sale(1250, tip: 100))
        guard case .answered(let e) = ok else { Issue.record("expected an answer, got \(ok)"); return }
        #expect(e.state == .approved && ok.exitCode == 0)
        #expect((e.clientTransactionId?.count ?? 0) == 36)
        #expect(e.response?.clientTransactionId == e.clientTransactionId)
        let no = await c.perform(sale(666))
        #expect(no.journalEntry?.state == .declined && no.exitCode == 1)
        let list = await c.entries(JournalFilter())
        #expect(list.map(\.state) == [.declined, .approved])
        #expect(await c.unresolved().isEmpty)
        await c.shutdown()
    }

    @Test func invalidInputIsNeitherJournaledNorSent() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let c = try await simulatorController(dir)
        let r = await c.perform(sale(0))
        guard case .invalid(let errors) = r else { Issue.record("expected invalid, got \(r)"); return }
        #expect(errors.contains { $0.field == "amount" } && r.exitCode == 2)
        #expect(try c.journal.count() == 0)
        await c.shutdown()
    }

    @Test func busyWhileInFlightThenTimeoutIsUnknown() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let c = try await simulatorController(dir, timeoutMs: 3_000)
        // 9.09: the terminal never answers. The first sale's own deadline is far off, so that it is certainly still in
        // flight when the second is tried (on a loaded machine a 3 s timer could end it first); once the second was
        // refused, its timeout is made to come now, as its timer would, and must leave it unknown.
        let first = Task { await c.perform(sale(909), hooks: true, timeoutMs: 600_000) }
        #expect(await eventuallyAsync { await c.inFlight()?.entry.state == .sent })
        let second = await c.perform(sale(100))
        guard case .busy = second else { Issue.record("expected busy, got \(second)"); return }
        #expect(second.exitCode == 3)
        let requestId = try #require(await c.inFlight()?.entry.requestId)
        await c.timedOut(requestId)
        let outcome = await first.value
        guard case .unknown(let e) = outcome else { Issue.record("expected unknown, got \(outcome)"); return }
        #expect(e.state == .unknown && outcome.exitCode == 3)
        #expect(e.note?.contains("unknown") == true)
        #expect(try c.journal.entry(id: e.id)?.state == .unknown)
        #expect(try c.journal.count() == 1)   // the busy one was never journaled
        await c.shutdown()
    }

    @Test func abortWhileWaitingForTheCardAbortsTheSale() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let c = try await simulatorController(dir, config: SimulatorConfig(speed: 1, cardWaitMs: 600_000))
        let saleTask = Task { await c.perform(sale(2000)) }
        #expect(await eventuallyAsync { await c.inFlight()?.entry.state == .sent })
        let a = await c.abort()
        guard case .answered(let outcome, _) = a else { Issue.record("expected an abort answer, got \(a)"); return }
        #expect(outcome == .aborted)
        let s = await saleTask.value
        #expect(s.journalEntry?.state == .aborted && s.exitCode == 1)
        let all = await c.entries(JournalFilter())
        // The abort request is journaled as an abort, never as "approved".
        #expect(all.first { $0.action == .abort }?.state == .aborted)
        #expect(await c.unresolved().isEmpty)
        await c.shutdown()
    }

    @Test func nothingToAbort() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let c = try await simulatorController(dir)
        #expect(await c.abort() == .nothingInFlight)
        let forced = await c.abort(force: true)
        guard case .answered(let o, _) = forced else { Issue.record("expected an answer, got \(forced)"); return }
        #expect(o == .nothingToAbort)
        await c.shutdown()
    }

    @Test func noAbortAnswerKeepsWaitingForTheSale() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        // 7.77: the host takes 15 s x 0.4 = 6 s; the card is read at once, so abort gets no answer. Only the abort's
        // 0.2 s is meant to run out; the sale waits the default minute for its approval.
        let c = try await simulatorController(dir, config: SimulatorConfig(speed: 0.4, cardWaitMs: 0), abortWaitMs: 200)
        let saleTask = Task { await c.perform(sale(777)) }
        #expect(await eventuallyAsync { await c.inFlight()?.entry.state == .sent })
        let a = await c.abort()
        #expect(a == .noAnswer)
        let s = await saleTask.value
        #expect(s.journalEntry?.state == .approved)
        #expect(await c.unresolved().isEmpty)
        await c.shutdown()
    }

    /// A sale through the file drop whose request a hand-made peer takes at once and does not answer, until till gives
    /// up waiting: its entry unknown, with the request id its answer is filed under. The sale's own deadline is far off:
    /// a request still unclaimed at its timeout is withdrawn (never sent), and on a loaded machine the peer could take
    /// it later than a short one. Once it is taken, the timeout is made to come, as the controller's timer would.
    static func unknownSale(_ c: TillController, _ drop: String, _ cents: Int, ctid: String) async -> (JournalEntry, String)? {
        let saleTask = Task { await c.perform(sale(cents, ctid: ctid), hooks: true, timeoutMs: 600_000) }
        #expect(await eventuallyAsync { !requestFiles(drop).isEmpty })
        var requestId = ""
        for name in requestFiles(drop) {
            requestId = String(name.dropLast(4))
            unlink(drop + "/requests/" + name)
        }
        guard !requestId.isEmpty else { Issue.record("no request"); return nil }
        #expect(await eventuallyAsync { await c.inFlight()?.entry.state == .sent })
        await c.timedOut(requestId)
        let r = await saleTask.value
        guard case .unknown(let e) = r else { Issue.record("expected unknown, got \(r)"); return nil }
        return (e, requestId)
    }

    @Test func lateAnswerSettlesAnUnknownEntry() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let (c, log, drop) = try await startFileDropController(dir, timeoutMs: 5_000)
        guard let (e, requestId) = await Self.unknownSale(c, drop, 777, ctid: "late-1") else { await c.shutdown(); return }
        // The note names the flight's own wait (this sale's 600 s), not the controller's 5 s.
        #expect(e.requestId == requestId && e.note?.contains("No answer within 600 s") == true, "\(e.note ?? "")")
        try AtomicFile.write("interapp-callback://result?status=success&message=ok&action=sale&clientTransactionId=late-1&amount=777\n",
                             to: drop + "/responses/" + requestId + ".url")
        #expect(await eventuallyAsync { (try? c.journal.entry(id: e.id))??.state == .approved })
        #expect(await eventuallyAsync { log.unmatched.contains { $0.contains("late answer") } })
        #expect(try c.journal.count() == 1)
        #expect(Path.list(drop + "/archive") == [requestId + ".url"])
        await c.shutdown()
    }

    /// A person's mark on an unknown payment is a guess from the terminal's screen: the payment's own answer, when it
    /// comes after, is the truth and replaces it, either way (charged marked, then its own decline; not charged marked,
    /// then its own approval), and says so.
    @Test(arguments: [(true, "status=fail&message=(-4)%20USER_CANCEL", EntryState.declined, 0),
                      (false, "status=success&message=ok", EntryState.approved, 1)])
    func thePaymentsOwnAnswerReplacesAPersonsMark(charged: Bool, status: String, becomes: EntryState, counted: Int) async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let (c, log, drop) = try await startFileDropController(dir, timeoutMs: 5_000)
        guard let (e, requestId) = await Self.unknownSale(c, drop, 808, ctid: "marked-1") else { await c.shutdown(); return }
        try await c.resolve(entryId: e.id, charged: charged, note: charged ? "Marked charged by the cashier" : "Marked not charged by the cashier")
        try AtomicFile.write("interapp-callback://result?\(status)&action=sale&clientTransactionId=marked-1&amount=808&tipAmount=0\n",
                             to: drop + "/responses/" + requestId + ".url")
        #expect(await eventuallyAsync { (try? c.journal.entry(id: e.id))??.state == becomes })
        #expect(try await c.running().sales.count == counted)
        #expect(await c.unresolved().isEmpty)
        #expect(try c.journal.count() == 1, "the answer was journaled beside the entry instead of settling it")
        #expect(await eventuallyAsync { log.unmatched.contains { $0.contains("CHECK THE TERMINAL: the terminal's own answer changed journal entry \(e.id)") } })
        #expect((try c.journal.entry(id: e.id))?.note?.contains("Marked") == true)
        await c.shutdown()
    }

    @Test func recoveryAsksTheTerminalAndNeverResends() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let journal = try Journal(path: dir.path + "/journal.sqlite")
        let statePath = dir.path + "/simulator-state.json"
        // (a) journaled, never sent.
        let a = try journal.insertPending(requestId: "a", request: TerminalRequest(caller: testCaller, request: sale(100, ctid: "ctid-a")), batch: BatchInfo())
        // (b) sent, and the terminal did it (its answer was lost).
        let bReq = TerminalRequest(caller: testCaller, request: sale(200, ctid: "ctid-b"))
        let b = try journal.insertPending(requestId: "b", request: bReq, batch: BatchInfo())
        try journal.markSent(b.id)
        let sim = TerminalSimulator(config: SimulatorConfig(speed: 0))
        _ = sim.receive(bReq.url, nowMs: WallClock.nowMs())
        try sim.save(to: statePath)
        // (c) sent, the terminal never got it.
        let cEntry = try journal.insertPending(requestId: "c", request: TerminalRequest(caller: testCaller, request: sale(300, ctid: "ctid-c")), batch: BatchInfo())
        try journal.markSent(cEntry.id)
        // (d) a refund has no client transaction id: cannot be asked about.
        let d = try journal.insertPending(requestId: "d", request: TerminalRequest(caller: testCaller, request: .cancel(CancelRequest(finder: TransactionFinder(referenceNumber: "000001")))), batch: BatchInfo())
        try journal.markSent(d.id)

        let transport = SimulatorTransport(config: SimulatorConfig(speed: 0), statePath: statePath)
        let c = TillController(transport: transport, journal: journal, caller: testCaller)
        try await c.start()
        let left = await c.recover()
        #expect(Set(left.map(\.id)) == [cEntry.id, d.id])
        #expect(try journal.entry(id: a.id)?.state == .resolved)
        #expect(try journal.entry(id: a.id)?.note?.contains("Never sent") == true)
        #expect(try journal.entry(id: b.id)?.state == .approved)
        #expect(try journal.entry(id: cEntry.id)?.note?.contains("no record") == true)
        #expect(try journal.entry(id: d.id)?.state == .unknown)
        // Nothing re-sent: the terminal holds exactly one transaction (b's).
        let state = try await transport.runner().state
        #expect(state.transactions.count == 1 && state.transactions.first?.clientTransactionId == "ctid-b")
        // The cashier settles the rest.
        try await c.resolve(entryId: d.id, note: "terminal shows the refund approved")
        #expect(try journal.entry(id: d.id)?.state == .resolved)
        await #expect(throws: ResolveError.self) { try await c.resolve(entryId: b.id, note: "x") }
        #expect(await c.unresolved().map(\.id) == [cEntry.id])
        await c.shutdown()
    }

    /// A till started while another on its journal holds the sender lock (the other is in its own recovery or a
    /// payment): with nothing waiting on the terminal, recovery says nothing (its notice hid the start's own warnings,
    /// such as a broken theme); with an entry waiting, it says the recovery was left for later.
    @Test func recoveryLeftForLaterIsSaidOnlyWhenSomethingWaits() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let (c, log, _) = try await startFileDropController(dir, timeoutMs: 60_000)
        let otherTill = SenderLock(journalPath: dir.path + "/j.sqlite")
        try otherTill.acquire()
        _ = await c.recover()
        let req = TerminalRequest(caller: testCaller, request: TillController.withClientTransactionId(sale(4200)))
        let e = try c.journal.insertPending(requestId: "left-by-an-earlier-run", request: req, batch: BatchInfo())
        try c.journal.markSent(e.id)
        _ = await c.recover()
        // The events come in order: once the second recovery's is in, the first one's would be too.
        #expect(await eventuallyAsync { log.problems.contains { $0.contains("left for later") } })
        #expect(log.problems.filter { $0.contains("left for later") }.count == 1, "\(log.problems)")
        otherTill.release()
        await c.shutdown()
    }

    @Test func recoveryStopsAskingATerminalThatDoesNotAnswer() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let journal = try Journal(path: dir.path + "/journal.sqlite")
        for n in 1...3 {
            let e = try journal.insertPending(requestId: "s\(n)", request: TerminalRequest(caller: testCaller, request: sale(100 * n, ctid: "q-\(n)")),
                                              batch: BatchInfo())
            try journal.markSent(e.id)
        }
        let c = TillController(transport: PipeTransport(command: "cat > /dev/null"), journal: journal, caller: testCaller, timeoutMs: 300)
        try await c.start()
        let left = await c.recover()
        #expect(left.count == 3 && left.allSatisfy { $0.state == .unknown && $0.note?.contains("Check the terminal") == true })
        let asked = await c.entries(JournalFilter()).filter { $0.action == .transactionDetails }
        #expect(asked.count == 1 && asked.first?.state == .resolved)   // one query, then it stopped asking
        await c.shutdown()
    }

    /// A request that waits less than the controller's timeout (recovery's queries wait at most 15 s of a 90 s
    /// timeout) says how long it waited, not the controller's figure.
    @Test func aShorterWaitIsTheOneTheNoteNames() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let journal = try Journal(path: dir.path + "/journal.sqlite")
        let c = TillController(transport: PipeTransport(command: "cat > /dev/null"), journal: journal, caller: testCaller, timeoutMs: 90_000)
        try await c.start()
        let r = await c.perform(.transactionDetails(DetailsRequest(clientTransactionId: "q-1")), hooks: false, timeoutMs: 1_500)
        #expect(r.journalEntry?.note?.contains("No answer within 1.5 s") == true, "\(r)")
        await c.shutdown()
    }

    @Test func batchMembershipFollowsTheTerminal() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let c = try await simulatorController(dir)
        let open = await c.perform(.batch(BatchRequest(command: .open, batchName: "evening")))
        #expect(open.journalEntry?.state == .approved)
        let b = await c.batch()
        #expect(b.isOpen && b.name == "evening" && b.id != nil)
        _ = await c.perform(sale(1000, tip: 50))
        _ = await c.perform(sale(666))
        let t = try await c.running()
        #expect(t.sales == Tally(count: 1, cents: 1000) && t.tips.cents == 50 && t.declined.count + t.aborted.count == 1)
        #expect(await c.entries(JournalFilter(scope: .currentBatch)).count == 3)
        _ = await c.perform(.batch(BatchRequest(command: .close)))
        #expect(await c.batch().isOpen == false)
        await c.shutdown()
    }
}

extension ControllerTests {
    /// Found by a peer keeping its own ledger: the abort's answer (`ABORTED … amount=0`) settled the sale and listed it
    /// at 0.00; an abort's answer says nothing of the payment's amounts.
    @Test func anAbortsAnswerKeepsTheSalesAmount() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let journal = try Journal(path: dir.path + "/journal.sqlite")
        let e = try journal.insertPending(requestId: "s", request: TerminalRequest(caller: testCaller, request: sale(1000, ctid: "c1", tip: 100)),
                                          batch: BatchInfo())
        let abort = try CallbackResponse.decode("interapp-callback://result?status=fail&message=(-57)%20ABORTED&action=ABORT&amount=0&tipAmount=0")
        #expect(try journal.recordAnswer(e.id, response: abort, state: .aborted, note: "Aborted by the till."))
        let after = try #require(try journal.entry(id: e.id))
        #expect(after.state == .aborted && after.amount == Money(cents: 1000) && after.tipAmount == Money(cents: 100), "\(after)")
    }
}
