import Foundation
import GRDB
import PostgresNIO
import Testing
@testable import TillCore
import TillIO
import TillModel
import TillProtocol
@testable import TillStore

/// The private test server scripts/pg-test-server started (scripts/test runs these tests through it). Under CI the tests
/// run whatever, and fail without a server; elsewhere they are skipped without one.
enum TestServer {
    static let environment = ProcessInfo.processInfo.environment
    static let host = environment["TILL_TEST_PG_HOST"]
    static let port = environment["TILL_TEST_PG_PORT"].flatMap(Int.init)
    static let user = environment["TILL_TEST_PG_USER"]
    /// `stop` / `start` the server (scripts/pg-test-server).
    static let control = environment["TILL_TEST_PG_CTL"]
    static var available: Bool { host != nil && port != nil && user != nil }
    static var underCI: Bool { ["true", "1"].contains(environment["CI"]?.lowercased() ?? "") }
}

/// Every store test, one at a time: some stop and start the one server they all share (a crash of the store), which
/// would cut off any other test running beside them.
@Suite(.serialized, .enabled(if: TestServer.available || TestServer.underCI, "no PostgreSQL test server (scripts/test starts one)"))
enum StoreServerTests {}

/// A fresh database on the test server with the store's schema, a shop and two tills (each its own role and password
/// file), and a journal per till.
struct TestStore {
    let dir: String
    let database: String
    let admin: StoreAddress
    let suffix: String

    struct Till {
        var id: String
        var role: String
        var address: StoreAddress
        var journalPath: String
    }

    init() async throws {
        let host = try #require(TestServer.host, "no PostgreSQL test server: run the tests through scripts/test (or scripts/pg-test-server swift test …)")
        let port = try #require(TestServer.port), user = try #require(TestServer.user)
        suffix = String(UUID().uuidString.lowercased().prefix(8)).replacingOccurrences(of: "-", with: "")
        let name = "till_test_" + suffix
        database = name
        var template = Array("/tmp/till-store-XXXXXX".utf8CString)
        dir = String(cString: template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }!)
        let server = StoreAddress(host: host, port: port, database: "postgres", user: user)
        try await StoreAdmin(address: server).with { try await $0.execute("CREATE DATABASE \(name)") }
        let admin = StoreAddress(host: host, port: port, database: name, user: user)
        self.admin = admin
        #expect(try await StoreAdmin(address: admin).initStore() == StoreSchema.migrations.map(\.0))
        #expect(try await StoreAdmin(address: admin).initStore() == [])
        try await StoreAdmin(address: admin).addShop(id: "s1", name: "Main street", timeZone: "Europe/Berlin")
    }

    func addTill(_ id: String, shop: String = "s1") async throws -> Till {
        // A role name is letters and digits; a till's id may be anything (the CSV tests give it a formula).
        let plain = id.lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        let role = "till_\(plain)_\(String(UInt32(truncatingIfNeeded: id.hashValue), radix: 36))_\(suffix)"
        let file = "till-" + plain + "-" + String(UInt32(truncatingIfNeeded: id.hashValue), radix: 36)
        let passwordFile = dir + "/\(file).password"
        _ = FileManager.default.createFile(atPath: passwordFile, contents: Data("pw-\(plain)-\(suffix)\n".utf8), attributes: [.posixPermissions: 0o600])
        try await StoreAdmin(address: admin).addTill(id: id, shop: shop, role: role, passwordFile: passwordFile)
        // Over loopback, with the password: as a till logs in.
        let address = StoreAddress(host: "127.0.0.1", port: admin.port, database: database, user: role, passwordFile: passwordFile)
        return Till(id: id, role: role, address: address, journalPath: dir + "/\(file).sqlite")
    }

    func cleanup() { try? FileManager.default.removeItem(atPath: dir) }

    /// Rows of a query as the administrator.
    func adminRows(_ q: PostgresQuery) async throws -> [PostgresRow] {
        try await StoreAdmin(address: admin).with { try await $0.query(q) }
    }
}

let caller = Caller(callback: "interapp-callback", merchantKey: "MK-test-key-0042", appId: "com.example.till.tests")

