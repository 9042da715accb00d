import Foundation
import Testing
@testable import TillCore
import TillIO
import TillProtocol
import TillSimulator

/// Each transport against the simulator running as a separate process (`till simulate`).
@Suite(.serialized) struct TransportTests {
    @Test func fileDropRoundTripsAndRejectsGarbage() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let drop = dir.path + "/drop"
        try Path.makeDirectories(drop + "/responses")
        // Left in the folder while till was down: a file with the wrong name, and one that is not a callback URL.
        try AtomicFile.write("hello\n", to: drop + "/responses/notes.txt")
        try AtomicFile.write("this is not a URL\n", to: drop + "/responses/garbage.url")
        let sim = try Child(["simulate", "--dir", drop, "--speed", "0", "--state", dir.path + "/sim.json"])
        defer { sim.stop() }
        let journal = try Journal(path: dir.path + "/journal.sqlite")
        let c = TillController(transport: FileDropTransport(directory: drop), journal: journal, caller: testCaller, timeoutMs: 30_000)
        let log = EventLog(c)
        try await c.start()

        let r = await c.perform(sale(1250))
        guard case .answered(let e) = r else { Issue.record("expected an answer, got \(r)"); await c.shutdown(); return }
        #expect(e.state == .approved)
        #expect(Path.list(drop + "/requests").isEmpty)          // the simulator took (deleted) it
        #expect(Path.list(drop + "/responses").isEmpty)
        #expect(Path.list(drop + "/archive") == [e.requestId + ".url"])
        #expect(Set(Path.list(drop + "/rejected")) == ["garbage.url", "garbage.url.reason", "notes.txt", "notes.txt.reason"])
        #expect(AtomicFile.read(drop + "/rejected/garbage.url.reason")?.contains("not a callback URL") == true)
        #expect(Set(log.rejected.map(\.0)) == ["garbage.url", "notes.txt"])

        // Garbage arriving while till runs: rejected, and till keeps working.
        try AtomicFile.write("interapp-callback://result?message=no-status\n", to: drop + "/responses/junk.url")
        #expect(await eventuallyAsync { Path.exists(drop + "/rejected/junk.url.reason") })
        #expect(AtomicFile.read(drop + "/rejected/junk.url.reason")?.contains("status") == true)
        // An answer that matches nothing: journaled as such, archived, reported.
        try AtomicFile.write("interapp-callback://result?status=success&message=ok&action=sale&clientTransactionId=stray-1&amount=999\n",
                             to: drop + "/responses/stray.url")
        #expect(await eventuallyAsync { log.unmatched.count == 1 })
        #expect(Path.exists(drop + "/archive/stray.url"))
        #expect(try journal.entries(clientTransactionId: "stray-1").isEmpty)      // not a request of till's…
        #expect(try journal.entries(JournalFilter(text: "stray-1")).count == 1)   // …but kept in the journal

