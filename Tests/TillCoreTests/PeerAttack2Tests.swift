import Foundation
import Testing
@testable import TillCore
import TillIO
import TillProtocol
import TillSimulator

/// A misbehaving peer against today's changes (the 3 s grace after a stray approval, the own answer replacing a mark,
/// headless notices, card numbers in free text), held to the guarantees in README.md. Reproductions in /tmp/peer-attack2/repro.
@Suite(.serialized) struct PeerAttack2Tests {
    static let stray = "interapp-callback://result?status=success&message=Transaction%20successful.&action=sale&amount=1250"
        + "&tipAmount=0&referenceNumber=000777&orderCode=9000000000000777&transactionId=00000000-0000-4000-8000-000000000777"

    /// Guarantees 1, 2 and the transports' "journaled as an unmatched answer and reported, never dropped": an approval
    /// naming no payment, with a transaction of its own (STAN 000777), that arrives while a sale waits, is a charge the
    /// terminal says it made. When the sale's own answer (declined) follows within the grace, the stray approval must
    /// still be journaled for a person (as it is when it arrives after the sale settled), not archived without a row.
    @Test func aStrayApprovalFollowedWithinTheGraceByTheOwnDeclineIsJournaledForReview() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let (c, _) = try await fileDropController(dir)
        let peer = ScriptedPeer(dir.path + "/drop")
        let task = Task { await c.perform(sale(1250, ctid: "order-stray-grace")) }
        guard let r = await peer.nextRequest() else { Issue.record("no request"); await c.shutdown(); return }
        try peer.drop(Self.stray, as: "stray")
        #expect(await peer.taken("stray"))
        try peer.drop("interapp-callback://result?status=fail&message=(-12)%20TRANSACTION_DECLINED_BY_SERVER&action=sale"
                      + "&clientTransactionId=order-stray-grace&amount=1250&tipAmount=0", as: r.id)
        #expect(await task.value.journalEntry?.state == .declined)
        let rows = await c.entries(JournalFilter(scope: .all))
        let open = await c.unresolved()
        let strayRow = rows.contains { (e: JournalEntry) -> Bool in e.response?.transactionId == "00000000-0000-4000-8000-000000000777" }
        #expect(strayRow && !open.isEmpty,
                "the approval of transaction 000777 left no row: \(rows.map { "#\($0.id) \($0.state.rawValue) \($0.response?.transactionId ?? "-")" }), unresolved \(open.map(\.id))")
        await c.shutdown()
    }

    /// Commit 37fee9c (headless commands say on standard error "a late answer that settled or changed an entry"), README
    /// guarantee 7 ("CHECK THE TERMINAL: the terminal's own answer changed journal entry N"): a sale marked not charged
    /// by a person, whose own approval then arrives, is counted from then on; the headless command that journaled that
    /// answer must say so, not print "Nothing left unresolved." alone.
    @Test func aHeadlessCommandSaysWhenTheOwnAnswerReplacedAPersonsMark() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let journal = dir.path + "/journal.sqlite", drop = dir.path + "/drop"
        let peer = ScriptedPeer(drop)
        let first = Task { try await runTillCapturing(["sale", "--amount", "10.00", "--client-transaction-id", "order-mark",
                                                       "--journal", journal, "--transport", "file:" + drop, "--timeout", "2"]) }
        guard let r = await peer.nextRequest() else { Issue.record("no request"); return }
        #expect(try await first.value.status == 3)
        #expect(try await runTillCapturing(["resolve", "1", "--not-charged", "--journal", journal, "--transport", "file:" + drop]).status == 0)
        try peer.drop("interapp-callback://result?status=success&message=Transaction%20successful.&action=sale"
                      + "&clientTransactionId=order-mark&amount=1000&tipAmount=0&referenceNumber=000555&orderCode=7000000000000555"
                      + "&transactionId=22222222-0000-4000-8000-000000000555", as: r.id)
        let rec = try await runTillCapturing(["recover", "--journal", journal, "--transport", "file:" + drop, "--timeout", "3"])
        #expect(try Journal(path: journal).entry(id: 1)?.state == .approved)
        #expect(rec.errors.contains("entry 1") || rec.output.contains("entry 1"),
                "entry 1 turned from not charged to approved (10.00 counted) without a word: exit \(rec.status), out [\(rec.output)], err [\(rec.errors)]")
    }

    /// Card numbers in free text must not pass in clear (README: "card numbers only masked (first 6, last 4)"): one
    /// followed by its expiry or a STAN after a single space or dash (a run of more than 19 digits), one written with dots
    /// or slashes, and one a bridge left in a field's name (`accountNumber:…`, an encoded `=`).
    @Test(arguments: ["message=card%204111%201111%201111%201111%201227", "message=4111111111111111-000123",
                      "message=card%204111.1111.1111.1111", "cardType=Visa%204111/1111/1111/1111",
                      "accountNumber:4111111111111111", "card%3D4111111111111111"])
    func aCardNumberInFreeTextIsNeverShownInClear(_ field: String) async throws {
        let r = try await runTillCapturing(["decode", "interapp-callback://result?status=fail&action=sale&amount=100&tipAmount=0&" + field])
        let digits = (r.output + r.errors).filter { $0.isNumber || $0 == "*" || $0 == "\n" }
        #expect(!digits.contains("4111111111111111"), "\(r.output)")
    }

    /// Guarantees 1 and 7 ("an approval settles the flight until the exact answer comes (which then replaces it)"): a
    /// headless `till sale` on a pipe settled by a stray approval at the end of the 3 s grace exits and stops its bridge,
    /// so the payment's own decline, 5 s after the stray and well inside `--timeout 20`, can never come: the sale stays
    /// counted approved (exit 0) with nothing left for a person to check; the peer charged nothing.
    @Test func aHeadlessSaleDoesNotEndOnAStrayApprovalBeforeItsOwnAnswerCouldCome() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let journal = dir.path + "/journal.sqlite"
        let r = try await runTillCapturing(["sale", "--amount", "12.50", "--journal", journal, "--timeout", "20",
                                            "--transport", try PeerAnswerTests.weakApprovalPeer(dir, gap: "5")])
        let j = try Journal(path: journal)
        let e = try #require(try j.entry(id: 1))
        let open = try j.unresolved()
        #expect(e.state != .approved || !open.isEmpty,
                "entry 1 counted approved on a stray approval (exit \(r.status)); the payment's own decline was never read")
    }
}
