import Foundation
import PostgresNIO
import Synchronization
import Testing
@testable import TillCore
import TillIO
@testable import TillStore

/// The PgBouncer scripts/pg-test-server runs in front of the test server (transaction pooling, as docs/store.md tells a
/// chain to): under CI its absence fails the tests rather than skipping them.
enum TestPooler {
    static let port = TestServer.environment["TILL_TEST_PGBOUNCER_PORT"].flatMap(Int.init)
    static let pid = TestServer.environment["TILL_TEST_PGBOUNCER_PID"].flatMap(Int32.init)
}

extension StoreServerTests {
/// A chain's tills against one store: through a pooler, and straight to a server that takes no more connections.
@Suite struct FleetTests {
    /// 20 tills, each its own role and journal and `push --follow` loop, through PgBouncer in transaction pooling:
    /// every till's first push and 5 sellers' sales reach the store (the bench's own path, `till-sync fleet`, small),
    /// and no till is refused.
    @Test func twentyTillsPushAndFollowThroughPgBouncer() async throws {
        let host = try #require(TestServer.host), port = try #require(TestServer.port), user = try #require(TestServer.user)
        let pooler = try #require(TestPooler.port, "no PgBouncer in front of the test server (scripts/pg-test-server starts one)")
        var bench = FleetBench(admin: StoreAddress(host: host, port: port, database: "postgres", user: user), tills: 20) { _ in }
        bench.tillHost = "127.0.0.1"; bench.tillPort = pooler; bench.poolerPid = TestPooler.pid
        bench.sellers = 5; bench.salesPerSeller = 10; bench.saleSpacingMs = 50
        bench.baselineSeconds = 0; bench.idleSeconds = 0; bench.rampTimeoutSeconds = 60
        var quick = FollowSchedule.quick
        quick.heartbeatMs = 5_000
        bench.schedule = quick
        let outcome = try await bench.run()
        #expect(outcome.tillsIn == 20)
        #expect(outcome.refusals == [])
        #expect(outcome.sales == 50)
        #expect(outcome.lagMs.worst < 5_000)
    }

    /// A server that takes no more connections: the till is refused, says so in words that name the cause and the way
    /// out, tries again on its back-off, and gets in as soon as a connection is free.
    @Test func pastMaxConnectionsATillSaysWhyAndGetsInWhenThereIsRoom() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A"), b = try await s.addTill("B")
        // Every connection a role without superuser may have (max_connections less the superusers' reserve), as B:
        // logged in until the server refuses.
        var fillers: [StoreConnection] = []
        while fillers.count < 200 {
            do { fillers.append(try await StoreConnection.connect(b.address)) } catch let e as StoreError where e.sqlState == "53300" { break }
        }
        let j = try Journal(path: a.journalPath)
        try settledSales(j, 2, atMs: 1_000)
        let reports = Reports()
        let sync = Sync(journalPath: a.journalPath, address: a.address, retention: nil)
        let follow = Task { await sync.follow(schedule: .quick) { reports.add($0) } }
        defer { follow.cancel() }
        var refused: StoreError?
        for _ in 0..<500 where refused == nil {
            refused = reports.all.compactMap { if case .failure(let e) = $0 { e } else { nil } }.first
            try? await Task.sleep(for: .milliseconds(20))
        }
        // Held until the till was refused (or not within 10 s), then given back: the till gets in.
        for f in fillers { await f.close() }
        #expect(fillers.count < 200)
        let e = try #require(refused)
        #expect(e.sqlState == "53300" && e.transient)
        #expect(e.message.contains("takes no more connections") && e.message.contains("pooler"), "\(e.message)")
        var held = 0
        for _ in 0..<500 where held < 2 {
            held = try await count(s, "SELECT count(*) FROM till_store.event WHERE till_id = 'A'")
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(held == 2)
        follow.cancel()
        _ = await follow.value
    }
}
}

/// What a follow loop reported, in order.
final class Reports: Sendable {
    private let list = Mutex<[Result<PushResult, StoreError>]>([])
    func add(_ r: Result<PushResult, StoreError>) { list.withLock { $0.append(r) } }
    var all: [Result<PushResult, StoreError>] { list.withLock { $0 } }
}
