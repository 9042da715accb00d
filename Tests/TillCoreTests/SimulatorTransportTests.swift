import Foundation
import Synchronization
import Testing
@testable import TillCore
import TillIO
import TillProtocol
import TillSimulator
import TillSimulatorTransport
#if canImport(Glibc)
import Glibc
#endif

/// The built-in simulator reads its state log on a task of its own, beside till's start.
@Suite struct SimulatorTransportTests {
    final class Collected: Sendable {
        private let items = Mutex<[TransportEvent]>([])
        func add(_ e: TransportEvent) { items.withLock { $0.append(e) } }
        var answers: [IncomingAnswer] {
            items.withLock { $0.compactMap { if case .answer(let a) = $0 { return a }; return nil } }
        }
        var readies: Int {
            items.withLock { $0.filter { if case .ready = $0 { return true }; return false }.count }
        }
    }

    /// A folder with a journal and a simulator log that is not one.
    static func damagedLog() throws -> (TempDir, String, Journal) {
        let dir = TempDir()
        let statePath = dir.path + "/simulator-state.json"
        try AtomicFile.write("this is not the simulator's log\n", to: statePath, mode: 0o600)
        return (dir, statePath, try Journal(path: dir.path + "/journal.sqlite"))
    }

    static func controller(_ journal: Journal, _ statePath: String) -> TillController {
        TillController(transport: SimulatorTransport(config: SimulatorConfig(speed: 0), statePath: statePath), journal: journal,
                       caller: testCaller, timeoutMs: 60_000)
    }

