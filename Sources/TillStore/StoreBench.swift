import Foundation
import PostgresNIO
import TillCore
import TillIO

/// The store's benchmarks (`till-sync bench`): push throughput, lag from a sale to its row, and a back-office report
/// over a year of a chain. Everything runs in a scratch database it makes on the server it is given (as an
/// administrator) and drops at the end.
public struct StoreBench: Sendable {
    public var admin: StoreAddress
    /// A port on loopback that reaches the same server through a delay (scripts/bench-store starts one), or nil.
    public var delayedPort: Int?
    public var delayMs: Int
    public var lagSales: Int
    public var yearTills: Int
    public var yearEntriesPerTill: Int
    /// Events of the first pushes measured (real and synthetic payloads).
    public var realEvents = 120_000
    /// Which of `throughput`, `lag`, `year` to run.
    public var measures: Set<String> = ["throughput", "lag", "year"]
    public var say: @Sendable (String) -> Void

    public init(admin: StoreAddress, delayedPort: Int?, delayMs: Int, lagSales: Int, yearTills: Int, yearEntriesPerTill: Int,
                say: @escaping @Sendable (String) -> Void) {
        self.admin = admin; self.delayedPort = delayedPort; self.delayMs = delayMs; self.lagSales = lagSales
        self.yearTills = yearTills; self.yearEntriesPerTill = yearEntriesPerTill; self.say = say
    }

    struct Scratch {
        var address: StoreAddress
        var dir: String
        var tills = 0
    }

    public func run() async throws {
        try await ScratchDatabase.with(admin, kind: "bench") { address, dir in
            var scratch = Scratch(address: address, dir: dir)
            try await StoreAdmin(address: scratch.address).initStore()
            try await StoreAdmin(address: scratch.address).addShop(id: "bench", name: "Bench", timeZone: "Europe/Berlin")
            if measures.contains("throughput") { try await throughput(&scratch) }
            if measures.contains("lag") { try await lag(&scratch) }
            if measures.contains("year") { try await year(scratch) }
        }
    }

    /// A new till of the scratch store with a journal of `events` outbox events: synthetic (one settled sale each, an
    /// event of a few hundred bytes without request or answer, all within a minute: one day's summary group summed again
    /// at every push, the worst case) or real (approved card sales as the controller journals
    /// them: pending, sent, answered, three events a sale with the request URL and the answer, see
    /// `Journal.fillApprovedSalesForBench`).
    func till(_ scratch: inout Scratch, events: Int, real: Bool = false) async throws -> (address: StoreAddress, journal: String) {
        scratch.tills += 1
        let role = ScratchDatabase.role("bench", scratch.address.database, String(scratch.tills))
        let passwordFile = scratch.dir + "/\(scratch.tills).password"
        _ = FileManager.default.createFile(atPath: passwordFile, contents: Data(UUID().uuidString.utf8), attributes: [.posixPermissions: 0o600])
        try await StoreAdmin(address: scratch.address).addTill(id: "t\(scratch.tills)", shop: "bench", role: role, passwordFile: passwordFile)
        let journal = scratch.dir + "/\(scratch.tills).sqlite"
        let j = try Journal(path: journal)
        let now = WallClock.nowMs()
        // A till its sync pushed before: the outbox records every change (a first push would start it with each entry
        // whole instead, one event an entry).
        try j.startOutbox(nowMs: now)
        if real {
            // Five minutes apart (288 sales a day): a history of a busy till, as a first push meets it.
            let sales = (events + 2) / 3
            try j.fillApprovedSalesForBench(count: sales, batch: "shift-1", startMs: now - Int64(sales) * 300_000, spacingMs: 300_000)
        } else {
            var done = 0
            while done < events {
                let n = min(10_000, events - done)
                try j.insertSettled((0..<n).map { i in (.sale, .approved, 100 + (done + i) % 5_000, (done + i) % 10 == 0 ? 50 : 0, "shift-1", now + Int64(done + i)) })
                done += n
            }
        }
        j.close()
        var address = scratch.address
        address.host = "127.0.0.1"
        address.user = role
        address.passwordFile = passwordFile
        return (address, journal)
    }

    /// The push alone (no pruning after it), as a till's role; the events of the journal, their mean payload, the time.
    func pushTimed(_ scratch: inout Scratch, events: Int, real: Bool, batch: Int, port: Int?) async throws -> String {
        var (address, journal) = try await till(&scratch, events: events, real: real)
        if let port { address.port = port }
        let outbox = try Journal(path: journal)
        let all = try outbox.outbox()
        outbox.close()
        let bytes = all.reduce(0) { $0 + $1.payload.utf8.count } / max(1, all.count)
        let sync = Sync(journalPath: journal, address: address, batchSize: batch, retention: nil)
        let started = ContinuousClock.now
        let r = try await sync.pushOnce()
        let seconds = StoreBench.seconds(ContinuousClock.now - started)
        guard r.pushed == Int64(all.count) else { throw StoreError("the bench pushed \(r.pushed) of \(all.count) events") }
        return "| \(real ? "real" : "synthetic") (\(bytes) B) | \(batch) | \(Int((Double(all.count) / seconds).rounded())) (\(all.count) events, \(r.batches) round trips, \(String(format: "%.2f", seconds)) s) |"
    }

