import Foundation
import PostgresNIO
import TillModel
import TillProtocol

/// What the back office reads (as a member of `till_backoffice`, which reads everything and writes nothing): reports
/// across tills and shops, a payment from any till, and the reconciliation. Every command streams: the store's rows
/// are read and written one at a time, and what is kept between them is one group's report buckets (a few dozen at
/// most), never the rows.
///
/// Money is counted once, by TillModel: the store sums each group's entries into `ReportBucket`s keyed as the till's
/// own `batch_summary` is (action, state, card type, verification method), and `Report(buckets:)` turns them into
/// sales, tips, refunds, not charged and unknown exactly as `till report` does.
public struct BackOffice: Sendable {
    public var address: StoreAddress
    public init(address: StoreAddress) { self.address = address }

    /// What a report row is per.
    public enum Dimension: String, Sendable, CaseIterable {
        case shop, till, day, shift
    }

    /// Which entries: a shop, a till, local days (each shop's own time zone) from and to, inclusive, `YYYY-MM-DD`.
    public struct Filter: Sendable, Hashable {
        public var shop: String?
        public var till: String?
        public var fromDay: String?
        public var toDay: String?
        public init(shop: String? = nil, till: String? = nil, fromDay: String? = nil, toDay: String? = nil) {
            self.shop = shop; self.till = till; self.fromDay = fromDay; self.toDay = toDay
        }
    }

    /// One group's totals: the values of its dimensions (in the order asked) and its report.
    public struct ReportRow: Sendable {
        public var key: [String]
        public var report: Report
    }

    // MARK: SQL pieces

    /// A query's text with its parameters bound as `$1…` (text, cast where the SQL needs another type).
    struct SQL {
        var text = ""
        var binds = PostgresBindings()
        var count = 0
        mutating func add(_ s: String) { text += s }
        /// Appends a parameter's placeholder.
        mutating func bind(_ value: String) -> String {
            binds.append(value)
            count += 1
            return "$\(count)"
        }
        var query: PostgresQuery { PostgresQuery(unsafeSQL: text, binds: binds) }
        /// The filter's shop and till as conditions (`s.id` is the shop; `till` the column that names the till).
        mutating func scope(_ f: Filter, till column: String) -> [String] {
            var parts: [String] = []
            if let shop = f.shop { parts.append("s.id = " + bind(shop)) }
            if let till = f.till { parts.append(column + " = " + bind(till)) }
            return parts
        }
        /// ` WHERE` and the conditions (nothing when there are none); `and`: after a WHERE already written.
        mutating func add(where parts: [String], and: Bool = false) {
            if !parts.isEmpty { add((and ? " AND " : " WHERE ") + parts.joined(separator: " AND ")) }
        }
    }

    /// SQL lists of the actions that move money and of the states that need a person, from this build's own lists.
    static let movingActions = Action.allCases.filter(\.movesMoney).map { "'\($0.rawValue)'" }.joined(separator: ", ")
    static let openStates = EntryState.allCases.filter(\.needsAttention).map { "'\($0.rawValue)'" }.joined(separator: ", ")

    /// The local day of an entry in its shop's time zone.
    static let localDay = "to_char(to_timestamp(p.created_at_ms / 1000.0) AT TIME ZONE s.time_zone, 'YYYY-MM-DD')"
    static let localTime = "to_char(to_timestamp(p.created_at_ms / 1000.0) AT TIME ZONE s.time_zone, 'YYYY-MM-DD HH24:MI:SS')"
    static let from = " FROM till_store.payment p JOIN till_store.till t ON t.id = p.till_id JOIN till_store.shop s ON s.id = t.shop_id"

    static func expression(_ d: Dimension) -> String {
        switch d {
        case .shop: return "s.id"
        case .till: return "p.till_id"
        case .day: return localDay
        case .shift: return "COALESCE(p.batch_id, '')"
        }
    }

