import Foundation
import GRDB
import PostgresNIO
import Testing
@testable import TillCore
import TillModel
import TillProtocol
@testable import TillStore

/// A program run as a process of its own: standard output and error go to files (a pipe nobody reads would fill up
/// and stop it). posix_spawn and waitpid: Foundation's Process.waitUntilExit was seen never to return here.
struct Spawned {
    let pid: pid_t
    let out: String
    let err: String

    init(_ argv: [String], dir: String) throws {
        let tag = UUID().uuidString.prefix(8)
        out = dir + "/out-\(tag).txt"; err = dir + "/err-\(tag).txt"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let c = argv.map { strdup($0) } + [nil]
        defer { for p in c { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, argv[0], &actions, nil, c, environ)
        guard rc == 0 else { throw StoreError("cannot start \(argv[0]): \(String(cString: strerror(rc)))") }
        self.pid = pid
    }

    /// Waits for its end, up to a deadline (then it is killed and the test fails): its exit status (or 128 + the
    /// signal), and what it wrote.
    func wait(deadline: Duration = .seconds(120), sourceLocation: SourceLocation = #_sourceLocation) -> (status: Int32, out: String, err: String) {
        var status: Int32 = 0
        let until = ContinuousClock.now + deadline
        while true {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid || (r < 0 && errno != EINTR) { break }
            if ContinuousClock.now > until {
                Issue.record("the process \(pid) did not end within \(deadline): killed", sourceLocation: sourceLocation)
                _ = Glibc.kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                break
            }
            usleep(10_000)
        }
        let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (code, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "", (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }

    func kill() { _ = Glibc.kill(pid, SIGKILL); _ = wait(deadline: .seconds(10)) }
}

enum Binaries {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// $TILL_SYNC_BIN, else the debug build beside the tests (`swift test` builds it with them).
    static var tillSync: String {
        if let b = ProcessInfo.processInfo.environment["TILL_SYNC_BIN"], !b.isEmpty { return b }
        return repo.appendingPathComponent(".build/debug/till-sync").path
    }
    /// $TILL_BIN, else the debug build (`scripts/test` builds it first).
    static var till: String {
        if let b = ProcessInfo.processInfo.environment["TILL_BIN"], !b.isEmpty { return b }
        return repo.appendingPathComponent(".build/debug/till").path
    }
    static let delayProxy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("delay-proxy.py").path
}

/// `--host … --port … --database … --user … --password-file …` of an address.
func storeArgs(_ a: StoreAddress) -> [String] {
    ["--host", a.host, "--port", String(a.port), "--database", a.database, "--user", a.user] + (a.passwordFile.map { ["--password-file", $0] } ?? [])
}

/// Runs the server's control script (`stop` / `start`).
func pgctl(_ command: String, dir: String) throws {
    let control = try #require(TestServer.control, "scripts/pg-test-server gives the tests a way to stop and start the server")
    let r = try Spawned([control, command], dir: dir).wait()
    #expect(r.status == 0, "pgctl \(command): \(r.err)")
}

/// A local TCP proxy to the test server that holds everything 20 ms each way.
struct DelayProxy {
    let process: Spawned
    let port: Int

    init(to port: Int, delayMs: Int, dir: String) throws {
        process = try Spawned(["/usr/bin/env", "python3", Binaries.delayProxy, "127.0.0.1", String(port), String(delayMs)], dir: dir)
        let deadline = ContinuousClock.now + .seconds(20)
        var found: Int?
        while found == nil, ContinuousClock.now < deadline {
            found = (try? String(contentsOfFile: process.out, encoding: .utf8))?.split(separator: "\n").first.flatMap { Int($0) }
            if found == nil { usleep(20_000) }
        }
        guard let found else { process.kill(); throw StoreError("the delay proxy did not start") }
        self.port = found
    }
}

extension StoreServerTests {
@Suite struct ProcessTests {
    /// Three tills, each its own journal and role, pushed by `till-sync push --once` processes, and a back office
    /// reading the store with `till-sync report`: after every step the store's per-till totals are the sum of that
    /// till's own reports, to the cent, nothing doubled or missing.
    @Test func threeTillsPushAsProcessesThroughFailuresAndTheBackOfficeSumsThemToTheCent() async throws {
        let tillSync = Binaries.tillSync
        try #require(FileManager.default.isExecutableFile(atPath: tillSync), "no till-sync binary at \(tillSync): build it (swift build --product till-sync) or set TILL_SYNC_BIN")
        let s = try await TestStore(); defer { s.cleanup() }
        try await StoreAdmin(address: s.admin).addShop(id: "s2", name: "Broadway", timeZone: "America/New_York")
        let a = try await s.addTill("A"), b = try await s.addTill("B"), c = try await s.addTill("C", shop: "s2")
        let ja = try Journal(path: a.journalPath), jb = try Journal(path: b.journalPath, tipStyle: .included), jc = try Journal(path: c.journalPath)
        // Tills a sync has pushed before (their outbox started): what each push will send is its outbox from the start.
        for j in [ja, jb, jc] { try j.startOutbox(nowMs: 0) }
        try shift(ja, name: "a1", at: lateEvening, sales: [(1_250, 150), (3_999, nil)], close: true)
        try shift(jb, name: "b1", at: lateEvening + 1_000, sales: [(2_200, 200), (1_000, nil)], close: false)
        try shift(jc, name: "c1", at: lateEvening + 2_000, sales: [(10_000, 1_000)], close: true)
        // Enough on C for a push of many round trips, to take the store away in the middle of it.
        try jc.insertSettled((0..<6_000).map { (.sale, .approved, 100 + $0 % 900, $0 % 7 == 0 ? 50 : 0, "c2", lateEvening + 10_000 + Int64($0)) })
        let office = try await s.office()
        // Each till's journal now, and the reports and events of journals a till used before (a replaced file): their
        // money stays in the store.
        var journals = ["A": ja, "B": jb, "C": jc]
        var retired: [String: [Report]] = [:]
        var retiredEvents: Int64 = 0

        func push(_ t: TestStore.Till, port: Int? = nil, batch: Int? = nil) throws -> Spawned {
            var address = t.address
            if let port { address.port = port }
            // A connection the crash cuts off does not always hear of it (no reset comes): --timeout gives it up.
            return try Spawned([tillSync, "push", "--once", "--timeout", "5", "--journal", t.journalPath] + storeArgs(address)
                               + (batch.map { ["--batch-size", String($0)] } ?? []), dir: s.dir)
        }
        /// `till-sync report --by till --format json` as the back office, against each till's own reports; and the
        /// event log holds each journal's events once.
        func expectTheStoreIsTheTills(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let r = try Spawned([tillSync, "report", "--by", "till", "--format", "json"] + storeArgs(office), dir: s.dir).wait()
            #expect(r.status == 0, "\(step): \(r.err)", sourceLocation: sourceLocation)
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [[String: Any]], sourceLocation: sourceLocation)
            var store: [String: [String: Int]] = [:]
            for row in rows {
                let till = try #require(row["till"] as? String)
                store[till] = Dictionary(uniqueKeysWithValues: BackOffice.reportColumns.map { col in
                    let n = (row[col.name] as? NSNumber)?.doubleValue ?? .nan
                    return (col.name, Int((col.kind == .money ? n * 100 : n).rounded()))
                })
            }
            var tills: [String: [String: Int]] = [:]
            for (id, j) in journals { tills[id] = sum(try tillReports(j).values.map(figures) + (retired[id] ?? []).map(figures)) }
            #expect(store == tills, "\(step)", sourceLocation: sourceLocation)
            let events = try journals.values.map { try $0.outboxLastSeq() }.reduce(0, +) + retiredEvents
            #expect(try await count(s, "SELECT count(*) FROM till_store.event") == Int(events), "\(step)", sourceLocation: sourceLocation)
        }

        // 1. A and B push at once, as two processes.
        let (pa, pb) = (try push(a), try push(b))
        for (name, p) in [("A", pa), ("B", pb)] {
            let r = p.wait()
            #expect(r.status == 0 && r.out.contains("0 to send"), "push \(name): \(r.out) \(r.err)")
        }
        // 2. The store taken away in the middle of C's push (a crash: immediate stop), then back: the next push resumes
        //    from what the store holds.
        let big = try push(c, batch: 25)
        let cTotal = try jc.outboxLastSeq()
        var held = 0
        let deadline = ContinuousClock.now + .seconds(60)
        while held < 200, ContinuousClock.now < deadline {
            held = (try? await count(s, "SELECT count(*) FROM till_store.event WHERE till_id = 'C'")) ?? 0
            if held < 200 { try await Task.sleep(for: .milliseconds(10)) }
        }
        try pgctl("stop", dir: s.dir)
        let cut = big.wait()
        #expect(cut.status == 1 && cut.err.contains("till-sync:"), "a push cut off by the store's crash fails: \(cut.out) \(cut.err)")
        try pgctl("start", dir: s.dir)
        let partway = try await count(s, "SELECT count(*) FROM till_store.event WHERE till_id = 'C'")
        #expect(partway >= 200 && Int64(partway) < cTotal, "the crash came mid-push: \(partway) of \(cTotal)")
        let resumed = try push(c).wait()
        #expect(resumed.status == 0 && resumed.out.contains("pushed \(cTotal - Int64(partway)) events"), "\(resumed.out) \(resumed.err)")
        #expect(try await count(s, "SELECT count(*) FROM till_store.event WHERE till_id = 'C'") == Int(cTotal))
        try await expectTheStoreIsTheTills("after the store came back")

        // 3. A push repeated adds nothing.
        let before = try await count(s, "SELECT count(*) FROM till_store.event")
        for t in [a, b, c] {
            let r = try push(t).wait()
            #expect(r.status == 0 && r.out.contains("pushed 0 events in 0 batches"), "\(r.out) \(r.err)")
        }
        #expect(try await count(s, "SELECT count(*) FROM till_store.event") == before)
        try await expectTheStoreIsTheTills("after pushes repeated")

        // 4. A's journal replaced by a new file: refused, nothing of it taken, until the back office adopts it.
        retired["A"] = Array(try tillReports(ja).values)
        retiredEvents += try ja.outboxLastSeq()
        ja.close()
        try FileManager.default.moveItem(atPath: a.journalPath, toPath: a.journalPath + ".old")
        let ja2 = try Journal(path: a.journalPath)
        try shift(ja2, name: "a2", at: lateEvening + 3 * day, sales: [(4_321, 79)], close: false)
        journals["A"] = ja2
        let refused = try push(a).wait()
        #expect(refused.status == 1 && refused.err.contains("adopt"), "\(refused.out) \(refused.err)")
        let newId = try ja2.journalId()
        let waiting = try Spawned([tillSync, "reconcile", "--format", "csv"] + storeArgs(office), dir: s.dir).wait()
        #expect(waiting.status == 4 && waiting.out.contains("refused-journal,s1,A,\(newId)"), "\(waiting.out) \(waiting.err)")
        let adopt = try Spawned([tillSync, "adopt-journal", "--till", "A", "--journal", try ja2.journalId()] + storeArgs(s.admin), dir: s.dir).wait()
        #expect(adopt.status == 0, "\(adopt.err)")
        let adopted = try push(a).wait()
        let newEvents = try ja2.outboxLastSeq()
        #expect(adopted.status == 0 && adopted.out.contains("pushed \(newEvents) events"), "\(adopted.out) \(adopted.err)")
        try await expectTheStoreIsTheTills("after a journal replaced and adopted")

        // 5. A till's role cannot read the back office's tables (nor B's rows through them).
        let snoop = try Spawned([tillSync, "report", "--till", "B"] + storeArgs(a.address), dir: s.dir).wait()
        #expect(snoop.status == 1 && snoop.err.contains("permission denied"), "\(snoop.out) \(snoop.err)")
        let find = try Spawned([tillSync, "find", "--amount", "22.00"] + storeArgs(a.address), dir: s.dir).wait()
        #expect(find.status == 1 && find.err.contains("permission denied"), "\(find.out) \(find.err)")

        // 6. A push through a link with 20 ms each way: slower, and the same money.
        try shift(jb, name: "b2", at: lateEvening + 4 * day, sales: [(700, 70), (800, nil)], close: true)
        let proxy = try DelayProxy(to: s.admin.port, delayMs: 20, dir: s.dir)
        defer { proxy.process.kill() }
        let started = ContinuousClock.now
        let slow = try push(b, port: proxy.port).wait()
        let took = ContinuousClock.now - started
        #expect(slow.status == 0 && slow.out.contains("0 to send"), "\(slow.out) \(slow.err)")
        // At least the login's and the push's round trips, 40 ms each.
        #expect(took > .milliseconds(160), "the push went through the proxy (\(took))")
        try await expectTheStoreIsTheTills("after a push through the delay proxy")
    }

    /// Three tills selling as `till` processes (headless sales and a refund on the built-in simulator, at the same time)
    /// while each till's `till-sync push --follow` runs as a service would: once the sales stop, every sync catches up,
    /// and the back office's per-till figures are each till's own reports to the cent.
    @Test func threeTillsSellWhileTheirSyncFollowsAndTheBackOfficeAgrees() async throws {
        let (tillSync, till) = (Binaries.tillSync, Binaries.till)
        try #require(FileManager.default.isExecutableFile(atPath: till), "no till binary at \(till): swift build --product till")
        let s = try await TestStore(); defer { s.cleanup() }
        let tills = [try await s.addTill("A"), try await s.addTill("B"), try await s.addTill("C")]
        func tillArgs(_ t: TestStore.Till) -> [String] {
            ["--journal", t.journalPath, "--sim-state", t.journalPath + ".sim.json", "--sim-speed", "0"]
        }
        for t in tills {
            let r = try Spawned([till, "batch", "open", "--name", "shift-\(t.id)"] + tillArgs(t), dir: s.dir).wait()
            try #require(r.status == 0, "\(r.err)")
        }
        let follows = try tills.map { t in
            try Spawned([tillSync, "push", "--follow", "--timeout", "10", "--journal", t.journalPath] + storeArgs(t.address), dir: s.dir)
        }
        defer { for f in follows { f.kill() } }
        // Each till sells six times and refunds its first sale, one command after another, the three tills at once.
        func sellAll(_ t: TestStore.Till, _ k: Int) throws -> [Int32] {
            var statuses: [Int32] = []
            for i in 0..<6 {
                let amount = String(format: "%d.%02d", 3 + k + i, (k * 37 + i * 11) % 100)
                statuses.append(try Spawned([till, "sale", "--amount", amount] + tillArgs(t), dir: s.dir).wait().status)
            }
            statuses.append(try Spawned([till, "refund", "--reference", "000001"] + tillArgs(t), dir: s.dir).wait().status)
            return statuses
        }
        let results = try await withThrowingTaskGroup(of: [Int32].self) { group in
            for (k, t) in tills.enumerated() { group.addTask { try sellAll(t, k) } }
            var all: [[Int32]] = []
            for try await r in group { all.append(r) }
            return all
        }
        #expect(results.allSatisfy { $0.allSatisfy { $0 == 0 } }, "\(results)")
        // Every sync catches up with its journal (the follow loop runs every 2 s).
        let journals = try tills.map { try Journal(path: $0.journalPath, readOnly: true) }
        let deadline = ContinuousClock.now + .seconds(60)
        func caughtUp() throws -> Bool {
            try zip(tills, journals).allSatisfy { t, j in
                (SyncStatus.read(journal: t.journalPath)?.storeLastSeq ?? -1) == (try j.outboxLastSeq())
            }
        }
        while try !caughtUp(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        #expect(try caughtUp(), "the syncs did not catch up within 60 s")
        let office = try await s.office()
        let r = try Spawned([tillSync, "report", "--by", "till", "--format", "json"] + storeArgs(office), dir: s.dir).wait()
        #expect(r.status == 0, "\(r.err)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [[String: Any]])
        var store: [String: [String: Int]] = [:]
        for row in rows {
            let id = try #require(row["till"] as? String)
            store[id] = Dictionary(uniqueKeysWithValues: BackOffice.reportColumns.map { col in
                let n = (row[col.name] as? NSNumber)?.doubleValue ?? .nan
                return (col.name, Int((col.kind == .money ? n * 100 : n).rounded()))
            })
        }
        var own: [String: [String: Int]] = [:]
        for (t, j) in zip(tills, journals) { own[t.id] = sum(try tillReports(j).values.map(figures)) }
        #expect(store == own)
        #expect(own.values.allSatisfy { ($0["sales"] ?? 0) == 6 && ($0["refunds"] ?? 0) > 0 }, "\(own)")
        #expect(try await count(s, "SELECT count(*) FROM till_store.event") == Int(try journals.map { try $0.outboxLastSeq() }.reduce(0, +)))
    }

    /// A store that takes the connection and then never answers (a network gone without a reset, here a proxy that
    /// holds everything ten minutes): the login is given up after the timeout, as a problem of the network (tried
    /// again), and the status file says so; nothing waits for ever.
    @Test func aStoreThatNeverAnswersIsGivenUpAfterTheTimeout() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        try shift(j, name: "m", at: 1_000, sales: [(100, nil)], close: false)
        let hole = try DelayProxy(to: s.admin.port, delayMs: 600_000, dir: s.dir)
        defer { hole.process.kill() }
        var address = a.address
        address.port = hole.port
        address.timeout = .seconds(2)
        let started = ContinuousClock.now
        let message = await expectRefused(nil) { _ = try await Sync(journalPath: a.journalPath, address: address).pushOnce() }
        #expect(ContinuousClock.now - started < .seconds(20))
        #expect(message.contains("did not answer within 2 s"), "\(message)")
        let status = try #require(SyncStatus.read(journal: a.journalPath))
        #expect(status.problem != nil && !status.needsSetUp)
        // As a process too: `--timeout` and an exit, not a hang.
        let r = try Spawned([Binaries.tillSync, "push", "--once", "--timeout", "2", "--journal", a.journalPath] + storeArgs(address), dir: s.dir)
            .wait(deadline: .seconds(30))
        #expect(r.status == 1 && r.err.contains("did not answer"), "\(r.err)")
    }
}
}
