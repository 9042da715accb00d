import Foundation
import Testing
@testable import TillCore
import TillProtocol

/// Found by an outside peer keeping its own ledger (2026-11-26): each test is one of its reproductions, the peer's
/// ledger being what the terminal did.
@Suite(.serialized) struct PeerAttackTests {
    /// The terminal charged, and its answer's status was neither success nor fail: `succ` (a line cut short in a file
    /// the peer was still writing), `approved`, a quoted "success". It was journaled a settled decline (exit 1), and a
    /// cashier reading DECLINED charges again. Now it needs a person: review, exit 3.
    @Test(arguments: ["succ", "approved", "%22success%22"])
    func aStatusThatIsNeitherSuccessNorFailNeedsAPerson(status: String) async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let peer = try PeerAnswerTests.pipePeer(dir, "odd_status", """
        sys.stdout.write("interapp-callback://result?status=\(status)&message=Transaction%20successful.&action=sale&amount="
            + q["amount"] + "&tipAmount=0&clientTransactionId=" + q["clientTransactionId"]
            + "&referenceNumber=000001&orderCode=9000000000000001&authorisationCode=123456\\n")
        sys.stdout.flush()
        """)
        let journal = dir.path + "/journal.sqlite"
        let r = try await runTillCapturing(["sale", "--amount", "5", "--journal", journal, "--timeout", "20", "--transport", peer])
        let e = try #require(try Journal(path: journal).entry(id: 1))
        #expect(e.state == .review, "\(e.state.rawValue): \(r.output)")
        #expect(e.note?.contains("neither success nor fail") == true, "\(e.note ?? "")")
        #expect(r.status == 3, "exit \(r.status): \(r.output)")
    }

    /// `till resolve` from another shell marked an entry another till was still waiting on (state sent, its sender
    /// lock held) "not charged": the waiting till then said unknown while the journal kept "resolved", and the charge
    /// the terminal made was in no report. It is that till's to settle.
    @Test func resolveLeavesAnEntryAnotherTillIsWaitingOn() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        // Reads the request and answers nothing: the sale waits for its time.
        let peer = try PeerAnswerTests.pipePeer(dir, "silent", "time.sleep(30)")
        let journal = dir.path + "/journal.sqlite"
        let sale = Task { try await runTillCapturing(["sale", "--amount", "5", "--journal", journal, "--timeout", "8", "--transport", peer]) }
        // Read-only, opened when the sale has made the journal: never a writer beside the till that sends.
        #expect(await eventuallyAsync { (try? Journal(path: journal, readOnly: true).entry(id: 1))??.state == .sent })
        let j = try Journal(path: journal, readOnly: true)
        let refused = try await runTillCapturing(["resolve", "1", "--not-charged", "--journal", journal])
        #expect(refused.status == 1 && refused.errors.contains("in progress on another till"), "exit \(refused.status): \(refused.errors)")
        #expect(try j.entry(id: 1)?.state == .sent)
        // `till recover` from another shell meanwhile listed it among the outcomes to check and resolve.
        let listed = try await runTillCapturing(["recover", "--journal", journal, "--transport", peer])
        #expect(listed.status == 0 && !listed.output.contains("unknown or to review") && listed.output.contains("in progress on another till"),
                "exit \(listed.status): \(listed.output)")
        #expect(try j.entry(id: 1)?.state == .sent)
        let waited = try await sale.value
        #expect(try j.entry(id: 1)?.state == .unknown, "exit \(waited.status)")
        // Once nobody waits on it, a person may settle it.
        let settled = try await runTillCapturing(["resolve", "1", "--not-charged", "--journal", journal])
        #expect(settled.status == 0, "\(settled.errors)")
        #expect(try j.entry(id: 1)?.state == .resolved)
    }
}

extension PeerAttackTests {
    /// A full refund (no amount asked) the terminal made for 20.00 but answered `amount=0` was counted approved at
    /// 0.00, and one answered with no amount, once marked charged, was counted at 0.00 too: the net was 20.00 too
    /// high. An answer of 0.00 for the full amount needs a person, and a person marks it charged with the amount the
    /// terminal shows.
    @Test func aFullRefundAnsweredZeroIsForAPersonWhoGivesTheAmount() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let peer = try PeerAnswerTests.pipePeer(dir, "zero_refund", PeerAnswerTests.refundApproval(amount: "0", stan: 2))
        let journal = dir.path + "/journal.sqlite"
        let r = try await runTillCapturing(["refund", "--reference", "000001", "--journal", journal, "--timeout", "20", "--transport", peer])
        let j = try Journal(path: journal)
        let e = try #require(try j.entry(id: 1))
        #expect(e.state == .review && e.note?.contains("0.00 for the full amount") == true, "\(e.state.rawValue) \(e.note ?? ""): \(r.output)")
        #expect(r.status == 3)