/// A shift on a till's journal as the controller journals it: batch open, sales (approved with and without tip, one
/// declined, one unknown), a refund, then optionally the close (its Z report).
func shift(_ j: Journal, name: String, at t0: Int64, sales: [(Int, Int?)], close: Bool) throws {
    func batch(_ command: BatchCommand, at: Int64) throws {
        let e = try j.insertPending(requestId: UUID().uuidString, request: TerminalRequest(caller: caller, request: .batch(BatchRequest(command: command, batchName: command == .open ? name : nil))), batch: try j.batch(nowMs: at), nowMs: at)
        try j.recordAnswer(e.id, response: try CallbackResponse.decode("interapp-callback://result?status=success&action=batch&command=\(command.rawValue)&batchId=\(name)&batchName=\(name)"), state: .approved, note: nil, nowMs: at)
    }
    try batch(.open, at: t0)
    var t = t0
    func sell(_ cents: Int, tip: Int?, status: String, state: EntryState) throws {
        t += 1
        let ctid = UUID().uuidString
        let e = try j.insertPending(requestId: UUID().uuidString, request: TerminalRequest(caller: caller, request: .sale(SaleRequest(amount: Money(cents: cents), tipAmount: tip.map(Money.init(cents:)), clientTransactionId: ctid))), batch: try j.batch(for: .sale, nowMs: t), nowMs: t)
        try j.markSent(e.id, nowMs: t)
        guard state != .unknown else { try j.setState(e.id, .unknown, note: "no answer", nowMs: t); return }
        let tipField = tip.map { "&tipAmount=\($0)" } ?? ""
        try j.recordAnswer(e.id, response: try CallbackResponse.decode("interapp-callback://result?status=\(status)&action=sale&clientTransactionId=\(ctid)&amount=\(cents)\(tipField)&referenceNumber=\(String(format: "%06d", t % 1_000_000))&transactionId=tx-\(ctid)"), state: state, note: nil, nowMs: t)
    }
    for (cents, tip) in sales { try sell(cents, tip: tip, status: "success", state: .approved) }
    try sell(999, tip: nil, status: "fail", state: .declined)
    try sell(777, tip: nil, status: "", state: .unknown)
    try j.insertSettled([(.cancel, .approved, 250, 0, name, t + 1), (.capturePreAuth, .approved, 4_000, 0, name, t + 2), (.preAuth, .approved, 5_000, 0, name, t + 3)])
    if close { try batch(.close, at: t + 10) }
}

/// A till's net per batch key, as `till report` counts it (the report of each batch's summary buckets).
func tillNets(_ j: Journal) throws -> [String: Int] {
    let keys = try j.database.read { try String.fetchAll($0, sql: "SELECT DISTINCT batchKey FROM batch_summary") }
    var out: [String: Int] = [:]
    for k in keys {
        out[k] = Report(kind: .running, batch: nil, generatedAtMs: 0, buckets: try j.reportBuckets(batchId: k.isEmpty ? nil : k)).netCents
    }
    return out
}

func storeNets(_ s: TestStore, till: String) async throws -> [String: Int] {
    var out: [String: Int] = [:]
    for row in try await s.adminRows("SELECT batch_key, net_cents FROM till_store.till_batch_net WHERE till_id = \(till)") {
        let (k, n) = try row.decode((String, Int64).self)
        out[k] = Int(n)
    }
    return out
}

func count(_ s: TestStore, _ sql: String) async throws -> Int {
    try await s.adminRows(PostgresQuery(unsafeSQL: sql)).first!.decode(Int64.self).asInt
}

extension Int64 { var asInt: Int { Int(self) } }

