import Foundation
import Testing
@testable import TillCore
import TillIO
import TillProtocol

/// batch.txt:10: "a batch remains open for 48 hours before automatically being closed and a new one being
/// started". The journal shows the old one closed by the terminal and the new one active; a plain close
/// then closes the new one and learns its name and id from the terminal's answer.
@Suite struct TerminalStartedBatchTests {
    let t0: Int64 = 1_800_000_000_000
    let h: Int64 = 3_600_000

    func batchAnswer(_ journal: Journal, _ command: BatchCommand, _ name: String, _ id: String, at: Int64) throws {
        let req = TerminalRequest(caller: testCaller, request: .batch(BatchRequest(command: command)))
        let e = try journal.insertPending(requestId: UUID().uuidString, request: req, batch: try journal.batch(nowMs: at), nowMs: at)
        let resp = try CallbackResponse.decode("cb://result?status=success&message=ok&action=batch&command=\(command.rawValue)&batchName=\(name)&batchId=\(id)")
        try journal.recordAnswer(e.id, response: resp, state: .approved, note: nil, nowMs: at)
    }

    @Test func theNewBatchIsShownActiveThenClosedByTillWithItsName() throws {
        let dir = TempDir("till-batch"); defer { dir.cleanup() }
        let journal = try Journal(path: dir.path + "/journal.sqlite")
        let a = "11111111-1111-1111-1111-111111111111", b2 = "22222222-2222-2222-2222-222222222222"
        try batchAnswer(journal, .open, "friday", a, at: t0)
        // Before 48 hours: one batch, open.
        #expect(try journal.batches(nowMs: t0 + 47 * h).map(\.isOpen) == [true])
        // After: friday closed by the terminal, a new one active.
        let after = try journal.batches(nowMs: t0 + 50 * h)
        #expect(after.count == 2)
        #expect(after[0].closedHow == .autoClose && after[0].closedAtMs == t0 + 48 * h)
        #expect(after[1].isOpen && after[1].openedAtMs == t0 + 48 * h && after[1].name == Journal.terminalStartedBatchName)
        #expect(try journal.findBatch(.current, nowMs: t0 + 50 * h)?.openedAtMs == t0 + 48 * h)
        // A plain close: the terminal closes the batch it started and names it.
        try batchAnswer(journal, .close, "Batch%202", b2, at: t0 + 51 * h)
        let closed = try journal.batches(nowMs: t0 + 52 * h)
        #expect(closed.count == 2)
        // Its entries were filed under the key it had while open (`auto-…`), so its report keeps them; the answer names it.
        #expect(closed[1].id?.hasPrefix(Journal.terminalStartedBatchKeyPrefix) == true && closed[1].name == "Batch 2"
                && closed[1].closedHow == .byTill && closed[1].closedAtMs == t0 + 51 * h)
        #expect(try journal.findBatch(.current, nowMs: t0 + 52 * h) == nil)
    }

    @Test func daysOffShowOneNewBatchNotOnePerFortyEightHours() throws {
        let dir = TempDir("till-batch"); defer { dir.cleanup() }
        let journal = try Journal(path: dir.path + "/journal.sqlite")
        try batchAnswer(journal, .open, "a", "11111111-1111-1111-1111-111111111111", at: t0)
        let all = try journal.batches(nowMs: t0 + 10 * 24 * h)
        #expect(all.count == 2)
        #expect(all[1].isOpen && all[1].openedAtMs == t0 + 5 * 48 * h)
        // An open after the auto-close closes the terminal's batch as replaced.
        try batchAnswer(journal, .open, "b", "33333333-3333-3333-3333-333333333333", at: t0 + 10 * 24 * h)
        let then = try journal.batches(nowMs: t0 + 10 * 24 * h + 1)
        #expect(then.count == 3)
        #expect(then[1].closedHow == .newBatchOpened && then[2].name == "b" && then[2].isOpen)
    }
}
