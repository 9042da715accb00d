import Foundation
import Testing
@testable import TillCore
import TillIO
import TillSimulator

/// The controller reads the wall clock against the monotonic one at every event: a step of the wall clock (an RTC
/// or NTP step, a snapshot restored) moves the waiting payment's deadline with it, so that the wait keeps its length.
/// (`PaymentLife.clockStepped` is the rule; this is the controller telling it.)
extension TillController {
    /// Test-only: as if the last reading had found the wall clock `ms` off from where it is now.
    func pretendTheLastReadingWasOffBy(_ ms: Int64) {
        clockOffset = (clockOffset ?? (WallClock.nowMs() - WallClock.monotonicMs())) - ms
    }

    /// Test-only: reads the clock as every event does.
    func readTheClock() { _ = now() }
}

@Suite struct ClockStepTests {
    @Test(arguments: [Int64(49 * 3_600_000), -Int64(49 * 3_600_000)])
    func aStepOfTheWallClockMovesTheDeadlineWithIt(step: Int64) async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        // The card is never presented: the sale waits for its whole time.
        let c = try await simulatorController(dir, config: SimulatorConfig(speed: 1, cardWaitMs: 600_000))
        let saleTask = Task { await c.perform(sale(2000)) }
        #expect(await eventuallyAsync { await c.inFlight()?.entry.state == .sent })
        let before = try #require(await c.inFlight())
        await c.readTheClock()
        // The wall clock stepped by `step` since the last reading.
        await c.pretendTheLastReadingWasOffBy(step)
        await c.readTheClock()
        let after = try #require(await c.inFlight())
        #expect(after.deadlineMs - before.deadlineMs == step, "the deadline moved by \(after.deadlineMs - before.deadlineMs)")
        #expect(after.deadlineMs - after.startedAtMs == before.deadlineMs - before.startedAtMs, "the wait's length changed")
        _ = await c.stopWaiting()
        _ = await saleTask.value
        await c.shutdown()
    }
}