/// Expects the store to refuse with this SQLSTATE (or, with nil, any refusal); returns its message.
@discardableResult
func expectRefused(_ sqlState: String?, _ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async -> String {
    do {
        try await body()
        Issue.record("expected the store to refuse", sourceLocation: sourceLocation)
        return ""
    } catch let e as StoreError {
        if let sqlState { #expect(e.sqlState == sqlState, "\(e)", sourceLocation: sourceLocation) }
        return e.message
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        return ""
    }
}

extension StoreServerTests {
@Suite struct StoreTests {
    @Test func twoTillsPushAndTheStoresTotalsEqualEachTillsReport() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A"), b = try await s.addTill("B")
        let ja = try Journal(path: a.journalPath)
        // Till B's terminal answers amounts that hold the tip.
        let jb = try Journal(path: b.journalPath, tipStyle: .included)
        try shift(ja, name: "a-morning", at: 1_000, sales: [(1_250, 150), (3_999, nil), (10_000, 1_000)], close: true)
        try shift(ja, name: "a-evening", at: 100_000, sales: [(505, 5)], close: false)
        try shift(jb, name: "b-morning", at: 2_000, sales: [(2_200, 200), (1_000, nil)], close: true)

        #expect(SyncStatus.read(journal: a.journalPath) == nil)
        let ra = try await Sync(journalPath: a.journalPath, address: a.address).pushOnce()
        // What the cashier's status line reads: all sent.
        let status = try #require(SyncStatus.read(journal: a.journalPath))
        let outboxLast = try ja.outboxLastSeq()
        #expect(status.storeLastSeq == outboxLast && status.problem == nil && status.sentAtMs != nil)
        let rb = try await Sync(journalPath: b.journalPath, address: b.address).pushOnce()
        #expect(ra.pushed == Int64(try ja.outbox().count) && ra.toSend == 0)
        #expect(rb.pushed == Int64(try jb.outbox().count))
        #expect(try ra.journalId == ja.journalId() && rb.journalId == jb.journalId())

        let na = try tillNets(ja), nb = try tillNets(jb)
        #expect(try await storeNets(s, till: "A") == na)
        #expect(try await storeNets(s, till: "B") == nb)
        // By hand: a-morning is 12.50 + 1.50 + 39.99 + 100.00 + 10.00 + 40.00 (capture) − 2.50 (refund).
        #expect(na["a-morning"] == 1_250 + 150 + 3_999 + 10_000 + 1_000 + 4_000 - 250)
        // B's 22.00 already holds its 2.00 tip.
        #expect(nb["b-morning"] == 2_200 + 1_000 + 4_000 - 250)
        // The closed shift's Z report, as `till report --batch a-morning` shows it, and as the store holds it.
        let z = try ja.report(for: try ja.findBatch(.id("a-morning")))
        #expect(z.kind == .closing && z.netCents == na["a-morning"])
        #expect(try await count(s, "SELECT count(*) FROM till_store.z_report WHERE till_id = 'A'") == 1)
        // Every entry's latest state, from the latest event.
        #expect(try await count(s, "SELECT count(*) FROM till_store.payment WHERE till_id = 'A' AND state = 'unknown'") == 2)
        #expect(try await count(s, "SELECT count(*) FROM till_store.payment WHERE till_id = 'A'") == (try ja.count()))

        // More sales on A after the push: the next push takes only them, and the totals follow.
        try shift(ja, name: "a-night", at: 200_000, sales: [(4_321, 10)], close: true)
        let again = try await Sync(journalPath: a.journalPath, address: a.address).pushOnce()
        #expect(again.pushed == Int64(try ja.outbox().count) - ra.storeLastSeq)
        #expect(try await storeNets(s, till: "A") == (try tillNets(ja)))
    }

    @Test func aPushRepeatedAddsNothingAndAGapIsRefused() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        try shift(j, name: "m", at: 1_000, sales: [(100, nil), (200, 20)], close: true)
        let first = try await Sync(journalPath: a.journalPath, address: a.address).pushOnce()
        #expect(first.pushed > 0)
        let events = try await count(s, "SELECT count(*) FROM till_store.event")
        let second = try await Sync(journalPath: a.journalPath, address: a.address).pushOnce()
        #expect(second.pushed == 0 && second.batches == 0 && second.storeLastSeq == first.storeLastSeq)
        // The same batch sent again, as after a timeout whose answer was lost: the store keeps what it has.
        let store = try await StoreConnection.connect(a.address)
        let journalId = try j.journalId()
        let replay = try await store.query(Sync.pushRows(journalId, try j.outbox())).first!.decode(Int64.self)
        #expect(replay == first.storeLastSeq)
        #expect(try await count(s, "SELECT count(*) FROM till_store.event") == events)
        #expect(try await storeNets(s, till: "A") == (try tillNets(j)))
        // A run that starts past what the store holds is refused, whole.
        let later = OutboxEvent(seq: first.storeLastSeq + 5, kind: "entry", entityKey: "1", payload: "{}", atMs: 0)
        let message = await expectRefused(StoreSchema.gap) { try await store.query(Sync.pushRows(journalId, [later])) }
        #expect(message.contains("gap"))
        await store.close()
        #expect(try await count(s, "SELECT count(*) FROM till_store.event") == events)
    }

    /// A run of `Sync.defaultBatchSize` events a round trip (one transaction of the store each).
    @Test func pushesGoInBatchesOfTheDefaultSize() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        let n = Sync.defaultBatchSize * 2 + 200
        try j.insertSettled((0..<n).map { (.sale, .approved, 100 + $0, 0, "big", Int64($0)) })
        let r = try await Sync(journalPath: a.journalPath, address: a.address).pushOnce()
        #expect(r.pushed == Int64(n) && r.batches == 3)
        #expect(try await storeNets(s, till: "A") == (try tillNets(j)))
    }

    /// A first push of a long history: each push of it looks up the entries of its run as the store held them, by
    /// key. The planner must know how many entries of the journal `payment` holds: told (by statistics older than
    /// the push) that it holds next to none, it planned the look-up as a filter of the key array over every entry of
    /// the journal, and each push of a long history cost more than the one before (BENCHMARKS.md, 2026-11-29).
    @Test func aLongFirstPushLooksUpItsEntriesByKey() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        let n = Sync.defaultBatchSize * 3 + 100
        try j.insertSettled((0..<n).map { (.sale, .approved, 100 + $0, 0, "long", Int64($0)) })
        let r = try await Sync(journalPath: a.journalPath, address: a.address).pushOnce()
        #expect(r.pushed == Int64(n))
        let journalId = try j.journalId()
        j.close()
        // The look-up as the push makes it (`StoreSchema.pushRows`, `before`), for a run of the default size.
        let plan = try await s.adminRows(PostgresQuery(unsafeSQL: """
            EXPLAIN SELECT p.entry_id, p.created_at_ms, p.action, p.state FROM till_store.payment p
             WHERE p.till_id = 'A' AND p.journal_id = '\(journalId)'
               AND p.entry_id = ANY (ARRAY(SELECT g::bigint FROM generate_series(\(n - Sync.defaultBatchSize), \(n)) g))
            """)).map { try $0.decode(String.self) }.joined(separator: "\n")
        #expect(plan.contains("payment_pkey") && plan.contains("entry_id = ANY") && !plan.contains("Filter: (entry_id = ANY"), "\(plan)")
    }

    /// `reconcile` holds every Z report against the entries of its batch. The batch must be a key of the join: as a
    /// filter beside the till and journal (`batch_id = key OR (key = '' AND batch_id IS NULL)`), each entry of a
    /// journal was tried against every Z report of it, and a 1M-entry till's reconcile outran the store's 60 s.
    @Test func reconcileFindsEachZReportsEntriesByItsBatch() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        for k in 0..<3 { try shift(j, name: "z\(k)", at: 1_000 + Int64(k) * 10_000, sales: [(100 + k, nil), (200, nil)], close: true) }
        _ = try await Sync(journalPath: a.journalPath, address: a.address).pushOnce()
        j.close()
        for table in ["payment", "z_report"] { _ = try await s.adminRows(PostgresQuery(unsafeSQL: "ANALYZE till_store.\(table)")) }
        let plan = try await s.adminRows(PostgresQuery(unsafeSQL: "EXPLAIN " + BackOffice.zReportsAgainstEntries(.init()).text))
            .map { try $0.decode(String.self) }.joined(separator: "\n")
        #expect(!plan.contains("Join Filter"), "\(plan)")
    }

    @Test func aTillCannotInsertOrReadAnotherTillsRows() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A"), b = try await s.addTill("B")
        let ja = try Journal(path: a.journalPath), jb = try Journal(path: b.journalPath)
        try shift(ja, name: "a", at: 1_000, sales: [(100, nil)], close: false)
        try shift(jb, name: "b", at: 1_000, sales: [(200, nil)], close: false)
        _ = try await Sync(journalPath: a.journalPath, address: a.address).pushOnce()
        _ = try await Sync(journalPath: b.journalPath, address: b.address).pushOnce()
        let bEvents = try await count(s, "SELECT count(*) FROM till_store.event WHERE till_id = 'B'")

        let asA = try await StoreConnection.connect(a.address)
        // No table is reachable directly: not to read, not to write.
        for sql in ["SELECT count(*) FROM till_store.event", "SELECT count(*) FROM till_store.payment WHERE till_id = 'B'",
                    "INSERT INTO till_store.event VALUES ('B', 'x', 999, 'entry', '1', '{}', 0)",
                    "UPDATE till_store.payment SET state = 'resolved' WHERE till_id = 'B'",
                    "DELETE FROM till_store.event WHERE till_id = 'B'"] {
            await expectRefused("42501") { try await asA.query(PostgresQuery(unsafeSQL: sql)) }
        }
        // Neither a session variable nor SET ROLE makes A another till: the functions read session_user.
        try await asA.execute("SET till_store.till_id = 'B'")
        await expectRefused("42501") { try await asA.execute("SET ROLE \(b.role)") }
        // B's journal id pushed by A: refused as a copy of B's journal, nothing of it taken.
        let bJournal = try jb.journalId()
        let fake = OutboxEvent(seq: 1, kind: "entry", entityKey: "1", payload: #"{"id":1,"requestId":"x","action":"sale","state":"approved","amountCents":100000,"createdAtMs":0,"updatedAtMs":0}"#, atMs: 0)
        await expectRefused(StoreSchema.copiedJournal) { try await asA.query(Sync.pushRows(bJournal, [fake])) }
        let (seq, status) = try await Sync.lastSeq(asA, bJournal)
        #expect(seq == 0 && status == "new")  // A's view: it has no such journal; B's is not shown to it
        await asA.close()
        #expect(try await count(s, "SELECT count(*) FROM till_store.event WHERE till_id = 'B'") == bEvents)
        #expect(try await storeNets(s, till: "B") == (try tillNets(jb)))

        // The second wall: were the tills' group granted SELECT by mistake, row-level security shows A its own rows only.
        _ = try await s.adminRows("GRANT SELECT ON till_store.event, till_store.payment TO till_pusher")
        let asA2 = try await StoreConnection.connect(a.address)
        let seen = try await asA2.query("SELECT DISTINCT till_id FROM till_store.event").map { try $0.decode(String.self) }
        #expect(seen == ["A"])
        #expect(try await asA2.query("SELECT 1 FROM till_store.payment WHERE till_id = 'B'").isEmpty)
        await asA2.close()
        _ = try await s.adminRows("REVOKE SELECT ON till_store.event, till_store.payment FROM till_pusher")

        // The back office reads every till's rows and writes none.
        let office = "office_\(s.suffix)"
        let officePassword = s.dir + "/office.password"
        _ = FileManager.default.createFile(atPath: officePassword, contents: Data("office-pw".utf8), attributes: [.posixPermissions: 0o600])
        _ = try await s.adminRows(PostgresQuery(unsafeSQL: "CREATE ROLE \(office) LOGIN PASSWORD 'office-pw' IN ROLE till_backoffice"))
        let asOffice = try await StoreConnection.connect(StoreAddress(host: "127.0.0.1", port: s.admin.port, database: s.database, user: office, passwordFile: officePassword))
        let tills = try await asOffice.query("SELECT DISTINCT till_id FROM till_store.event ORDER BY 1").map { try $0.decode(String.self) }
        #expect(tills == ["A", "B"])
        await expectRefused("42501") { try await asOffice.query("DELETE FROM till_store.event") }
        await expectRefused("42501") { try await asOffice.query("SELECT till_store.push('x', '[]'::jsonb)") }
        await asOffice.close()
    }

    @Test func aReplacedJournalIsRefusedUntilAdoptedAndARestoredBackupIsNotSkipped() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        try shift(j, name: "m", at: 1_000, sales: [(100, nil)], close: false)
        // A backup of the journal as it is now.
        j.close()
        try FileManager.default.copyItem(atPath: a.journalPath, toPath: s.dir + "/backup.sqlite")
        let j2 = try Journal(path: a.journalPath)
        try shift(j2, name: "n", at: 5_000, sales: [(300, nil)], close: false)
        var pushed = try await Sync(journalPath: a.journalPath, address: a.address).pushOnce()
        // The backup restored in its place: the store holds more of this journal than the file does.
        let restored = await expectRefused(nil) { _ = try await Sync(journalPath: s.dir + "/backup.sqlite", address: a.address).pushOnce() }
        #expect(restored.contains("restored from a backup"))
        // The back office sees it too, and since when; a push from the newer file clears it.
        func behind() async throws -> [BackOffice.Finding] {
            var found: [BackOffice.Finding] = []
            try await BackOffice(address: try await s.office()).reconcile(filter: .init()) { if $0.check == .behindJournal { found.append($0) } }
            return found
        }
        let seen = try await behind()
        #expect(seen.count == 1 && seen.first?.till == "A" && seen.first?.detail.contains("restored from a backup") == true, "\(seen)")
        // The restored file journals other sales under the numbers the store holds, and more: refused, not skipped.
        let jr = try Journal(path: s.dir + "/backup.sqlite")
        try shift(jr, name: "r", at: 7_000, sales: [(111, nil), (222, nil), (333, nil)], close: true)
        #expect(try jr.outbox().count > Int(pushed.storeLastSeq))
        let diverged = await expectRefused(StoreSchema.diverged) { _ = try await Sync(journalPath: s.dir + "/backup.sqlite", address: a.address).pushOnce() }
        #expect(diverged.contains("restored from a backup"))
        #expect(try await count(s, "SELECT max(seq) FROM till_store.event") == Int(pushed.storeLastSeq))
        // The newer file back in use: its next push goes through and the back office no longer lists the till.
        try shift(j2, name: "n2", at: 6_000, sales: [(50, nil)], close: false)
        pushed = try await Sync(journalPath: a.journalPath, address: a.address).pushOnce()
        #expect(try await behind().isEmpty)

        // A new journal file on the same till: refused (and listed for the back office) until adopted.
        let fresh = s.dir + "/fresh.sqlite"
        let jf = try Journal(path: fresh)
        try shift(jf, name: "p", at: 9_000, sales: [(700, nil)], close: false)
        let refused = await expectRefused("TS002") { _ = try await Sync(journalPath: fresh, address: a.address).pushOnce() }
        #expect(refused.contains("adopt"))
        #expect(try await count(s, "SELECT count(*) FROM till_store.journal WHERE till_id = 'A' AND status = 'refused'") == 1)
        #expect(try await count(s, "SELECT count(*) FROM till_store.event WHERE journal_id = '\(try jf.journalId())'") == 0)
        try await StoreAdmin(address: s.admin).adoptJournal(till: "A", journal: try jf.journalId())
        let adopted = try await Sync(journalPath: fresh, address: a.address).pushOnce()
        #expect(adopted.pushed == Int64(try jf.outbox().count))
        // The old journal's events stay, retired; both journals' money is in the store.
        #expect(try await count(s, "SELECT count(*) FROM till_store.event WHERE journal_id = '\(pushed.journalId)'") == Int(pushed.storeLastSeq))
        #expect(try await count(s, "SELECT count(*) FROM till_store.journal WHERE till_id = 'A' AND status = 'retired'") == 1)
    }

    /// `--follow` as a service: sales made while it runs reach the store; the store unreachable (a wrong port) is
    /// reported once and tried again, and the first push after it comes back sends what waited.
    @Test func followPushesWhatTheTillJournalsWhileItRuns() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        try j.startOutbox(nowMs: 0)   // pushed before: the outbox counts what is to send
        try shift(j, name: "m", at: 1_000, sales: [(100, nil)], close: false)
        let reports = Locked<[Result<PushResult, StoreError>]>([])
        let sync = Sync(journalPath: a.journalPath, address: a.address)
        let follow = Task { await sync.follow(schedule: .quick) { r in reports.withLock { $0.append(r) } } }
        defer { follow.cancel() }
        try shift(j, name: "n", at: 5_000, sales: [(2_000, 100), (300, nil)], close: true)
        let last = Int64(try j.outbox().count)
        let deadline = ContinuousClock.now + .seconds(30)
        var held: Int64 = 0
        while ContinuousClock.now < deadline {
            held = try await Int64(count(s, "SELECT count(*) FROM till_store.event"))
            if held == last { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(held == last)
        #expect(try await storeNets(s, till: "A") == (try tillNets(j)))
        follow.cancel()
        _ = await follow.value

        // A store that cannot be reached: reported as worth trying again, and nothing is lost meanwhile.
        var away = a.address
        away.port = 1
        let failing = Sync(journalPath: a.journalPath, address: away)
        let failures = Locked<[StoreError]>([])
        let waiting = Task { await failing.follow(schedule: .quick) { r in
            if case .failure(let e) = r { failures.withLock { $0.append(e) } }
        } }
        let until = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < until, failures.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(20)) }
        waiting.cancel()
        _ = await waiting.value
        let seen = failures.withLock { $0 }
        // Said once, however often it was tried.
        #expect(seen.count == 1 && seen.allSatisfy(\.transient))
        #expect(seen.first?.message.contains("nothing answers there (connection refused)") == true, "\(seen)")
    }

    /// A push held up by the store (here a lock the administrator holds on the event log) holds up no sale: the sync
    /// reads the journal in read transactions of its own and holds nothing while it talks to the store.
    @Test func aSaleNeverWaitsForAPushThatWaitsForTheStore() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        try shift(j, name: "m", at: 1_000, sales: [(100, nil)], close: false)
        let blocker = try await StoreConnection.connect(s.admin)
        try await blocker.execute("BEGIN; LOCK TABLE till_store.event IN ACCESS EXCLUSIVE MODE")
        let push = Task { try await Sync(journalPath: a.journalPath, address: a.address).pushOnce() }
        // Until the push is waiting for the lock in the store.
        let deadline = ContinuousClock.now + .seconds(30)
        var waiting = false
        while !waiting, ContinuousClock.now < deadline {
            waiting = try await count(s, "SELECT count(*) FROM pg_stat_activity WHERE usename = '\(a.role)' AND wait_event_type = 'Lock'") == 1
            if !waiting { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(waiting)
        // Meanwhile the till sells; SQLite would make a writer wait up to its busy timeout (10 s) for a lock held.
        let started = ContinuousClock.now
        try shift(j, name: "n", at: 5_000, sales: [(2_000, nil), (300, 30)], close: true)
        #expect(ContinuousClock.now - started < .seconds(5))
        try await blocker.execute("COMMIT")
        await blocker.close()
        let first = try await push.value
        let second = try await Sync(journalPath: a.journalPath, address: a.address).pushOnce()
        #expect(first.storeLastSeq + second.pushed == Int64(try j.outbox().count))
        #expect(try await storeNets(s, till: "A") == (try tillNets(j)))
    }

    /// The store crashes mid-shift and comes back: `--follow` says it is away, keeps trying with back-off, and once the
    /// store is back sends everything that was journaled meanwhile, nothing doubled, nothing missing.
    @Test func theStoreDownAndBackLosesAndDoublesNothing() async throws {
        let control = try #require(TestServer.control, "scripts/pg-test-server gives the tests a way to stop and start the server")
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        try j.startOutbox(nowMs: 0)   // pushed before: the outbox counts what is to send
        try shift(j, name: "m", at: 1_000, sales: [(100, nil)], close: false)
        let failures = Locked<[StoreError]>([])
        // A connection the crash cuts off does not always hear of it (no reset comes): the timeout gives it up.
        var address = a.address
        address.timeout = .seconds(3)
        let sync = Sync(journalPath: a.journalPath, address: address)
        let follow = Task { await sync.follow(schedule: .quick) { r in
            if case .failure(let e) = r { failures.withLock { $0.append(e) } }
        } }
        defer { follow.cancel() }
        func storeHolds(_ n: Int) async throws -> Bool {
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                if let held = try? await count(s, "SELECT count(*) FROM till_store.event"), held == n { return true }
                try await Task.sleep(for: .milliseconds(50))
            }
            return false
        }
        #expect(try await storeHolds(try j.outbox().count))
        // posix_spawn and waitpid: Foundation's Process.waitUntilExit was seen never to return here (its child left
        // a zombie), which hung the whole run.
        func pgctl(_ command: String) throws {
            var pid: pid_t = 0
            let argv: [UnsafeMutablePointer<CChar>?] = [strdup(control), strdup(command), nil]
            defer { for a in argv { free(a) } }
            #expect(posix_spawn(&pid, control, nil, nil, argv, environ) == 0)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            #expect(status == 0, "pgctl \(command) ended with status \(status)")
        }
        try pgctl("stop")
        // Sales while the store is away.
        try shift(j, name: "n", at: 5_000, sales: [(2_000, 200), (300, nil)], close: true)
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, failures.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(20)) }
        let away = failures.withLock { $0 }
        #expect(!away.isEmpty && away.allSatisfy(\.transient))
        // The status line's file: offline since the first failure, what was sent before it kept, the rest to send.
        let offline = try #require(SyncStatus.read(journal: a.journalPath))
        #expect(offline.problem != nil && offline.failingSinceMs != nil && !offline.needsSetUp)
        let journalLast = try j.outboxLastSeq()
        #expect(offline.storeLastSeq > 0 && offline.storeLastSeq < journalLast)
        try pgctl("start")
        #expect(try await storeHolds(try j.outbox().count))
        #expect(try await storeNets(s, till: "A") == (try tillNets(j)))
        follow.cancel()
        _ = await follow.value
    }

    @Test func thePasswordFileMustBeTheUsersOwnAndAWrongPasswordIsSaid() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let loose = s.dir + "/loose.password"
        _ = FileManager.default.createFile(atPath: loose, contents: Data("x".utf8), attributes: [.posixPermissions: 0o644])
        #expect(throws: StoreError.self) { try StoreAddress.readPassword(loose) }
        // 0600 but another user's: refused too (checked where the tests can make such a file: as root).
        if geteuid() == 0 {
            let others = s.dir + "/others.password"
            _ = FileManager.default.createFile(atPath: others, contents: Data("x".utf8), attributes: [.posixPermissions: 0o600])
            #expect(chown(others, 65_534, 65_534) == 0)
            #expect(throws: StoreError("the password file \(others) belongs to another user; it must be this user's own")) {
                try StoreAddress.readPassword(others)
            }
        }
        var address = a.address
        address.passwordFile = loose
        let message = await expectRefused(nil) { _ = try await StoreConnection.connect(address) }
        #expect(message.contains("chmod 600"))
        let wrong = s.dir + "/wrong.password"
        _ = FileManager.default.createFile(atPath: wrong, contents: Data("not-it".utf8), attributes: [.posixPermissions: 0o600])
        address.passwordFile = wrong
        let said = await expectRefused("28P01") { _ = try await StoreConnection.connect(address) }
        #expect(said.contains("wrong password"))
        // Through the sync: said in its status file as needing set-up, not as the network.
        _ = try Journal(path: a.journalPath)
        await expectRefused("28P01") { _ = try await Sync(journalPath: a.journalPath, address: address).pushOnce() }
        let status = try #require(SyncStatus.read(journal: a.journalPath))
        #expect(status.needsSetUp && status.problem?.contains("wrong password") == true)
        // Not on this machine: over TLS only, fully verified; on loopback without it (nothing crosses a network).
        address.host = "192.0.2.1"
        #expect(try address.configuration().tls.isEnforced)
        address.host = "127.0.0.1"
        #expect(try !address.configuration().tls.isAllowed)
    }
}
}
