import Foundation
import Synchronization
import Testing
@testable import TillCore
import TillIO
import TillProtocol
import TillSimulator
#if canImport(Glibc)
import Glibc
#endif

/// Collects a transport's events (tests that drive a transport without a controller).
final class TransportEventLog: Sendable {
    private let list = Mutex<[TransportEvent]>([])
    var sink: @Sendable (TransportEvent) -> Void { { [self] e in list.withLock { $0.append(e) } } }
    var all: [TransportEvent] { list.withLock { $0 } }
    var answers: [IncomingAnswer] { all.compactMap { if case .answer(let a) = $0 { return a }; return nil } }
    var rejected: [(file: String, reason: String)] { all.compactMap { if case .rejected(let f, let r) = $0 { return (f, r) }; return nil } }
    var problems: [String] { all.compactMap { if case .problem(let p) = $0 { return p }; return nil } }
}

/// The result of a call that may hang (a transport's `start` on a hostile folder), with a deadline.
final class Outcome<T: Sendable>: Sendable {
    private let value = Mutex<Result<T, any Error>?>(nil)
    func set(_ r: Result<T, any Error>) { value.withLock { $0 = r } }
    var result: Result<T, any Error>? { value.withLock { $0 } }
}

/// Opens a FIFO for writing without blocking and closes it at once: a reader stuck in `open` on it gets end of file.
func unblockFifo(_ path: String) {
    let fd = open(path, O_WRONLY | O_NONBLOCK)
    if fd >= 0 { close(fd) }
}

func approvedAnswer(ctid: String, amount: Int) -> String {
    "interapp-callback://result?status=success&message=ok&action=sale&clientTransactionId=\(ctid)&amount=\(amount)"
}

/// Request files in `requests/` (not the hidden temp files).

/// The file-drop contract (docs/transports.md): what the folder may hold, who claims a request, who withdraws it.
@Suite(.serialized) struct FileDropContractTests {
    /// How long the claim race watches that no withdrawn request is answered: a check that nothing happens, so a
    /// window, not a signal.
    static let withdrawnRequestAnswerWindowNs: UInt64 = 500_000_000

    // Defect: a FIFO named *.url in responses/ hung till in open(); a symlink was followed out of the folder.
    @Test func fifoSymlinkAndFolderInResponsesAreRejectedWithoutBeingOpened() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let drop = dir.path + "/drop"
        try Path.makeDirectories(drop + "/responses")
        let outside = dir.path + "/outside.txt"
        try AtomicFile.write(approvedAnswer(ctid: "outside", amount: 100) + "\n", to: outside)
        #expect(mkfifo(drop + "/responses/evil.url", 0o600) == 0)
        #expect(symlink(outside, drop + "/responses/link.url") == 0)
        let transport = FileDropTransport(directory: drop)
        let log = TransportEventLog()
        let started = Outcome<[IncomingAnswer]>()
        Task.detached { do { started.set(.success(try await transport.start(sink: log.sink))) } catch { started.set(.failure(error)) } }
        let returned = await eventuallyAsync(30) { started.result != nil }
        #expect(returned, "start() hung on a FIFO in responses/")
        if !returned { unblockFifo(drop + "/responses/evil.url") }
        #expect(await eventuallyAsync(10) { started.result != nil })
        let backlog = try started.result?.get() ?? []
        #expect(backlog.isEmpty, "nothing from outside the folder is delivered: \(backlog)")
        #expect(Set(Path.list(drop + "/rejected")) == ["evil.url", "evil.url.reason", "link.url", "link.url.reason"])
        #expect(AtomicFile.read(drop + "/rejected/evil.url.reason")?.contains("FIFO") == true)
        #expect(AtomicFile.read(drop + "/rejected/link.url.reason")?.contains("symbolic link") == true)
        #expect(AtomicFile.read(outside)?.contains("outside") == true)   // the target is untouched