    /// A log that cannot be read does not stop till: the cashier is told at once, and every request is certainly not
    /// sent (the terminal was never reached), never unknown.
    @Test func aDamagedLogLeavesTheTerminalUnreachableAndEveryRequestNeverSent() async throws {
        let (dir, statePath, journal) = try Self.damagedLog(); defer { dir.cleanup() }
        let c = Self.controller(journal, statePath)
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

    /// The log moved away, the next till starts its simulator afresh, as the status line says.
    @Test func aTillStartedAgainAfterTheDamagedLogIsMovedAwaySells() async throws {
        let (dir, statePath, journal) = try Self.damagedLog(); defer { dir.cleanup() }
        let c = Self.controller(journal, statePath)
        try await c.start()
        let first = await c.perform(sale(1000))
        guard case .transportError(_, let said) = first else { Issue.record("expected never sent, got \(first)"); await c.shutdown(); return }
        #expect(said.contains("move that file away, then start till again"), "\(said)")
        await c.shutdown()
        #expect(rename(statePath, statePath + ".moved") == 0)
        let again = Self.controller(journal, statePath)
        try await again.start()
        #expect(await again.perform(sale(1000)).journalEntry?.state == .approved)
        await again.shutdown()
    }

    /// A till stopped before its simulator's log is read never starts the simulator: started with no sink, its first
    /// turn would deliver the answers that fell due while no till ran into nothing, and save the state without them.
    @Test func aStartThenStopDoesNotSwallowAPendingAnswer() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let cfg = SimulatorConfig(speed: 0.5)   // card 1.5 s + host 0.5 s: the answer is due 2 s after the sale

        // Run 1: the sale is taken, its answer is not due yet when till stops. On a loaded machine the answer may come
        // before the stop; then again, on a fresh state file.
        var state = ""
        var due: Int64?
        for attempt in 1...5 where due == nil {
            state = dir.path + "/simulator-state-\(attempt).json"
            let t1 = SimulatorTransport(config: cfg, statePath: state)
            let got1 = Collected()
            _ = try await t1.start(sink: { got1.add($0) })
            let url = TerminalRequest(caller: testCaller, request: sale(4100, ctid: "ctid-pending-\(attempt)")).url
            try await t1.send(id: "r1", url: url)
            let r1 = try await t1.runner()
            _ = await eventuallyAsync(10) { r1.nextDueMs != nil }
            await t1.stop()
            if got1.answers.isEmpty { due = r1.nextDueMs }
        }
        // The answer falls due while no till runs.
        let dueMs = try #require(due, "every attempt was answered before its stop")
        while WallClock.nowMs() <= dueMs { try await Task.sleep(nanoseconds: 50_000_000) }

        // Run 2: a till that starts and stops at once (a quick command, a till quit at its first frame).
        // Its log read takes a while (held here by `<state>.lock`, as a big log or another till's compaction would).
        let fd = open(state + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        #expect(fd >= 0 && flock(fd, LOCK_EX) == 0)
        let t2 = SimulatorTransport(config: cfg, statePath: state)
        let got2 = Collected()
        _ = try await t2.start(sink: { got2.add($0) })
        // It quits before the log is read, and its stop does not wait for the reading (the lock is let go whatever
        // happens, so that a stop that waits fails here instead of hanging the test).
        let stopped = Collected()
        let stopping = Task { await t2.stop(); stopped.add(.ready("stopped")) }
        let stoppedAtOnce = await eventuallyAsync(30) { stopped.readies == 1 }
        flock(fd, LOCK_UN); close(fd)
        await stopping.value
        #expect(stoppedAtOnce, "stop waited for the log")
        // Still pending in the state after run 2, unless run 2's runner (started with no sink) consumed it.
        #expect(try await t2.runner().nextDueMs != nil, "run 2's runner took the pending answer")

        // Run 3: the next till.
        let t3 = SimulatorTransport(config: cfg, statePath: state)
        let got3 = Collected()
        _ = try await t3.start(sink: { got3.add($0) })
        _ = await eventuallyAsync(10) { !got3.answers.isEmpty }
        await t3.stop()

        let delivered = got2.answers.count + got3.answers.count
        #expect(delivered == 1, "the pending answer was delivered \(delivered) times (run 2: \(got2.answers.count), run 3: \(got3.answers.count))")
    }

    /// A request sent while the log is still being read waits, and its answer comes through the sink once: many fresh
    /// transports, each sending at once after start.
    @Test func aSendRacingTheStartIsAnsweredOnce() async throws {
        for round in 0..<30 {
            let dir = TempDir(); defer { dir.cleanup() }
            let t = SimulatorTransport(config: SimulatorConfig(speed: 0), statePath: dir.path + "/simulator-state.json")
            let got = Collected()
            async let started: [IncomingAnswer] = t.start(sink: { got.add($0) })
            let url = TerminalRequest(caller: testCaller, request: sale(100 + round, ctid: "ctid-\(round)")).url
            try await t.send(id: "q\(round)", url: url)
            _ = try await started
            #expect(await eventuallyAsync(10) { got.answers.count == 1 }, "round \(round): \(got.answers.count) answers")
            await t.stop()   // waits for the simulator's thread: whatever it was to deliver, it has
            #expect(got.answers.count == 1)
        }
    }

    /// A started till whose simulator is still reading its log: held open by holding `<state>.lock` (the descriptor
    /// returned; closing it lets the reading go on), as another till's reading of it does; a long log gives the same
    /// window.
    static func startedWhileTheLogIsHeld(_ dir: TempDir, speed: Double) async throws -> (Int32, SimulatorTransport, TillController) {
        let statePath = dir.path + "/simulator-state.json"
        let fd = open(statePath + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        #expect(fd >= 0 && flock(fd, LOCK_EX) == 0)
        let t = SimulatorTransport(config: SimulatorConfig(speed: speed), statePath: statePath)
        let c = TillController(transport: t, journal: try Journal(path: dir.path + "/journal.sqlite"), caller: testCaller,
                               timeoutMs: 60_000, abortWaitMs: 10_000)
        try await c.start()
        return (fd, t, c)
    }

    /// A sale and an abort pressed while the log is still being read reach the terminal in that order, and the sale is
    /// aborted. When both waited for the log on their own, the abort could go first ("nothing to abort") and the sale
    /// was charged.
    @Test func anAbortPressedWhileTheLogIsReadAbortsTheSale() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let (fd, t, c) = try await Self.startedWhileTheLogIsHeld(dir, speed: 1)
        let saleTask = Task { [c] in await c.perform(sale(2500)) }
        #expect(await eventuallyAsync { await c.inFlight() != nil })
        let abortTask = Task { [c] in await c.abort() }
        #expect(await eventuallyAsync { await c.inFlight()?.abortRequested == true })
        // The abort is handed to the transport right after it is marked; this pause only makes sure it waits beside
        // the sale before the log is let go. An abort handed over after that aborts the sale too: the test cannot
        // fail for it, only test less.
        try await Task.sleep(nanoseconds: 200_000_000)
        flock(fd, LOCK_UN); close(fd)
        let ab = await abortTask.value
        let r = await saleTask.value
        let ledger = try await t.runner().state.transactions.map { "\($0.clientTransactionId ?? "-") approved=\($0.approved)" }
        #expect(r.journalEntry?.state != .approved, "abort: \(ab)\nsale: \(r)\nterminal: \(ledger)")
        await c.shutdown()
    }

    /// A sale still waiting for the log when till stops was never handed to the terminal: the journal says "never
    /// sent", and the terminal, once its log is read, never runs it. Journaled unknown, the next start's recovery asked
    /// the terminal and found no record, leaving the cashier a question the stop had already answered.
    @Test func aSaleWaitingForTheLogWhenTillStopsIsNeverSent() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let (fd, t, c) = try await Self.startedWhileTheLogIsHeld(dir, speed: 0)
        let saleTask = Task { [c] in await c.perform(sale(2500, ctid: "ctid-waiting")) }
        #expect(await eventuallyAsync { await c.inFlight() != nil })
        await c.shutdown()
        flock(fd, LOCK_UN); close(fd)
        let r = await saleTask.value
        let entry = try #require(r.journalEntry, "\(r)")
        #expect(entry.state == .resolved && (entry.note ?? "").hasPrefix("Never sent"), "\(entry.state) \(entry.note ?? "")")
        #expect(await c.unresolved().isEmpty)
        // The terminal, its log read, has no such sale.
        let ledger = try await t.runner().state.transactions.map { $0.clientTransactionId ?? "-" }
        #expect(!ledger.contains("ctid-waiting"), "\(ledger)")
    }
}
