import Foundation
import GRDB
import Testing
@testable import TillCore
import TillProtocol
import TillSimulator

/// What is left of a payment, read from the entries about it (`Journal.entries(about:)`), is what the whole journal
/// says: refunds by STAN and by order code of one sale, refunds of other sales, a journal from before the key was kept.
@Suite struct FinderKeyTests {
    @Test(arguments: [1, 2, 3])
    func theEntriesAboutAPaymentSayWhatTheWholeJournalSays(seed: UInt64) async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let c = try await simulatorController(dir)
        var rng = SplitMix64(state: seed)
        var sales: [CallbackResponse] = []
        for _ in 0..<6 {
            if let r = await c.perform(sale(1_000 + rng.int(4_000))).journalEntry?.response, r.isApproved { sales.append(r) }
        }
        try #require(sales.count >= 2)
        for _ in 0..<12 {
            let r = sales[rng.int(sales.count)]
            let finder = rng.int(2) == 0 ? TransactionFinder(referenceNumber: r.referenceNumber) : TransactionFinder(orderCode: r.orderCode)
            _ = await c.perform(.cancel(FinderRequest(amount: Money(cents: 100 + rng.int(900)), finder: finder)))
        }
        await c.shutdown()
        let journal = c.journal
        func compare() throws {
            let all = RefundLinks(try journal.entries(JournalFilter(scope: .all)))
            for r in sales {
                for key in [FinderKey.referenceNumber(r.referenceNumber ?? ""), .orderCode(r.orderCode ?? "")] {
                    let about = try journal.entries(about: key)
                    let payment = try #require(RefundLinks.payment(named: key, in: about, capture: false))
                    #expect(RefundLinks(about).refunded[payment.id] == all.refunded[payment.id], "\(key)")
                    #expect(RefundLinks(about).refunds[payment.id] == all.refunds[payment.id], "\(key)")
                }
            }
        }
        try compare()
        // A journal from before the key was kept: the migration reads it back from every refund's request.
        try await journal.database.write { db in try db.execute(sql: "UPDATE entry SET finderKey = NULL") }
        #expect(try journal.entries(about: .referenceNumber(sales[0].referenceNumber ?? "")).allSatisfy { $0.action != .cancel || $0.state.awaitsTerminal })
        try await journal.database.write { db in try Journal.backfillFinderKeys(db) }
        try compare()
    }
}