        let bare = try await runTillCapturing(["resolve", "1", "--charged", "--journal", journal])
        #expect(bare.status == 1 && bare.errors.contains("stated no amount"), "\(bare.errors)")
        #expect(try j.entry(id: 1)?.state == .review)
        // Found by an outside tester: `--amount 0` counted an approved refund of 0.00.
        let zero = try await runTillCapturing(["resolve", "1", "--charged", "--amount", "0", "--journal", journal])
        #expect(zero.status == 1 && zero.errors.contains("moves no money"), "\(zero.errors)")
        #expect(try j.entry(id: 1)?.state == .review)
        let given = try await runTillCapturing(["resolve", "1", "--charged", "--amount", "20", "--journal", journal])
        #expect(given.status == 0, "\(given.errors)")
        let e2 = try #require(try j.entry(id: 1))
        #expect(e2.state == .approved && e2.amount == Money(cents: 2000), "\(e2)")
        #expect(try j.running(batchId: e2.batchId ?? "").refunds == Tally(count: 1, cents: 2000))
    }

    /// A peer's Python lines that approve every sale for 10.00, naming it, with STAN 000001 (then read the next line).
    static let approvesSalesOf10 = """
    if q.get("action") == "sale":
        sys.stdout.write("interapp-callback://result?status=success&message=Transaction%20successful.&action=sale&amount=1000"
            + "&tipAmount=0&clientTransactionId=" + q["clientTransactionId"] + "&referenceNumber=000001&orderCode=9000000000000001"
            + "&transactionId=00000000-0000-4000-8000-000000000001\\n")
        sys.stdout.flush()
        continue

    """

    /// Found by a peer keeping its own ledger: that refund (of a 10.00 sale the journal holds) marked charged with
    /// `--amount 11` was accepted, and the report gave back 1.00 more than was ever taken. A person's figure for a
    /// refund is at most what is left to refund on its payment.
    @Test func aRefundMarkedChargedIsAtMostWhatIsLeftOnItsPayment() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let peer = try PeerAnswerTests.pipePeer(dir, "sale_then_zero_refund", PeerAttackTests.approvesSalesOf10 + """
        # Each refund its own transaction (a STAN from the clock), answered 0.00.
        n = time.time_ns() // 1000 % 1000000
        sys.stdout.write("interapp-callback://result?status=success&message=Transaction%20successful.&action=cancel&amount=0"
            + "&referenceNumber=%06d&orderCode=9%015d&transactionId=00000000-0000-4000-8000-%012d\\n" % (n, n, n))
        sys.stdout.flush()
        """)
        let journal = dir.path + "/journal.sqlite"
        #expect(try await runTillCapturing(["sale", "--amount", "10", "--journal", journal, "--timeout", "20", "--transport", peer]).status == 0)
        let r = try await runTillCapturing(["refund", "--reference", "000001", "--journal", journal, "--timeout", "20", "--transport", peer])
        let j = try Journal(path: journal)
        #expect(try j.entry(id: 2)?.state == .review, "\(r.output)")

        let over = try await runTillCapturing(["resolve", "2", "--charged", "--amount", "11", "--journal", journal])
        #expect(over.status == 1 && over.errors.contains("10.00 left to refund"), "exit \(over.status): \(over.errors)")
        #expect(try j.entry(id: 2)?.state == .review)
        let given = try await runTillCapturing(["resolve", "2", "--charged", "--amount", "10", "--journal", journal])
        #expect(given.status == 0, "\(given.errors)")
        #expect(try j.entry(id: 2)?.state == .approved)

        // A second full refund was once sent, answered 0 too, and capped at the 10.00 "left": the first's answer (0.00)
        // was read instead of the 10.00 a person gave it. Nothing is left to refund now, and the journal's figure is the
        // one that counts: the second refund is refused before anything is journaled or sent.
        let second = try await runTillCapturing(["refund", "--reference", "000001", "--journal", journal, "--timeout", "20", "--transport", peer])
        #expect(second.status == 2, "exit \(second.status): \(second.output) \(second.errors)")
        #expect(try j.entry(id: 3) == nil)
        let export = try await runTillCapturing(["export", "--journal", journal])
        let row = export.output.split(whereSeparator: \.isNewline).first { $0.hasPrefix("2,") } ?? ""
        #expect(row.contains(",cancel,approved,10.00,") && row.hasSuffix(",-10.00,refund"), "\(export.output)")
    }

    /// Found by an outside tester: two refunds of 6.00 of a 10.00 sale, both unknown, each marked charged without
    /// `--amount` (counted at the 6.00 asked): 12.00 given back on a 10.00 sale. The cap is on the figure that counts.
    @Test func unknownRefundsMarkedChargedAreCappedAtWhatIsLeft() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let peer = try PeerAnswerTests.pipePeer(dir, "sale_then_silent_refunds", PeerAttackTests.approvesSalesOf10)
        let journal = dir.path + "/journal.sqlite"
        #expect(try await runTillCapturing(["sale", "--amount", "10", "--journal", journal, "--timeout", "20", "--transport", peer]).status == 0)
        let refund = ["refund", "--reference", "000001", "--amount", "6", "--journal", journal, "--timeout", "1", "--transport", peer]
        #expect(try await runTillCapturing(refund).status == 3)
        #expect(try await runTillCapturing(refund + ["--confirm-unknown", "2"]).status == 3)
        let j = try Journal(path: journal)
        #expect(try j.entry(id: 3)?.state == .unknown)
        #expect(try await runTillCapturing(["resolve", "2", "--charged", "--journal", journal]).status == 0)
        let over = try await runTillCapturing(["resolve", "3", "--charged", "--journal", journal])
        #expect(over.status == 1 && over.errors.contains("4.00 left to refund; not 6.00"), "exit \(over.status): \(over.errors)")
        #expect(try j.entry(id: 3)?.state == .unknown)
    }

    /// Found by a peer keeping its own ledger: a 5.00 sale with a 1.00 tip asked, approved by an answer that states no
    /// tip (review, as it should), then `till resolve 1 --charged` counted 5.00 + 1.00, where the terminal had taken
    /// 5.00. A tip the terminal never stated is not counted on a person's mark without the person saying it.
    @Test func aTipTheTerminalDidNotStateIsNotCountedWithoutAPersonSayingIt() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let peer = try PeerAnswerTests.pipePeer(dir, "no_tip", """
        sys.stdout.write("interapp-callback://result?status=success&message=Transaction%20successful.&action=sale&amount=" + q["amount"]
            + "&clientTransactionId=" + q["clientTransactionId"] + "&referenceNumber=000001&orderCode=9000000000000001"
            + "&transactionId=00000000-0000-4000-8000-000000000001\\n")
        sys.stdout.flush()
        """)
        let journal = dir.path + "/journal.sqlite"
        let r = try await runTillCapturing(["sale", "--amount", "5", "--tip", "1", "--journal", journal, "--timeout", "20", "--transport", peer])
        let j = try Journal(path: journal)
        #expect(try j.entry(id: 1)?.state == .review, "\(r.output)")

        let bare = try await runTillCapturing(["resolve", "1", "--charged", "--journal", journal])
        #expect(bare.status == 1 && bare.errors.contains("no tip stated (1.00 asked)") && bare.errors.contains("--tip X"), "\(bare.errors)")
        #expect(try j.entry(id: 1)?.state == .review)
        let given = try await runTillCapturing(["resolve", "1", "--charged", "--tip", "0", "--journal", journal])
        #expect(given.status == 0, "\(given.errors)")
        let e = try #require(try j.entry(id: 1))
        #expect(e.state == .approved && e.amount == Money(cents: 500) && (e.tipAmount ?? Money(cents: 0)) == Money(cents: 0), "\(e)")
        #expect(try j.running(batchId: e.batchId ?? "").sales == Tally(count: 1, cents: 500))
    }

    /// Found by a peer keeping its own ledger: a partial refund of 1.00 answered with no amount went to review (right),
    /// then `till resolve 1 --charged` counted the 1.00 asked, where the terminal had refunded 1.50; and an `--amount`
    /// equal to the one the terminal stated was refused as if it replaced it.
    @Test func anAnswerWithNoAmountIsMarkedChargedOnlyWithThePersonsAmount() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let peer = try PeerAnswerTests.pipePeer(dir, "refund_no_amount", PeerAnswerTests.refundApproval(amount: nil, stan: 2))
        let journal = dir.path + "/journal.sqlite"
        _ = try await runTillCapturing(["refund", "--reference", "000001", "--amount", "1", "--journal", journal, "--timeout", "20", "--transport", peer])
        let j = try Journal(path: journal)
        #expect(try j.entry(id: 1)?.state == .review)
        let bare = try await runTillCapturing(["resolve", "1", "--charged", "--journal", journal])
        #expect(bare.status == 1 && bare.errors.contains("stated no amount"), "\(bare.errors)")
        let given = try await runTillCapturing(["resolve", "1", "--charged", "--amount", "1.50", "--journal", journal])
        #expect(given.status == 0, "\(given.errors)")
        let e = try #require(try j.entry(id: 1))
        #expect(e.state == .approved && e.amount == Money(cents: 150), "\(e)")

        // The amount the terminal stated, given again: accepted, nothing replaced.
        try await Self.saleForReview(dir, journal: journal, asked: "5", answeredCents: 600)
        let same = try await runTillCapturing(["resolve", "2", "--charged", "--amount", "6", "--journal", journal])
        #expect(same.status == 0, "\(same.errors)")
        #expect(try j.entry(id: 2)?.amount == Money(cents: 600))
    }

    /// Found by a peer keeping its own ledger: a sale answered `amount=0` went to review; `till resolve --charged` asked
    /// for `--amount X`, then refused every X but 0 ("the terminal stated 0.00").
    @Test func aSaleAnsweredZeroTakesThePersonsAmount() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let journal = dir.path + "/journal.sqlite"
        try await Self.saleForReview(dir, journal: journal, asked: "10", answeredCents: 0)
        let j = try Journal(path: journal)
        let bare = try await runTillCapturing(["resolve", "1", "--charged", "--journal", journal])
        #expect(bare.status == 1 && bare.errors.contains("--amount X"), "\(bare.errors)")
        let given = try await runTillCapturing(["resolve", "1", "--charged", "--amount", "10", "--journal", journal])
        #expect(given.status == 0, "\(given.errors)")
        #expect(try j.entry(id: 1)?.amount == Money(cents: 1000))
    }

    /// A sale of `asked` that a pipe peer approves for `answeredCents`, in `journal`: left for review (checked).
    static func saleForReview(_ dir: TempDir, journal: String, asked: String, answeredCents: Int) async throws {
        let peer = try PeerAnswerTests.approvingFor(dir, cents: answeredCents)
        let r = try await runTillCapturing(["sale", "--amount", asked, "--journal", journal, "--timeout", "20", "--transport", peer])
        #expect(try Journal(path: journal, readOnly: true).entries(JournalFilter(scope: .all)).max { $0.id < $1.id }?.state == .review, "\(r.output)")
    }

    /// A person's amount never replaces one the terminal stated.
    @Test func anAmountTheTerminalStatedIsNotReplacedByAPersons() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let journal = dir.path + "/journal.sqlite"
        try await Self.saleForReview(dir, journal: journal, asked: "5", answeredCents: 600)
        let j = try Journal(path: journal)
        let r = try await runTillCapturing(["resolve", "1", "--charged", "--amount", "5", "--journal", journal])
        #expect(r.status == 1 && r.errors.contains("the terminal stated 6.00"), "\(r.errors)")
        #expect(try j.entry(id: 1)?.state == .review)
    }
}