        // While till runs: a FIFO made in place, a FIFO moved in, a folder, a link: each rejected, the watcher never stuck.
        #expect(mkfifo(drop + "/responses/late.url", 0o600) == 0)
        #expect(mkfifo(drop + "/.hidden-fifo", 0o600) == 0)
        #expect(rename(drop + "/.hidden-fifo", drop + "/responses/moved.url") == 0)
        #expect(mkdir(drop + "/responses/folder.url", 0o700) == 0)
        #expect(symlink("/etc/hostname", drop + "/responses/host.url") == 0)
        let all = ["late.url", "moved.url", "folder.url", "host.url"]
        let rejectedAll = await eventuallyAsync(10) { all.allSatisfy { Path.exists(drop + "/rejected/" + $0 + ".reason") } }
        #expect(rejectedAll, "rejected: \(Path.list(drop + "/rejected"))")
        if !rejectedAll { for n in ["late.url", "moved.url"] { unblockFifo(drop + "/responses/" + n) } }
        #expect(AtomicFile.read(drop + "/rejected/folder.url.reason")?.contains("folder") == true)

        // And a real answer still gets through.
        try AtomicFile.write(approvedAnswer(ctid: "after", amount: 200) + "\n", to: drop + "/responses/good.url")
        #expect(await eventuallyAsync(10) { log.answers.contains { $0.receipt == "good.url" } })
        await transport.stop()
    }

    // Defect: a world- or group-writable drop folder was accepted without a word.
    @Test func sharedDropFolderIsRefusedAndTheErrorSaysHowToFixIt() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        for (sub, mode) in [("", 0o777), ("", 0o770), ("", 0o703), ("/responses", 0o775), ("/requests", 0o720), ("/archive", 0o777)] as [(String, mode_t)] {
            let drop = dir.path + "/drop-\(sub.isEmpty ? "top" : String(sub.dropFirst()))-\(String(mode, radix: 8))"
            for s in ["requests", "responses", "archive", "rejected", "claimed"] { try Path.makeDirectories(drop + "/" + s) }
            #expect(chmod(drop + sub, mode) == 0)
            if let text = await refusalToStart(drop) {
                #expect(text.contains("chmod 700 " + drop + sub) && text.contains("writable"), "\(text)")
            } else {
                Issue.record("a drop folder with \(drop + sub) at mode \(String(mode, radix: 8)) was accepted")
            }
            #expect(chmod(drop + sub, 0o700) == 0)
            let fixed = FileDropTransport(directory: drop)
            _ = try await fixed.start(sink: { _ in })
            await fixed.stop()
        }
        // A subfolder that is a link to a folder elsewhere is not the drop folder's.
        let drop = dir.path + "/drop-link"
        try Path.makeDirectories(dir.path + "/elsewhere")
        try Path.makeDirectories(drop)
        #expect(symlink(dir.path + "/elsewhere", drop + "/responses") == 0)
        if let text = await refusalToStart(drop) {
            #expect(text.contains("symbolic link"), "\(text)")
        } else {
            Issue.record("responses/ as a symbolic link was accepted")
        }

        // archive/ taken by a plain file: till still starts (answers are journaled and wait in responses/), and says so.
        let blocked = dir.path + "/drop-archive-file"
        try Path.makeDirectories(blocked)
        try AtomicFile.write("x\n", to: blocked + "/archive")
        let warned = TransportEventLog()
        let starts = FileDropTransport(directory: blocked)
        _ = try await starts.start(sink: warned.sink)
        #expect(warned.problems.contains { $0.contains(blocked + "/archive") && $0.contains("not a folder") }, "\(warned.problems)")
        await starts.stop()

        // Through the command line: a clear message and exit 3, before anything is sent.
        let open = dir.path + "/drop-cli"
        try Path.makeDirectories(open)
        #expect(chmod(open, 0o777) == 0)
        let r = try await runTillCapturing(["sale", "--amount", "5", "--transport", "file:" + open, "--timeout", "1",
                                            "--journal", dir.path + "/j.sqlite"])
        #expect(r.status == 3 && r.errors.contains("chmod 700 " + open), "\(r.status) \(r.errors)")
        #expect(requestFiles(open).isEmpty)
    }

    // The claim contract: till withdraws by unlink, the peer claims by rename; exactly one of them wins.
    @Test func aClaimedRequestCannotBeWithdrawnAndAWithdrawnOneCannotBeClaimed() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let drop = dir.path + "/drop"
        let transport = try await fileDropHavingSent(drop, "req-1", "req-2")
        try Path.makeDirectories(drop + "/claimed")
        // A peer (another process) claims req-1 by rename.
        let mv = try Process.run(URL(fileURLWithPath: "/bin/mv"), arguments: [drop + "/requests/req-1.url", drop + "/claimed/req-1.url"])
        mv.waitUntilExit()
        #expect(mv.terminationStatus == 0)
        #expect(await transport.gaveUp(on: "req-1") == false)          // claimed: the outcome is unknown
        #expect(await transport.gaveUp(on: "req-2") == true)           // never claimed: never sent
        let late = try Process.run(URL(fileURLWithPath: "/bin/mv"), arguments: [drop + "/requests/req-2.url", drop + "/claimed/req-2.url"])
        late.waitUntilExit()
        #expect(late.terminationStatus != 0)                             // the peer can no longer have it
        #expect(requestFiles(drop).isEmpty)
        #expect(Path.list(drop + "/claimed") == ["req-1.url"])
        await transport.stop()
    }

    // Defect: a request that till withdrew was still executed by the peer (read, then deleted; the delete's failure ignored).
    // Till withdraws while `till simulate --dir` claims, many times: every request is either withdrawn (and never
    // answered) or claimed (and answered), never both, never neither.
    @Test func peerClaimRacingTillsWithdrawalNeverBothNeverNeither() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let drop = dir.path + "/drop"
        let transport = FileDropTransport(directory: drop)
        let log = TransportEventLog()
        _ = try await transport.start(sink: log.sink)
        let sim = try Child(["simulate", "--dir", drop, "--speed", "0", "--state", dir.path + "/sim.json"])
        defer { sim.stop() }
        // Wait until the simulator serves the folder.
        try await transport.send(id: "warm-up", url: TerminalRequest(caller: testCaller, request: sale(2500, ctid: "warm-up")).url)
        #expect(await eventuallyAsync(20) { log.answers.contains { $0.requestIdHint == "warm-up" } })

        var withdrawn: [String] = []
        var claimed: [String] = []
        let rounds = 1000
        for i in 0..<rounds {
            let id = "race-\(i)"
            try await transport.send(id: id, url: TerminalRequest(caller: testCaller, request: sale(2500, ctid: id)).url)
            // 0 to ~0.6 ms: sometimes before the peer woke up, sometimes while it reads, sometimes after.
            let spin = (i * 7919) % 60
            if spin > 0 { usleep(useconds_t(spin * 10)) }
            if await transport.gaveUp(on: id) { withdrawn.append(id) } else { claimed.append(id) }
        }
        let answeredAll = await eventuallyAsync(30) {
            let answered = Set(log.answers.compactMap(\.requestIdHint))
            return claimed.allSatisfy { answered.contains($0) }
        }
        #expect(answeredAll, "a request the peer claimed was never answered")
        // Nothing must happen here (a withdrawn request executed after all would answer): wait a window.
        try await Task.sleep(nanoseconds: Self.withdrawnRequestAnswerWindowNs)
        let answered = Set(log.answers.compactMap(\.requestIdHint))
        let both = withdrawn.filter { answered.contains($0) }
        #expect(both.isEmpty, "withdrawn by till and still executed by the peer: \(both.count) of \(withdrawn.count)")
        #expect(requestFiles(drop).isEmpty)
        print("claim race: \(rounds) rounds, \(withdrawn.count) withdrawn, \(claimed.count) claimed, \(both.count) both")
        await transport.stop()
    }

    // Defect: the request file was left behind after the entry settled (a peer that answers without claiming).
    @Test func noRequestFileIsLeftOnceTheEntrySettled() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let (c, log, drop) = try await startFileDropController(dir, timeoutMs: 20_000)
        let saleTask = Task { await c.perform(sale(4200, ctid: "lazy-peer")) }
        #expect(await eventuallyAsync { !requestFiles(drop).isEmpty })
        let name = requestFiles(drop)[0]
        // A peer that reads the request in place (no claim) and answers under its name.
        try AtomicFile.write(approvedAnswer(ctid: "lazy-peer", amount: 4200) + "\n", to: drop + "/responses/" + name)
        let r = await saleTask.value
        #expect(r.journalEntry?.state == .approved)
        #expect(requestFiles(drop).isEmpty, "left in requests/: \(requestFiles(drop))")
        #expect(await eventuallyAsync { log.problems.contains { $0.contains("without claiming") } })
        await c.shutdown()
    }

    // Write-ahead: an answer that cannot be archived is reported loudly, stays in responses/, and is delivered again
    // at the next start, where it is recognised as already journaled (never a second sale).
    @Test func anAnswerThatCannotBeArchivedIsReportedAndTakenAgainAtTheNextStart() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let drop = dir.path + "/drop"
        let journal = try Journal(path: dir.path + "/j.sqlite")
        let c = TillController(transport: FileDropTransport(directory: drop), journal: journal, caller: testCaller, timeoutMs: 20_000)
        let log = EventLog(c)
        try await c.start()
        let saleTask = Task { await c.perform(sale(3100, ctid: "stuck-archive")) }
        #expect(await eventuallyAsync { !requestFiles(drop).isEmpty })
        let name = requestFiles(drop)[0]
        try Path.makeDirectories(drop + "/claimed")
        #expect(rename(drop + "/requests/" + name, drop + "/claimed/" + name) == 0)
        // archive/ stops being a folder (tests run as root, so a mode would not stop the move).
        #expect(rmdir(drop + "/archive") == 0)
        try AtomicFile.write("not a folder\n", to: drop + "/archive")
        try AtomicFile.write(approvedAnswer(ctid: "stuck-archive", amount: 3100) + "\n", to: drop + "/responses/" + name)
        let r = await saleTask.value
        #expect(r.journalEntry?.state == .approved)
        #expect(await eventuallyAsync { log.problems.contains { $0.contains("archive") && $0.contains("next start") } }, "\(log.problems)")
        #expect(Path.exists(drop + "/responses/" + name))
        await c.shutdown()

        unlink(drop + "/archive")
        try Path.makeDirectories(drop + "/archive")
        let again = TillController(transport: FileDropTransport(directory: drop), journal: journal, caller: testCaller, timeoutMs: 20_000)
        let log2 = EventLog(again)
        try await again.start()
        #expect(await eventuallyAsync { Path.list(drop + "/archive") == [name] })
        #expect(Path.list(drop + "/responses").isEmpty)
        let rows = try journal.entries(clientTransactionId: "stuck-archive")
        #expect(rows.count == 1 && rows.first?.state == .approved)
        #expect(log2.unmatched.isEmpty)
        await again.shutdown()
    }
}

