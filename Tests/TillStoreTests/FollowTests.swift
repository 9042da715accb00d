import Foundation
import PostgresNIO
import Testing
@testable import TillCore
import TillIO
@testable import TillStore

extension FollowSchedule {
    /// For tests that wait for a push or a failure: quick retries, a heartbeat every ~100 ms.
    static var quick: FollowSchedule {
        var s = FollowSchedule()
        s.heartbeatMs = 100; s.heartbeatJitterMs = 0
        s.retryFirstMs = 20; s.retryMaxMs = 200; s.setUpRetryMs = 200
        return s
    }
}

/// `push --follow`'s rhythm as a pure function of the clock: a table of instants, no server, no sleeping.
@Suite struct FollowScheduleTests {
    typealias State = FollowSchedule.State
    let s = FollowSchedule()

    func state(contact: Int64? = nil, work: Int64? = nil, failures: Int = 0, failedAt: Int64? = nil, setUp: Bool = false,
               wake: Int64? = nil, looked: Int64? = nil, watched: Bool = true, jitter: Double = 0) -> State {
        var st = State(jitter: jitter, watched: watched)
        st.lastContactMs = contact; st.lastWorkMs = work; st.failures = failures; st.failedAtMs = failedAt
        st.needsSetUp = setUp; st.lastWakeMs = wake; st.lastCheckMs = looked
        return st
    }

    @Test func theRhythmIsATableOfInstants() {
        typealias Plan = FollowSchedule.Plan
        let rows: [(String, State, Int64, Plan)] = [
            ("at the start: the store at once", state(), 0,
             Plan(storeAtMs: 0, pushesChanges: true, checkAtMs: nil, closeAtMs: nil)),
            ("idle after a push: a heartbeat 30 s on (no jitter), the connection closed 2 min after the last work",
             state(contact: 1_000, work: 1_000), 1_500,
             Plan(storeAtMs: 31_000, pushesChanges: true, checkAtMs: nil, closeAtMs: 121_000)),
            ("the heartbeat's jitter spreads it to 60 s at most", state(contact: 1_000, work: 1_000, jitter: 0.5), 1_500,
             Plan(storeAtMs: 46_000, pushesChanges: true, checkAtMs: nil, closeAtMs: 121_000)),
            ("a heartbeat with nothing to send keeps the close where the last work put it",
             state(contact: 200_000, work: 1_000), 200_001,
             Plan(storeAtMs: 230_000, pushesChanges: true, checkAtMs: nil, closeAtMs: 121_000)),
            ("the journal changed: looked at again every 50 ms for a second (the commit may not be readable yet)",
             state(contact: 1_000, work: 1_000, wake: 2_000, looked: 2_000), 2_000,
             Plan(storeAtMs: 31_000, pushesChanges: true, checkAtMs: 2_050, closeAtMs: 121_000)),
            ("… a step not looked at yet is due (now is past it)", state(contact: 1_000, work: 1_000, wake: 2_000, looked: 2_050), 2_180,
             Plan(storeAtMs: 31_000, pushesChanges: true, checkAtMs: 2_100, closeAtMs: 121_000)),
            ("… after a look between steps, the next step", state(contact: 1_000, work: 1_000, wake: 2_000, looked: 2_120), 2_120,
             Plan(storeAtMs: 31_000, pushesChanges: true, checkAtMs: 2_150, closeAtMs: 121_000)),
            ("… the last step a second after the change", state(contact: 1_000, work: 1_000, wake: 2_000, looked: 2_990), 2_990,
             Plan(storeAtMs: 31_000, pushesChanges: true, checkAtMs: 3_000, closeAtMs: 121_000)),
            ("… and none after it", state(contact: 1_000, work: 1_000, wake: 2_000, looked: 3_000), 3_000,
             Plan(storeAtMs: 31_000, pushesChanges: true, checkAtMs: nil, closeAtMs: 121_000)),
            ("no kernel watch: the journal looked at every 200 ms", state(contact: 1_000, looked: 5_000, watched: false), 5_010,
             Plan(storeAtMs: 31_000, pushesChanges: true, checkAtMs: 5_200, closeAtMs: 120_000)),
            ("nothing to send since the start: the connection closed 2 min after the start, though heartbeats come sooner",
             state(contact: 100_000), 100_001,
             Plan(storeAtMs: 130_000, pushesChanges: true, checkAtMs: nil, closeAtMs: 120_000)),
            ("a first failure: tried again after 250 to 500 ms; commits wait; nothing to close",
             state(contact: 1_000, work: 1_000, failures: 1, failedAt: 5_000, wake: 5_010), 5_020,
             Plan(storeAtMs: 5_250, pushesChanges: false, checkAtMs: nil, closeAtMs: nil)),
            ("… the whole delay at the top of the jitter", state(failures: 1, failedAt: 5_000, jitter: 0.999_9), 5_000,
             Plan(storeAtMs: 5_499, pushesChanges: false, checkAtMs: nil, closeAtMs: nil)),
            ("the third failure: 1 to 2 s", state(failures: 3, failedAt: 5_000, jitter: 0.5), 5_000,
             Plan(storeAtMs: 6_500, pushesChanges: false, checkAtMs: nil, closeAtMs: nil)),
            ("the back-off stops doubling at 8 s: a store back is found within seconds", state(failures: 40, failedAt: 5_000, jitter: 0), 5_000,
             Plan(storeAtMs: 9_000, pushesChanges: false, checkAtMs: nil, closeAtMs: nil)),
            ("a refusal that needs a person: a minute", state(failures: 1, failedAt: 5_000, setUp: true), 5_000,
             Plan(storeAtMs: 65_000, pushesChanges: false, checkAtMs: nil, closeAtMs: nil)),
        ]
        for (what, st, now, expected) in rows {
            #expect(s.plan(st, nowMs: now) == expected, "\(what)")
        }
    }