    /// The conditions of a filter. The local day is compared exactly; a range of the till's clock around it (no time
    /// zone is more than 14 hours from UTC) lets the `payment_created` index find the rows first.
    static func conditions(_ f: Filter, _ sql: inout SQL, moneyOnly: Bool) -> [String] {
        var parts: [String] = []
        if moneyOnly {
            parts.append("p.action IN (\(movingActions))")
        }
        parts += sql.scope(f, till: "p.till_id")
        if let from = f.fromDay {
            let b = sql.bind(from)
            parts.append("\(localDay) >= \(b)")
            parts.append("p.created_at_ms >= (extract(epoch FROM \(b)::date::timestamp) * 1000 - 50400000)::bigint")
        }
        if let to = f.toDay {
            let b = sql.bind(to)
            parts.append("\(localDay) <= \(b)")
            parts.append("p.created_at_ms < (extract(epoch FROM (\(b)::date + 1)::timestamp) * 1000 + 50400000)::bigint")
        }
        return parts
    }

    /// The bucket columns, as the till's `batch_summary` sums them.
    static let bucketColumns = """
        p.action, p.state, COALESCE(p.card_type, ''), COALESCE(p.verification_method, ''), count(*)::bigint,
        COALESCE(sum(p.amount_cents), 0)::bigint, COALESCE(sum(p.tip_cents), 0)::bigint,
        (count(*) FILTER (WHERE COALESCE(p.tip_cents, 0) > 0))::bigint,
        COALESCE(sum(CASE WHEN p.tip_included THEN p.tip_cents ELSE 0 END), 0)::bigint,
        min(p.created_at_ms), max(p.created_at_ms)
        """

    /// The bucket columns' names in `perGroup`'s wrapping, in `bucketColumns`' order.
    static let bucketNames = ["b_action", "b_state", "b_card_type", "b_method", "b_entries", "b_amount", "b_tip", "b_tipped",
                              "b_included_tip", "b_first", "b_last"]

    /// One row per group instead of one per bucket: `inner` is a query whose rows are a group's `keys` key columns then
    /// the bucket columns (`bucketColumns`, one row per bucket; a LEFT JOIN's group without entries has one row of
    /// NULLs), and the result is the key columns then each bucket column as one array over the group's buckets (NULL
    /// when it has none), ordered by the keys. A year of a chain per till and day is 11,000 groups of about 11
    /// buckets: the client then reads 11,000 rows, not 118,000 (BENCHMARKS.md). The arrays are fed the same rows in one
    /// pass, so their elements line up.
    static func perGroup(_ inner: String, keys: Int, emptyGroups: Bool = false) -> String {
        let k = (0..<keys).map { "k\($0)" }
        let arrays = bucketNames.map { "array_agg(g.\($0)) FILTER (WHERE g.b_action IS NOT NULL)" }
        var sql = "SELECT " + (k.map { "g." + $0 } + arrays).joined(separator: ", ")
        sql += " FROM (" + inner + ") g(" + (k + bucketNames).joined(separator: ", ") + ")"
        if keys > 0 { sql += " GROUP BY " + k.map { "g." + $0 }.joined(separator: ", ") }
        if !emptyGroups { sql += " HAVING count(g.b_action) > 0" }
        if keys > 0 { sql += " ORDER BY " + k.map { "g." + $0 }.joined(separator: ", ") }
        return sql
    }

    /// A group's buckets from `perGroup`'s arrays, starting at column `at` (none for a group without entries).
    static func buckets(_ cells: PostgresRandomAccessRow, at i: Int) throws -> [ReportBucket] {
        guard let actions = try cells[i].decode([String]?.self) else { return [] }
        let states = try cells[i + 1].decode([String].self), cards = try cells[i + 2].decode([String].self),
            methods = try cells[i + 3].decode([String].self)
        let figures = try (4..<11).map { try cells[i + $0].decode([Int64].self) }
        guard ([states, cards, methods].map(\.count) + figures.map(\.count)).allSatisfy({ $0 == actions.count }) else {
            throw StoreError("the store's report columns do not line up: update till-sync")
        }
        return try actions.indices.map { n in
            // Checked when the store took the event (event_problem): a bucket it cannot read would be money left out unseen.
            guard let action = Action(rawValue: actions[n]), let state = EntryState(rawValue: states[n]) else {
                throw StoreError("the store holds entries this build cannot count (\(actions[n]), \(states[n])): update till-sync")
            }
            return ReportBucket(action: action, state: state, cardType: cards[n], verificationMethod: methods[n],
                                count: Int(figures[0][n]), amountCents: Int(figures[1][n]), tipCents: Int(figures[2][n]),
                                tippedCount: Int(figures[3][n]), firstAtMs: figures[5][n], lastAtMs: figures[6][n],
                                includedTipCents: Int(figures[4][n]))
        }
    }