extension PeerAttackTests {
    /// Ctrl-C on `till sale` sends an abort; the terminal had charged the card already, answered the abort
    /// `ABORT … (-57) ABORTED` (naming no payment), then, 0.3 s later, the sale's own approval. The command printed
    /// ABORTED, exited 1 and stopped its bridge at the abort's answer: the approval was never read, the journal said
    /// aborted, and the charge was in no report. It now waits a moment for the sale's own answer.
    /// With the approval 5.5 s later (after that 5 s wait, while the bridge is read until it ends), the journal said
    /// approved but the command still printed ABORTED and exited 1: it now prints the journal's last word.
    @Test(arguments: ["0.3", "5.5"])
    func ctrlCThenTheSalesOwnApprovalAfterTheAbortsAnswerCountsTheCharge(gap: String) async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let peer = try PeerAnswerTests.pipePeer(dir, "abort_then_charged", """
        if q.get("action") == "sale":
            ctid, amount = q["clientTransactionId"], q["amount"]
            continue
        if q.get("action") == "abort":
            sys.stdout.write("interapp-callback://result?status=fail&message=(-57)%20ABORTED&action=ABORT&amount=" + amount + "&tipAmount=0\\n")
            sys.stdout.flush()
            time.sleep(\(gap))
            sys.stdout.write("interapp-callback://result?status=success&message=Transaction%20successful.&action=sale&amount=" + amount
                + "&tipAmount=0&clientTransactionId=" + ctid + "&referenceNumber=000001&orderCode=9000000000000001"
                + "&transactionId=00000000-0000-4000-8000-000000000001\\n")
            sys.stdout.flush()
        """)
        let journal = dir.path + "/journal.sqlite"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tillBinary)
        p.arguments = ["sale", "--amount", "5", "--journal", journal, "--timeout", "30", "--transport", peer]
        p.environment = ProcessInfo.processInfo.environment.merging(["XDG_CONFIG_HOME": "/nonexistent-till-config"]) { $1 }
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        #expect(await eventuallyAsync { (try? Journal(path: journal, readOnly: true).entry(id: 1))??.state == .sent })
        kill(p.processIdentifier, SIGINT)
        // Read and waited for off Swift's pool: a blocked pool thread would starve the tests running beside this one.
        let printed = await withCheckedContinuation { (done: CheckedContinuation<String, Never>) in
            DispatchQueue.global().async {
                let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                p.waitUntilExit()
                done.resume(returning: text)
            }
        }
        let j = try Journal(path: journal)
        let e = try #require(try j.entry(id: 1))
        #expect(e.state == .approved, "\(e.state.rawValue): \(printed)")
        #expect(p.terminationStatus == 0 && printed.contains("APPROVED") && !printed.contains("ABORTED"), "exit \(p.terminationStatus): \(printed)")
        #expect(try j.running(batchId: e.batchId ?? "").sales == Tally(count: 1, cents: 500))
    }
}

