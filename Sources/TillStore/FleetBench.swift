import Foundation
import PostgresNIO
import Synchronization
import TillCore
import TillIO
#if canImport(Glibc)
import Glibc
#endif

/// `till-sync fleet`: one process plays a chain's tills against one store, each till with its own role, password and
/// journal and its own `push --follow` loop (`Sync.follow`, as the service runs it), and measures what the store pays:
/// the server's CPU while the tills are idle (from /proc: the postmaster, its backends, and those that ended), the lag
/// from a sale to its row while every till follows, and how the tills get in when there are more of them than the
/// server takes connections (refused, told why, tried again with a jittered back-off). Everything runs in a scratch
/// database made as an administrator and dropped at the end, with the tills' roles.
public struct FleetBench: Sendable {
    /// An administrator, straight to the server (the server's CPU is read from /proc: it must run on this machine).
    public var admin: StoreAddress
    public var tills: Int
    /// Where the tills log in when not at the server itself: a pooler in front of it (PgBouncer).
    public var tillHost: String?
    public var tillPort: Int?
    /// The pooler's process, whose CPU is measured beside the server's.
    public var poolerPid: Int32?
    /// Tills that sell during the lag measure (watched by the kernel; the others look at their journals once a second).
    public var sellers = 20
    public var salesPerSeller = 25
    public var saleSpacingMs = 200
    /// The server's CPU with no till at all, then with every till idle, over this long each.
    public var baselineSeconds = 20
    public var idleSeconds = 60
    /// How long the tills may take to all get in at the start.
    public var rampTimeoutSeconds = 300
    public var schedule = FollowSchedule()
    public var say: @Sendable (String) -> Void

    public init(admin: StoreAddress, tills: Int, say: @escaping @Sendable (String) -> Void) {
        self.admin = admin; self.tills = tills; self.say = say
    }

    /// What the bench found, for a test to check (the lines said are the report).
    public struct Outcome: Sendable {
        public var tillsIn = 0
        public var rampSeconds = 0.0
        public var refusedTills = 0
        public var refusals: [String] = []
        public var lagMs: (median: Double, p95: Double, worst: Double) = (0, 0, 0)
        public var sales = 0
        public var serverProcessesIdle: Int?
    }

    /// What the follow loops report, gathered.
    final class Log: Sendable {
        struct State {
            var firstInMs: [Int: Int64] = [:]
            var refused: Set<Int> = []
            /// The first words of each kind of failure (by SQLSTATE), and how many tills met it.
            var kinds: [String: (message: String, tills: Set<Int>)] = [:]
        }
        let state = Mutex(State())
        let started = ContinuousClock.now

        var nowMs: Int64 {
            let d = ContinuousClock.now - started
            return d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
        }

        func record(_ till: Int, _ result: Result<PushResult, StoreError>) {
            let now = nowMs
            state.withLock { s in
                switch result {
                case .success: if s.firstInMs[till] == nil { s.firstInMs[till] = now }
                case .failure(let e):
                    s.refused.insert(till)
                    let kind = e.sqlState ?? "none"
                    var k = s.kinds[kind] ?? (e.message, [])
                    k.tills.insert(till)
                    s.kinds[kind] = k
                }
            }
        }
    }

    public func run() async throws -> Outcome {
        try await ScratchDatabase.with(admin, kind: "fleet") { scratch, dir in try await measure(scratch, dir: dir) }
    }