    /// Adds a bucket to a grand total over groups (TillModel's rule for adding buckets of one key).
    static func merge(_ b: ReportBucket, into map: inout [ReportBucket.Key: ReportBucket]) {
        if map[b.key]?.add(b) == nil { map[b.key] = b }
    }

    static func report(_ buckets: [ReportBucket]) -> Report {
        Report(kind: .running, batch: nil, generatedAtMs: 0, buckets: buckets)
    }

    // MARK: report

    /// Totals per group of `by` (a shift is a till's: asking for shifts groups by till too), in the order of the
    /// groups, each handed to `each` as soon as its row is read. Returns the grand total. Read from the summaries the
    /// push keeps (`report_summary`: a year of a chain per till and day in under a second); `fresh`: summed from the
    /// entries themselves, which the summaries must equal (tests and the bench compare them).
    @discardableResult
    public func report(by dims: [Dimension], filter: Filter, fresh: Bool = false, _ each: (ReportRow) async throws -> Void) async throws -> Report {
        let dims = BackOffice.normalised(dims)
        var sql = SQL()
        let n = dims.count
        if fresh {
            sql.add("SELECT " + (dims.map(BackOffice.expression) + [BackOffice.bucketColumns]).joined(separator: ", ") + BackOffice.from)
            let conditions = BackOffice.conditions(filter, &sql, moneyOnly: true)
            sql.add(where: conditions)
            sql.add(" GROUP BY " + (1...(n + 4)).map(String.init).joined(separator: ", "))
            sql.text = BackOffice.perGroup(sql.text, keys: n)
        } else {
            // Grouped by day or shift, a group's buckets are in about one summary row each (a summary row is a till's
            // journal, shift, day and bucket): the group's summary rows go as they are (a bucket of a group that
            // spans shifts, journals or days comes in several rows, which `Report` adds up as it adds buckets), in one
            // grouping by the dimensions alone, the day grouped as a date and made text for the groups only: a year per
            // shop, till and day is 11,000 rows, not the 118,000 buckets sorted by seven keys (BENCHMARKS.md,
            // 2026-11-29). Grouped by shop or till alone, a bucket is in hundreds of rows: the server sums them first.
            let asTheyAre = dims.contains(.day) || dims.contains(.shift)
            let columns = asTheyAre ? [BackOffice.summaryArrays] : [BackOffice.summedBucketColumns]
            sql.add("SELECT " + (dims.map(BackOffice.summaryExpression) + columns).joined(separator: ", "))
            sql.add(" FROM till_store.report_summary r JOIN till_store.till t ON t.id = r.till_id JOIN till_store.shop s ON s.id = t.shop_id")
            var parts = ["r.action IN (\(BackOffice.movingActions))"] + sql.scope(filter, till: "r.till_id")
            if let from = filter.fromDay { parts.append("r.day >= " + sql.bind(from) + "::date") }
            if let to = filter.toDay { parts.append("r.day <= " + sql.bind(to) + "::date") }
            sql.add(where: parts)
            if asTheyAre {
                let keys = dims.map(BackOffice.summaryGroup).joined(separator: ", ")
                sql.add(" GROUP BY \(keys) HAVING count(*) > 0 ORDER BY \(keys)")
            } else {
                sql.add(" GROUP BY " + (1...(n + 4)).map(String.init).joined(separator: ", "))
                sql.text = BackOffice.perGroup(sql.text, keys: n)
            }
        }
        var total: [ReportBucket.Key: ReportBucket] = [:]
        try await with { store in
            try await store.forEachRow(sql.query) { row in
                let cells = row.makeRandomAccess()
                let buckets = try BackOffice.buckets(cells, at: n)
                for b in buckets { BackOffice.merge(b, into: &total) }
                try await each(ReportRow(key: try (0..<n).map { try cells[$0].decode(String.self) }, report: BackOffice.report(buckets)))
            }
        }
        return BackOffice.report(Array(total.values))
    }