extension PeerAttackTests {
    /// A 5.00 sale left unknown (the peer answers nothing to it, `--timeout 2`), then `till recover` with the peer
    /// answering the look-up with `lookUpAnswer` (Python lines that write it; `q` is the request's fields).
    static func unknownSaleRecovered(_ dir: TempDir, _ name: String, lookUpAnswer: String) async throws
        -> (journal: Journal, recover: (status: Int32, signalled: Bool, output: String, errors: String)) {
        let indented = lookUpAnswer.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n")
        let peer = try PeerAnswerTests.pipePeer(dir, name, "if q.get(\"action\") == \"transactionDetails\":\n" + indented + "\n    sys.stdout.flush()")
        let journal = dir.path + "/journal.sqlite"
        let sale = try await runTillCapturing(["sale", "--amount", "5", "--journal", journal, "--timeout", "2", "--transport", peer])
        let j = try Journal(path: journal)
        #expect(try j.entry(id: 1)?.state == .unknown, "exit \(sale.status)")
        return (j, try await runTillCapturing(["recover", "--journal", journal, "--timeout", "10", "--transport", peer]))
    }

    /// A sale left unknown, then `till recover` asks the terminal (`transactionDetails`). The record that comes back
    /// names no payment (another transaction's STAN and id), or names this one but gives its transaction status twice:
    /// it settled the sale all the same, a charged card as declined or an uncharged one as approved and counted. Such a
    /// record leaves the sale unknown, for a person.
    @Test(arguments: [
        ("status=success&action=transactionDetails&message=Transaction%20Details%20Fetched&transactionStatus=fail&amount=500&referenceNumber=000009", false),
        ("status=success&action=transactionDetails&message=Transaction%20Details%20Fetched&transactionStatus=success&amount=500&referenceNumber=000009", false),
        ("status=success&action=transactionDetails&message=Transaction%20Details%20Fetched&transactionStatus=fail&transactionStatus=success&amount=500&referenceNumber=000001", true),
    ])
    func aLookUpRecordThatDoesNotNameThePaymentForCertainLeavesItUnknown(record: String, naming: Bool) async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let (j, r) = try await PeerAttackTests.unknownSaleRecovered(dir, "lookup", lookUpAnswer: """
        sys.stdout.write("interapp-callback://result?\(record)" + ("&clientTransactionId=" + q["clientTransactionId"] if \(naming ? "True" : "False") else "") + "\\n")
        """)
        let e = try #require(try j.entry(id: 1))
        #expect(e.state == .unknown, "\(e.state.rawValue) \(e.note ?? ""): \(r.output) \(r.errors)")
        #expect(try j.running(batchId: e.batchId ?? "").sales.count == 0)
    }
}

extension PeerAttackTests {
    /// Found by an outside tester after a kill -9: recovery's look-up, answered `(-20) TRANSACTION_IN_PROGRESS` (the
    /// terminal still busy with the very sale), was journaled "did not start this one: nothing was charged" beside a
    /// sale that was charged. A busy answer to a look-up says nothing about the payment asked about.
    @Test func aLookUpAnsweredBusySaysNothingOfThePayment() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let (j, r) = try await PeerAttackTests.unknownSaleRecovered(dir, "busy_lookup", lookUpAnswer: """
        sys.stdout.write("interapp-callback://result?status=fail&message=(-20)%20TRANSACTION_IN_PROGRESS&action=transactionDetails"
            + "&clientTransactionId=" + q["clientTransactionId"] + "\\n")
        """)
        #expect(try j.entry(id: 1)?.state == .unknown, "\(r.output)")
        let lookUp = try #require(try j.entries(JournalFilter(scope: .all)).first { $0.action == .transactionDetails })
        let note = lookUp.note ?? ""
        #expect(!note.contains("nothing was charged") && note.contains("says nothing of the payment"), "\(note)")
    }
}