        // An approval kept for review that no entry counts: the next sale asks first, and goes once it is confirmed.
        let asked = await c.perform(sale(666))
        guard case .needsConfirmation(let list) = asked else { Issue.record("not asked: \(asked)"); await c.shutdown(); return }
        let again = await c.perform(sale(666), confirmingUnknown: Set(list.map(\.id)))
        #expect(again.journalEntry?.state == .declined)
        await c.shutdown()
    }

    @Test func fileDropWithNoPeerWithdrawsTheRequestAtTheTimeout() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let (c, _, drop) = try await startFileDropController(dir, timeoutMs: 300)
        let r = await c.perform(sale(1000))
        guard case .transportError(let e?, _) = r else { Issue.record("expected a transport error, got \(r)"); await c.shutdown(); return }
        #expect(e.state == .resolved && e.note?.contains("Never sent") == true && r.exitCode == 3)
        #expect(Path.list(drop + "/requests").isEmpty)
        await c.shutdown()
    }

    @Test func fileDropAnswerUnderAnotherNameIsMatchedByContent() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let (c, _, drop) = try await startFileDropController(dir, timeoutMs: 20_000)
        let saleTask = Task { await c.perform(sale(4200, ctid: "by-content")) }
        // A hand-made peer: takes the request, answers under a name of its own.
        #expect(await eventuallyAsync { requestFiles(drop).contains { $0.hasSuffix(".url") } })
        for name in requestFiles(drop) { unlink(drop + "/requests/" + name) }
        try AtomicFile.write("interapp-callback://result?status=success&message=ok&action=sale&clientTransactionId=by-content&amount=4200\n",
                             to: drop + "/responses/peer-answer-17.url")
        let r = await saleTask.value
        #expect(r.journalEntry?.state == .approved && r.journalEntry?.clientTransactionId == "by-content")
        #expect(Path.list(drop + "/archive") == ["peer-answer-17.url"])
        await c.shutdown()
    }

    @Test func pipeRoundTripsThroughTheSimulatorBridge() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let transport = PipeTransport(command: "'\(tillBinary)' simulate --stdio --speed 0")
        let (c, _) = try await startController(dir, transport, timeoutMs: 30_000)
        #expect(await c.perform(sale(1000)).journalEntry?.state == .approved)
        #expect(await c.perform(sale(666)).journalEntry?.state == .declined)
        #expect(await c.perform(.batch(BatchRequest(command: .open, batchName: "p"))).journalEntry?.state == .approved)
        #expect(transport.bridgeStarts == 1)
        await c.shutdown()
    }

    @Test func bridgeGarbageLineIsRejectedAndTillKeepsWaiting() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        // Prints a garbage line first, then behaves as the simulator.
        let command = "echo 'garbage from the bridge'; exec '\(tillBinary)' simulate --stdio --speed 0"
        let (c, log) = try await startController(dir, PipeTransport(command: command), timeoutMs: 30_000)
        #expect(await c.perform(sale(1500)).journalEntry?.state == .approved)
        #expect(await eventuallyAsync { log.rejected.contains { $0.1.contains("not a callback URL") } })
        await c.shutdown()
    }

    @Test func bridgeThatDiesMidRequestIsReportedAndRestarted() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let marker = dir.path + "/died-once"
        // First start: reads the request and exits 1. Every later start: the simulator.
        let command = "if [ -e '\(marker)' ]; then exec '\(tillBinary)' simulate --stdio --speed 0; else touch '\(marker)'; read x; exit 1; fi"
        let transport = PipeTransport(command: command)
        let (c, log) = try await startController(dir, transport, timeoutMs: 30_000)
        guard let e = await saleLeftUnknown(on: c, log, note: "exited with status 1", problem: "exited with status 1") else { return }
        // A new sale after an unknown one needs the cashier's confirmation naming it (guarantee 6).
        let second = await c.perform(sale(2000), confirmingUnknown: [e.id])
        #expect(second.journalEntry?.state == .approved)
        #expect(transport.bridgeStarts == 2)
        await c.shutdown()
    }

    @Test func bridgeThatAlwaysDiesNeverTakesTillDown() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let transport = PipeTransport(command: "sh -c 'read x; exit 1'")
        let (c, _) = try await startController(dir, transport, timeoutMs: 30_000)
        for amount in [100, 200] {
            let r = await c.perform(sale(amount), confirmingUnknown: Set(await c.unresolved().map(\.id)))
            #expect(r.journalEntry?.state == .unknown && r.exitCode == 3)
        }
        #expect(transport.bridgeStarts >= 2)
        #expect(await c.unresolved().count == 2)
        await c.shutdown()
    }

    @Test func bridgeThatNeverAnswersTimesOutAsUnknown() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let transport = PipeTransport(command: "sh -c 'cat > /dev/null'")
        let (c, log) = try await startController(dir, transport, timeoutMs: 300)
        guard let e = await saleLeftUnknown(on: c, log, note: "No answer within 0.3 s", problem: "did not answer in time") else { return }
        let again = await c.perform(sale(2000), confirmingUnknown: [e.id])
        #expect(again.journalEntry?.state == .unknown)
        #expect(transport.bridgeStarts == 2)
        await c.shutdown()
    }
}

/// A sale of 10.00 on `c` whose bridge fails it: its outcome unknown, the entry's note saying `note` and a transport
/// problem in `log` saying `problem`. The entry; nil (said, `c` shut down) when the outcome was anything else.
func saleLeftUnknown(on c: TillController, _ log: EventLog, note: String, problem: String,
                     sourceLocation: SourceLocation = #_sourceLocation) async -> JournalEntry? {
    let r = await c.perform(sale(1000))
    guard case .unknown(let e) = r else {
        Issue.record("expected unknown, got \(r)", sourceLocation: sourceLocation)
        await c.shutdown()
        return nil
    }
    #expect(e.note?.contains(note) == true, "\(e.note ?? "")", sourceLocation: sourceLocation)
    #expect(await eventuallyAsync { log.problems.contains { $0.contains(problem) } }, "\(log.problems)", sourceLocation: sourceLocation)
    return e
}
