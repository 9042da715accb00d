import Foundation
import Testing
@testable import TillCore
import TillIO
import TillProtocol
import TillSimulator

/// A terminal that misbehaves, as an independent peer on a file-drop folder would: answers without the payment's
/// reference, answers for other payments, repeats, look-ups that say too little. The peer files its answers under
/// names of its own (as a pipe bridge gives none), so nothing but the answer's text ties it to a request.
/// Each test failed on the code before the rule it checks.
@Suite(.serialized) struct MisbehavingTerminalTests {
    static let ok = "interapp-callback://result?status=success&message=Transaction%20successful."

    /// `fileDropSent` with a sale of `cents`.
    static func saleSent(_ dir: TempDir, _ cents: Int, ctid: String? = nil, graceMs: Int64? = nil) async throws
        -> (TillController, ScriptedPeer, Task<ActionOutcome, Never>, (id: String, url: String))? {
        try await fileDropSent(dir, sale(cents, ctid: ctid), graceMs: graceMs)
    }

    static func ctid(_ url: String) throws -> String {
        try TerminalRequest.parse(url).request.clientTransactionId ?? ""
    }

    /// A stray `fail` without a reference came before the real approval: the cashier was shown DECLINED for a charged
    /// card, and the approval went to review. Now the flight waits on for the answer that names the payment.
    @Test func aFailureWithoutReferenceNeverHidesTheApprovalThatFollows() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        // The approval must come within the wait after the stray; a minute, not 3 s, on a loaded machine.
        guard let (c, peer, task, r) = try await Self.saleSent(dir, 1000, graceMs: 60_000) else { return }
        try peer.drop("interapp-callback://result?status=fail&message=(-12)%20TRANSACTION_DECLINED_BY_SERVER&action=sale&amount=1000", as: "stray-1")
        #expect(await peer.taken("stray-1"), "the stray was never handled")   // it came first, as in the defect
        let approval = peer.answers(to: r.url)[0]
        #expect(approval.contains(try Self.ctid(r.url)))
        try peer.drop(approval, as: "real-1")
        let shown = await task.value
        #expect(shown.journalEntry?.state == .approved, "the cashier was not told the card was charged")
        #expect(try await c.running().sales == Tally(count: 1, cents: 1000))
        #expect(await c.unresolved().isEmpty)
        await c.shutdown()
    }

    /// The same stray with no answer of the payment's own after it: OUTCOME UNKNOWN (never DECLINED), and the approval
    /// that comes later still settles it.
    @Test func aFailureWithoutReferenceAloneLeavesTheOutcomeUnknown() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        guard let (c, peer, task, r) = try await Self.saleSent(dir, 1000) else { return }
        try peer.drop("interapp-callback://result?status=fail&message=(-12)%20TRANSACTION_DECLINED_BY_SERVER&action=sale&amount=1000", as: "stray-1")
        // The flight waits its whole time for the payment's own answer: the timeout is made to come.
        #expect(await peer.taken("stray-1"))
        await c.timedOut(r.id)
        let shown = await task.value
        #expect(shown.journalEntry?.state == .unknown)
        #expect(shown.journalEntry?.note?.contains("without naming this payment") == true)
        // The note is the cashier's (Unresolved shows it): no result code or its programmer's name.
        let note = shown.journalEntry?.note ?? ""
        #expect(!note.contains("(-12)") && !note.contains("TRANSACTION_DECLINED"), "\(note)")
        try peer.drop(peer.answers(to: r.url)[0], as: "real-1")
        #expect(await eventuallyAsync { await c.entry(id: shown.journalEntry?.id ?? -1)?.state == .approved })
        #expect(try await c.running().sales == Tally(count: 1, cents: 1000))
        await c.shutdown()
    }

    /// Thousands of stray approvals for the same amount, without a reference, each with another transaction: the sale
    /// was journaled with a stray's STAN and transaction id. The exact answer now replaces what an unnamed one said.
    @Test func theExactAnswerReplacesWhatAnUnnamedApprovalSaid() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        guard let (c, peer, task, r) = try await Self.saleSent(dir, 2000) else { return }
        try peer.drop(Self.ok + "&action=sale&amount=2000&tipAmount=0&referenceNumber=999999&transactionId=stray-tx", as: "stray-2")
        // The stray never settles the sale: at its timeout (made to come) the sale is left for review with it.
        #expect(await peer.taken("stray-2"))
        await c.timedOut(r.id)
        let shown = await task.value
        #expect(shown.journalEntry?.state == .review, "\(shown)")
        #expect(try await c.running().sales.count == 0)
        let id = shown.journalEntry?.id ?? -1
        let real = peer.answers(to: r.url)[0]
        try peer.drop(real, as: "real-2")
        let realTx = try CallbackResponse.decode(real).transactionId
        #expect(await eventuallyAsync { (try? c.journal.entry(id: id))??.response?.transactionId == realTx })
        #expect(try c.journal.entry(id: id)?.state == .approved)
        #expect(try await c.running().sales == Tally(count: 1, cents: 2000))
        // The stray approval is kept on its own for a person, not lost with the replacement.
        #expect(await c.unresolved().contains { $0.response?.transactionId == "stray-tx" && $0.state == .review })
        await c.shutdown()
    }

    /// An abort's answer naming another payment marked the sale in flight aborted, and its approval went to review.
    @Test func anAbortAnswerNamingAnotherPaymentDoesNotEndTheFlight() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        guard let (c, peer, task, r) = try await Self.saleSent(dir, 3000) else { return }
        let abort = Task { await c.abort() }
        guard let ab = await peer.nextRequest() else { Issue.record("no abort request"); await c.shutdown(); return }
        #expect(ab.url.contains("action=abort"))
        try peer.drop("interapp-callback://result?status=fail&message=(-57)%20ABORTED&action=ABORT&amount=3000&tipAmount=0"
                      + "&clientTransactionId=someone-elses-payment", as: "stray-abort")
        #expect(await peer.taken("stray-abort"), "the stray abort answer was never handled")
        #expect(await c.inFlight() != nil, "the flight was ended by an abort of another payment")
        try peer.drop(peer.answers(to: r.url)[0], as: "real-3")
        let outcome = await task.value
        _ = await abort.value
        #expect(outcome.journalEntry?.state == .approved)
        #expect(try await c.running().sales == Tally(count: 1, cents: 3000))
        await c.shutdown()
    }

    /// A repeated answer of an earlier refund made the refund in flight a duplicate and its own approval a review:
    /// 5.00 refunded in the report where the terminal refunded 15.00. A repeat is the earlier transaction's.
    @Test func aRepeatOfAnEarlierRefundIsThatRefundsNotTheOneInFlight() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let (c, _) = try await fileDropController(dir)
        let peer = ScriptedPeer(dir.path + "/drop")
        func refund(_ cents: Int, stan: String) -> Request {
            .cancel(CancelRequest(amount: Money(cents: cents), finder: TransactionFinder(referenceNumber: stan)))
        }
        let first = Task { await c.perform(refund(500, stan: "000001")) }
        guard let r1 = await peer.nextRequest() else { Issue.record("no request"); await c.shutdown(); return }
        let answer1 = Self.ok + "&action=cancel&amount=500&referenceNumber=000101&orderCode=1111111111&transactionId=refund-tx-1"
        try peer.drop(answer1, as: r1.id)
        #expect(await first.value.journalEntry?.state == .approved)

        let second = Task { await c.perform(refund(1000, stan: "000002")) }
        guard await peer.nextRequest() != nil else { Issue.record("no second request"); await c.shutdown(); return }
        // The first refund's answer again (its fields in another order), then the second's own.
        try peer.drop(Self.ok + "&transactionId=refund-tx-1&amount=500&action=cancel&orderCode=1111111111&referenceNumber=000101", as: "repeat")
        #expect(await peer.taken("repeat"), "the repeat was never handled")   // it came first
        try peer.drop(Self.ok + "&action=cancel&amount=1000&referenceNumber=000102&orderCode=2222222222&transactionId=refund-tx-2", as: "real")
        let outcome = await second.value
        #expect(outcome.journalEntry?.state == .approved)
        #expect(try await c.running().refunds == Tally(count: 2, cents: 1500))
        #expect(await c.unresolved().isEmpty)
        await c.shutdown()
    }

    /// An approval whose amount cannot be read was counted at the amount asked, exit 0.
    @Test(arguments: ["1000.00", "", "ten"])
    func anApprovalWhoseAmountCannotBeReadNeedsReview(_ amount: String) async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        guard let (c, peer, task, r) = try await Self.saleSent(dir, 1000) else { return }
        try peer.drop(replacing(peer.answers(to: r.url)[0], "amount", with: amount), as: r.id)
        let outcome = await task.value
        #expect(outcome.journalEntry?.state == .review)
        #expect(outcome.exitCode == 3)
        #expect(try await c.running().sales.count == 0)
        await c.shutdown()
    }

    /// A sale left `sent` by a till that stopped, asked about at the next start.
    static func recoveryOf(answer: @escaping (String, String) -> String) async throws -> (JournalEntry?, TillController, TempDir, Duration) {
        let dir = TempDir()
        let journal = try Journal(path: dir.path + "/journal.sqlite")
        let req = TerminalRequest(caller: testCaller, request: TillController.withClientTransactionId(sale(4200)))
        let e = try journal.insertPending(requestId: UUID().uuidString.lowercased(), request: req, batch: BatchInfo())
        try journal.markSent(e.id)
        journal.close()
        let (c, _) = try await fileDropController(dir)
        let peer = ScriptedPeer(dir.path + "/drop")
        let clock = ContinuousClock()
        let start = clock.now
        let recovery = Task { await c.recover() }
        if let q = await peer.nextRequest() {
            try peer.drop(answer(q.url, req.request.clientTransactionId ?? ""), as: "lookup-answer")
        }
        _ = await recovery.value
        return (try c.journal.entry(id: e.id), c, dir, clock.now - start)
    }

    /// `status=success` on a look-up says the look-up worked, not the payment: a declined sale whose answer was lost
    /// was settled approved by recovery.
    @Test func aLookUpWithoutTransactionStatusLeavesThePaymentUnknown() async throws {
        let (e, c, dir, _) = try await Self.recoveryOf { _, ctid in
            "interapp-callback://result?status=success&message=Transaction%20Details%20Fetched&action=transactionDetails"
                + "&clientTransactionId=\(ctid)&amount=4200&referenceNumber=000123&transactionId=tx-lookup"
        }
        defer { dir.cleanup() }
        #expect(e?.state == .unknown)
        #expect(try await c.running().sales.count == 0)
        await c.shutdown()
    }

    @Test func aLookUpWithTransactionStatusFailSettlesTheSaleDeclined() async throws {
        let (e, c, dir, _) = try await Self.recoveryOf { _, ctid in
            "interapp-callback://result?status=success&message=Transaction%20Details%20Fetched&action=transactionDetails"
                + "&clientTransactionId=\(ctid)&amount=4200&transactionStatus=fail"
        }
        defer { dir.cleanup() }
        #expect(e?.state == .declined)
        await c.shutdown()
    }

    /// A look-up answer without a reference (`(-99) NOT_FOUND`) never matched, so recovery waited out its 15 s.
    @Test func aLookUpAnswerWithoutReferenceEndsTheLookUp() async throws {
        let (e, c, dir, took) = try await Self.recoveryOf { _, _ in
            "interapp-callback://result?status=fail&message=(-99)%20NOT_FOUND&action=transactionDetails"
        }
        defer { dir.cleanup() }
        #expect(e?.state == .unknown)
        #expect(e?.note?.contains("no record") == true)
        #expect(took < .seconds(10), "recovery waited \(took) for a look-up that was answered")
        await c.shutdown()
    }

    /// An answer to a close that says "Batch opened" settled the close as an open.
    @Test func aBatchAnswerForAnotherCommandDoesNotSettleIt() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let (c, _) = try await fileDropController(dir)
        let peer = ScriptedPeer(dir.path + "/drop")
        guard try await peer.opensBatch("Morning", on: c) else { await c.shutdown(); return }

        let close = Task { await c.perform(.batch(BatchRequest(command: .close))) }
        guard await peer.nextRequest() != nil else { Issue.record("no close request"); await c.shutdown(); return }
        try peer.drop(Self.ok.replacingOccurrences(of: "Transaction%20successful.", with: "Batch%20opened")
                      + "&action=batch&command=open&batchName=Evening&batchId=11111111-2222-3333-4444-555555555555", as: "wrong-command")
        #expect(await peer.taken("wrong-command"), "the open's answer was never handled")
        #expect(await c.inFlight() != nil, "a batch open's answer settled the close")
        try peer.drop(Self.ok.replacingOccurrences(of: "Transaction%20successful.", with: "Batch%20closed")
                      + "&action=batch&command=close&batchName=Morning", as: "right-command")
        #expect(await close.value.journalEntry?.state == .approved)
        #expect(await c.batch().isOpen == false)
        await c.shutdown()
    }
}