extension PeerAttackTests {
    /// A sale left unknown, its look-up by recovery timed out too; then the terminal filed the sale's late approval
    /// under the look-up's name (file drop). It turned the look-up row into "transactionDetails approved" (never
    /// counted, never listed) and the sale stayed unknown. The approval names the sale: it settles the sale.
    @Test func aLateSaleApprovalFiledUnderItsLookUpsNameSettlesTheSale() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let (c, _) = try await fileDropController(dir, timeoutMs: 1_000)
        let peer = ScriptedPeer(dir.path + "/drop")
        let selling = Task { await c.perform(sale(500, ctid: "late-under-lookup")) }
        guard let s = await peer.nextRequest() else { Issue.record("no sale"); await c.shutdown(); return }
        #expect(await selling.value.journalEntry?.state == .unknown)
        let recovery = Task { await c.recover() }
        guard let lookUp = await peer.nextRequest() else { Issue.record("no look-up"); await c.shutdown(); return }
        #expect(lookUp.url.contains("transactionDetails"))
        _ = await recovery.value
        let approval = peer.answers(to: s.url)[0]
        try peer.drop(approval, as: lookUp.id)
        #expect(await peer.taken(lookUp.id))
        // Taken from the folder comes before journaled: wait for the sale to be settled (or the deadline to say it was not).
        _ = await eventuallyAsync { await c.entries(JournalFilter(scope: .all)).contains { $0.action == .sale && !$0.state.awaitsTerminal } }
        let rows = await c.entries(JournalFilter(scope: .all))
        let saleRow = rows.first { $0.action == .sale }, lookUpRow = rows.first { $0.action == .transactionDetails }
        #expect(saleRow?.state == .approved, "\(rows.map { "#\($0.id) \($0.action.rawValue) \($0.state.rawValue)" })")
        #expect(lookUpRow?.state == .resolved && lookUpRow?.response == nil)
        #expect(try await c.running().sales == Tally(count: 1, cents: 500))
        await c.shutdown()
    }
}

/// Batches as a terminal that names them badly answers them: no batch id at all, or an id an earlier batch had.
extension PeerAttackTests {
    /// A pipe peer (one process per till command, its count kept in a file) that opens and closes batches by the
    /// name asked, with `batchIds` giving the id each open answers (nil: none), and approves every sale.
    static func batchPeer(_ dir: TempDir, batchIds: [String?]) throws -> String {
        let ids = batchIds.map { $0.map { "\"\($0)\"" } ?? "None" }.joined(separator: ", ")
        return try PeerAnswerTests.pipePeer(dir, "batch_peer", """
        import json, os
        path = "\(dir.path)/batch_peer.json"
        st = json.load(open(path)) if os.path.exists(path) else {"opens": 0, "stan": 0, "open": None}
        ids = [\(ids)]
        if q.get("action") == "batch":
            if q.get("command") == "open":
                bid = ids[st["opens"]]
                st["opens"] += 1
                st["open"] = [bid, q.get("batchName", "")]
                extra = ("&batchId=" + bid) if bid else ""
                sys.stdout.write("interapp-callback://result?status=success&message=Batch%20opened&action=batch&command=open&batchName="
                    + urllib.parse.quote(q.get("batchName", "")) + extra + "\\n")
            else:
                bid, name = st["open"]
                extra = ("&batchId=" + bid) if bid else ""
                sys.stdout.write("interapp-callback://result?status=success&message=Batch%20closed&action=batch&command=close&batchName="
                    + urllib.parse.quote(name) + extra + "\\n")
        elif q.get("action") == "sale":
            st["stan"] += 1
            n = "%06d" % st["stan"]
            sys.stdout.write("interapp-callback://result?status=success&message=Transaction%20successful.&action=sale&amount="
                + q["amount"] + "&tipAmount=0&clientTransactionId=" + q["clientTransactionId"] + "&referenceNumber=" + n
                + "&orderCode=9000000000" + n + "&transactionId=00000000-0000-4000-8000-000000" + n + "\\n")
        json.dump(st, open(path, "w"))
        sys.stdout.flush()
        """)
    }

    /// Two shifts, a sale in each, the terminal answering with `batchIds`: each shift's Z report holds its own sale
    /// only, and says so when shown again after the next shift.
    func twoShifts(batchIds: [String?]) async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let peer = try Self.batchPeer(dir, batchIds: batchIds)
        let journal = dir.path + "/journal.sqlite"
        func till(_ args: [String]) async throws -> Int32 {
            try await runTillCapturing(args + ["--journal", journal, "--timeout", "10", "--transport", peer]).status
        }
        #expect(try await till(["batch", "open", "--name", "morning"]) == 0)
        #expect(try await till(["sale", "--amount", "5"]) == 0)
        #expect(try await till(["batch", "close"]) == 0)
        let j = try Journal(path: journal)
        let morning = try #require(try j.batches().first { $0.name == "morning" })
        let morningZ = try j.report(for: morning)
        #expect(morningZ.sales == Tally(count: 1, cents: 500))
        #expect(try await till(["batch", "open", "--name", "evening"]) == 0)
        #expect(try await till(["sale", "--amount", "8"]) == 0)
        #expect(try await till(["batch", "close"]) == 0)
        let shifts = try j.batches()
        #expect(Set(shifts.compactMap(\.id)).count == 2, "\(shifts.map { "\($0.id ?? "-") \($0.name ?? "-")" })")
        let evening = try #require(shifts.first { $0.name == "evening" })
        #expect(try j.report(for: evening).sales == Tally(count: 1, cents: 800))
        let again = try #require(try j.batches().first { $0.name == "morning" })
        #expect(try j.report(for: again) == morningZ, "the morning's Z report changed after the evening")
    }

    /// Found by an outside peer: batch answers with a name and no id filed both shifts under one empty key: the
    /// second shift's Z report was the first's, its sale in no report, and one Z report stored.
    @Test func batchesTheTerminalNamesNoIdForAreShiftsOfTheirOwn() async throws {
        try await twoShifts(batchIds: [nil, nil])
    }

    /// Found by an outside peer: the terminal opened the evening with the morning's batch id; the morning's closed Z
    /// report then grew by the evening's sale, and the evening's showed both.
    @Test func aBatchIdTheTerminalUsesAgainIsAShiftOfItsOwn() async throws {
        try await twoShifts(batchIds: ["B-1", "B-1"])
    }
}

