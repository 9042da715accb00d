import Foundation
import PostgresNIO
import Testing
@testable import TillCore
import TillModel
import TillProtocol
@testable import TillStore

extension StoreServerTests {
/// The back office's reports come from the summaries the push keeps (`report_summary`); on random histories of tills
/// in three time zones, pushed in random runs while entries change state, shift and tip, they equal a fresh
/// aggregation of the entries, for every grouping and filter, and again after a shop changes its time zone.
@Suite struct SummaryTests {
    /// A small deterministic generator (xorshift), so that a failure can be replayed from its seed.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state }
        mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func pick<T>(_ a: [T]) -> T { a[int(a.count)] }
    }

    func reports(_ office: BackOffice, _ dims: [BackOffice.Dimension], _ filter: BackOffice.Filter, fresh: Bool) async throws -> [String: Report] {
        var out: [String: Report] = [:]
        try await office.report(by: dims, filter: filter, fresh: fresh) { row in out[row.key.joined(separator: "/")] = row.report }
        return out
    }

    /// The summary rows themselves, bucket by bucket, against the entries summed afresh: the reports alone would not
    /// see a bucket's first or last time left on an entry that moved to another bucket of its group (a group's report
    /// takes the earliest and latest over its buckets, which such a move does not change).
    func expectSummaryRowsEqualAFreshAggregation(_ s: TestStore, _ what: String) async throws {
        let fresh = """
            SELECT p.till_id, p.journal_id, COALESCE(p.batch_id, ''), \(StoreSchema.localDay("p.created_at_ms", "sh.time_zone")),
                   \(BackOffice.bucketColumns)
              FROM till_store.payment p JOIN till_store.till tt ON tt.id = p.till_id JOIN till_store.shop sh ON sh.id = tt.shop_id
             GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
            """
        let kept = """
            SELECT till_id, journal_id, batch_key, day, action, state, card_type, verification_method, entries, amount_cents,
                   tip_cents, tipped, included_tip_cents, first_at_ms, last_at_ms FROM till_store.report_summary
            """
        let differences = try await s.adminRows(PostgresQuery(unsafeSQL: """
            SELECT 'kept ' || x::text FROM (\(kept) EXCEPT ALL \(fresh)) x
            UNION ALL SELECT 'fresh ' || y::text FROM (\(fresh) EXCEPT ALL \(kept)) y ORDER BY 1 LIMIT 6
            """)).map { try $0.decode(String.self) }
        #expect(differences.isEmpty, "\(what): summary rows unlike a fresh aggregation: \(differences.joined(separator: "; "))")
        let rows = try await s.adminRows("SELECT count(*) FROM till_store.report_summary").first!.decode(Int64.self)
        #expect(rows > 10, "the history made summary rows: \(rows)")
    }

    func expectSummariesEqualAFreshAggregation(_ s: TestStore, _ what: String) async throws {
        try await expectSummaryRowsEqualAFreshAggregation(s, what)
        let office = BackOffice(address: try await s.office())
        let groupings: [[BackOffice.Dimension]] = [[], [.shop], [.till], [.day], [.shift], [.shop, .till, .day], [.till, .shift], [.shop, .day]]
        let filters: [BackOffice.Filter] = [.init(), .init(shop: "s2"), .init(till: "A"), .init(fromDay: "2025-03-30", toDay: "2025-03-30"),
                                            .init(fromDay: "2025-03-29", toDay: "2025-03-31"), .init(shop: "s3", fromDay: "2025-03-31")]
        for dims in groupings {
            for filter in filters {
                let summary = try await reports(office, dims, filter, fresh: false)
                let fresh = try await reports(office, dims, filter, fresh: true)
                #expect(summary == fresh, "\(what): report by \(dims) \(filter)")
            }
        }
        let all = try await reports(office, [.till, .shift, .day], .init(), fresh: true)
        #expect(all.count > 10, "the history made groups: \(all.count)")
    }

    @Test(arguments: [0x5EED as UInt64, 0xC0FFEE, 42])
    func summariesEqualAFreshAggregationOnRandomHistories(seed: UInt64) async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        try await StoreAdmin(address: s.admin).addShop(id: "s2", name: "Broadway", timeZone: "America/New_York")
        try await StoreAdmin(address: s.admin).addShop(id: "s3", name: "MG Road", timeZone: "Asia/Kolkata")
        var rng = Random(state: seed)
        let a = try await s.addTill("A")
        let b = try await s.addTill("B", shop: "s2")
        let c = try await s.addTill("C", shop: "s3")
        let tills = [a, b, c]
        // Around the spring clock change of 2025 (Europe 30 March, New York 9 March is before: a plain day there).
        let base: Int64 = 1_743_292_800_000  // 2025-03-30T00:00:00Z
        let hour: Int64 = 3_600_000
        for t in tills {
            let j = try Journal(path: t.journalPath)
            var ids: [Int64] = []
            for _ in 0..<rng.int(6) + 6 {
                // A run of entries at times near local midnights, in one of a few shifts (or none).
                let n = rng.int(25) + 1
                let rows: [(action: Action, state: EntryState, amountCents: Int, tipCents: Int, batchId: String?, atMs: Int64)] = (0..<n).map { _ in
                    let at = base + Int64(rng.int(72)) * hour - 2 * hour + Int64(rng.int(Int(hour)))
                    return (rng.pick([.sale, .sale, .sale, .cancel, .preAuth, .capturePreAuth, .abort]),
                            rng.pick([.approved, .approved, .declined, .unknown, .pending, .review]),
                            rng.int(50_000), rng.pick([0, 0, 150, 999]), rng.pick(["shift-1", "shift-2", "shift-3", nil]), at)
                }
                try j.insertSettled(rows)
                ids = try await j.database.read { try Int64.fetchAll($0, sql: "SELECT id FROM entry ORDER BY id") }
                // Some earlier entries change: a state, an answer with a card type and verification method.
                for _ in 0..<rng.int(6) {
                    let id = rng.pick(ids)
                    if rng.int(2) == 0 {
                        try j.setState(id, rng.pick([.approved, .declined, .unknown]), note: nil, nowMs: base)
                    } else {
                        let response = try CallbackResponse.decode("interapp-callback://result?status=success&action=sale&amount=\(rng.int(9_000) + 1)&cardType=\(rng.pick(["VISA", "MASTERCARD", "AMEX"]))&verificationMethod=\(rng.pick(["PIN", "SIGNATURE", "NONE"]))&transactionId=tx-\(id)")
                        try j.recordAnswer(id, response: response, state: .approved, note: nil, nowMs: base)
                    }
                }
                if rng.int(3) > 0 {
                    _ = try await Sync(journalPath: t.journalPath, address: t.address, batchSize: rng.int(40) + 2, retention: nil).pushOnce()
                }
            }
            _ = try await Sync(journalPath: t.journalPath, address: t.address, batchSize: rng.int(40) + 2, retention: nil).pushOnce()
            j.close()
        }
        try await expectSummariesEqualAFreshAggregation(s, "seed \(seed)")
        // A shop's new time zone moves its entries' local days: its summaries are summed again.
        try await StoreAdmin(address: s.admin).addShop(id: "s2", name: "Broadway", timeZone: "Pacific/Auckland")
        try await expectSummariesEqualAFreshAggregation(s, "seed \(seed), after s2 moved to Auckland's time")
    }
}
}
