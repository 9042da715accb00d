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
        let j = try Journal(path: journal, readOnly: false)
        #expect(await eventuallyAsync { (try? j.entry(id: 1))??.state == .sent })
        let refused = try await runTillCapturing(["resolve", "1", "--not-charged", "--journal", journal])
        #expect(refused.status == 1 && refused.errors.contains("in progress on another till"), "exit \(refused.status): \(refused.errors)")
        #expect(try j.entry(id: 1)?.state == .sent)
        let waited = try await sale.value
        #expect(try j.entry(id: 1)?.state == .unknown, "exit \(waited.status)")
        // Once nobody waits on it, a person may settle it.
        let settled = try await runTillCapturing(["resolve", "1", "--not-charged", "--journal", journal])
        #expect(settled.status == 0, "\(settled.errors)")
        #expect(try j.entry(id: 1)?.state == .resolved)
    }
}