    func throughput(_ scratch: inout Scratch) async throws {
        say("## Push throughput (events/s; `till-sync push --once` as a till, whole push: SQLite read, the store's checks and projections)")
        var links: [(String, Int?)] = [("loopback", nil)]
        if let delayedPort { links.append(("loopback + \(delayMs) ms each way (delay proxy)", delayedPort)) }
        for (label, port) in links {
            say("")
            say("### \(label)")
            say("")
            say("| events (mean payload) | batch | events/s |")
            say("|---|---|---|")
            for (real, batch, events) in [(false, Sync.defaultBatchSize, realEvents), (true, Sync.defaultBatchSize, realEvents), (true, 500, realEvents / 2),
                                          (false, 2, port == nil ? 2_000 : 150)] {
                say(try await pushTimed(&scratch, events: events, real: real, batch: batch, port: port))
            }
        }
        say("")
    }

    /// Sales journaled one every 10 ms while `push --follow`'s loop runs (as a service does); each sale's lag is
    /// the store's clock when its push ran less the till's clock when it was journaled (one machine: one clock).
    func lag(_ scratch: inout Scratch) async throws {
        let (address, journalPath) = try await till(&scratch, events: 0)
        let j = try Journal(path: journalPath)
        let sync = Sync(journalPath: journalPath, address: address)
        let follow = Task { await sync.follow { _ in } }
        for i in 0..<lagSales {
            try j.insertSettled([(.sale, .approved, 100 + i, 0, "lag", WallClock.nowMs())])
            try await Task.sleep(for: .milliseconds(10))
        }
        let deadline = ContinuousClock.now + .seconds(60)
        let till = "t\(scratch.tills)"
        // One connection for the wait (a login every 100 ms was load on the store the follow loop shares).
        let held = try await StoreAdmin(address: scratch.address).with { store in
            var held: Int64 = 0
            while held < Int64(lagSales), ContinuousClock.now < deadline {
                held = try await store.query("SELECT count(*) FROM till_store.event WHERE till_id = \(till)").first!.decode(Int64.self)
                if held < Int64(lagSales) { try await Task.sleep(for: .milliseconds(100)) }
            }
            return held
        }
        follow.cancel()
        _ = await follow.value
        j.close()
        guard held == Int64(lagSales) else { throw StoreError("the store holds \(held) of \(lagSales) sales after a minute") }
        let (median, p95, worst) = try await StoreAdmin(address: scratch.address).with { store in
            try await store.query("""
                SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY l)::float8, percentile_cont(0.95) WITHIN GROUP (ORDER BY l)::float8, max(l)::float8
                FROM (SELECT extract(epoch FROM store_at) * 1000 - till_at_ms AS l FROM till_store.event WHERE till_id = \("t\(scratch.tills)")) x
                """).first!.decode((Double, Double, Double).self)
        }
        say("## Lag from a sale to its row in the store (`push --follow`, woken by the journal's commits)")
        say("")
        say("\(lagSales) sales, one every 10 ms: median \(Int(median)) ms, 95th percentile \(Int(p95)) ms, worst \(Int(worst)) ms.")
        say("")
    }