/// Two tills on one journal and one drop folder (the screen idle, a headless command selling): the idle one took the
/// other's answer (file named after the other's request), so the seller waited out its time and said OUTCOME UNKNOWN.
@Suite(.serialized) struct SharedDropFolderTests {
    @Test func anIdleTillLeavesTheAnswerTheOtherTillWaitsFor() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let (idle, _) = try await fileDropController(dir)
        let sellerTransport = FileDropTransport(directory: dir.path + "/drop")
        let seller = TillController(transport: sellerTransport, journal: try Journal(path: dir.path + "/journal.sqlite"),
                                    caller: testCaller, timeoutMs: 60_000)
        try await seller.start()
        let peer = ScriptedPeer(dir.path + "/drop")
        let task = Task { await seller.perform(sale(1800)) }
        guard let r = await peer.nextRequest() else { Issue.record("no request"); return }
        let answer = peer.answers(to: r.url)[0]
        // The idle till meets the answer first.
        await idle.handleAnswer(IncomingAnswer(text: answer, receipt: r.id + ".url", requestIdHint: r.id))
        let entry = try #require(try idle.journal.entry(requestId: r.id))
        #expect(entry.state.awaitsTerminal, "the idle till settled the other till's payment (\(entry.state.rawValue))")
        try peer.drop(answer, as: r.id)
        let outcome = await task.value
        #expect(outcome.journalEntry?.state == .approved)
        #expect(outcome.journalEntry?.note == nil, "\(outcome.journalEntry?.note ?? "")")
        await seller.shutdown()
        await idle.shutdown()
    }
}

