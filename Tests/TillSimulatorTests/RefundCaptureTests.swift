import Testing
import TillProtocol
@testable import TillSimulator

@Suite struct RefundTests {
    @Test func fullRefundOfWhatRemainsIncludesTheTip() throws {
        let h = Harness(instant)
        let sale = try #require(h.send("sale&amount=1000&tipAmount=200").first)
        let r = try #require(h.send("cancel&referenceNumber=\(sale.referenceNumber!)").first)
        #expect(Array(names(r).prefix(9)) == ["status", "message", "action", "amount", "cardType", "accountNumber", "tid",
                                               "transactionDate", "transactionId"])
        #expect(r.isApproved && r.message == "Transaction successful." && r.action == .cancel)
        #expect(r.amount == Money(cents: 1200))
        #expect(r.accountNumber == sale.accountNumber && r.cardType == sale.cardType)
        #expect(r.referenceNumber == "000002")
        #expect(r.transactionId != sale.transactionId)
        #expect(h.sim.state.transactions[0].remaining == 0)
        let t = h.sim.state.transactions[1]
        #expect(t.kind == .refund && t.originalTransactionId == sale.transactionId)
        // Nothing remains.
        #expect(h.send("cancel&referenceNumber=000001").first?.message == "(-43) AMOUNT_EXCEEDS_REMAINING")
    }

    @Test func partialRefundsUpToWhatRemains() throws {
        let h = Harness(instant)
        _ = h.send("sale&amount=1000&tipAmount=100")
        #expect(h.send("cancel&amount=300&referenceNumber=000001").first?.amount == Money(cents: 300))
        #expect(h.sim.state.transactions[0].remaining == 800)
        let over = try #require(h.send("cancel&amount=801&referenceNumber=000001").first)
        #expect(over.status == .fail && over.message == "(-43) AMOUNT_EXCEEDS_REMAINING" && over.amount == Money(cents: 801))
        #expect(h.sim.state.transactions[0].remaining == 800)
        #expect(h.send("cancel&amount=500&referenceNumber=000001").first?.isApproved == true)
        #expect(h.send("cancel&referenceNumber=000001").first?.amount == Money(cents: 300))   // the rest
        #expect(h.sim.state.transactions[0].remaining == 0)
        #expect(h.send("cancel&amount=1&referenceNumber=000001").first?.message == "(-43) AMOUNT_EXCEEDS_REMAINING")
    }

    @Test func shortOrderCodeBeatsOrderCodeWhichBeatsReferenceNumber() throws {
        let h = Harness(instant)
        let a = try #require(h.send("sale&amount=1000").first)
        let b = try #require(h.send("sale&amount=2000").first)
        let c = try #require(h.send("sale&amount=3000").first)
        let all = try #require(h.send("cancel&amount=1&referenceNumber=\(c.referenceNumber!)&orderCode=\(b.orderCode!)&shortOrderCode=\(a.shortOrderCode!)").first)
        #expect(all.isApproved)
        #expect(h.sim.state.transactions.map(\.remaining).prefix(3) == [999, 2000, 3000])
        let two = try #require(h.send("cancel&amount=1&referenceNumber=\(c.referenceNumber!)&orderCode=\(b.orderCode!)").first)
        #expect(two.isApproved)
        #expect(h.sim.state.transactions.map(\.remaining).prefix(3) == [999, 1999, 3000])
        _ = h.send("cancel&amount=1&referenceNumber=\(c.referenceNumber!)")
        #expect(h.sim.state.transactions.map(\.remaining).prefix(3) == [999, 1999, 2999])
        // An unknown short order code is not rescued by a known order code or STAN.
        let miss = try #require(h.send("cancel&amount=1&referenceNumber=\(c.referenceNumber!)&shortOrderCode=9999999999").first)
        #expect(miss.message == "(-30) TRANSACTION_NOT_FOUND")
    }

    @Test func refundOfARefundFails() throws {
        let h = Harness(instant)
        _ = h.send("sale&amount=1000")
        let refund = try #require(h.send("cancel&amount=100&referenceNumber=000001").first)
        let r = try #require(h.send("cancel&referenceNumber=\(refund.referenceNumber!)").first)
        #expect(r.status == .fail && r.message == "(-44) NOT_REFUNDABLE")
        #expect(h.send("cancel&orderCode=\(refund.orderCode!)").first?.message == "(-44) NOT_REFUNDABLE")
    }

    @Test func refundOfUnknownDeclinedOrPreAuthFails() throws {
        let h = Harness(instant)
        #expect(h.send("cancel&referenceNumber=123456").first?.message == "(-30) TRANSACTION_NOT_FOUND")
        let declined = try #require(h.send("sale&amount=666").first)
        #expect(h.send("cancel&orderCode=\(declined.orderCode!)").first?.message == "(-44) NOT_REFUNDABLE")
        let pre = try #require(h.send("pre_auth&amount=500").first)
        #expect(h.send("cancel&referenceNumber=\(pre.referenceNumber!)").first?.message == "(-44) NOT_REFUNDABLE")
    }

    @Test func refundWithNoKeyTakesTheLatestRefundable() throws {
        let h = Harness(instant)
        _ = h.send("sale&amount=1000")
        _ = h.send("sale&amount=2000")
        _ = h.send("sale&amount=666")
        #expect(h.send("cancel").first?.amount == Money(cents: 2000))
        #expect(h.send("cancel").first?.amount == Money(cents: 1000))
        #expect(h.send("cancel").first?.message == "(-30) TRANSACTION_NOT_FOUND")
    }

    @Test func refundInsideADateWindow() throws {
        let h = Harness(SimulatorConfig(speed: 0, utcOffsetMinutes: 180))
        _ = h.send("sale&amount=1000")                                   // at T0 = 2026-11-18T11:06:40Z
        h.now += 24 * hour
        let before = "2026-11-18T14:00:00.000+03:00", after = "2026-11-18T15:00:00.000+03:00"
        #expect(h.send("cancel&amount=1&referenceNumber=000001&txnDateFrom=\(QueryCodec.encode(after))").first?.message == "(-30) TRANSACTION_NOT_FOUND")
        #expect(h.send("cancel&amount=1&referenceNumber=000001&txnDateFrom=\(QueryCodec.encode(before))").first?.isApproved == true)
        #expect(h.send("cancel&amount=1&referenceNumber=000001&txnDateFrom=\(QueryCodec.encode(before))&txnDateTo=\(QueryCodec.encode(after))").first?.isApproved == true)
        #expect(h.send("cancel&amount=1&referenceNumber=000001&txnDateTo=\(QueryCodec.encode(after))").first?.message == "(-42) INVALID_DATE_RANGE")
    }

    @Test func aRefundOfACaptureWorks() throws {
        let h = Harness(instant)
        _ = h.send("pre_auth&amount=5000")
        let cap = try #require(h.send("capture_pre_auth&amount=4000&referenceNumber=000001").first)
        let r = try #require(h.send("cancel&referenceNumber=\(cap.referenceNumber!)").first)
        #expect(r.isApproved && r.amount == Money(cents: 4000))
    }
}