    /// A dimension's value in `report_summary`.
    static func summaryExpression(_ d: Dimension) -> String {
        switch d {
        case .day: return "to_char(r.day, 'YYYY-MM-DD')"
        default: return summaryGroup(d)
        }
    }

    /// What a summary row is grouped by for a dimension (in the order of its value).
    static func summaryGroup(_ d: Dimension) -> String {
        switch d {
        case .shop: return "s.id"
        case .till: return "r.till_id"
        case .day: return "r.day"
        case .shift: return "r.batch_key"
        }
    }

    /// The bucket columns over summary rows: the sums of what `bucketColumns` summed per group.
    static let summedBucketColumns = """
        r.action, r.state, r.card_type, r.verification_method, sum(r.entries)::bigint, sum(r.amount_cents)::bigint,
        sum(r.tip_cents)::bigint, sum(r.tipped)::bigint, sum(r.included_tip_cents)::bigint, min(r.first_at_ms), max(r.last_at_ms)
        """

    /// The bucket columns of a group's summary rows, as arrays (`buckets(_:at:)` reads them).
    static let summaryArrays = ["r.action", "r.state", "r.card_type", "r.verification_method", "r.entries", "r.amount_cents",
                                "r.tip_cents", "r.tipped", "r.included_tip_cents", "r.first_at_ms", "r.last_at_ms"]
        .map { "array_agg(\($0))" }.joined(separator: ", ")

    /// In the one order rows are grouped in (shop, till, day, shift), each once; a shift brings its till.
    public static func normalised(_ dims: [Dimension]) -> [Dimension] {
        var set = Set(dims)
        if set.contains(.shift) { set.insert(.till) }
        return Dimension.allCases.filter(set.contains)
    }

    /// The report's columns after the group's, per group: the rows of `Report.rows` that name their back-office
    /// columns (`Report.Row.store`), in their order.
    public static let reportColumns: [Column] = Report(kind: .running, batch: nil, generatedAtMs: 0, buckets: []).rows
        .flatMap { row -> [Column] in
            switch row.store {
            case .count(let name, let width)?: return [Column(name, width, .count)]
            case .amount(let name, let width)?: return [Column(name, width, .money)]
            case .countAndAmount(let name, let width, let amount, let amountWidth)?:
                return [Column(name, width, .count), Column(amount, amountWidth, .money)]
            case nil: return []
            }
        }

    /// A report's cells under `reportColumns`, as the store counts it: `unknown` is what has no outcome yet, waiting
    /// included (`Report.asTheStoreSeesIt`).
    public static func reportCells(_ r: Report) -> [Cell] {
        r.asTheStoreSeesIt.rows.flatMap { row -> [Cell] in
            switch row.store {
            case .count?: return [.count(row.value.count ?? 0)]
            case .amount?: return [.money(row.value.cents ?? 0)]
            case .countAndAmount?: return [.count(row.value.count ?? 0), .money(row.value.cents ?? 0)]
            case nil: return []
            }
        }
    }

    public static func dimensionColumn(_ d: Dimension) -> Column {
        switch d {
        case .shop: return Column("shop", 10)
        case .till: return Column("till", 10)
        case .day: return Column("day", 10)
        case .shift: return Column("shift", 16)
        }
    }

    // MARK: find

    /// What to look for: at least one of transaction id, STAN, client transaction id, amount; narrowed by the filter.
    public struct Search: Sendable, Hashable {
        public var transactionId: String?
        public var stan: String?
        public var clientTransactionId: String?
        public var amountCents: Int?
        public init(transactionId: String? = nil, stan: String? = nil, clientTransactionId: String? = nil, amountCents: Int? = nil) {
            self.transactionId = transactionId; self.stan = stan; self.clientTransactionId = clientTransactionId; self.amountCents = amountCents
        }
        public var isEmpty: Bool { transactionId == nil && stan == nil && clientTransactionId == nil && amountCents == nil }
    }

