import Foundation
import GRDB
import Testing
@testable import TillCore
import TillProtocol

/// Batch keys, close reasons and batch commands are typed; the text a person types and the text the journal stores
/// are read in one place each.
@Suite struct BatchKeyTests {
    let t0: Int64 = 1_800_000_000_000
    let h: Int64 = 3_600_000
    let a = "11111111-1111-1111-1111-111111111111", b = "22222222-2222-2222-2222-222222222222"
    let c = "33333333-3333-3333-3333-333333333333"

    func batchAnswer(_ journal: Journal, _ command: String, _ name: String, _ id: String, at: Int64) throws {
        let req = TerminalRequest(caller: testCaller, request: .batch(BatchRequest(command: command.lowercased() == "open" ? .open : .close)))
        let e = try journal.insertPending(requestId: UUID().uuidString, request: req, batch: try journal.batch(nowMs: at), nowMs: at)
        let resp = try CallbackResponse.decode("cb://result?status=success&message=ok&action=batch&command=\(command)&batchName=\(name)&batchId=\(id)")
        try journal.recordAnswer(e.id, response: resp, state: .approved, note: nil, nowMs: at)
    }

    @Test func typedTextIsReadInOnePlace() {
        #expect(BatchKey(text: "current") == .current)
        #expect(BatchKey(text: "") == .current)
        #expect(BatchKey(text: "last") == .last)
        // The words are exact: anything else is an id or a name, as typed.
        #expect(BatchKey(text: "Current") == .idOrName("Current"))
        #expect(BatchKey(text: " last") == .idOrName(" last"))
        #expect(BatchKey(text: "Saturday morning") == .idOrName("Saturday morning"))
        #expect(BatchKey(text: a) == .idOrName(a))
        // Written back as typed (error messages, `--batch`'s default in the help).
        for text in ["current", "last", "Saturday morning", a] { #expect(BatchKey(text: text).description == text) }
        #expect(BatchKey.id(a).description == a)
    }

    @Test func lookupOrderCurrentLastIdThenLatestName() throws {
        let dir = TempDir("till-batchkey"); defer { dir.cleanup() }
        let journal = try Journal(path: dir.path + "/journal.sqlite")
        try batchAnswer(journal, "open", "Evening", a, at: t0)
        try batchAnswer(journal, "open", "current", b, at: t0 + h)      // a batch literally named "current"
        try batchAnswer(journal, "open", "Evening", c, at: t0 + 2 * h)
        let now = t0 + 3 * h
        // `current` and `last` are the words, whatever a batch is named: the batch named "current" is found by its id.
        #expect(try journal.findBatch(BatchKey(text: "current"), nowMs: now)?.id == c)
        #expect(try journal.findBatch(BatchKey(text: "last"), nowMs: now)?.id == c)
        #expect(try journal.findBatch(BatchKey(text: b), nowMs: now)?.name == "current")
        // An id ignores case; a name is exact and the latest batch of that name wins.
        #expect(try journal.findBatch(BatchKey(text: a.lowercased()), nowMs: now)?.name == "Evening")
        #expect(try journal.findBatch(BatchKey(text: "Evening"), nowMs: now)?.id == c)
        #expect(try journal.findBatch(BatchKey(text: "evening"), nowMs: now) == nil)
        // An id from an answer or a report is only ever an id.
        #expect(try journal.findBatch(.id(b), nowMs: now)?.name == "current")
        #expect(try journal.findBatch(.id("Evening"), nowMs: now) == nil)
        // With none open, `current` finds nothing, but a report of `current` is the last batch's.
        try batchAnswer(journal, "close", "Evening", c, at: now)
        #expect(try journal.findBatch(.current, nowMs: now + 1) == nil)
        #expect(try journal.reportBatch(.current, nowMs: now + 1)?.id == c)
        #expect(try journal.reportBatch(BatchKey(text: "Night"), nowMs: now + 1) == nil)
    }

    /// The stored form of a close reason is the text it always was: a Z report stored before close reasons were
    /// typed reads as it was stored (not made again), with its reason typed.
    @Test func aZReportStoredByAnOlderTillReadsWithItsCloseReason() throws {
        #expect(BatchCloseReason.allCases.map(\.rawValue) == ["closed by till", "closed by the terminal when a new batch was opened",
                                                             "closed by the terminal (48-hour auto-close)"])
        let dir = TempDir("till-batchkey"); defer { dir.cleanup() }
        let journal = try Journal(path: dir.path + "/journal.sqlite")
        try batchAnswer(journal, "open", "Friday", a, at: t0)
        // The row an older till stored when it first showed this batch's Z report (its JSON as that build wrote it).
        let stored = """
            {"kind":"Z","batchId":"\(a)","batchName":"Friday","openedAtMs":\(t0),"closedAtMs":\(t0 + 48 * h),\
            "closedHow":"closed by the terminal (48-hour auto-close)","generatedAtMs":1234,\
            "sales":{"count":2,"cents":3000},"tips":{"count":1,"cents":300},"preAuths":{"count":0,"cents":0},\
            "captures":{"count":0,"cents":0},"refunds":{"count":0,"cents":0},"declined":{"count":0,"cents":0},\
            "aborted":{"count":0,"cents":0},"unknown":{"count":0,"cents":0},"byCardType":{"VISA":{"count":2,"cents":3300}},\
            "byVerificationMethod":{"CHIP":{"count":2,"cents":3300}},"firstAtMs":\(t0 + 1000),"lastAtMs":\(t0 + 2000)}
            """
        try journal.database.write { db in
            try db.execute(sql: "INSERT INTO z_report (batchKey, closedAtMs, report) VALUES (?, ?, ?)", arguments: [a, t0 + 48 * h, stored])
        }
        let batch = try #require(try journal.findBatch(.id(a), nowMs: t0 + 50 * h))
        #expect(batch.closedHow == .autoClose)
        let z = try journal.report(for: batch, nowMs: t0 + 50 * h)
        #expect(z.generatedAtMs == 1234 && z.sales == Tally(count: 2, cents: 3000))   // the stored one, not made again
        #expect(z.closedHow == .autoClose)
        #expect(z.text(ReportFormat()).contains("(closed by the terminal (48-hour auto-close))"))
        #expect(z.json.text().contains("closed by the terminal (48-hour auto-close)"))
    }

    /// The batch command of an answer is read in one place (any case); a word that is not one opens or closes nothing.
    @Test func theBatchCommandOfAnAnswer() throws {
        func command(_ c: String) throws -> BatchCommand? {
            try CallbackResponse.decode("cb://result?status=success&action=batch&command=\(c)&batchName=x").batchCommand
        }
        #expect(try command("open") == .open)
        #expect(try command("CLOSE") == .close)
        #expect(try command("reopen") == nil)
        let dir = TempDir("till-batchkey"); defer { dir.cleanup() }
        let journal = try Journal(path: dir.path + "/journal.sqlite")
        try batchAnswer(journal, "Open", "Morning", a, at: t0)
        #expect(try journal.batches(nowMs: t0 + 1).map(\.name) == ["Morning"])
        try batchAnswer(journal, "reopen", "Evening", b, at: t0 + h)
        #expect(try journal.batchEvents().map(\.command) == [.open])
    }
}
