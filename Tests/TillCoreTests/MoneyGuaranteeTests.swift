import Foundation
import GRDB
import Testing
@testable import TillCore
import TillIO
import TillProtocol
import TillSimulator
import TillSimulatorTransport
#if canImport(Glibc)
import Glibc
#endif

/// The terminal side of a file-drop folder, driven by the test: it claims each request (rename into `claimed/`, the
/// contract's claim), answers with what the test says — a real answer of the pure simulator, or one tampered with
/// the way a confused or hostile peer would.
final class ScriptedPeer: @unchecked Sendable {
    let dir: String
    let terminal = TerminalSimulator(config: SimulatorConfig(speed: 0))
    init(_ dir: String) {
        self.dir = dir
        try? Path.makeDirectories(dir + "/claimed")
    }

    /// Waits (up to 60 s: a deadline for a loaded machine, where till's synced writes before the drop can stall for
    /// seconds behind other processes' writes) for the next request file; claims it; returns its id and URL.
    func nextRequest() async -> (id: String, url: String)? {
        let end = Date().addingTimeInterval(60)
        while Date() < end {
            for name in Path.list(dir + "/requests") where name.hasSuffix(".url") && !name.hasPrefix(".") {
                let claimed = dir + "/claimed/" + name
                guard rename(dir + "/requests/" + name, claimed) == 0 else { continue }
                let text = (AtomicFile.read(claimed) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                return (String(name.dropLast(4)), text)
            }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        return nil
    }

    /// Waits (up to 30 s) until till has handled the answer dropped as `name`: journaled it and moved it out of
    /// `responses/` (to `archive/` or `rejected/`). The signal that one answer came before the next is dropped.
    func taken(_ name: String) async -> Bool {
        await eventuallyAsync(30) { !Path.exists(self.dir + "/responses/" + name + ".url") }
    }

    /// The simulator's own answer(s) to a request URL, at once.
    func answers(to url: String) -> [String] { terminal.receive(url, nowMs: WallClock.nowMs()) }

    /// Opens batch `name` on `c`, answered by this terminal; false (said) when no request came or it was not approved.
    func opensBatch(_ name: String, on c: TillController) async throws -> Bool {
        let open = Task { await c.perform(.batch(BatchRequest(command: .open, batchName: name))) }
        guard let r = await nextRequest() else { Issue.record("no request"); return false }
        try drop(answers(to: r.url)[0], as: r.id)
        let approved = await open.value.journalEntry?.state == .approved
        #expect(approved)
        return approved
    }

    /// Answers request `r` with this terminal's own answer (a sale's approval) under its id, and waits for `task`, the
    /// request's flight, to end approved. Returns the answer.
    @discardableResult
    func approve(_ r: (id: String, url: String), of task: Task<ActionOutcome, Never>,
                 sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let approval = answers(to: r.url)[0]
        try drop(approval, as: r.id)
        #expect(await task.value.journalEntry?.state == .approved, sourceLocation: sourceLocation)
        return approval
    }

    /// Drops an answer file, atomically, under `name` (a request id, or any stray name).
    func drop(_ callbackURL: String, as name: String) throws {
        try AtomicFile.write(callbackURL + "\n", to: dir + "/responses/" + name + ".url")
    }
}

/// A controller on a file-drop folder inside `dir`, started. The timeout defaults to a minute, so that an answer the
/// test drops is handled before it on a loaded machine; a test whose subject is the timeout passes a short one.
func fileDropController(_ dir: TempDir, timeoutMs: Int64 = 60_000) async throws -> (TillController, FileDropTransport) {
    let transport = FileDropTransport(directory: dir.path + "/drop")
    let c = TillController(transport: transport, journal: try Journal(path: dir.path + "/journal.sqlite"), caller: testCaller,
                           timeoutMs: timeoutMs)
    try await c.start()
    return (c, transport)
}

/// A controller on a file-drop folder in `dir` (`fileDropController`), its peer, `request` being performed and the
/// request as the peer received it; nil (said, the controller shut down) when no request came. `graceMs`: how long a
/// flight waits on after a failure that does not name it (the controller's 3 s unless a test that needs an answer
/// within it widens it for a loaded machine).
func fileDropSent(_ dir: TempDir, _ request: Request, graceMs: Int64? = nil) async throws
    -> (TillController, ScriptedPeer, Task<ActionOutcome, Never>, (id: String, url: String))? {
    let (c, _) = try await fileDropController(dir)
    if let graceMs { await c.setUnnamedAnswerGrace(graceMs) }
    let peer = ScriptedPeer(dir.path + "/drop")
    let task = Task { await c.perform(request) }
    guard let r = await peer.nextRequest() else { Issue.record("no request"); await c.shutdown(); return nil }
    return (c, peer, task, r)
}

/// How long a test watches that answers already journaled, read again, are not journaled again: a check that nothing
/// happens, so a window, not a signal.
let reReadAnswerWindowNs: UInt64 = 200_000_000

/// Replaces `name=value` in a callback URL.
func replacing(_ url: String, _ name: String, with value: String) -> String {
    var parts = url.split(separator: "?", maxSplits: 1).map(String.init)
    let fields = parts[1].split(separator: "&").map { f -> String in
        f.hasPrefix(name + "=") ? name + "=" + value : String(f)
    }
    parts[1] = fields.joined(separator: "&")
    return parts.joined(separator: "?")
}

@Suite(.serialized) struct MoneyGuaranteeTests {
    // Guarantee 1 — defect: a reused client transaction id made the terminal replay its first approval, and till
    // journaled a second approved sale (same STAN, same transaction id) that the report counted.
    @Test func reusedReferenceIsRefusedBeforeAnythingIsSent() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let c = try await simulatorController(dir)
        let first = await c.perform(sale(1200, ctid: "order-1001"))
        #expect(first.journalEntry?.state == .approved)
        let again = await c.perform(sale(1200, ctid: "order-1001"))
        guard case .invalid(let errors) = again else { Issue.record("expected a refusal, got \(again)"); await c.shutdown(); return }
        #expect(errors.first?.field == "clientTransactionId" && errors.first?.message.contains("already used") == true)
        #expect(again.exitCode == 2)
        #expect(try c.journal.count() == 1)
        #expect(try await c.running().sales.count == 1)
        await c.shutdown()
    }

    // Guarantee 1 — an answer that repeats an approval already journaled is a duplicate, never a new sale.
    @Test func answerRepeatingAJournaledApprovalIsADuplicate() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        guard let (c, peer, firstTask, r1) = try await fileDropSent(dir, sale(1200)) else { return }
        let approval = try await peer.approve(r1, of: firstTask)

        let secondTask = Task { await c.perform(sale(1200)) }
        guard let r2 = await peer.nextRequest() else { Issue.record("no second request"); await c.shutdown(); return }
        let ctid2 = try TerminalRequest.parse(r2.url).request.clientTransactionId ?? ""
        try peer.drop(replacing(approval, "clientTransactionId", with: ctid2), as: r2.id)
        let second = await secondTask.value
        #expect(second.journalEntry?.state == .duplicate)
        #expect(second.exitCode == 3)
        #expect(try await c.running().sales.count == 1)
        let report = try c.journal.report(for: try c.journal.reportBatch(.current))   // the batch till opened for the payments
        #expect(report.sales.count == 1 && report.duplicates.count == 1)
        await c.shutdown()
    }