/// What start-up recovery asks the transport: the requests an earlier run left unclaimed, and to withdraw them.
struct FileDropLeftoverTests {
    @Test func anEarlierRunsUnclaimedRequestIsListedAndWithdrawn() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let drop = dir.path + "/drop"
        let first = try await fileDropHavingSent(drop, "left-1", "left-2")
        await first.stop()
        #expect(rename(drop + "/requests/left-2.url", drop + "/claimed/left-2.url") == 0)   // a peer took this one

        let next = FileDropTransport(directory: drop)
        _ = try await next.start(sink: { _ in })
        #expect(await next.unclaimedRequestIds() == ["left-1"])
        #expect(await next.withdrawIfUnclaimed(id: "left-1") == true)     // never sent
        #expect(await next.withdrawIfUnclaimed(id: "left-2") == false)    // the peer has it: unknown
        #expect(await next.withdrawIfUnclaimed(id: "../claimed/left-2") == false)
        #expect(requestFiles(drop).isEmpty && Path.list(drop + "/claimed") == ["left-2.url"])
        await next.stop()

        // A pipe cannot take a request back: never "withdrawn", and asking does not touch the bridge.
        let pipe = PipeTransport(command: "exec cat > /dev/null")
        _ = try await pipe.start(sink: { _ in })
        #expect(await pipe.withdrawIfUnclaimed(id: "x") == false && pipe.bridgeStarts == 1)
        #expect(await pipe.unclaimedRequestIds().isEmpty)
        await pipe.stop()
    }
}

