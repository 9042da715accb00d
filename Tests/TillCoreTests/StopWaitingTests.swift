import Foundation
import Testing
@testable import TillCore
import TillIO
import TillProtocol
import TillSimulator

/// The cashier can stop waiting for the terminal: the entry is journaled unknown at once (not after
/// the 90 s timeout), the waiting `perform` returns `.unknown`, and it needs checking.
@Suite struct StopWaitingTests {
    @Test func stoppingTheWaitMakesTheEntryUnknownAtOnce() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let c = try await simulatorController(dir, timeoutMs: 600_000)
        #expect(await c.stopWaiting() == nil)   // nothing in flight: nothing happens
        let saleTask = Task { await c.perform(sale(909)) }   // 9.09: the terminal never answers
        #expect(await eventuallyAsync { await c.inFlight()?.entry.state == .sent })
        let started = Date()
        guard case .unknown(let stopped)? = await c.stopWaiting() else { Issue.record("not stopped"); return }
        #expect(stopped.state == .unknown)
        let outcome = await saleTask.value
        #expect(Date().timeIntervalSince(started) < 60)   // at once, not after the 600 s timeout (slack for a loaded machine)
        guard case .unknown(let e) = outcome else { Issue.record("expected unknown, got \(outcome)"); return }
        #expect(e.id == stopped.id && e.note?.contains("stopped waiting") == true)
        #expect(try c.journal.entry(id: e.id)?.state == .unknown)
        #expect(await c.unresolved().map(\.id) == [e.id])
        #expect(await c.inFlight() == nil)
        // The till is free for the next sale, once the cashier confirmed the unknown one was checked.
        guard case .answered = await c.perform(sale(100), confirmingUnknown: [e.id]) else { Issue.record("next sale refused"); return }
        await c.shutdown()
    }
}