    func measure(_ scratch: StoreAddress, dir: String) async throws -> Outcome {
        var outcome = Outcome()
        let n = max(1, tills)
        let started = ContinuousClock.now
        try await StoreAdmin(address: scratch).initStore()
        try await StoreAdmin(address: scratch).addShop(id: "fleet", name: "Fleet", timeZone: "Europe/Berlin")
        // One password for the bench's tills (each its own role): the password file a till's service reads.
        let password = UUID().uuidString
        let passwordFile = dir + "/till.password"
        _ = FileManager.default.createFile(atPath: passwordFile, contents: Data(password.utf8), attributes: [.posixPermissions: 0o600])
        let roles = (1...n).map { ScratchDatabase.role("fleet", scratch.database, String($0)) }
        let dataDirectory: String = try await StoreAdmin(address: scratch).with { store in
            for chunk in stride(from: 0, to: n, by: 100) {
                var sql = "BEGIN;\n"
                for i in chunk..<min(n, chunk + 100) {
                    sql += "CREATE ROLE \(roles[i]) LOGIN INHERIT PASSWORD '\(password)' IN ROLE till_pusher;\n"
                    sql += "INSERT INTO till_store.till (id, shop_id, role_name) VALUES ('t\(i + 1)', 'fleet', '\(roles[i])');\n"
                }
                try await store.execute(sql + "COMMIT;")
            }
            return try await store.query("SHOW data_directory").first!.decode(String.self)
        }
        var journals: [String] = []
        for i in 1...n {
            let folder = dir + "/t\(i)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let path = folder + "/journal.sqlite"
            let j = try Journal(path: path)
            let now = WallClock.nowMs()
            try j.startOutbox(nowMs: now)
            // A sale from before the service started: each till's first push carries it, as a till's morning does.
            try j.insertSettled([(.sale, .approved, 100 + i, 0, "shift-1", now)])
            j.close()
            journals.append(path)
        }
        say("\(n) tills (roles, journals) made in \(StoreBench.seconds(ContinuousClock.now - started).formatted1) s")

        let postmaster = ServerCPU.postmaster(dataDirectory: dataDirectory)
        if postmaster == nil { say("(the server's process is not readable here: its CPU is not measured)") }
        func cpu() -> (server: Double, processes: Int, pooler: Double)? {
            guard let postmaster, let s = ServerCPU.treeMs(postmaster) else { return nil }
            return (s.ms, s.children, poolerPid.flatMap(ServerCPU.ownMs) ?? 0)
        }
        func sample(_ seconds: Int) async throws -> (serverMsPerS: Double, poolerMsPerS: Double, processes: Int)? {
            let a = cpu(), t0 = ContinuousClock.now
            try await Task.sleep(for: .seconds(seconds))
            guard let a, let b = cpu() else { return nil }
            let s = StoreBench.seconds(ContinuousClock.now - t0)
            return ((b.server - a.server) / s, (b.pooler - a.pooler) / s, b.processes)
        }

        // The server with no till at all: its own background work (checkpointer, autovacuum, statistics).
        let baseline = try await sample(baselineSeconds)
        if let baseline {
            say("Baseline, no till: server \(baseline.serverMsPerS.formatted1) ms CPU/s (\(baseline.processes) processes), pooler \(baseline.poolerMsPerS.formatted1) ms/s, over \(baselineSeconds) s")
        }

        // Every till's follow loop, started at once (a store back after an outage, or a chain's tills at opening).
        let log = Log()
        let sellerCount = min(n, max(0, sellers))
        var loops: [Task<Void, Never>] = []
        let rampCPU = cpu()
        let rusage0 = ServerCPU.selfMs()
        for i in 0..<n {
            var address = scratch
            address.host = tillHost ?? "127.0.0.1"
            address.port = tillPort ?? scratch.port
            address.user = roles[i]
            address.passwordFile = passwordFile
            var s = schedule
            // The kernel allows a user 128 inotify instances: the sellers are watched, the others look once a second
            // (at their own journal only: the store sees no difference).
            if i >= sellerCount { s.watchesJournal = false; s.unwatchedCheckMs = 1_000 }
            let sync = Sync(journalPath: journals[i], address: address, retention: nil)
            loops.append(Task { await sync.follow(schedule: s) { log.record(i, $0) } })
        }
        defer { for l in loops { l.cancel() } }
        let rampDeadline = ContinuousClock.now + .seconds(rampTimeoutSeconds)
        var mostProcesses = 0, lastSaid = ContinuousClock.now
        while ContinuousClock.now < rampDeadline {
            let inNow = log.state.withLock { $0.firstInMs.count }
            if let c = cpu() { mostProcesses = max(mostProcesses, c.processes) }
            if inNow == n { break }
            if ContinuousClock.now - lastSaid > .seconds(15) {
                say("… \(inNow) of \(n) tills in after \(StoreBench.seconds(ContinuousClock.now - log.started).formatted1) s")
                lastSaid = ContinuousClock.now
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        let ramp = log.state.withLock { $0 }
        outcome.tillsIn = ramp.firstInMs.count
        outcome.rampSeconds = Double(ramp.firstInMs.values.max() ?? 0) / 1000
        outcome.refusedTills = ramp.refused.count
        let rampCost = rampCPU.flatMap { a in cpu().map { ($0.server - a.server, $0.pooler - a.pooler) } }
        let perSecond = Dictionary(grouping: ramp.firstInMs.values, by: { $0 / 1000 }).mapValues(\.count)
        say("Start: \(outcome.tillsIn) of \(n) tills in (a first push each) within \(outcome.rampSeconds.formatted1) s; busiest second \(perSecond.values.max() ?? 0) tills; server processes at most \(mostProcesses)" + (rampCost.map { "; server CPU \(Int($0.0)) ms, pooler \(Int($0.1)) ms" } ?? ""))
        say("Tills refused at least once: \(ramp.refused.count)")
        for (kind, k) in ramp.kinds.sorted(by: { $0.key < $1.key }) {
            say("  SQLSTATE \(kind), \(k.tills.count) tills: \(k.message)")
            outcome.refusals.append(k.message)
        }
        guard outcome.tillsIn == n else {
            say("Not every till got in within \(rampTimeoutSeconds) s: the lag and idle measures are not run.")
            return outcome
        }

        // The lag: the sellers sell, one sale each every `saleSpacingMs` (started at random within one spacing), while
        // every other till follows idle.
        if sellerCount > 0 && salesPerSeller > 0 {
            let lagStart = WallClock.nowMs()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<sellerCount {
                    let path = journals[i], sales = salesPerSeller, spacing = saleSpacingMs
                    group.addTask {
                        let j = try Journal(path: path)
                        defer { j.close() }
                        try await Task.sleep(for: .milliseconds(Int.random(in: 0..<max(1, spacing))))
                        for k in 0..<sales {
                            try j.insertSettled([(.sale, .approved, 200 + k, 0, "shift-1", WallClock.nowMs())])
                            try await Task.sleep(for: .milliseconds(spacing))
                        }
                    }
                }
                try await group.waitForAll()
            }
            var wanted: [(String, Int64)] = []
            for i in 0..<sellerCount {
                let r = try OutboxReader(path: journals[i])
                wanted.append(try r.identity())
                r.close()
            }
            let ids = wanted.map(\.0), lasts = wanted.map(\.1)
            let deadline = ContinuousClock.now + .seconds(120)
            let behind = try await StoreAdmin(address: scratch).with { store in
                var behind = Int64(sellerCount)
                while behind > 0, ContinuousClock.now < deadline {
                    behind = try await store.query("""
                        SELECT count(*) FROM unnest(\(ids)::text[], \(lasts)::int8[]) w(id, last)
                        WHERE NOT EXISTS (SELECT 1 FROM till_store.journal j WHERE j.journal_id = w.id AND j.last_seq >= w.last)
                        """).first!.decode(Int64.self)
                    if behind > 0 { try await Task.sleep(for: .milliseconds(200)) }
                }
                return behind
            }
            guard behind == 0 else { throw StoreError("\(behind) of \(sellerCount) sellers' sales are not in the store two minutes after the last") }
            let (count, median, p95, worst) = try await StoreAdmin(address: scratch).with { store in
                try await store.query("""
                    SELECT count(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY l)::float8, percentile_cont(0.95) WITHIN GROUP (ORDER BY l)::float8, max(l)::float8
                    FROM (SELECT extract(epoch FROM store_at) * 1000 - till_at_ms AS l FROM till_store.event
                          WHERE journal_id = ANY(\(ids)::text[]) AND till_at_ms >= \(lagStart)) x
                    """).first!.decode((Int64, Double, Double, Double).self)
            }
            outcome.sales = Int(count)
            outcome.lagMs = (median, p95, worst)
            say("Lag, \(sellerCount) tills selling (a sale each every \(saleSpacingMs) ms) while all \(n) follow: \(count) sales, median \(Int(median)) ms, 95th percentile \(Int(p95)) ms, worst \(Int(worst)) ms")
        }

        // Idle: once the connections of the last work are closed (`idleCloseMs` after it), every till only says it is
        // there, every `heartbeatMs` to `heartbeatMs + heartbeatJitterMs`.
        if idleSeconds > 0 {
            // Connections kept (a schedule that closes them after a day): a few seconds for the last pushes to end.
            let quiet = schedule.idleCloseMs > 600_000 ? 10_000 : schedule.idleCloseMs + 5_000
            say("(waiting \(quiet / 1000) s for the tills' connections to close after their last work)")
            try await Task.sleep(for: .milliseconds(quiet))
            if let idle = try await sample(idleSeconds) {
                let extra = idle.serverMsPerS - (baseline?.serverMsPerS ?? 0)
                outcome.serverProcessesIdle = idle.processes
                say("Idle, \(n) tills following, over \(idleSeconds) s: server \(idle.serverMsPerS.formatted1) ms CPU/s (\(idle.processes) processes at the end), \(extra.formatted1) ms/s above the baseline: \((extra * 60 / Double(n)).formatted2) ms a minute per idle till (\((extra / 10).formatted2) % of a core for all \(n))" + (poolerPid == nil ? "" : "; pooler \(idle.poolerMsPerS.formatted1) ms/s"))
            }
        }
        let rusage1 = ServerCPU.selfMs()
        say("This process (the \(n) tills' loops): \(((rusage1 - rusage0) / 1000).formatted1) s of CPU since they started, peak memory \(ServerCPU.peakRSSMB()) MB")
        for l in loops { l.cancel() }
        for l in loops { _ = await l.value }
        return outcome
    }
}

/// CPU time from /proc, in ms.
enum ServerCPU {
    static let tick = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// The fields after the command's name (`/proc/PID/stat`'s third on): state, ppid, … utime at 11, stime 12,
    /// cutime 13, cstime 14.
    static func stat(_ pid: Int32) -> [Substring]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 14 ? fields : nil
    }