    public static let findColumns: [Column] = [
        Column("shop", 10), Column("till", 10), Column("entry", 6, .count), Column("local_time", 19), Column("action", 16),
        Column("state", 9), Column("amount", 10, .money), Column("tip", 8, .money), Column("paid", 10, .money),
        Column("stan", 6), Column("transaction_id", 20), Column("client_transaction_id", 36), Column("card", 10),
        Column("shift", 16), Column("journal", 32),
    ]

    /// Every entry that matches, from any till, oldest first (the till's clock), streamed to `each` as cells of
    /// `findColumns`. Returns how many matched.
    @discardableResult
    public func find(_ search: Search, filter: Filter, limit: Int? = nil, _ each: ([Cell]) async throws -> Void) async throws -> Int {
        guard !search.isEmpty || filter.fromDay != nil else {
            throw StoreError("say what to look for: --transaction-id, --stan, --client-transaction-id, --amount or --day")
        }
        var sql = SQL()
        sql.add("SELECT s.id, p.till_id, p.entry_id, \(BackOffice.localTime), p.action, p.state, p.amount_cents, p.tip_cents, p.tip_included, ")
        sql.add("COALESCE(p.stan, ''), COALESCE(p.transaction_id, ''), COALESCE(p.client_transaction_id, ''), COALESCE(p.card_type, ''), ")
        sql.add("COALESCE(p.batch_id, ''), p.journal_id, COALESCE(p.verification_method, '')" + BackOffice.from)
        var parts = BackOffice.conditions(filter, &sql, moneyOnly: false)
        if let v = search.transactionId { parts.append("p.transaction_id = " + sql.bind(v)) }
        if let v = search.stan { parts.append("p.stan = " + sql.bind(v)) }
        if let v = search.clientTransactionId { parts.append("p.client_transaction_id = " + sql.bind(v)) }
        if let v = search.amountCents { parts.append("p.amount_cents = " + sql.bind(String(v)) + "::bigint") }
        sql.add(where: parts)
        sql.add(" ORDER BY p.created_at_ms, p.till_id, p.entry_id")
        if let limit { sql.add(" LIMIT \(max(0, limit))") }
        var n = 0
        try await with { store in
            try await store.forEachRow(sql.query) { row in
                let c = row.makeRandomAccess()
                let actionName = try c[4].decode(String.self), stateName = try c[5].decode(String.self)
                let amount = try c[6].decode(Int64?.self).map(Int.init) ?? 0, tip = try c[7].decode(Int64?.self).map(Int.init) ?? 0
                // What the entry moved, by the rule of the till's own export (its `paid` column).
                var paid = 0
                if let action = Action(rawValue: actionName), let state = EntryState(rawValue: stateName) {
                    paid = TransactionExport.paid(action: action, state: state, tipStyle: try c[8].decode(Bool.self) ? .included : .onTop,
                                                  amount: Money(cents: amount), tip: Money(cents: tip)).cents
                }
                n += 1
                try await each([.text(try c[0].decode(String.self)), .text(try c[1].decode(String.self)), .count(Int(try c[2].decode(Int64.self))),
                                .text(try c[3].decode(String.self)), .text(actionName), .text(stateName), .money(amount), .money(tip),
                                .money(paid), .text(try c[9].decode(String.self)), .text(try c[10].decode(String.self)),
                                .text(try c[11].decode(String.self)), .text(try c[12].decode(String.self)),
                                .text(try c[13].decode(String.self)), .text(try c[14].decode(String.self))])
            }
        }
        return n
    }

    // MARK: reconcile

