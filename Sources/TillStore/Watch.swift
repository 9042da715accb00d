import Foundation
import PostgresNIO
import TillModel
import TillProtocol

/// What the back office's full-screen view shows at one moment: each till's money of its shop's local today, how long
/// since it was last heard from (the store's clock), and what is still open.
public struct WatchSnapshot: Sendable, Hashable {
    public struct Till: Sendable, Hashable {
        public var shop: String
        public var till: String
        public var day: String
        public var sales: Int
        public var netCents: Int
        public var unknown: Int
        /// Seconds since the till's last push (nil: never).
        public var silentFor: Int64?
        /// Entries still pending, sent, unknown or needing review, any day.
        public var unresolved: Int
        public init(shop: String, till: String, day: String, sales: Int, netCents: Int, unknown: Int, silentFor: Int64?, unresolved: Int) {
            self.shop = shop; self.till = till; self.day = day; self.sales = sales; self.netCents = netCents; self.unknown = unknown
            self.silentFor = silentFor; self.unresolved = unresolved
        }
    }
    public var tills: [Till]
    public var parked: Int
    /// The store's clock when it was read.
    public var at: String
    public init(tills: [Till], parked: Int, at: String) { self.tills = tills; self.parked = parked; self.at = at }
}

extension BackOffice {
    /// One reading of the store for the view: one query per part, a row per till (a chain's tills, not its entries).
    public func snapshot() async throws -> WatchSnapshot {
        try await with { store in
            // Today's money per till, in its shop's time zone, counted by TillModel's Report.
            var today: [String: Report] = [:]
            let sql = BackOffice.perGroup("""
                SELECT p.till_id, \(BackOffice.bucketColumns)\(BackOffice.from)
                WHERE p.action IN (\(BackOffice.movingActions)) AND p.created_at_ms > (extract(epoch FROM now()) * 1000)::bigint - 2 * 86400000
                  AND \(BackOffice.localDay) = to_char(now() AT TIME ZONE s.time_zone, 'YYYY-MM-DD')
                GROUP BY 1, 2, 3, 4, 5
                """, keys: 1)
            try await store.forEachRow(PostgresQuery(unsafeSQL: sql)) { row in
                let cells = row.makeRandomAccess()
                today[try cells[0].decode(String.self)] = BackOffice.report(try BackOffice.buckets(cells, at: 1))
            }

            var tills: [WatchSnapshot.Till] = []
            let list = """
                SELECT s.id, t.id, to_char(now() AT TIME ZONE s.time_zone, 'YYYY-MM-DD'),
                       (SELECT extract(epoch FROM now() - max(j.last_contact_at))::bigint FROM till_store.journal j WHERE j.till_id = t.id),
                       (SELECT count(*) FROM till_store.payment p WHERE p.till_id = t.id AND p.state IN (\(BackOffice.openStates)))::bigint
                FROM till_store.till t JOIN till_store.shop s ON s.id = t.shop_id ORDER BY 1, 2
                """
            try await store.forEachRow(PostgresQuery(unsafeSQL: list)) { row in
                let c = row.makeRandomAccess()
                let till = try c[1].decode(String.self)
                let r = today[till]
                tills.append(.init(shop: try c[0].decode(String.self), till: till, day: try c[2].decode(String.self),
                                   sales: r?.sales.count ?? 0, netCents: r?.netCents ?? 0, unknown: r?.notYetKnown.count ?? 0,
                                   silentFor: try c[3].decode(Int64?.self), unresolved: Int(try c[4].decode(Int64.self))))
            }
            let rows = try await store.query("SELECT (SELECT count(*) FROM till_store.quarantine)::bigint, to_char(now(), 'YYYY-MM-DD HH24:MI:SS TZ')")
            let (parked, at) = try rows[0].decode((Int64, String).self)
            return WatchSnapshot(tills: tills, parked: Int(parked), at: at)
        }
    }
}

/// The view's screen as lines, from a snapshot and the window's size: a pure function, tested with its expected
/// output. A till not heard from for longer than `silentAfter` seconds is marked `!`.
public enum WatchScreen {
    /// The bottom line: the keys the view takes.
    public static let keysLine = "q quit · r refresh now"

    public static func lines(_ s: WatchSnapshot, width: Int, height: Int, silentAfter: Int64 = 900) -> [String] {
        var out: [String] = []
        func add(_ line: String) { out.append(fit(line, width)) }
        add("till-sync watch · store time \(s.at) · today in each shop's time zone")
        add("")
        add(row(columns.map(\.name)))
        var byShop: [(String, Int, Int)] = []
        var total = 0, open = 0, silent = 0
        for t in s.tills {
            let heard: String
            switch t.silentFor {
            case nil: heard = "never !"
            case let .some(n): heard = BackOffice.duration(max(0, n)) + " ago" + (n > silentAfter ? " !" : "")
            }
            if t.silentFor.map({ $0 > silentAfter }) ?? true { silent += 1 }
            add(row([t.shop, t.till, t.day, String(t.sales), Money(cents: t.netCents).formatted(), String(t.unknown), heard, String(t.unresolved)]))
            if byShop.last?.0 == t.shop { byShop[byShop.count - 1].1 += t.netCents; byShop[byShop.count - 1].2 += 1 } else { byShop.append((t.shop, t.netCents, 1)) }
            total += t.netCents
            open += t.unresolved
        }
        add("")
        for (shop, net, n) in byShop { add("  \(shop): \(Money(cents: net).formatted()) today on \(n) till\(n == 1 ? "" : "s")") }
        add("  all shops: \(Money(cents: total).formatted()) · \(open) open · \(silent) not heard from · \(s.parked) events parked")
        // The key line stays at the bottom; what does not fit above it is cut, with a note saying so.
        let keys = fit(keysLine, width)
        if out.count > height - 1 {
            out = Array(out.prefix(max(0, height - 2))) + [fit("… \(s.tills.count) tills: make the window taller", width)]
        }
        while out.count < height - 1 { out.append("") }
        return out + [keys]
    }

    static let columns = [Column("shop", 10), Column("till", 10), Column("day", 10), Column("sales", 6, .count),
                          Column("net", 12, .money), Column("unknown", 7, .count), Column("last push", 16), Column("open", 5, .count)]
    static func row(_ cells: [String]) -> String { TableWriter.cells(Array(zip(columns, cells))) }

    static func fit(_ line: String, _ width: Int) -> String {
        let safe = SafeText.terminal(line)
        let trimmed = safe.count > width ? String(safe.prefix(max(0, width - 1))) + "…" : safe
        return trimmed.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
    }
}