    static func ms(_ f: [Substring], children: Bool) -> Double {
        let n = children ? 11...14 : 11...12
        return n.reduce(0) { $0 + (Double(f[$1]) ?? 0) } / tick * 1000
    }

    /// The postmaster's process id, from its `postmaster.pid`.
    static func postmaster(dataDirectory: String) -> Int32? {
        guard let text = try? String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8),
              let first = text.split(separator: "\n").first, let pid = Int32(first), stat(pid) != nil else { return nil }
        return pid
    }

    /// The postmaster's time, that of the children it collected (backends that ended), and of its children now.
    static func treeMs(_ root: Int32) -> (ms: Double, children: Int)? {
        guard let r = stat(root) else { return nil }
        var total = ms(r, children: true), count = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(name), pid != root, let f = stat(pid), Int32(f[1]) == root else { continue }
            total += ms(f, children: false)
            count += 1
        }
        return (total, count)
    }

    static func ownMs(_ pid: Int32) -> Double? { stat(pid).map { ms($0, children: false) } }

    static func selfMs() -> Double {
        var u = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &u)
        return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000 + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1000
    }

    static func peakRSSMB() -> Int {
        var u = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &u)
        return u.ru_maxrss / 1024
    }
}

extension Double {
    var formatted1: String { String(format: "%.1f", self) }
    var formatted2: String { String(format: "%.2f", self) }
}