extension PeerAttackTests {
    /// Found by an outside peer: `till batch close` answered "Batch closed" for another batch (its id and name)
    /// printed BATCH CLOSED, exit 0, while the open shift stayed open with no Z report. It needs a person.
    @Test func aCloseAnsweredForAnotherBatchNeedsAPersonAndTheShiftStaysOpen() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let peer = try PeerAnswerTests.pipePeer(dir, "close_other", """
        if q.get("command") == "open":
            sys.stdout.write("interapp-callback://result?status=success&message=Batch%20opened&action=batch&command=open&batchName=evening&batchId=B-2\\n")
        else:
            sys.stdout.write("interapp-callback://result?status=success&message=Batch%20closed&action=batch&command=close&batchName=morning&batchId=B-1\\n")
        sys.stdout.flush()
        """)
        let journal = dir.path + "/journal.sqlite"
        #expect(try await runTillCapturing(["batch", "open", "--name", "evening", "--journal", journal, "--timeout", "10", "--transport", peer]).status == 0)
        let r = try await runTillCapturing(["batch", "close", "--journal", journal, "--timeout", "10", "--transport", peer])
        let j = try Journal(path: journal)
        #expect(r.status == 3 && r.output.hasPrefix("CHECK THE TERMINAL"), "exit \(r.status): \(r.output)")
        #expect(try j.entry(id: 2)?.state == .review)
        #expect(try j.batch().isOpen && j.batch().name == "evening")
    }
}

extension PeerAttackTests {
    /// Found by a cashier in tmux: a batch close left unknown (till stopped while the terminal closed it), marked "it
    /// went through", stayed open in the journal: the next close was answered for a batch till did not know, the shift
    /// could not be closed, and no Z report was made. Marked done, the close closes the shift, Z report and all.
    @Test func aBatchCloseMarkedDoneClosesTheShift() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let peer = try PeerAnswerTests.pipePeer(dir, "silent_close", """
        if q.get("command") == "open":
            sys.stdout.write("interapp-callback://result?status=success&message=Batch%20opened&action=batch&command=open&batchName=evening&batchId=B-7\\n")
            sys.stdout.flush()
        elif q.get("action") == "sale":
            sys.stdout.write("interapp-callback://result?status=success&message=Transaction%20successful.&action=sale&amount=" + q["amount"]
                + "&tipAmount=0&clientTransactionId=" + q["clientTransactionId"] + "&referenceNumber=000001&orderCode=9000000000000001"
                + "&transactionId=00000000-0000-4000-8000-000000000001\\n")
            sys.stdout.flush()
        """)
        let journal = dir.path + "/journal.sqlite"
        func till(_ args: [String], timeout: String = "10") async throws -> Int32 {
            try await runTillCapturing(args + ["--journal", journal, "--timeout", timeout, "--transport", peer]).status
        }
        #expect(try await till(["batch", "open", "--name", "evening"]) == 0)
        #expect(try await till(["sale", "--amount", "4"]) == 0)
        #expect(try await till(["batch", "close"], timeout: "1") == 3)
        let j = try Journal(path: journal)
        let close = try #require(try j.unresolved().first { $0.action == .batch })
        #expect(try j.batch().isOpen)
        let r = try await runTillCapturing(["resolve", String(close.id), "--charged", "--journal", journal])
        #expect(r.status == 0, "\(r.errors)")
        #expect(try !j.batch().isOpen)
        let evening = try #require(try j.batches().first { $0.name == "evening" })
        #expect(!evening.isOpen)
        let z = try j.report(for: evening)
        #expect(z.kind == .closing && z.sales == Tally(count: 1, cents: 400))
    }
}

extension PeerAttackTests {
    /// Found by an outside peer: the sale's own decline, then at once its own approval. `till sale` printed DECLINED and
    /// exited 1, and a cashier or a script charges again. It now says CHECK THE TERMINAL and exits 3, and the sale is
    /// charged (its own approval).
    /// With the approval 0.3 s after the decline, the command stopped the bridge on the decline (SIGTERM at once), the
    /// approval was never written, and the charge was in no journal. A bridge stopped now has its input closed and is
    /// read until it ends (for up to a second) before it is signalled.
    /// A peer's Python lines that decline each sale, naming it, then approve it `gap` seconds later, naming it too, for
    /// `amount` cents (the amount asked unless given).
    static func declinesThenApproves(gap: String, amount: String? = nil) -> String {
        """
        if q.get("action") == "sale":
            c, a = q["clientTransactionId"], q["amount"]
            sys.stdout.write("interapp-callback://result?status=fail&message=(-12)%20TRANSACTION_DECLINED_BY_SERVER&action=sale&amount=" + a
                + "&tipAmount=0&clientTransactionId=" + c + "\\n")
            sys.stdout.flush()
            time.sleep(\(gap))
            sys.stdout.write("interapp-callback://result?status=success&message=Transaction%20successful.&action=sale&amount=" + \(amount.map { "\"\($0)\"" } ?? "a")
                + "&tipAmount=0&clientTransactionId=" + c + "&referenceNumber=000001&orderCode=9000000000000001"
                + "&transactionId=00000000-0000-4000-8000-000000000001\\n")
            sys.stdout.flush()
        """
    }