extension FileDropContractTests {
    /// Found by a peer keeping its own ledger: it wrote its answer in place (against the contract) and paused 7 s after
    /// `amount=10` of `amount=1000`; till took the half line once it had been unchanged for 5 s (approved 0.10, for
    /// review) and archived the file while the peer was still writing it, so the whole line was never read. A file that
    /// does not end in a newline and is still open for writing is not taken; its close brings it.
    @Test func anAnswerStillBeingWrittenIsNotTakenHalf() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        guard let (c, peer, selling, r) = try await fileDropSent(dir, sale(1000)) else { return }
        let whole = peer.answers(to: r.url)[0] + "\n"
        let cut = try #require(whole.range(of: "amount=10")?.upperBound)
        let fd = open(dir.path + "/drop/responses/" + r.id + ".url", O_WRONLY | O_CREAT | O_EXCL, 0o600)
        #expect(fd >= 0)
        func put(_ s: Substring) { let bytes = Array(s.utf8); _ = bytes.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count) } }
        put(whole[..<cut])
        try await Task.sleep(nanoseconds: UInt64(FileDropTransport.settledMs + 2_000) * 1_000_000)
        put(whole[cut...])
        close(fd)
        let outcome = await selling.value
        #expect(outcome.journalEntry?.state == .approved && outcome.journalEntry?.amount == Money(cents: 1000), "\(outcome)")
        await c.shutdown()
    }

    /// Issue 33, item 8: a peer wrote its answer in place, closed it after `amount=5` of `amount=5000` (no newline),
    /// and opened it again a moment later to write the rest. The close was taken as "the file is whole": an approval
    /// at 0.05, and the rest never read. A file without its newline is taken only once closed and unchanged for
    /// `settledMs`; its writer's next close brings the whole line.
    @Test func anAnswerClosedWithoutItsNewlineAndFinishedLaterIsNotTakenCut() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        guard let (c, peer, selling, r) = try await fileDropSent(dir, sale(5000)) else { return }
        let whole = peer.answers(to: r.url)[0] + "\n"
        let cut = try #require(whole.range(of: "amount=5")?.upperBound)
        let path = dir.path + "/drop/responses/" + r.id + ".url"
        func put(_ s: Substring, _ flags: Int32) {
            let fd = open(path, O_WRONLY | flags, 0o600)
            #expect(fd >= 0)
            let bytes = Array(s.utf8)
            _ = bytes.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        put(whole[..<cut], O_CREAT | O_EXCL)
        try await Task.sleep(nanoseconds: 1_000_000_000)
        put(whole[cut...], O_APPEND)
        let outcome = await selling.value
        #expect(outcome.journalEntry?.state == .approved && outcome.journalEntry?.amount == Money(cents: 5000), "\(outcome)")
        #expect(try c.journal.entries(JournalFilter()).allSatisfy { $0.amount != Money(cents: 5) })
        await c.shutdown()
    }

    /// A file without its newline that is closed and stays unchanged is whole (a peer that writes no newline): taken
    /// after `settledMs`, not left for ever.
    @Test func anAnswerWithoutANewlineIsTakenOnceClosedAndStable() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        guard let (c, peer, selling, r) = try await fileDropSent(dir, sale(700)) else { return }
        let fd = open(dir.path + "/drop/responses/" + r.id + ".url", O_WRONLY | O_CREAT | O_EXCL, 0o600)
        let bytes = Array(peer.answers(to: r.url)[0].utf8)
        _ = bytes.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let outcome = await selling.value
        #expect(outcome.journalEntry?.state == .approved && outcome.journalEntry?.amount == Money(cents: 700), "\(outcome)")
        await c.shutdown()
    }
}

/// A file-drop transport on `drop`, started, that has sent a request under each of `ids` (`x://a?b=1`, `b=2`, …).
func fileDropHavingSent(_ drop: String, _ ids: String...) async throws -> FileDropTransport {
    let transport = FileDropTransport(directory: drop)
    _ = try await transport.start(sink: { _ in })
    for (i, id) in ids.enumerated() { try await transport.send(id: id, url: "x://a?b=\(i + 1)") }
    return transport
}

/// Why a file-drop transport on `drop` refuses to start (its error, as said); nil when it started (it is stopped again).
func refusalToStart(_ drop: String) async -> String? {
    let transport = FileDropTransport(directory: drop)
    do {
        _ = try await transport.start(sink: { _ in })
        await transport.stop()
        return nil
    } catch {
        return "\(error)"
    }
}