    @Test func retriesAfterAnOutageAreSpreadAndBounded() {
        // 1,000 tills whose store went away long ago: each tries again within 4 to 8 s of its last try, spread evenly.
        let delays = (0..<1_000).map { s.retryDelayMs(failures: 12, jitter: Double($0) / 1_000) }
        #expect(delays.min()! == 4_000 && delays.max()! < 8_000)
        let perSecond = Dictionary(grouping: delays, by: { $0 / 1_000 }).mapValues(\.count)
        #expect(perSecond.keys.sorted() == [4, 5, 6, 7] && perSecond.values.allSatisfy { $0 == 250 })
        // Doubling from half a second.
        #expect((1...6).map { s.retryDelayMs(failures: $0, jitter: 0) } == [250, 500, 1_000, 2_000, 4_000, 4_000])
    }
}

extension StoreServerTests {
@Suite struct FollowTests {
    /// The till's backends on the store, and when each logged in.
    func backends(_ s: TestStore, _ t: TestStore.Till) async throws -> [String] {
        try await s.adminRows("SELECT backend_start::text FROM pg_stat_activity WHERE usename = \(t.role) ORDER BY 1").map { try $0.decode(String.self) }
    }

    func waitUntil(_ seconds: Int = 30, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// With a heartbeat an hour away, sales reach the store all the same: the journal's commits wake the loop (no
    /// poll), each within a second, on the one connection it keeps while the till works.
    @Test func aCommitWakesThePushOnOneConnection() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        var schedule = FollowSchedule()
        schedule.heartbeatMs = 3_600_000
        let sync = Sync(journalPath: a.journalPath, address: a.address, retention: nil)
        let follow = Task { await sync.follow(schedule: schedule) { _ in } }
        defer { follow.cancel() }
        #expect(try await waitUntil { try await count(s, "SELECT count(*) FROM till_store.journal WHERE till_id = 'A'") == 1 })
        let first = try await backends(s, a)
        #expect(first.count == 1)
        var lags: [Int64] = []
        for i in 0..<10 {
            let at = WallClock.nowMs()
            try j.insertSettled([(.sale, .approved, 100 + i, 0, "b", at)])
            #expect(try await waitUntil(10) { try await count(s, "SELECT count(*) FROM till_store.event") == i + 1 })
            lags.append(WallClock.nowMs() - at)
            try await Task.sleep(for: .milliseconds(30))
        }
        // Seen within a second each (the kernel's wake; a poll would be an hour), a connection kept throughout.
        #expect(lags.allSatisfy { $0 < 1_000 }, "\(lags)")
        #expect(try await backends(s, a) == first)
        follow.cancel()
        _ = await follow.value
    }

    /// An idle till holds no server process: the connection is closed after the idle time, and a heartbeat logs in,
    /// says the till is there (the back office's "last seen" moves), and logs out.
    @Test func anIdleTillClosesItsConnectionAndStillSaysItIsThere() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        try settledSales(j, 3, atMs: 1_000)
        var schedule = FollowSchedule()
        schedule.idleCloseMs = 200
        schedule.heartbeatMs = 1_500; schedule.heartbeatJitterMs = 0
        let sync = Sync(journalPath: a.journalPath, address: a.address, retention: nil)
        let follow = Task { await sync.follow(schedule: schedule) { _ in } }
        defer { follow.cancel() }
        #expect(try await waitUntil { try await count(s, "SELECT count(*) FROM till_store.event") == 3 })
        #expect(try await waitUntil { try await backends(s, a).isEmpty })
        func contact() async throws -> String {
            try await s.adminRows("SELECT last_contact_at::text FROM till_store.journal WHERE till_id = 'A'").first!.decode(String.self)
        }
        let before = try await contact()
        #expect(try await waitUntil(10) { try await contact() != before })
        #expect(try await waitUntil { try await backends(s, a).isEmpty })
        follow.cancel()
        _ = await follow.value
    }
}
}