@Suite struct CaptureTests {
    @Test func captureAllOfAPreAuthOnce() throws {
        let h = Harness(instant)
        let pre = try #require(h.send("pre_auth&amount=5000&clientTransactionId=room-12").first)
        let c = try #require(h.send("capture_pre_auth&referenceNumber=\(pre.referenceNumber!)").first)
        #expect(Array(names(c).prefix(12)) == ["status", "message", "action", "clientTransactionId", "amount", "cardType",
                                                "accountNumber", "orderCode", "shortOrderCode", "tid", "transactionDate", "transactionId"])
        #expect(c.isApproved && c.action == .capturePreAuth && c.amount == Money(cents: 5000))
        #expect(c.clientTransactionId == "room-12" && c.accountNumber == pre.accountNumber)
        let again = try #require(h.send("capture_pre_auth&amount=1&referenceNumber=\(pre.referenceNumber!)").first)
        #expect(again.status == .fail && again.message == "(-45) ALREADY_CAPTURED")
        let s = h.sim.state
        #expect(s.transactions[0].captured && s.transactions[0].remaining == 0)
        #expect(s.transactions[1].kind == .capture && s.transactions[1].remaining == 5000)
    }

    @Test func captureAtMostWhatWasPreAuthorised() throws {
        let h = Harness(instant)
        let pre = try #require(h.send("pre_auth&amount=5000").first)
        #expect(h.send("capture_pre_auth&amount=5001&orderCode=\(pre.orderCode!)").first?.message == "(-43) AMOUNT_EXCEEDS_REMAINING")
        #expect(h.sim.state.transactions[0].captured == false)
        let c = try #require(h.send("capture_pre_auth&amount=3000&shortOrderCode=\(pre.shortOrderCode!)").first)
        #expect(c.isApproved && c.amount == Money(cents: 3000))
        // Captured once: the rest cannot be captured later.
        #expect(h.send("capture_pre_auth&shortOrderCode=\(pre.shortOrderCode!)").first?.message == "(-45) ALREADY_CAPTURED")
    }

    @Test func capturePrecedence() throws {
        let h = Harness(instant)
        let a = try #require(h.send("pre_auth&amount=1000").first)
        let b = try #require(h.send("pre_auth&amount=2000").first)
        let c = try #require(h.send("pre_auth&amount=3000").first)
        let r1 = try #require(h.send("capture_pre_auth&referenceNumber=\(c.referenceNumber!)&orderCode=\(b.orderCode!)&shortOrderCode=\(a.shortOrderCode!)").first)
        #expect(r1.amount == Money(cents: 1000))
        let r2 = try #require(h.send("capture_pre_auth&referenceNumber=\(c.referenceNumber!)&orderCode=\(b.orderCode!)").first)
        #expect(r2.amount == Money(cents: 2000))
        let r3 = try #require(h.send("capture_pre_auth&referenceNumber=\(c.referenceNumber!)").first)
        #expect(r3.amount == Money(cents: 3000))
    }

    @Test func captureDateWindows() throws {
        let h = Harness(instant)
        _ = h.send("pre_auth&amount=1000")               // at T0 = 2026-11-18T11:06:40Z
        h.now += hour
        func cap(_ extra: String) -> CallbackResponse? { h.send("capture_pre_auth&amount=1&referenceNumber=000001" + extra).first }
        let enc = QueryCodec.encode
        // txnDateTo without txnDateFrom is an error.
        #expect(cap("&txnDateTo=\(enc("2026-11-19T00:00:00.000+00:00"))")?.message == "(-42) INVALID_DATE_RANGE")
        // A window that ends before the pre-auth, or starts after it: not found.
        #expect(cap("&txnDateFrom=\(enc("2026-11-17T00:00:00.000+00:00"))&txnDateTo=\(enc("2026-11-18T11:00:00.000+00:00"))")?.message == "(-30) TRANSACTION_NOT_FOUND")
        #expect(cap("&txnDateFrom=\(enc("2026-11-18T12:00:00.000+0000"))")?.message == "(-30) TRANSACTION_NOT_FOUND")
        // txnDateFrom alone means until now: a window that starts in the future finds nothing.
        #expect(cap("&txnDateFrom=\(enc("2026-11-20T00:00:00Z"))")?.message == "(-30) TRANSACTION_NOT_FOUND")
        // Offsets count: 13:00+03:00 is 10:00Z, before the pre-auth.
        let ok = cap("&txnDateFrom=\(enc("2026-11-18T13:00:00.000+03:00"))")
        #expect(ok?.isApproved == true)
        #expect(h.sim.state.transactions[0].captured)
    }

    @Test func captureInsideAClosedWindow() throws {
        let h = Harness(instant)
        _ = h.send("pre_auth&amount=1000")
        let enc = QueryCodec.encode
        let r = h.send("capture_pre_auth&referenceNumber=000001&txnDateFrom=\(enc("2026-11-18T00:00:00.000+00:00"))&txnDateTo=\(enc("2026-11-19T00:00:00.000+00:00"))").first
        #expect(r?.isApproved == true && r?.amount == Money(cents: 1000))
    }

    @Test func captureOfASaleOrADeclinedPreAuthFails() throws {
        let h = Harness(instant)
        let sale = try #require(h.send("sale&amount=1000").first)
        #expect(h.send("capture_pre_auth&referenceNumber=\(sale.referenceNumber!)").first?.message == "(-46) NOT_CAPTURABLE")
        let declined = try #require(h.send("pre_auth&amount=666").first)
        #expect(h.send("capture_pre_auth&orderCode=\(declined.orderCode!)").first?.message == "(-46) NOT_CAPTURABLE")
        #expect(h.send("capture_pre_auth&referenceNumber=424242").first?.message == "(-30) TRANSACTION_NOT_FOUND")
    }

    @Test func aShortOrderCodeOnlyResolvesOnTheSameTerminal() throws {
        let h = Harness(instant)
        let pre = try #require(h.send("pre_auth&amount=1000").first)
        // The same state on a terminal with another TID.
        let other = Harness(SimulatorConfig(speed: 0, tid: "99999999"), state: h.sim.state)
        #expect(other.send("capture_pre_auth&shortOrderCode=\(pre.shortOrderCode!)").first?.message == "(-30) TRANSACTION_NOT_FOUND")
        #expect(other.send("capture_pre_auth&orderCode=\(pre.orderCode!)").first?.isApproved == true)
    }
}