    // Guarantee 1 — defect: an approval for 0.01 when 12.00 was asked was shown APPROVED with exit 0 and counted.
    @Test func approvalForAnotherAmountNeedsReviewAndStaysOutOfTheTotals() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        guard let (c, peer, task, r) = try await fileDropSent(dir, sale(1200)) else { return }
        try peer.drop(replacing(peer.answers(to: r.url)[0], "amount", with: "1"), as: r.id)
        let outcome = await task.value
        guard case .answered(let e) = outcome else { Issue.record("expected an answer, got \(outcome)"); await c.shutdown(); return }
        #expect(e.state == .review && outcome.exitCode == 3)
        #expect(e.note?.contains("0.01") == true && e.note?.contains("12.00") == true)
        #expect(try c.journal.requestedAmounts(of: e.id).amount == Money(cents: 1200))
        #expect(try await c.running().sales.count == 0)
        let report = try c.journal.report(for: try c.journal.reportBatch(.current))
        #expect(report.sales.count == 0 && report.review.count == 1)
        try await c.resolve(entryId: e.id, charged: true, note: "receipt shows 0.01")
        #expect(try await c.running().sales == Tally(count: 1, cents: 1))
        await c.shutdown()
    }

    // Guarantee 2 — defect: answers that matched nothing (no action, another reference, a stray batch open) were
    // counted as approved sales, and a stray `batch open` closed the real shift and opened a phantom one.
    @Test func unmatchedAnswersAreJournaledOnceNeverCountedNeverChangeTheBatch() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        var (c, _) = try await fileDropController(dir)
        let peer = ScriptedPeer(dir.path + "/drop")
        let open = Task { [c] in await c.perform(.batch(BatchRequest(command: .open, batchName: "Real shift"))) }
        guard let r = await peer.nextRequest() else { Issue.record("no request"); await c.shutdown(); return }
        try peer.drop(peer.answers(to: r.url)[0], as: r.id)
        #expect(await open.value.journalEntry?.state == .approved)
        let shift = await c.batch()
        #expect(shift.isOpen && shift.name == "Real shift")

        let stray = [
            "interapp-callback://result?status=success&message=Transaction%20successful.&amount=5000&tipAmount=0&transactionId=0a0b",
            "interapp-callback://result?status=success&message=Transaction%20successful.&action=sale&clientTransactionId=not-ours&amount=7000&tipAmount=0&referenceNumber=000099&transactionId=aa11",
            "interapp-callback://result?status=success&message=Batch%20opened&action=batch&command=open&batchName=Phantom&batchId=11111111-2222-3333-4444-555555555555",
        ]
        for (i, s) in stray.enumerated() { try peer.drop(s, as: "stray-\(i)") }
        #expect(await eventuallyAsync { (try? c.journal.count()) == 4 })
        #expect(try await c.running().sales.count == 0)
        #expect(await c.batch().name == "Real shift")
        let rows = await c.entries(JournalFilter()).filter { $0.requestId.hasPrefix("unmatched-") }
        #expect(rows.count == 3 && rows.allSatisfy { $0.state == .review })

        // The same answers again after a restart, from files that could not be archived: still one row each.
        await c.shutdown()
        let archive = dir.path + "/drop/archive"
        try FileManager.default.removeItem(atPath: archive)
        #expect(FileManager.default.createFile(atPath: archive, contents: Data()))   // a file where the folder was: moves fail
        for (i, s) in stray.enumerated() { try peer.drop(s, as: "again-\(i)") }
        (c, _) = try await fileDropController(dir)
        #expect(await eventuallyAsync { Path.list(dir.path + "/drop/responses").count == 3 })
        // Nothing must happen here, and nothing marks an answer read and found journaled already: wait a window.
        try await Task.sleep(nanoseconds: reReadAnswerWindowNs)
        #expect(try c.journal.count() == 4)
        #expect(await c.batch().name == "Real shift")
        await c.shutdown()
    }

    // Guarantee 2 — a second, different answer for a sale already settled is kept for review, not counted.
    @Test func secondDifferentAnswerForASettledSaleIsReviewedNotCounted() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        guard let (c, peer, task, r) = try await fileDropSent(dir, sale(1500, ctid: "order-7")) else { return }
        let approval = try await peer.approve(r, of: task)
        try peer.drop(replacing(replacing(approval, "transactionId", with: "ffff"), "referenceNumber", with: "000777"), as: "second")
        #expect(await eventuallyAsync { (try? c.journal.count()) == 2 })
        #expect(try await c.running().sales == Tally(count: 1, cents: 1500))
        let open = await c.unresolved()
        #expect(open.count == 1 && open.first?.state == .review)
        await c.shutdown()
    }

    // Guarantee 5 — defect: two processes on one journal; another process's recovery rewrote an approved sale to
    // unknown, and both sent to the terminal at once.
    @Test func oneSenderPerJournalAndRecoveryNeverTouchesAnotherTillsFlight() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let (a, _) = try await fileDropController(dir)
        let peer = ScriptedPeer(dir.path + "/drop")
        let task = Task { await a.perform(sale(2500)) }
        guard let r = await peer.nextRequest() else { Issue.record("no request"); await a.shutdown(); return }
        // B: another till on the same journal (its own lock file descriptor, as another process has).
        let bTransport = FileDropTransport(directory: dir.path + "/drop-b")
        let b = TillController(transport: bTransport, journal: try Journal(path: dir.path + "/journal.sqlite"), caller: testCaller)
        try await b.start()
        let refused = await b.perform(sale(100))
        guard case .otherTillBusy(let why) = refused else { Issue.record("expected busy, got \(refused)"); return }
        #expect(why.contains("another till") && refused.exitCode == 3)
        _ = await b.recover()
        let inFlight = try #require(try a.journal.entries(JournalFilter()).first)
        // Untouched by B's recovery: still waiting (pending until A has marked it sent, which races the peer's claim).
        #expect(inFlight.state == .sent || inFlight.state == .pending, "\(inFlight.state.rawValue)")
        try peer.drop(peer.answers(to: r.url)[0], as: r.id)
        let approved = await task.value.journalEntry
        #expect(approved?.state == .approved)
        // A stale writer (recovery that read "sent" earlier) can no longer overwrite the approval.
        #expect(try b.journal.transition(approved!.id, to: .unknown, note: "stale", from: [.pending, .sent]) == false)
        #expect(try b.journal.entry(id: approved!.id)?.state == .approved)
        // Once A is done, B may send.
        #expect(!SenderLock(journalPath: dir.path + "/journal.sqlite").isHeldElsewhere())
        await a.shutdown(); await b.shutdown()
    }

    // Guarantee 5 — defect: the built-in simulator issued the same STAN to two till processes sharing its state.
    @Test func builtInSimulatorIsOneTerminalAcrossProcesses() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let state = dir.path + "/simulator-state.json"
        func controller(_ n: Int) async throws -> TillController {
            let t = SimulatorTransport(config: SimulatorConfig(speed: 0), statePath: state)
            let c = TillController(transport: t, journal: try Journal(path: dir.path + "/j\(n).sqlite"), caller: testCaller)
            try await c.start()
            return c
        }
        let a = try await controller(1), b = try await controller(2)   // both loaded the same state
        var stans: [String] = []
        for c in [a, b, a, b] {
            let o = await c.perform(sale(1000))
            stans.append(o.journalEntry?.response?.referenceNumber ?? "none")
        }
        #expect(Set(stans).count == 4, "STANs: \(stans)")
        await a.shutdown(); await b.shutdown()
    }

    // Guarantee 4 — defect: with the disk full when the answer arrived, the approved answer was dropped and the entry
    // left `sent` after a 90 s wait.
    @Test func journalFailureWhenTheAnswerArrivesIsLoudAndTheAnswerIsKeptForTheNextStart() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        var (c, _) = try await fileDropController(dir, timeoutMs: 60_000)
        let log = EventLog(c)
        let peer = ScriptedPeer(dir.path + "/drop")
        let started = Date()
        let task = Task { [c] in await c.perform(sale(1800)) }
        guard let r = await peer.nextRequest() else { Issue.record("no request"); await c.shutdown(); return }
        c.journal.faults.failWrites()
        try peer.drop(peer.answers(to: r.url)[0], as: r.id)
        let outcome = await task.value
        guard case .journalFailed(_, let message) = outcome else { Issue.record("expected a journal failure, got \(outcome)"); return }
        #expect(Date().timeIntervalSince(started) < 30, "reported at once, not after the 60 s timeout")
        #expect(message.contains("APPROVED") && outcome.exitCode == 3)
        #expect(await eventuallyAsync { !log.all.filter { if case .journalProblem = $0 { return true }; return false }.isEmpty })
        #expect(Path.list(dir.path + "/drop/responses") == [r.id + ".url"], "the answer stays for the next start")
        await c.shutdown()
        c.journal.faults.clear()
        (c, _) = try await fileDropController(dir)
        let e = try #require(try c.journal.entry(requestId: r.id))
        #expect(e.state == .approved)
        #expect(try await c.running().sales.count == 1)
        await c.shutdown()
    }

    // The cashier stops waiting while the journal cannot be written: loud, with what till knows after the complaint,
    // and the sale still waits in the journal for its answer or recovery.
    @Test func stoppingTheWaitWhileTheJournalFailsIsLoud() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let (c, _) = try await fileDropController(dir)
        let peer = ScriptedPeer(dir.path + "/drop")
        let task = Task { [c] in await c.perform(sale(1900)) }
        guard await peer.nextRequest() != nil else { Issue.record("no request"); await c.shutdown(); return }   // never answered
        #expect(await eventuallyAsync { await c.inFlight()?.entry.state == .sent })
        c.journal.faults.failWrites()
        let stopped = await c.stopWaiting()
        guard case .journalFailed(let e?, let message)? = stopped else { Issue.record("expected a journal failure, got \(String(describing: stopped))"); return }
        #expect(message.contains("could not record") && message.hasSuffix("The cashier stopped waiting: the outcome is unknown; check the terminal."), "\(message)")
        #expect(e.state == .unknown && stopped?.exitCode == 3)
        #expect(await task.value == stopped)
        c.journal.faults.clear()
        #expect(try c.journal.entry(id: e.id)?.state == .sent)
        await c.shutdown()
    }

    // A request nobody claimed is withdrawn at its timeout, never sent, while writing "unknown" first failed: what the
    // cashier reads says the complaint and "never sent", never "the outcome is unknown".
    @Test func withdrawnAtTheTimeoutAfterAFailedUnknownWriteDoesNotSayUnknown() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let (c, _) = try await fileDropController(dir)
        // No peer: the request stays unclaimed in requests/, so the timeout withdraws it.
        let task = Task { [c] in await c.perform(sale(1700), hooks: true, timeoutMs: 600_000) }
        #expect(await eventuallyAsync { await c.inFlight()?.entry.state == .sent })
        guard let id = await c.inFlight()?.entry.requestId else { Issue.record("no flight"); await c.shutdown(); return }
        c.journal.faults.failWrites(1)            // only the unknown transition fails
        await c.timedOut(id)
        let r = await task.value
        c.journal.faults.clear()
        guard case .journalFailed(let e?, let message) = r else { Issue.record("expected journalFailed, got \(r)"); await c.shutdown(); return }
        let stored = try c.journal.entry(id: e.id)
        #expect(stored?.state == .resolved && e.state == .resolved)
        // What the cashier reads must not contradict the journal: the request was withdrawn, never sent.
        #expect(!message.contains("the outcome is unknown; check the terminal"), "\(message)")
        #expect(message.contains("could not record") && message.hasSuffix("so till withdrew it."), "\(message)")
        await c.shutdown()
    }

    // Guarantee 6 — a new sale after an unknown outcome needs a confirmation that names the unknown sale.
    @Test func newSaleAfterAnUnknownOutcomeNeedsConfirmationNamingIt() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let (c, _) = try await fileDropController(dir)
        let peer = ScriptedPeer(dir.path + "/drop")
        // Its own deadline far off, so that the peer certainly claims it first (an unclaimed request is withdrawn at
        // the timeout, never sent); once claimed, the timeout is made to come, as the controller's timer would.
        let first = Task { await c.perform(sale(1313), hooks: true, timeoutMs: 600_000) }
        guard let claimed = await peer.nextRequest() else { Issue.record("no request"); await c.shutdown(); return }   // never answered
        #expect(await eventuallyAsync { await c.inFlight()?.entry.state == .sent })
        await c.timedOut(claimed.id)
        guard case .unknown(let unknown) = await first.value else { Issue.record("expected unknown"); return }
        let next = await c.perform(sale(500))
        guard case .needsConfirmation(let named) = next else { Issue.record("expected a confirmation, got \(next)"); return }
        #expect(named.map(\.id) == [unknown.id] && next.exitCode == 3)
        #expect(try c.journal.count() == 1, "nothing journaled or sent")
        let confirmed = Task { await c.perform(sale(500), confirmingUnknown: [unknown.id]) }
        guard let r = await peer.nextRequest() else { Issue.record("not sent after confirming"); return }
        try peer.drop(peer.answers(to: r.url)[0], as: r.id)
        #expect(await confirmed.value.journalEntry?.state == .approved)
        // Confirmed once is confirmed: the next sale goes straight out.
        let third = Task { await c.perform(sale(600)) }
        guard let r3 = await peer.nextRequest() else { Issue.record("third not sent"); return }
        try peer.drop(peer.answers(to: r3.url)[0], as: r3.id)
        #expect(await third.value.journalEntry?.state == .approved)
        await c.shutdown()
    }

    // Defect: `--journal` through a symlink, or any path that is not a journal, was chmod'ed to 0600 before it was
    // checked (seen changing a system file).
    @Test func aPathThatIsNotATillJournalIsNeverTouched() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let target = dir.path + "/passwd-like"
        try "root:x:0:0\n".write(toFile: target, atomically: true, encoding: .utf8)
        chmod(target, 0o644)
        symlink(target, dir.path + "/link.sqlite")
        func mode(_ p: String) -> mode_t { var st = stat(); stat(p, &st); return st.st_mode & 0o777 }
        #expect(throws: JournalOpenError.self) { _ = try Journal(path: dir.path + "/link.sqlite") }
        #expect(throws: JournalOpenError.self) { _ = try Journal(path: target) }
        #expect(mode(target) == 0o644)
        #expect(AtomicFile.read(target) == "root:x:0:0\n")
        // Someone else's SQLite database: refused, left as it is.
        let foreign = dir.path + "/other.sqlite"
        try DatabaseQueue(path: foreign).write { db in try db.execute(sql: "CREATE TABLE invoices (n INTEGER)") }
        chmod(foreign, 0o644)
        let before = try Data(contentsOf: URL(fileURLWithPath: foreign))
        #expect(throws: JournalOpenError.self) { _ = try Journal(path: foreign) }
        #expect(mode(foreign) == 0o644)
        // Not a byte changed, no WAL made: the writer's set-up turned it to WAL before it was found foreign.
        #expect(try Data(contentsOf: URL(fileURLWithPath: foreign)) == before)
        #expect(!FileManager.default.fileExists(atPath: foreign + "-wal"))
        #expect(throws: JournalOpenError.self) { _ = try Journal(path: "") }
        // A real journal is still opened and made private.
        let real = dir.path + "/journal.sqlite"
        _ = try Journal(path: real)
        chmod(real, 0o644)
        _ = try Journal(path: real)
        #expect(mode(real) == 0o600)
    }
}

