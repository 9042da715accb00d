import Foundation
import PostgresNIO
import Testing
import TillModel
import TillProtocol
@testable import TillStore

/// The back office's report columns are the rows of the till's report that name one (`Report.Row.store`): its header
/// is the interface an integrator reads, and its cells are the rows' figures as the store counts them.
@Suite struct BackOfficeReportColumnsTests {
    @Test func theColumnsComeFromTheReportsRows() {
        // The names an integrator's script reads (CSV header, JSON keys): unchanged since the back office has them.
        #expect(BackOffice.reportColumns.map(\.name) == ["sales", "sales_amount", "tips", "captures", "refunds", "net", "declined",
                                                        "not_charged", "unknown", "unknown_amount", "review"])
        var r = Report(kind: .running, batch: nil, generatedAtMs: 0, buckets: [])
        r.sales = Tally(count: 3, cents: 7250); r.tips = Tally(count: 2, cents: 800); r.captures = Tally(count: 1, cents: 4200)
        r.refunds = Tally(count: 1, cents: 1500); r.declined = Tally(count: 2, cents: 1267); r.notCharged = Tally(count: 4, cents: 1)
        r.waiting = Tally(count: 1, cents: 700); r.unknown = Tally(count: 1, cents: 1313); r.review = Tally(count: 5, cents: 2)
        let cells = BackOffice.reportCells(r)
        #expect(cells.count == BackOffice.reportColumns.count)
        #expect(cells == [.count(3), .money(7250), .money(800), .money(4200), .money(1500), .money(r.netCents), .count(2), .count(4),
                          .count(2), .money(2013), .count(5)])
        // Every row that names a back-office column is one the till's own formats show (the same words).
        for row in r.rows where row.store != nil { #expect(r.text(ReportFormat()).contains(row.label), "\(row.key)") }
    }
}

extension StoreServerTests {
    /// The store's `payment_paid` (and `till_batch_net` over it) counts what the till counts: for every action and
    /// state, with the tip on top or included, the money it says an entry moved is `TransactionExport.paid`'s, which
    /// follows each action's `reportRole`. A new action is counted by its declaration, not by a copy of it in SQL.
    @Suite struct PaidViewTests {
        @Test func thePaidViewFollowsEachActionsDeclaration() async throws {
            let s = try await TestStore(); defer { s.cleanup() }
            _ = try await s.addTill("A")
            _ = try await s.adminRows("INSERT INTO till_store.journal (till_id, journal_id, status) VALUES ('A', 'j', 'active')")
            var want: [Int64: Int] = [:], what: [Int64: String] = [:]
            var net = 0
            var id: Int64 = 0
            for action in Action.allCases {
                for state in EntryState.allCases {
                    for included in [false, true] {
                        id += 1
                        let amount = 1_000 + Int(id), tip = 100
                        let paid = TransactionExport.paid(action: action, state: state, tipStyle: included ? .included : .onTop,
                                                          amount: Money(cents: amount), tip: Money(cents: tip)).cents
                        want[id] = paid
                        what[id] = "\(action.rawValue) \(state.rawValue) tip \(included ? "included" : "on top")"
                        net += paid
                        _ = try await s.adminRows("""
                            INSERT INTO till_store.payment (till_id, journal_id, entry_id, request_id, action, origin, state, amount_cents,
                              tip_cents, tip_included, batch_id, created_at_ms, updated_at_ms, last_seq)
                            VALUES ('A', 'j', \(id), \("r\(id)"), \(action.rawValue), 'request', \(state.rawValue), \(amount), \(tip),
                              \(included), 'B', 1, 1, \(id))
                            """)
                    }
                }
            }
            var got: [Int64: Int] = [:]
            for row in try await s.adminRows("SELECT entry_id, paid_cents FROM till_store.payment_paid WHERE till_id = 'A'") {
                let (entry, paid) = try row.decode((Int64, Int64).self)
                got[entry] = Int(paid)
            }
            // Each entry the view counts otherwise than the till, by its action, state and tip style.
            let wrong = want.keys.sorted().filter { got[$0] != want[$0] }
                .map { "\(what[$0]!): \(got[$0].map(String.init) ?? "none") instead of \(want[$0]!)" }
            #expect(got.count == want.count && wrong.isEmpty, "\(wrong)")
            #expect(try await storeNets(s, till: "A") == ["B": net])
        }
    }
}
