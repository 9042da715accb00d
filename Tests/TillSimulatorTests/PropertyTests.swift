import Testing
import TillProtocol
@testable import TillSimulator

/// Random request scripts (seeded) must keep the terminal's books straight.
@Suite struct PropertyTests {
    struct Gen {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(n))
        }
    }

    @Test(arguments: zip([1, 2, 3, 4, 5, 6] as [UInt64], [AbortStyle.terminal, .page, .saleOnly, .terminal, .page, .saleOnly]))
    func randomScriptsKeepTheBooksStraight(seed: UInt64, abortStyle: AbortStyle) throws {
        var g = Gen(state: seed)
        let h = Harness(SimulatorConfig(seed: seed, speed: 1, cardWaitMs: 2000, hostRoundTripMs: 500, giveUpAfterMs: 20_000,
                                        abortStyle: abortStyle, declineStyle: seed % 2 == 0 ? .page : .terminal))
        let amounts = [100, 1200, 666, 551, 404, 777, 808, 909, 1313, 5000]
        var sent = 0
        for step in 0..<1500 {
            h.now += Int64(g.next(8000))
            if g.next(200) == 0 { h.now += 49 * hour }          // now and then past a batch's 48 hours
            let stans = h.sim.state.transactions.map(\.referenceNumber).filter { !$0.isEmpty }
            let anyStan = stans.isEmpty ? "000001" : stans[g.next(stans.count)]
            let cid = "c\(g.next(300))"
            let request: String
            switch g.next(13) {
            case 0, 1, 2: request = "sale&amount=\(amounts[g.next(amounts.count)])&tipAmount=\(g.next(3) * 50)&clientTransactionId=\(cid)"
            case 3: request = "pre_auth&amount=\(amounts[g.next(amounts.count)])&clientTransactionId=\(cid)"
            case 4: request = "abort"
            case 5: request = g.next(2) == 0 ? "cancel&referenceNumber=\(anyStan)" : "cancel&amount=\(1 + g.next(700))&referenceNumber=\(anyStan)"
            case 6: request = g.next(2) == 0 ? "capture_pre_auth&referenceNumber=\(anyStan)" : "capture_pre_auth&amount=\(1 + g.next(6000))&referenceNumber=\(anyStan)"
            case 7: request = "batch&command=\(g.next(2) == 0 ? "open" : "close")"
            case 8: request = "transactionDetails&clientTransactionId=\(cid)"
            case 9: request = "sale&amount=\(g.next(3))&tipAmount=\(g.next(3))"   // often invalid
            case 10: request = "cancel"                                                // the cardholder picks
            case 11: request = ["sendLogs", "getPrintingSettings", "set_printing_settings&isBarcodeEnabled=true", "reprintTransaction",
                                "getActivationCode"][g.next(5)]
            default: request = "sale&amount=\(amounts[g.next(amounts.count)])&withInstallments=true&preferredInstallments=\(g.next(60))"
                + "&paymentMethod=\(["CardPresent", "MOTO", "QrDefault"][g.next(3)])&clientTransactionId=\(cid)"
            }
            _ = h.send(request)
            sent += 1
            if step % 300 == 299 {
                // Save and load mid-way: nothing changes.
                let data = try StateCoding.encode(h.sim.state)
                #expect(try StateCoding.decode(data) == h.sim.state)
            }
        }
        _ = h.advance(by: hour)
        let s = h.sim.state
        // Nothing pending that would ever answer (9.09 may wait forever).
        #expect(h.sim.nextDueMs == nil)
        // STANs of approvals are distinct and increasing; declined ones have none.
        let approved = s.transactions.filter(\.approved)
        #expect(approved.allSatisfy { isDigits($0.referenceNumber, 6) && isDigits($0.authorisationCode, 6) })
        #expect(s.transactions.filter { !$0.approved }.allSatisfy { $0.referenceNumber.isEmpty && $0.remaining == 0 })
        #expect(zip(approved, approved.dropFirst()).allSatisfy { $0.referenceNumber < $1.referenceNumber })
        // Refunds never exceed what was charged; captures never exceed what was pre-authorised, once each.
        for (i, t) in s.transactions.enumerated() where t.approved {
            let children = s.transactions[i...].filter { $0.originalTransactionId == t.transactionId }
            let refunded = children.filter { $0.kind == .refund }.map(\.amount).reduce(0, +)
            let captures = children.filter { $0.kind == .capture }
            switch t.kind {
            case .sale, .capture:
                #expect(t.remaining >= 0 && refunded + t.remaining == t.amount + t.tipAmount)
            case .preAuth:
                #expect(captures.count <= 1 && t.captured == (captures.count == 1))
                #expect(captures.allSatisfy { $0.amount <= t.amount })
            case .refund:
                #expect(captures.isEmpty && refunded == 0)
            }
        }
        // One charge per client transaction id.
        var charged: [String: Int] = [:]
        for t in s.transactions where t.approved && (t.kind == .sale || t.kind == .preAuth) {
            charged[t.clientTransactionId ?? "-\(t.transactionId)", default: 0] += 1
        }
        #expect(charged.values.allSatisfy { $0 == 1 })
        // Every transaction belongs to a batch the terminal knows; a batch lives at most 48 hours.
        let batches = s.closedBatches + (s.activeBatch.map { [$0] } ?? [])
        let ids = Set(batches.map(\.id))
        #expect(s.transactions.allSatisfy { ids.contains($0.batchId ?? "") })
        #expect(s.activeBatch.map { h.now - $0.openedMs < TerminalSimulator.batchLifetimeMs } ?? true)
        #expect(s.closedBatches.allSatisfy { $0.closedMs! - $0.openedMs <= TerminalSimulator.batchLifetimeMs })
        #expect(h.transcript.count >= sent / 2)
        // Whatever the abort style, an aborted sale is never approved, and an abort answer carries no money
        // unless it is the real terminals' combined one.
        #expect(s.transactions.allSatisfy { !($0.approved && $0.message == SimMessage.aborted) })
        for url in h.transcript where url.contains("action=abort&") || url.hasSuffix("action=abort") {
            #expect(abortStyle == .page && !url.contains("amount="), "\(url)")
        }
    }
}