/// A second till marked resolved a payment the first was still waiting on ("marked resolved", then the first showed
/// APPROVED): an entry another live till owns cannot be settled from here.
@Suite(.serialized) struct InProgressElsewhereTests {
    @Test func aPaymentAnotherTillWaitsOnCannotBeSettledHere() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let (seller, _) = try await fileDropController(dir)
        let other = TillController(transport: FileDropTransport(directory: dir.path + "/drop-other"),
                                   journal: try Journal(path: dir.path + "/journal.sqlite"), caller: testCaller)
        try await other.start()
        let peer = ScriptedPeer(dir.path + "/drop")
        let task = Task { await seller.perform(sale(2100)) }
        guard let r = await peer.nextRequest() else { Issue.record("no request"); return }
        let entry = try #require(try seller.journal.entry(requestId: r.id))
        #expect(await other.anotherTillIsSending())
        await #expect(throws: ResolveError.self) { try await other.resolve(entryId: entry.id, charged: false, note: "not on the terminal") }
        await #expect(throws: ResolveError.self) { try await other.resolve(entryId: entry.id, note: "not on the terminal") }
        try peer.drop(peer.answers(to: r.url)[0], as: r.id)
        #expect(await task.value.journalEntry?.state == .approved)
        #expect(await other.anotherTillIsSending() == false)
        await seller.shutdown()
        await other.shutdown()
    }
}