    /// A chain's year straight into the store (generate_series), then the back office's reports over it.
    func year(_ scratch: Scratch) async throws {
        let tills = yearTills, per = yearEntriesPerTill
        let started = ContinuousClock.now
        try await StoreAdmin(address: scratch.address).with { store in
            try await store.execute("""
                INSERT INTO till_store.shop SELECT 'shop-' || i, 'Shop ' || i, (ARRAY['Europe/Berlin', 'Europe/London', 'America/New_York'])[1 + i % 3]
                  FROM generate_series(1, \(max(1, tills / 3))) i;
                INSERT INTO till_store.till (id, shop_id, role_name) SELECT 'till-' || i, 'shop-' || (1 + i % \(max(1, tills / 3))), 'year_role_' || i
                  FROM generate_series(1, \(tills)) i;
                INSERT INTO till_store.journal (till_id, journal_id, status, last_seq, last_push_at, last_contact_at)
                  SELECT 'till-' || i, 'journal-' || i, 'active', \(per), now(), now() FROM generate_series(1, \(tills)) i;
                INSERT INTO till_store.payment (till_id, journal_id, entry_id, request_id, action, origin, state, amount_cents, tip_cents,
                    tip_included, batch_id, batch_name, client_transaction_id, transaction_id, stan, card_type, verification_method,
                    created_at_ms, updated_at_ms, last_seq)
                  SELECT 'till-' || t, 'journal-' || t, n, 'req-' || t || '-' || n,
                         CASE WHEN n % 100 < 93 THEN 'sale' WHEN n % 100 < 96 THEN 'cancel' WHEN n % 100 < 98 THEN 'pre_auth' ELSE 'capture_pre_auth' END,
                         'request',
                         CASE WHEN n % 50 = 0 THEN 'declined' WHEN n % 333 = 0 THEN 'unknown' ELSE 'approved' END,
                         100 + (n * 7919) % 20000, CASE WHEN n % 10 = 0 THEN 100 ELSE 0 END, false,
                         'shift-' || (n * 365 / \(per)), 'shift-' || (n * 365 / \(per)), 'ctid-' || t || '-' || n, 'tx-' || t || '-' || n,
                         lpad((n % 1000000)::text, 6, '0'), CASE WHEN n % 3 = 0 THEN 'VISA' ELSE 'MASTERCARD' END, 'PIN',
                         1735689600000 + n::bigint * (365::bigint * 86400000 / \(per)), 1735689600000 + n::bigint * (365::bigint * 86400000 / \(per)), n
                    FROM generate_series(1, \(tills)) t, generate_series(1, \(per)) n;
                ANALYZE till_store.payment;
                """)
        }
        let loaded = StoreBench.seconds(ContinuousClock.now - started)
        // Generated straight into `payment`, past the push: its summaries are summed once, as a migration does.
        let summing = ContinuousClock.now
        try await StoreAdmin(address: scratch.address).with { store in
            try await store.execute("SELECT till_store.summarise_shop(NULL); ANALYZE till_store.report_summary")
        }
        let summed = StoreBench.seconds(ContinuousClock.now - summing)
        say("## The back office over a year of a chain")
        say("")
        say("\(tills) tills in \(max(1, tills / 3)) shops (three time zones), \(tills * per) entries over 2025, generated in the store with generate_series (\(String(format: "%.0f", loaded)) s with its indexes; their report summaries summed in \(String(format: "%.0f", summed)) s). Each report from the summaries the push keeps, then the same from a fresh aggregation of the entries (`fresh`).")
        say("")
        say("| command | rows out | time |")
        say("|---|---|---|")
        // As the back office logs in: its role, row-level security and all.
        let role = ScratchDatabase.role("bench", scratch.address.database, "office"), password = UUID().uuidString
        let passwordFile = scratch.dir + "/office.password"
        _ = FileManager.default.createFile(atPath: passwordFile, contents: Data(password.utf8), attributes: [.posixPermissions: 0o600])
        try await StoreAdmin(address: scratch.address).with { try await $0.execute("CREATE ROLE \(role) LOGIN PASSWORD '\(password)' IN ROLE till_backoffice") }
        var officeAddress = scratch.address
        officeAddress.host = "127.0.0.1"; officeAddress.user = role; officeAddress.passwordFile = passwordFile
        let office = BackOffice(address: officeAddress)
        func timed(_ label: String, _ body: () async throws -> Int) async throws {
            let t0 = ContinuousClock.now
            let rows = try await body()
            say("| `\(label)` | \(rows) | \(String(format: "%.2f", StoreBench.seconds(ContinuousClock.now - t0))) s |")
        }
        let reports: [(String, [BackOffice.Dimension], BackOffice.Filter)] = [
            ("report --by shop", [.shop], .init()), ("report --by shop till day", [.shop, .till, .day], .init()),
            ("report --by till shift", [.till, .shift], .init()), ("report --by till --day 2025-06-15", [.till], .init(fromDay: "2025-06-15", toDay: "2025-06-15")),
            ("report --by shop --from 2025-06-01 --to 2025-06-30", [.shop], .init(fromDay: "2025-06-01", toDay: "2025-06-30")),
        ]
        for (label, dims, filter) in reports {
            for fresh in [false, true] {
                try await timed(label + (fresh ? " (fresh)" : "")) { var n = 0; try await office.report(by: dims, filter: filter, fresh: fresh) { _ in n += 1 }; return n }
            }
        }
        try await timed("find --transaction-id tx-7-4242") { try await office.find(.init(transactionId: "tx-7-4242"), filter: .init()) { _ in } }
        try await timed("find --amount 123.45 --day 2025-06-15") { try await office.find(.init(amountCents: 12_345), filter: .init(fromDay: "2025-06-15", toDay: "2025-06-15")) { _ in } }
        try await timed("find --day 2025-06-15 (every entry of the day, streamed)") { try await office.find(.init(), filter: .init(fromDay: "2025-06-15", toDay: "2025-06-15")) { _ in } }
        try await timed("reconcile") { var n = 0; try await office.reconcile(filter: .init()) { _ in n += 1 }; return n }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        say("")
        say("Peak memory of the whole bench process (maximum resident set): \(usage.ru_maxrss / 1024) MB.")
        say("")
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
