import Foundation
import GRDB
import TillModel
import TillProtocol

extension Journal {
    /// For benchmarks of the sync: `count` approved card sales as the controller journals them, each in the three
    /// writes `insertPending`, `markSent` and `recordAnswer` make (the same columns, the request URL and the answer as
    /// those write them), so the outbox holds real events with real payloads: three per sale. All in one transaction
    /// (a journal of a million events is made in seconds, not in a million commits). Not for the cashier's path.
    /// The sales are `spacingMs` apart on the till's clock.
    public func fillApprovedSalesForBench(count: Int, batch: String, startMs: Int64, spacingMs: Int64 = 20) throws {
        let caller = Caller(callback: "interapp-callback", merchantKey: "MK-bench-key-0042", appId: "com.example.till.bench")
        try write { db in
            let insert = try db.makeStatement(sql: """
                INSERT INTO entry (requestId, action, origin, parentId, clientTransactionId, amountCents, tipCents, requestURL,
                                   state, createdAtMs, updatedAtMs, batchId, batchName, requestedAmountCents, requestedTipCents, tipIncluded)
                VALUES (?, 'sale', 'request', NULL, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, 0)
                """)
            let sent = try db.makeStatement(sql: "UPDATE entry SET state = 'sent', sentAtMs = ?, updatedAtMs = ? WHERE id = ? AND state = 'pending'")
            let answered = try db.makeStatement(sql: """
                UPDATE entry SET state = 'approved', note = NULL, answeredAtMs = ?, updatedAtMs = ?, status = ?, message = ?, stan = ?,
                  orderCode = ?, shortOrderCode = ?, transactionId = ?, cardType = ?, verificationMethod = ?, response = ?
                WHERE id = ?
                """)
            for i in 0..<count {
                let at = startMs + Int64(i) * spacingMs
                let cents = 100 + (i * 7_919) % 20_000, tip = i % 10 == 0 ? 150 : nil
                let ctid = UUID().uuidString.lowercased()
                let request = TerminalRequest(caller: caller, request: .sale(SaleRequest(amount: Money(cents: cents), tipAmount: tip.map(Money.init(cents:)), clientTransactionId: ctid)))
                let stan = String(format: "%06d", i % 1_000_000)
                let tipField = tip.map { "&tipAmount=\($0)" } ?? ""
                let response = try CallbackResponse.decode("interapp-callback://result?status=success&action=sale&clientTransactionId=\(ctid)&amount=\(cents)\(tipField)&referenceNumber=\(stan)&orderCode=OC\(i)&shortOrderCode=S\(i % 10_000)&transactionId=tx-\(ctid)&cardType=VISA&verificationMethod=PIN&maskedPan=************4242&message=APPROVED")
                try insert.execute(arguments: [UUID().uuidString.lowercased(), ctid, cents, tip, request.redactedURL, at, at, batch, batch, cents, tip])
                let id = db.lastInsertedRowID
                try sent.execute(arguments: [at + 5, at + 5, id])
                try answered.execute(arguments: [at + 900, at + 900, response.status.description, response.message, response.referenceNumber,
                                                 response.orderCode, response.shortOrderCode, response.transactionId, response.cardType,
                                                 response.verificationMethod, Journal.encode(response), id])
            }
        }
    }
}