    @Test(arguments: ["0", "0.3"])
    func theSalesOwnDeclineThenItsOwnApprovalSaysCheckTheTerminal(gap: String) async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let peer = try PeerAnswerTests.pipePeer(dir, "decline_then_approve", Self.declinesThenApproves(gap: gap))
        let journal = dir.path + "/journal.sqlite"
        let r = try await runTillCapturing(["sale", "--amount", "5", "--journal", journal, "--timeout", "10", "--transport", peer])
        let j = try Journal(path: journal)
        #expect(r.status == 3 && r.output.hasPrefix("CHECK THE TERMINAL"), "exit \(r.status): \(r.output)")
        // The sale's own approval is the terminal's last word on it (issue 33): the sale is charged and counted, once;
        // nothing is left apart for review that a later sale would have to confirm (the customer paid: it is counted).
        let own = try #require(try j.entry(id: 1))
        #expect(own.state == .approved, "\(own.state.rawValue): \(r.output) \(r.errors)")
        #expect(try j.answersContradicting(own).isEmpty)
        #expect(try j.running(batchId: own.batchId).sales == Tally(count: 1, cents: 500))
        #expect(try j.entries(JournalFilter(scope: .all)).count == 1)
    }

    /// Found by an outside peer: the sale's own decline, then its own approval for another amount (6.00 of 5.00 asked).
    /// The entry was rightly left for review, out of the totals, but its note said both "not counted until checked" and
    /// "it is counted as charged". An overturning approval that needs a person says it is not counted.
    @Test func aLateApprovalForAnotherAmountSaysItIsNotCounted() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let peer = try PeerAnswerTests.pipePeer(dir, "decline_then_approve_other", Self.declinesThenApproves(gap: "0.3", amount: "600"))
        let journal = dir.path + "/journal.sqlite"
        let r = try await runTillCapturing(["sale", "--amount", "5", "--journal", journal, "--timeout", "10", "--transport", peer])
        let j = try Journal(path: journal)
        let own = try #require(try j.entry(id: 1))
        #expect(own.state == .review, "\(own.state.rawValue): \(r.output) \(r.errors)")
        #expect(own.note?.hasPrefix("CHECK THE TERMINAL") == true || own.note?.contains("CHECK THE TERMINAL") == true, "\(own.note ?? "")")
        #expect(own.note?.contains("counted as charged") == false, "\(own.note ?? "")")
        #expect(own.note?.contains("not counted") == true, "\(own.note ?? "")")
        #expect(try j.running(batchId: own.batchId).sales == Tally(count: 0, cents: 0))
    }
}

extension PeerAttackTests {
    /// Found by an outside tester: a sale left unknown; `till sale --confirm-unknown 1` started, its recovery's look-up
    /// found entry 1 charged ("WAS CHARGED"), and the new sale was sent all the same: the customer paid twice. The
    /// confirmation was given for an unknown outcome; a known charge is refused, in words.
    @Test func aConfirmationOfAnEntryFoundChargedSendsNothing() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let peer = try PeerAnswerTests.silentFirst(dir, "found_charged", """
        \(PeerAnswerTests.lookUpFindsCharged(cents: 1000))
        sys.stdout.write("interapp-callback://result?status=success&message=Transaction%20successful.&action=sale&amount=" + q["amount"]
            + "&tipAmount=0&clientTransactionId=" + q["clientTransactionId"] + "&referenceNumber=000002&orderCode=9000000000000002"
            + "&transactionId=00000000-0000-4000-8000-000000000002\\n")
        sys.stdout.flush()
        """)
        let journal = dir.path + "/journal.sqlite"
        let first = try await runTillCapturing(["sale", "--amount", "10", "--journal", journal, "--timeout", "2", "--transport", peer])
        let j = try Journal(path: journal)
        #expect(try j.entry(id: 1)?.state == .unknown, "exit \(first.status)")
        let again = try await runTillCapturing(["sale", "--amount", "10", "--journal", journal, "--timeout", "10", "--transport", peer,
                                                "--confirm-unknown", "1"])
        #expect(try j.entry(id: 1)?.state == .approved, "\(again.errors)")
        #expect(again.status == 2 && again.errors.contains("no longer unknown"), "exit \(again.status): \(again.output) \(again.errors)")
        #expect(try j.entries(JournalFilter(scope: .all)).filter { $0.action == .sale }.count == 1)
    }

    /// Found by an outside peer: a refund's decline, then 3.5 s later a refund approval (after the refund's own 3 s
    /// wait for a contradiction, while the bridge was read until it ended). It was journaled for review ("matches
    /// nothing"), and the next refund of the same payment went without a word: the money went back twice. Here the
    /// refund approval that matches nothing comes while a sale waits (no timing to race on a loaded machine).
    @Test func aRefundApprovalForReviewStopsTheNextRefund() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let peer = try PeerAnswerTests.pipePeer(dir, "stray_refund_then_sale", """
        if q.get("action") == "sale":
            sys.stdout.write("interapp-callback://result?status=success&message=Transaction%20successful.&action=cancel&amount=400"
                + "&referenceNumber=000002&orderCode=9000000000000002&transactionId=00000000-0000-4000-8000-000000000002\\n")
            sys.stdout.flush()
        """ + "\n" + PeerAttackTests.approvesSalesOf10)
        let journal = dir.path + "/journal.sqlite"
        let sale = try await runTillCapturing(["sale", "--amount", "10", "--journal", journal, "--timeout", "20", "--transport", peer])
        let j = try Journal(path: journal)
        let stray = try #require(try j.entries(JournalFilter(scope: .all)).first { $0.action == .cancel && $0.state == .review },
                                 "\(sale.output) \(sale.errors)")
        let next = try await runTillCapturing(["refund", "--reference", "000001", "--amount", "4", "--journal", journal, "--timeout", "20",
                                               "--transport", peer])
        #expect(next.status == 3 && next.errors.contains("NOT SENT") && next.errors.contains("--confirm-unknown \(stray.id)"),
                "exit \(next.status): \(next.output) \(next.errors)")
    }

    /// Found by an outside peer: after the sale's own decline, the bridge wrote an approval cut short (no newline) and
    /// ended. The piece was dropped without a word: exit 1, nothing on standard error. It is now reported.
    @Test func aLineTheBridgeLeftUnfinishedIsReported() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let peer = try PeerAnswerTests.pipePeer(dir, "decline_then_half", """
        if q.get("action") == "sale":
            sys.stdout.write("interapp-callback://result?status=fail&message=(-12)%20TRANSACTION_DECLINED_BY_SERVER&action=sale&amount="
                + q["amount"] + "&tipAmount=0&clientTransactionId=" + q["clientTransactionId"] + "\\n")
            sys.stdout.flush()
            time.sleep(0.2)
            sys.stdout.write("interapp-callback://result?status=success&message=Transaction%20successful.&action=sale&amount=5")
            sys.stdout.flush()
            sys.exit(0)
        """)
        let journal = dir.path + "/journal.sqlite"
        let r = try await runTillCapturing(["sale", "--amount", "5", "--journal", journal, "--timeout", "10", "--transport", peer])
        #expect(r.errors.contains("ended in the middle of a line"), "exit \(r.status): \(r.output) \(r.errors)")
    }

    /// Found by an outside peer: the sale's own decline, then 0.3 s later an approval that names no payment (no client
    /// transaction id). It was journaled for review ("matches nothing"), but the next sale went without a word, and the
    /// customer paid twice. An approval for review that no entry counts stops the next sale, as an unknown outcome does.
    /// So does one naming a reference this till never sent (`zz9`): the terminal's answer to this till's sale with
    /// another reference is not told apart from another's.
    @Test(arguments: ["", "&clientTransactionId=zz9"])
    func anApprovalNamingNothingForReviewStopsTheNextSale(naming: String) async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let peer = try PeerAnswerTests.pipePeer(dir, "decline_then_unnamed", """
        if q.get("action") == "sale":
            a = q["amount"]
            sys.stdout.write("interapp-callback://result?status=fail&message=(-12)%20TRANSACTION_DECLINED_BY_SERVER&action=sale&amount=" + a
                + "&tipAmount=0&clientTransactionId=" + q["clientTransactionId"] + "\\n")
            sys.stdout.flush()
            time.sleep(0.3)
            sys.stdout.write("interapp-callback://result?status=success&message=Transaction%20successful.&action=sale&amount=" + a
                + "&tipAmount=0\(naming)&referenceNumber=000001&orderCode=9000000000000001&transactionId=00000000-0000-4000-8000-000000000001\\n")
            sys.stdout.flush()
        """)
        let journal = dir.path + "/journal.sqlite"
        let r = try await runTillCapturing(["sale", "--amount", "5", "--journal", journal, "--timeout", "10", "--transport", peer])
        let j = try Journal(path: journal)
        let stray = try #require(try j.entries(JournalFilter(scope: .all)).first { $0.id != 1 && $0.state == .review }, "\(r.output) \(r.errors)")
        let next = try await runTillCapturing(["sale", "--amount", "5", "--journal", journal, "--timeout", "10", "--transport", peer])
        #expect(next.status == 3 && next.errors.contains("NOT SENT") && next.errors.contains("--confirm-unknown \(stray.id)"),
                "exit \(next.status): \(next.output) \(next.errors)")
    }
}