    /// One thing the reconciliation found.
    public struct Finding: Sendable, Hashable {
        public enum Check: String, Sendable, Hashable, CaseIterable {
            /// A till's Z report and the entries pushed for its batch disagree.
            case zMismatch = "z-mismatch"
            /// A till has not been in touch for longer than allowed, or never.
            case stopped
            /// A journal file of a till that waits for the back office to adopt it.
            case refusedJournal = "refused-journal"
            /// A till's journal file holds fewer events than the store has of it (restored from a backup, or a copy):
            /// it pushes nothing until a person decides.
            case behindJournal = "behind-journal"
            /// An entry whose outcome is still open on its till.
            case unresolved
            /// An event the store could not take, parked with its reason.
            case parked
        }
        public var check: Check
        public var shop: String
        public var till: String
        public var journal: String
        public var shift: String
        public var entry: String
        public var detail: String
        public var tillCents: Int?
        public var storeCents: Int?
    }

    public static let reconcileColumns: [Column] = [
        Column("check", 15), Column("shop", 10), Column("till", 10), Column("journal", 32), Column("shift", 16),
        Column("entry", 6), Column("detail", 60), Column("till_amount", 11, .money), Column("store_amount", 12, .money),
    ]

    public static func cells(_ f: Finding) -> [Cell] {
        [.text(f.check.rawValue), .text(f.shop), .text(f.till), .text(f.journal), .text(f.shift), .text(f.entry), .text(f.detail),
         f.tillCents.map(Cell.money) ?? .text(""), f.storeCents.map(Cell.money) ?? .text("")]
    }

    /// What the reconciliation counted besides its findings.
    public struct ReconcileSummary: Sendable, Hashable {
        public var zReports = 0
        public var zMatching = 0
        public var tills = 0
        public var findings: [Finding.Check: Int] = [:]
    }

    /// Every Z report with the buckets of the entries the store holds of its batch (`reconcile`'s first check). The
    /// batch is a key of the join (an entry of no batch is the Z report's of key ''), as `payment_summary_group`
    /// indexes it: as a condition beside it, every entry of a journal was tried against every Z report of it.
    static func zReportsAgainstEntries(_ filter: Filter) -> SQL {
        var sql = SQL()
        sql.add("""
            SELECT z.till_id, z.journal_id, z.batch_key, z.report::text, s.id, \(BackOffice.bucketColumns)
            FROM till_store.z_report z JOIN till_store.till t ON t.id = z.till_id JOIN till_store.shop s ON s.id = t.shop_id
            LEFT JOIN till_store.payment p ON p.till_id = z.till_id AND p.journal_id = z.journal_id
              AND COALESCE(p.batch_id, '') = z.batch_key
              AND p.action IN (\(BackOffice.movingActions))
            """)
        sql.add(where: sql.scope(filter, till: "z.till_id"))
        sql.add(" GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9")
        sql.text = BackOffice.perGroup(sql.text, keys: 5, emptyGroups: true)
        return sql
    }