/// A busy terminal was shown DECLINED and counted as a decline: a cashier reading DECLINED asks for another card.
@Suite(.serialized) struct TerminalBusyTests {
    @Test func aBusyTerminalIsNotChargedAndNoDecline() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        guard let (c, peer, task, r) = try await MisbehavingTerminalTests.saleSent(dir, 900) else { return }
        let ctid = try MisbehavingTerminalTests.ctid(r.url)
        try peer.drop("interapp-callback://result?status=fail&message=(-20)%20TRANSACTION_IN_PROGRESS&action=sale&amount=900"
                      + "&clientTransactionId=\(ctid)", as: r.id)
        let outcome = await task.value
        #expect(outcome.journalEntry?.state == .resolved)
        #expect(outcome.journalEntry?.note?.contains("busy") == true)
        #expect(outcome.exitCode == 3)
        let report = try c.journal.report(for: try c.journal.reportBatch(.current))
        #expect(report.declined.count == 0 && report.notCharged == Tally(count: 1, cents: 900))
        #expect(report.text(ReportFormat()).contains("Not charged, no decline"))
        await c.shutdown()
    }
}

extension TillController {
    /// Sets how long a flight waits on after an answer that does not name it (see `unnamedAnswerGraceMs`).
    func setUnnamedAnswerGrace(_ ms: Int64) { unnamedAnswerGraceMs = ms }
}