extension PeerAttackTests {
    /// Found by a cashier in tmux (and true of `till refund` as well): a refund whose outcome was unknown could be sent
    /// again with nothing said; both went through and the card got the money back twice. A second refund of the same
    /// payment is not sent until the earlier one is checked (`--confirm-unknown`), as a second sale is not.
    @Test func aRefundIsNotSentAgainWhileAnEarlierOneOfTheSamePaymentIsUnknown() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        // Answers nothing the first time; refunds the second.
        let peer = try PeerAnswerTests.silentFirst(dir, "refund_twice", PeerAnswerTests.refundApproval(amount: "800", stan: 31))
        let journal = dir.path + "/journal.sqlite"
        func refund(_ extra: [String] = []) async throws -> (status: Int32, signalled: Bool, output: String, errors: String) {
            try await runTillCapturing(["refund", "--reference", "000009", "--amount", "8", "--journal", journal, "--timeout", "2",
                                        "--transport", peer] + extra)
        }
        #expect(try await refund().status == 3)   // unknown
        let again = try await refund()
        #expect(again.status == 3 && again.errors.contains("NOT SENT") && again.errors.contains("may have been refunded")
                && again.errors.contains("--confirm-unknown 1"), "exit \(again.status): \(again.errors)")
        #expect(try Journal(path: journal).entry(id: 2) == nil, "a second refund was journaled")
        let confirmed = try await refund(["--confirm-unknown", "1"])
        #expect(confirmed.status == 0, "exit \(confirmed.status): \(confirmed.output) \(confirmed.errors)")
    }
}

extension PeerAttackTests {
    /// Found by a peer keeping its own ledger: a refund of 3.00 went unknown; during the full refund sent after it (the
    /// cashier confirmed), the terminal gave the late 3.00 answer, then the full refund's own 17.00. Refund answers name
    /// no payment, and the full refund in flight took the 3.00 (printed APPROVED 3.00) while the 17.00 went to the
    /// earlier refund as "17.00 instead of 3.00". An answer for exactly what a waiting refund of the same payment asked,
    /// and not what the one in flight asked, is that refund's.
    @Test func aLateRefundAnswerGoesToTheRefundThatAskedItsAmount() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let peer = try PeerAnswerTests.silentFirst(dir, "crossing_refunds", """
        for amount, n in (("300", "2"), ("1700", "3")):
            sys.stdout.write("interapp-callback://result?status=success&message=Transaction%20successful.&action=cancel&amount=" + amount
                + "&referenceNumber=00000" + n + "&orderCode=900000000000000" + n + "&transactionId=00000000-0000-4000-8000-00000000000" + n + "\\n")
            sys.stdout.flush()
        """)
        let journal = dir.path + "/journal.sqlite"
        func refund(_ extra: [String]) async throws -> (status: Int32, signalled: Bool, output: String, errors: String) {
            try await runTillCapturing(["refund", "--reference", "000001", "--journal", journal, "--timeout", "2", "--transport", peer] + extra)
        }
        #expect(try await refund(["--amount", "3"]).status == 3)   // unknown
        let full = try await refund(["--confirm-unknown", "1"])
        #expect(full.status == 0 && full.output.contains("17.00") && !full.output.contains("3.00"), "exit \(full.status): \(full.output) \(full.errors)")
        let j = try Journal(path: journal, readOnly: true)
        let first = try #require(try j.entry(id: 1)), second = try #require(try j.entry(id: 2))
        #expect(first.state == .approved && first.amount == Money(cents: 300), "\(first)")
        #expect(second.state == .approved && second.amount == Money(cents: 1700), "\(second)")
        #expect(try j.unresolved().isEmpty)
    }
}
