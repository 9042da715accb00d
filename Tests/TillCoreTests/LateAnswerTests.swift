import Foundation
import Testing
@testable import TillCore
import TillIO
import TillProtocol

/// issue 33: an answer that names a payment settles it whenever it arrives; an abort is not proof; every approval is in
/// a batch that is listed and reported, whatever the clock did. Each test failed on the code before its fix.
@Suite(.serialized) struct LateAnswerTests {
    /// A peer's Python line that answers the sale in `q` declined, naming it.
    static let decline = """
        sys.stdout.write("interapp-callback://result?status=fail&message=(-12)%20TRANSACTION_DECLINED_BY_SERVER&action=sale&amount="
            + q["amount"] + "&tipAmount=0&clientTransactionId=" + q["clientTransactionId"] + "\\n")
    """
    /// The approval of the sale in `q` (its reference, STAN 000001), as a Python expression.
    static let approval = """
    ("interapp-callback://result?status=success&message=Transaction%20successful.&action=sale&amount=" + q["amount"]
            + "&tipAmount=0&clientTransactionId=" + q["clientTransactionId"] + "&referenceNumber=000001&orderCode=9000000000000001"
            + "&transactionId=00000000-0000-4000-8000-000000000001\\n")
    """

    /// The sale's own decline, then its own approval 1.5 s later (a terminal that corrects itself): the command said
    /// DECLINED, exited 1, and the approval was lost (the bridge was stopped a second after the decline). It is read,
    /// settles the sale as charged, counted, and the command says CHECK THE TERMINAL.
    @Test func anApprovalOneAndAHalfSecondsAfterTheDeclineSettlesTheSale() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let peer = try PeerAnswerTests.pipePeer(dir, "decline_then_late_approval", """
        if q.get("action") == "sale":
        \(Self.decline)
            sys.stdout.flush()
            time.sleep(1.5)
            sys.stdout.write\(Self.approval)
            sys.stdout.flush()
        """)
        let journal = dir.path + "/journal.sqlite"
        let r = try await runTillCapturing(["sale", "--amount", "5", "--journal", journal, "--timeout", "20", "--transport", peer])
        let j = try Journal(path: journal)
        let e = try #require(try j.entry(id: 1))
        #expect(e.state == .approved, "\(e.state.rawValue): \(r.output) \(r.errors)")
        #expect(r.status == 3 && r.output.hasPrefix("CHECK THE TERMINAL"), "exit \(r.status): \(r.output)")
        #expect(try j.running(batchId: e.batchId).sales == Tally(count: 1, cents: 500))
        #expect(try j.unresolved().isEmpty)
    }

    /// A bridge that delivers at its next start what it could not deliver before (common): the sale's approval, after
    /// its decline, came at the next command and was journaled apart "for review", the sale left declined; `resolve`
    /// then refused the sale because it was "declined". The approval settles the sale, loudly, and is counted.
    @Test func anApprovalDeliveredAtTheNextStartSettlesTheDeclinedSale() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let pending = dir.path + "/undelivered.txt"
        let script = dir.path + "/redelivering.py"
        try """
        import os, sys, time, urllib.parse
        if os.path.exists("\(pending)"):
            sys.stdout.write(open("\(pending)").read())
            sys.stdout.flush()
            os.remove("\(pending)")
        for line in sys.stdin:
            q = dict(urllib.parse.parse_qsl(line.strip().split("?", 1)[1], keep_blank_values=True))
            if q.get("action") == "sale":
            \(Self.decline)
                sys.stdout.flush()
                open("\(pending)", "w").write\(Self.approval)
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let peer = "pipe:python3 '\(script)'"
        let journal = dir.path + "/journal.sqlite"
        let sale = try await runTillCapturing(["sale", "--amount", "5", "--journal", journal, "--timeout", "20", "--transport", peer])
        #expect(sale.status == 1 && sale.output.contains("Not charged so far"), "exit \(sale.status): \(sale.output)")
        let j = try Journal(path: journal)
        #expect(try j.entry(id: 1)?.state == .declined)

        let next = try await runTillCapturing(["recover", "--journal", journal, "--transport", peer])
        let e = try #require(try j.entry(id: 1))
        #expect(e.state == .approved, "\(e.state.rawValue): \(next.output) \(next.errors)")
        #expect(next.errors.contains("CHECK THE TERMINAL"), "\(next.errors)")
        #expect(try j.running(batchId: e.batchId).sales == Tally(count: 1, cents: 500))
        // One row for the sale, nothing left for review beside it.
        #expect(try j.entries(JournalFilter(scope: .all)).count == 1)
    }

    /// A person who learns from the terminal that a declined (or aborted) payment was charged after all settles it:
    /// `resolve` refused ("declined: nothing to resolve").
    @Test func aPersonSettlesADeclinedSaleTheTerminalShowsCharged() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let peer = try PeerAnswerTests.pipePeer(dir, "declines", """
        if q.get("action") == "sale":
        \(Self.decline)
            sys.stdout.flush()
        """)
        let journal = dir.path + "/journal.sqlite"
        #expect(try await runTillCapturing(["sale", "--amount", "5", "--journal", journal, "--timeout", "20", "--transport", peer]).status == 1)
        let r = try await runTillCapturing(["resolve", "1", "--charged", "--note", "the terminal's list shows it paid", "--journal", journal])
        #expect(r.status == 0, "exit \(r.status): \(r.errors)")
        let j = try Journal(path: journal)
        let e = try #require(try j.entry(id: 1))
        #expect(e.state == .approved)
        #expect(try j.batches().contains { $0.id == e.batchId })
        #expect(try j.running(batchId: e.batchId).sales == Tally(count: 1, cents: 500))
    }
}

extension LateAnswerTests {
    /// `till recover` found the sale charged (the terminal's record) and said only "Nothing left unresolved.".
    @Test func recoverSaysWhatItFound() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let peer = try PeerAnswerTests.silentFirst(dir, "charged_on_record", PeerAnswerTests.lookUpFindsCharged(cents: 500))
        let journal = dir.path + "/journal.sqlite"
        #expect(try await runTillCapturing(["sale", "--amount", "5", "--journal", journal, "--timeout", "1", "--transport", peer]).status == 3)
        let r = try await runTillCapturing(["recover", "--journal", journal, "--timeout", "20", "--transport", peer])
        #expect(try Journal(path: journal).entry(id: 1)?.state == .approved)
        #expect(r.output.contains("Recovered: sale 5.00 (entry 1) WAS CHARGED"), "\(r.output)")
    }

    /// A pipe peer that reads the card on a sale (no answer yet), answers an abort ABORTED, and sends the sale's
    /// approval `approvalAfter` seconds later; a look-up is answered with `details` (Python: the query `q`, `approved`:
    /// whether the approval was sent).
    static func abortTooLatePeer(_ dir: TempDir, approvalAfter: Double, details: String) throws -> String {
        try PeerAnswerTests.pipePeer(dir, "abort_too_late", """
        import threading
        if q.get("action") == "sale":
            sale = q
            continue
        if q.get("action") == "abort":
            sys.stdout.write("interapp-callback://result?status=fail&message=(-57)%20ABORTED&action=ABORT&clientTransactionId="
                + sale["clientTransactionId"] + "\\n")
            sys.stdout.flush()
            def approve(q=sale):
                time.sleep(\(approvalAfter))
                sys.stdout.write\(Self.approval)
                sys.stdout.flush()
                open("\(dir.path)/approved", "w").close()
            threading.Thread(target=approve).start()
            continue
        if q.get("action") == "transactionDetails":
            approved = os.path.exists("\(dir.path)/approved")
        \(details)
            sys.stdout.flush()
        """.replacingOccurrences(of: "import threading", with: "import threading, os"))
    }

    /// Ctrl-C on a sale, the terminal answers ABORTED, and the sale's approval follows (the card was already read):
    /// the command said ABORTED, `recover` said nothing was left, the card was charged. Now till asks the terminal's
    /// record first; "in progress" leaves it unknown (never "not charged"), and the approval, when it comes, settles it.
    @Test func anAbortAnsweredAbortedIsCheckedWithALookUp() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let peer = try Self.abortTooLatePeer(dir, approvalAfter: 2, details: """
            sys.stdout.write("interapp-callback://result?status=fail&message=(-61)%20TRANSACTION_IN_PROGRESS&action=transactionDetails"
                    + "&clientTransactionId=" + q["clientTransactionId"] + "\\n")
        """)
        let (c, log) = try await startController(dir, PipeTransport(command: String(peer.dropFirst("pipe:".count))), timeoutMs: 60_000)
        let selling = Task { await c.perform(sale(500, ctid: "read-before-abort")) }
        #expect(await eventuallyAsync { await c.inFlight()?.entry.state == .sent })
        _ = await c.abort()
        let outcome = await selling.value
        let e = try #require(outcome.journalEntry)
        #expect(e.state == .unknown, "\(e.state.rawValue): \(e.note ?? "")")
        #expect(log.all.contains { if case .inFlight(let f) = $0 { return f.askingAfterAbort }; return false })
        // The approval, two seconds after the abort's answer, settles it.
        #expect(await eventuallyAsync { (try? c.journal.entry(id: e.id))??.state == .approved })
        await c.shutdown()
    }

    /// The same, with a terminal whose record already says the payment went through: charged, at once.
    @Test func anAbortAnsweredAbortedIsChargedWhenTheRecordSaysSo() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let peer = try Self.abortTooLatePeer(dir, approvalAfter: 30, details: """
            sys.stdout.write("interapp-callback://result?status=success&action=transactionDetails&message=Transaction%20Details%20Fetched"
                    + "&transactionStatus=success&amount=500&tipAmount=0&referenceNumber=000001&orderCode=9000000000000001"
                    + "&transactionId=00000000-0000-4000-8000-000000000001&clientTransactionId=" + q["clientTransactionId"] + "\\n")
        """)
        let (c, _) = try await startController(dir, PipeTransport(command: String(peer.dropFirst("pipe:".count))), timeoutMs: 60_000)
        let selling = Task { await c.perform(sale(500, ctid: "charged-before-abort")) }
        #expect(await eventuallyAsync { await c.inFlight()?.entry.state == .sent })
        _ = await c.abort()
        let e = try #require(await selling.value.journalEntry)
        #expect(e.state == .approved, "\(e.state.rawValue): \(e.note ?? "")")
        #expect(try c.journal.running(batchId: e.batchId).sales == Tally(count: 1, cents: 500))
        await c.shutdown()
    }
}

/// issue 33 items 5 and 9: every approval a person confirms, and every sale, is in a batch `batches` lists and a
/// report counts.
@Suite struct EveryApprovalInAListedBatchTests {
    let t0: Int64 = 1_800_000_000_000
    let h: Int64 = 3_600_000

    /// An approval that matched nothing, arriving while no batch was open (between shifts), was journaled with no
    /// batch; marked charged, it was an approved sale in no report.
    @Test func anUnmatchedApprovalMarkedChargedLandsInAListedBatch() throws {
        let dir = TempDir("till-batch"); defer { dir.cleanup() }
        let journal = try Journal(path: dir.path + "/journal.sqlite")
        #expect(try !journal.batch(nowMs: t0).isOpen)
        let r = try CallbackResponse.decode("cb://result?status=success&message=ok&action=sale&amount=700&tipAmount=0"
                                            + "&referenceNumber=000009&orderCode=9000000000000009")
        let (row, _) = try journal.insertUnmatched(response: r, text: "stray", note: "matches nothing", batch: try journal.batch(nowMs: t0),
                                                   nowMs: t0)
        // Meanwhile the next shift's report says that an approval waits for a batch.
        _ = try journal.batch(for: .sale, nowMs: t0 + 1)
        let shift = try #require(try journal.batches(nowMs: t0 + 1).last)
        #expect(try journal.report(for: shift, nowMs: t0 + 1).waitingForABatch == Tally(count: 1, cents: 700))
        #expect(try journal.report(for: shift, nowMs: t0 + 1).lines(ReportFormat()).contains { $0.contains("Waiting for a batch") })

        try journal.resolve(row.id, charged: true, note: "seen on the terminal", nowMs: t0 + 2)
        let e = try #require(try journal.entry(id: row.id))
        #expect(e.state == .approved)
        let listed = try journal.batches(nowMs: t0 + 3)
        let b = try #require(listed.first { $0.id == e.batchId }, "batch \(e.batchId ?? "none") not in \(listed)")
        let report = try journal.report(for: b, nowMs: t0 + 3)
        #expect(report.sales == Tally(count: 1, cents: 700) && report.waitingForABatch == Tally())
    }

    /// The clock moved 49 h ahead for one sale, then back: till inferred the terminal's 48-hour auto-close and filed
    /// the sale under the batch the terminal would have started; with the clock back, `batches` no longer listed that
    /// batch and no report counted the sale.
    @Test func aSaleTakenWhileTheClockRanAheadStaysListedWhenItComesBack() throws {
        let dir = TempDir("till-batch"); defer { dir.cleanup() }
        let journal = try Journal(path: dir.path + "/journal.sqlite")
        try TerminalStartedBatchTests().batchAnswer(journal, .open, "friday", "11111111-1111-1111-1111-111111111111", at: t0)
        let ahead = t0 + 49 * h
        let req = TerminalRequest(caller: testCaller, request: sale(1200, ctid: "clock-ahead"))
        let e = try journal.insertPending(requestId: UUID().uuidString, request: req, batch: try journal.batch(for: .sale, nowMs: ahead), nowMs: ahead)
        let answer = try CallbackResponse.decode("cb://result?status=success&message=ok&action=sale&amount=1200&tipAmount=0"
                                                 + "&clientTransactionId=clock-ahead&referenceNumber=000001&orderCode=9000000000000001")
        try journal.recordAnswer(e.id, response: answer, state: .approved, note: nil, nowMs: ahead)
        let saleBatch = try #require(try journal.entry(id: e.id)?.batchId)
        for now in [t0 + 1 * h, ahead, t0 + 200 * h] {
            let listed = try journal.batches(nowMs: now)
            let b = try #require(listed.first { $0.id == saleBatch }, "at +\((now - t0) / h) h: \(saleBatch) not in \(listed.map { $0.id ?? "-" })")
            #expect(try journal.report(for: b, nowMs: now).sales == Tally(count: 1, cents: 1200))
            #expect(Set(listed.compactMap(\.id)).count == listed.count, "a batch listed twice: \(listed)")
        }
    }
}