/// Guarantee 5 with real processes: two `till` processes on one journal.
@Suite(.serialized) struct TwoTillProcessesTests {
    // Also the regression test of a defect this work brought in and this test found: opening and closing the journal
    // file by hand (to check its header and chmod it) dropped the process's SQLite locks, so a reader process that
    // ended deleted the WAL under the writer, and the writer's "unknown" was lost (the entry stayed "sent").
    @Test func aSecondTillIsRefusedWhileTheFirstWaitsAndNeitherCorruptsTheJournal() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let common = ["--journal", dir.path + "/journal.sqlite"]
        // The first waits for a card that never comes (9.09 at real speed); it is stopped with SIGTERM at the end, so
        // the test does not depend on how fast a loaded machine starts processes.
        let first = Process()
        first.executableURL = URL(fileURLWithPath: tillBinary)
        first.arguments = ["sale", "--amount", "9.09", "--timeout", "600"] + common
        var env = ProcessInfo.processInfo.environment
        env["XDG_CONFIG_HOME"] = "/nonexistent-till-config"
        first.environment = env
        first.standardOutput = FileHandle.nullDevice
        first.standardError = FileHandle.nullDevice
        try first.run()
        defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }
        let lock = SenderLock(journalPath: dir.path + "/journal.sqlite")
        #expect(await eventuallyAsync(120) { lock.isHeldElsewhere() }, "the first till never took the sender lock")
        let second = try await runTillCapturing(["sale", "--amount", "4", "--sim-speed", "0"] + common)
        #expect(second.status == 3 && second.errors.contains("BUSY") && second.errors.contains("another till on this journal"))
        // Read-only commands never wait for the sender: done while the first still holds the lock.
        let listed = try await runTillCapturing(["journal"] + common)
        #expect(listed.status == 0 && listed.output.contains("9.09"))
        #expect(lock.isHeldElsewhere(), "the journal was listed while the first till still waited")
        first.terminate()   // SIGTERM: the entry in flight becomes unknown (guarantee 6), then till ends
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { first.waitUntilExit(); c.resume() }
        }
        let journal = try Journal(path: dir.path + "/journal.sqlite")
        let sales = try journal.entries(JournalFilter()).filter { $0.action == .sale }
        #expect(sales.count == 1 && sales[0].state == .unknown, "only the first till's sale was journaled, as unknown: \(sales.map(\.state))")
        #expect(!lock.isHeldElsewhere())
    }

    @Test func twoTillsInTurnMeetOneTerminalWithDistinctSTANs() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let common = ["--journal", dir.path + "/journal.sqlite", "--sim-speed", "0"]
        var stans: [String] = []
        for amount in ["1", "2", "3"] {
            #expect(try await runTillCapturing(["sale", "--amount", amount] + common).status == 0)
        }
        let journal = try Journal(path: dir.path + "/journal.sqlite")
        stans = try journal.entries(JournalFilter()).compactMap { $0.response?.referenceNumber }
        #expect(stans.count == 3 && Set(stans).count == 3, "STANs \(stans)")
    }
}

/// A journal carries SQLite's application_id "TILL" in its header (a migration sets it): a start knows the file is
/// till's without opening a connection to look at its tables; a file without the mark is looked at first.
@Suite struct JournalMarkTests {
    @Test func aJournalIsMarkedAndSomeoneElsesDatabaseIsNot() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.path + "/j.sqlite"
        try Journal(path: path).close()
        #expect(Journal.carriesJournalMark(path) == true)
        let theirs = dir.path + "/theirs.sqlite"
        try DatabaseQueue(path: theirs).write { db in try db.execute(sql: "CREATE TABLE t (n INTEGER)") }
        #expect(Journal.carriesJournalMark(theirs) == false)
        #expect(throws: JournalOpenError.self) { _ = try Journal(path: theirs) }
        try "not sqlite".write(toFile: dir.path + "/text", atomically: true, encoding: .utf8)
        #expect(Journal.carriesJournalMark(dir.path + "/text") == nil)
    }
}
