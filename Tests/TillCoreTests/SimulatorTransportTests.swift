import Foundation
import Testing
@testable import TillCore
import TillIO
import TillSimulator
import TillSimulatorTransport

/// The built-in simulator reads its state log on a task of its own, beside till's start.
@Suite struct SimulatorTransportTests {
    /// A log that cannot be read does not stop till: the cashier is told at once, and every request is certainly not
    /// sent (the terminal was never reached), never unknown.
    @Test func aDamagedLogLeavesTheTerminalUnreachableAndEveryRequestNeverSent() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let statePath = dir.path + "/simulator-state.json"
        try AtomicFile.write("this is not the simulator's log\n", to: statePath, mode: 0o600)
        let journal = try Journal(path: dir.path + "/journal.sqlite")
        let c = TillController(transport: SimulatorTransport(config: SimulatorConfig(speed: 0), statePath: statePath),
                               journal: journal, caller: testCaller, timeoutMs: 60_000)
        let log = EventLog(c)
        try await c.start()
        #expect(await eventuallyAsync(60) { log.problems.contains { $0.contains("line 1 is damaged") } }, "\(log.all)")
        // The screen listens from after the start: it is told too.
        let screen = EventLog(c)
        #expect(await eventuallyAsync(60) { screen.problems.contains { $0.contains("line 1 is damaged") } }, "\(screen.all)")
        for amount in [1000, 2000] {
            let r = await c.perform(sale(amount))
            guard case .transportError(let e?, let message) = r else { Issue.record("expected never sent, got \(r)"); break }
            #expect(e.state == .resolved && r.exitCode == 3)
            #expect(message.contains("simulated terminal cannot start") && message.contains("line 1 is damaged"), "\(message)")
        }
        #expect(await c.unresolved().isEmpty)
        await c.shutdown()
        // The log is left as it was, for whoever looks into it.
        #expect(AtomicFile.read(statePath) == "this is not the simulator's log\n")
    }

    /// A sale sent while the log is still being read waits for it, and is answered by the terminal the log describes
    /// (its STANs go on from the log's, none repeats).
    @Test func aSaleSentAtOnceMeetsTheTerminalOfTheLog() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let first = try await simulatorController(dir)
        for amount in 1...30 { #expect(await first.perform(sale(amount * 100)).journalEntry?.state == .approved) }
        await first.shutdown()
        let again = try await simulatorController(dir)
        let r = await again.perform(sale(4200))
        #expect(r.journalEntry?.state == .approved, "\(r)")
        let stans = await again.entries(JournalFilter()).compactMap(\.response?.referenceNumber)
        #expect(stans.count == 31 && Set(stans).count == 31, "\(stans)")
        await again.shutdown()
    }
}