    /// Streams every finding, check by check: Z reports against their pushed entries, tills out of touch for longer
    /// than `stoppedAfter` (by the store's clock), journals waiting to be adopted, entries still unresolved, events parked.
    @discardableResult
    public func reconcile(filter: Filter, stoppedAfter: Duration = .seconds(900), _ each: (Finding) async throws -> Void) async throws -> ReconcileSummary {
        var summary = ReconcileSummary()
        func found(_ f: Finding) async throws {
            summary.findings[f.check, default: 0] += 1
            try await each(f)
        }
        try await with { store in
            // Z reports: the report as the till stored it at the close, against the entries the store holds of that
            // batch, both counted by TillModel's Report. One row per Z report, its batch's buckets as arrays.
            try await store.forEachRow(BackOffice.zReportsAgainstEntries(filter).query) { row in
                let first = row.makeRandomAccess()
                let buckets = try BackOffice.buckets(first, at: 5)
                let k = (till: try first[0].decode(String.self), journal: try first[1].decode(String.self), batch: try first[2].decode(String.self))
                summary.zReports += 1
                let z = try JSONDecoder().decode(Report.self, from: Data(try first[3].decode(String.self).utf8))
                let pushed = BackOffice.report(buckets)
                // The figures the back office shows (`reportColumns`), row by row, as the store counts them.
                func shown(_ r: Report) -> [Report.Row] { r.asTheStoreSeesIt.rows.filter { $0.store != nil && !$0.isTotal } }
                let differ = zip(shown(z), shown(pushed)).filter { $0.0.value != $0.1.value }
                if differ.isEmpty && z.netCents == pushed.netCents { summary.zMatching += 1; return }
                let what = differ.map { (till, store) in
                    "\(till.csvLabel) \(till.value.count ?? 0)/\(Money(cents: till.value.cents ?? 0)) vs \(store.value.count ?? 0)/\(Money(cents: store.value.cents ?? 0))"
                }
                try await found(Finding(check: .zMismatch, shop: try first[4].decode(String.self), till: k.till, journal: k.journal, shift: k.batch,
                                        entry: "", detail: "Z report vs pushed entries: " + what.joined(separator: "; "),
                                        tillCents: z.netCents, storeCents: pushed.netCents))
            }

            // Tills out of touch: the last call of any of its journals, by the store's clock.
            var tills = SQL()
            tills.add("""
                SELECT s.id, t.id, to_char(max(j.last_contact_at), 'YYYY-MM-DD HH24:MI:SS TZ'), to_char(max(j.last_push_at), 'YYYY-MM-DD HH24:MI:SS TZ'),
                       COALESCE(extract(epoch FROM now() - max(j.last_contact_at))::bigint, -1)
                FROM till_store.till t JOIN till_store.shop s ON s.id = t.shop_id
                LEFT JOIN till_store.journal j ON j.till_id = t.id AND j.status = 'active'
                """)
            let tillScope = tills.scope(filter, till: "t.id")
            tills.add(where: tillScope)
            tills.add(" GROUP BY 1, 2 ORDER BY 1, 2")
            let limit = stoppedAfter.components.seconds
            try await store.forEachRow(tills.query) { row in
                let c = row.makeRandomAccess()
                summary.tills += 1
                let ago = try c[4].decode(Int64.self)
                guard ago < 0 || ago > limit else { return }
                let contact = try c[2].decode(String?.self), push = try c[3].decode(String?.self)
                let detail = contact.map { "no push since \($0) (\(BackOffice.duration(ago)) ago); last events taken \(push ?? "never")" }
                    ?? "has never pushed"
                try await found(Finding(check: .stopped, shop: try c[0].decode(String.self), till: try c[1].decode(String.self),
                                        journal: "", shift: "", entry: "", detail: detail, tillCents: nil, storeCents: nil))
            }

            // Journals waiting for the back office.
            var refused = SQL()
            refused.add("""
                SELECT s.id, j.till_id, j.journal_id, to_char(j.first_seen_at, 'YYYY-MM-DD HH24:MI:SS TZ')
                FROM till_store.journal j JOIN till_store.till t ON t.id = j.till_id JOIN till_store.shop s ON s.id = t.shop_id
                WHERE j.status = 'refused'
                """)
            let refusedScope = refused.scope(filter, till: "j.till_id")
            refused.add(where: refusedScope, and: true)
            refused.add(" ORDER BY 1, 2, 4")
            try await store.forEachRow(refused.query) { row in
                let c = row.makeRandomAccess()
                let till = try c[1].decode(String.self), journal = try c[2].decode(String.self)
                try await found(Finding(check: .refusedJournal, shop: try c[0].decode(String.self), till: till, journal: journal, shift: "",
                                        entry: "", detail: "first pushed \(try c[3].decode(String.self)); nothing of it taken until adopted (till-sync adopt-journal --till \(till) --journal \(journal))",
                                        tillCents: nil, storeCents: nil))
            }

            // Journals whose file went back (a backup restored): the till pushes nothing and says so.
            var behind = SQL()
            behind.add("""
                SELECT s.id, j.till_id, j.journal_id, j.behind_file_seq, j.last_seq, to_char(j.behind_since, 'YYYY-MM-DD HH24:MI:SS TZ')
                FROM till_store.journal j JOIN till_store.till t ON t.id = j.till_id JOIN till_store.shop s ON s.id = t.shop_id
                WHERE j.behind_since IS NOT NULL
                """)
            let behindScope = behind.scope(filter, till: "j.till_id")
            behind.add(where: behindScope, and: true)
            behind.add(" ORDER BY 1, 2, 6")
            try await store.forEachRow(behind.query) { row in
                let c = row.makeRandomAccess()
                let file = try c[3].decode(Int64.self), held = try c[4].decode(Int64.self)
                let what = file < held ? "holds events up to \(file), the store up to \(held):"
                    : "holds other events than the store (its hash chain does not go on from the store's event \(held)): edited by hand, or"
                try await found(Finding(check: .behindJournal, shop: try c[0].decode(String.self), till: try c[1].decode(String.self),
                                        journal: try c[2].decode(String.self), shift: "", entry: "",
                                        detail: "since \(try c[5].decode(String.self)) the till's file \(what) restored from a backup or copied; it pushes nothing until the newer file is back or the journal is retired",
                                        tillCents: nil, storeCents: nil))
            }

            // Entries whose outcome is still open, as the till's Unresolved screen lists them.
            var open = SQL()
            open.add("SELECT s.id, p.till_id, p.journal_id, COALESCE(p.batch_id, ''), p.entry_id, p.action, p.state, \(BackOffice.localTime), p.amount_cents, p.tip_cents, p.tip_included"
                     + BackOffice.from + " WHERE p.state IN (\(BackOffice.openStates))")
            let openScope = open.scope(filter, till: "p.till_id")
            open.add(where: openScope, and: true)
            open.add(" ORDER BY p.till_id, p.created_at_ms, p.entry_id")
            try await store.forEachRow(open.query) { row in
                let c = row.makeRandomAccess()
                let amount = Int(try c[8].decode(Int64?.self) ?? 0), tip = Int(try c[9].decode(Int64?.self) ?? 0)
                let asked = amount + (try c[10].decode(Bool.self) ? 0 : tip)
                try await found(Finding(check: .unresolved, shop: try c[0].decode(String.self), till: try c[1].decode(String.self),
                                        journal: try c[2].decode(String.self), shift: try c[3].decode(String.self),
                                        entry: String(try c[4].decode(Int64.self)),
                                        detail: "\(try c[5].decode(String.self)) \(try c[6].decode(String.self)) since \(try c[7].decode(String.self)) (till's clock, shop's time)",
                                        tillCents: asked, storeCents: nil))
            }

            // Events parked: in the log, not in the totals.
            var parked = SQL()
            parked.add("""
                SELECT s.id, q.till_id, q.journal_id, q.seq, q.kind, q.entity_key, q.reason, to_char(q.parked_at, 'YYYY-MM-DD HH24:MI:SS TZ')
                FROM till_store.quarantine q JOIN till_store.till t ON t.id = q.till_id JOIN till_store.shop s ON s.id = t.shop_id
                """)
            let parkedScope = parked.scope(filter, till: "q.till_id")
            parked.add(where: parkedScope)
            parked.add(" ORDER BY 2, 3, 4")
            try await store.forEachRow(parked.query) { row in
                let c = row.makeRandomAccess()
                try await found(Finding(check: .parked, shop: try c[0].decode(String.self), till: try c[1].decode(String.self),
                                        journal: try c[2].decode(String.self), shift: "", entry: try c[5].decode(String.self),
                                        detail: "event \(try c[3].decode(Int64.self)) (\(try c[4].decode(String.self))) parked \(try c[7].decode(String.self)): \(try c[6].decode(String.self))",
                                        tillCents: nil, storeCents: nil))
            }
        }
        return summary
    }

    /// `3 h 12 min`, `45 s`.
    static func duration(_ seconds: Int64) -> String {
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3_600 { return "\(seconds / 60) min" }
        if seconds < 86_400 { return "\(seconds / 3_600) h \(seconds % 3_600 / 60) min" }
        return "\(seconds / 86_400) d \(seconds % 86_400 / 3_600) h"
    }

    func with<T: Sendable>(_ body: (StoreConnection) async throws -> T) async throws -> T {
        try await StoreConnection.using(address, body)
    }
}
