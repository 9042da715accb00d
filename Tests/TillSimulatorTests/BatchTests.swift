import Testing
import TillProtocol
@testable import TillSimulator

let batchFieldOrder = ["status", "message", "action", "command", "batchName", "batchId"]

@Suite struct BatchTests {
    @Test func openAnswersWithNameAndId() throws {
        let h = Harness(instant)
        let r = try #require(h.send("batch&command=open&batchName=morningShift").first)
        #expect(names(r) == batchFieldOrder)
        #expect(r.isApproved)
        #expect(r.message == "Batch opened")
        #expect(r.command == "open")
        #expect(r.batchName == "morningShift")
        #expect(UUIDText.isValid(r.batchId ?? ""))
        #expect(h.sim.state.activeBatch?.id == r.batchId)
    }

    @Test func openWithoutANameIsNamedAutomatically() throws {
        let h = Harness(instant)
        #expect(h.send("batch&command=open").first?.batchName == "Batch 1")
        #expect(h.send("batch&command=open").first?.batchName == "Batch 2")
    }

    @Test func openingWhileOneIsOpenClosesTheOldOneFirst() throws {
        let h = Harness(instant)
        let a = try #require(h.send("batch&command=open&batchName=a").first)
        h.now += 1000
        let b = try #require(h.send("batch&command=open&batchName=b").first)
        #expect(a.batchId != b.batchId)
        let s = h.sim.state
        #expect(s.activeBatch?.name == "b")
        #expect(s.closedBatches.count == 1)
        #expect(s.closedBatches[0].name == "a" && s.closedBatches[0].closedBy == .replaced && s.closedBatches[0].closedMs == T0 + 1000)
    }

    @Test func closeWithNoNameOrIdClosesTheActiveBatch() throws {
        let h = Harness(instant)
        let o = try #require(h.send("batch&command=open&batchName=x").first)
        h.now += 5000
        let c = try #require(h.send("batch&command=close").first)
        #expect(names(c) == batchFieldOrder)
        #expect(c.isApproved && c.message == "Batch closed" && c.command == "close")
        #expect(c.batchName == "x" && c.batchId == o.batchId)
        #expect(h.sim.state.activeBatch == nil)
        #expect(h.sim.state.closedBatches.last?.closedBy == .command)
        #expect(h.sim.state.closedBatches.last?.closedMs == T0 + 5000)
    }

    @Test func closeByNameAndById() throws {
        let h = Harness(instant)
        _ = h.send("batch&command=open&batchName=evening")
        #expect(h.send("batch&command=close&batchName=evening").first?.message == "Batch closed")
        let o = try #require(h.send("batch&command=open&batchName=night").first)
        let id = try #require(o.batchId)
        let c = try #require(h.send("batch&command=close&batchId=\(id.lowercased())").first)
        #expect(c.isApproved && c.batchId == id && c.batchName == "night")
        #expect(h.sim.state.closedBatches.map(\.name) == ["evening", "night"])
    }

    @Test func closeOfAnotherBatchFailsAndLeavesTheActiveOneOpen() throws {
        let h = Harness(instant)
        _ = h.send("batch&command=open&batchName=day")
        let byName = try #require(h.send("batch&command=close&batchName=night").first)
        #expect(byName.status == .fail && byName.message == "(-47) BATCH_NOT_FOUND")
        #expect(names(byName) == batchFieldOrder)
        let byId = try #require(h.send("batch&command=close&batchId=7885F4F1-59CA-42C2-81BB-6DB48AA138A6").first)
        #expect(byId.message == "(-47) BATCH_NOT_FOUND")
        #expect(h.sim.state.activeBatch?.name == "day")
    }

    @Test func closeWithNoActiveBatchFails() throws {
        let h = Harness(instant)
        #expect(h.send("batch&command=close").first?.message == "(-47) BATCH_NOT_FOUND")
    }

    @Test func aBatchIdOnOpenIsInvalid() throws {
        let h = Harness(instant)
        #expect(h.send("batch&command=open&batchId=7885F4F1-59CA-42C2-81BB-6DB48AA138A6").first?.message == "(-40) INVALID_REQUEST")
    }

    @Test func aBatchAutoClosesFortyEightHoursAfterItOpened() throws {
        let h = Harness(instant)
        let open = try #require(h.send("batch&command=open&batchName=weekend").first)
        _ = h.advance(to: T0 + 48 * hour - 1)
        #expect(h.sim.state.activeBatch?.name == "weekend")
        _ = h.advance(to: T0 + 48 * hour)
        let closed = try #require(h.sim.state.closedBatches.last)
        #expect(closed.id == open.batchId && closed.closedBy == .autoClose && closed.closedMs == T0 + 48 * hour)
        // batch.txt:10: "automatically being closed and a new one being started": at once, not at the next sale.
        #expect(h.sim.state.activeBatch?.name == "Batch 2")
        #expect(h.sim.state.activeBatch?.openedMs == T0 + 48 * hour)
        _ = h.send("sale&amount=100")
        #expect(h.sim.state.activeBatch?.name == "Batch 2")
    }

    @Test func autoCloseIsCheckedOnReceiveAndDatesTheCloseAtFortyEightHours() throws {
        let h = Harness(instant)
        _ = h.send("sale&amount=100")                 // opens Batch 1 at T0
        let first = h.sim.state.activeBatch!.id
        h.now = T0 + 50 * hour                        // no advance in between
        _ = h.send("sale&amount=200")
        let s = h.sim.state
        #expect(s.closedBatches.count == 1)
        #expect(s.closedBatches[0].id == first && s.closedBatches[0].closedBy == .autoClose)
        #expect(s.closedBatches[0].closedMs == T0 + 48 * hour)
        #expect(s.transactions[0].batchId == first)
        #expect(s.transactions[1].batchId == s.activeBatch?.id && s.activeBatch?.id != first)
        // Closing with no name now closes the new batch, not the auto-closed one.
        #expect(h.send("batch&command=close").first?.batchId == s.activeBatch?.id)
    }

    @Test func aSaleThatFinishesAfterTheAutoCloseJoinsANewBatch() throws {
        let h = Harness(realTime)
        _ = h.send("batch&command=open&batchName=old")
        h.now = T0 + 48 * hour - 1000
        _ = h.send("sale&amount=100")                 // started in "old", finishes 3 s later
        let out = h.advance(by: 10_000)
        #expect(out.count == 1)
        let s = h.sim.state
        #expect(s.closedBatches.last?.name == "old")
        #expect(s.transactions.last?.batchId == s.activeBatch?.id)
        #expect(s.activeBatch?.name == "Batch 2")
    }
}
