import Testing
import TillProtocol
@testable import TillSimulator

/// Real-time delays on an injected clock: card 3 s, host 1 s, give up after 60 s.
let realTime = SimulatorConfig(speed: 1)

@Suite struct TimingTests {
    @Test func aSaleGoesThroughItsStagesOnTheInjectedClock() throws {
        let h = Harness(realTime)
        #expect(h.send("sale&amount=1000").isEmpty)
        #expect(h.sim.state.pending?.stage == .waitingForCard)
        #expect(h.sim.nextDueMs == T0 + 3000)
        #expect(h.advance(to: T0 + 2999).isEmpty)
        #expect(h.advance(to: T0 + 3000).isEmpty)
        #expect(h.sim.state.pending?.stage == .atHost)
        #expect(h.sim.nextDueMs == T0 + 4000)
        #expect(h.advance(to: T0 + 3999).isEmpty)
        let out = h.advance(to: T0 + 4000)
        try #require(out.count == 1)
        #expect(out[0].isApproved)
        #expect(out[0].transactionDate.map { $0.instant / 10_000 } == T0 + 4000)
        #expect(h.sim.nextDueMs == nil)
        #expect(h.sim.state.pending == nil)
        #expect(h.advance(by: 10 * hour).isEmpty)
    }

    @Test func oneBigJumpDeliversEverythingDue() {
        let h = Harness(realTime)
        _ = h.send("sale&amount=1000")
        let out = h.advance(by: 100_000)
        #expect(out.count == 1)
        #expect(out.first?.isApproved == true)
    }

    @Test func speedScalesEveryDelay() {
        let h = Harness(SimulatorConfig(speed: 0.5, cardWaitMs: 2000, hostRoundTripMs: 400))
        _ = h.send("sale&amount=1000")
        #expect(h.sim.nextDueMs == T0 + 1000)
        _ = h.advance(to: T0 + 1000)
        #expect(h.sim.nextDueMs == T0 + 1200)
        #expect(h.advance(to: T0 + 1200).count == 1)
    }

    @Test func speedZeroAnswersAtOnce() {
        let h = Harness(instant)
        let out = h.send("sale&amount=1000")
        #expect(out.count == 1)
        #expect(h.sim.nextDueMs == nil)
    }

    @Test func aNewSaleWhileOneIsInProgressFails() throws {
        let h = Harness(realTime)
        _ = h.send("sale&amount=1000&clientTransactionId=first")
        let busy = try #require(h.send("sale&amount=2000&tipAmount=5&clientTransactionId=second").first)
        #expect(busy.status == .fail)
        #expect(busy.message == "(-20) TRANSACTION_IN_PROGRESS")
        #expect(busy.clientTransactionId == "second")
        #expect(busy.amount == Money(cents: 2000))
        #expect(h.send("pre_auth&amount=2000").first?.message == "(-20) TRANSACTION_IN_PROGRESS")
        #expect(h.send("cancel&referenceNumber=000001").first?.message == "(-20) TRANSACTION_IN_PROGRESS")
        #expect(h.send("capture_pre_auth&referenceNumber=000001").first?.message == "(-20) TRANSACTION_IN_PROGRESS")
        // Batches and details are answered meanwhile.
        #expect(h.send("batch&command=open&batchName=x").first?.isApproved == true)
        #expect(h.send("transactionDetails&clientTransactionId=first").first?.message == "(-20) TRANSACTION_IN_PROGRESS")
        let done = h.advance(by: 10_000)
        #expect(done.count == 1)
        #expect(done.first?.clientTransactionId == "first")
        #expect(done.first?.isApproved == true)
        #expect(h.sim.state.transactions.count == 1)
    }
}

@Suite struct AbortTests {
    @Test func abortWhileWaitingForTheCardAnswersOnceForBoth() throws {
        let h = Harness(realTime)
        #expect(h.send("sale&amount=1000&tipAmount=150&clientTransactionId=ab-1").isEmpty)
        h.now += 1500
        let out = h.send("abort")
        try #require(out.count == 1)
        let r = out[0]
        #expect(names(r) == ["status", "message", "action", "amount", "tipAmount", "clientTransactionId"])
        #expect(r.status == .fail)
        #expect(r.message == "(-57) ABORTED")
        #expect(r["action"] == "ABORT")
        #expect(r.abortOutcome == .aborted)
        #expect(r.amount == Money(cents: 1000))
        #expect(r.tipAmount == Money(cents: 150))
        #expect(r.clientTransactionId == "ab-1")
        // No separate sale callback, ever.
        #expect(h.sim.nextDueMs == nil)
        #expect(h.advance(by: 24 * hour).isEmpty)
        let t = try #require(h.sim.state.transactions.last)
        #expect(!t.approved && t.message == "(-57) ABORTED" && t.referenceNumber.isEmpty && t.remaining == 0)
        // The terminal is free again.
        #expect(h.completedSale("sale&amount=200")?.isApproved == true)
    }

    @Test func abortAfterTheCardWasReadGetsNoAnswerOnlyTheSalesResult() throws {
        let h = Harness(realTime)
        _ = h.send("sale&amount=1000")
        _ = h.advance(to: T0 + 3000)       // card read, at the host
        #expect(h.sim.state.pending?.stage == .atHost)
        #expect(h.send("abort").isEmpty)
        let out = h.advance(to: T0 + 4000)
        try #require(out.count == 1)
        #expect(out[0].action == .sale)
        #expect(out[0].isApproved)
        #expect(h.advance(by: hour).isEmpty)
    }

    @Test func abortAtTheSlowHostGetsNoAnswer() throws {
        let h = Harness(realTime)
        _ = h.send("sale&amount=777")
        _ = h.advance(to: T0 + 3000)
        #expect(h.send("abort").isEmpty)
        #expect(h.advance(to: T0 + 3000 + 14_999).isEmpty)
        let out = h.advance(to: T0 + 3000 + 15_000)
        #expect(out.count == 1 && out.first?.isApproved == true)
    }

    @Test func abortWithNothingInProgress() throws {
        let h = Harness(realTime)
        let r = try #require(h.send("abort").first)
        #expect(names(r) == ["status", "message", "action"])
        #expect(r.status == .fail)
        #expect(r.message == "(-55) NOTHING_TO_ABORT")
        #expect(r["action"] == "ABORT")
        #expect(r.abortOutcome == .nothingToAbort)
        // Also after a sale has finished.
        _ = h.completedSale("sale&amount=100")
        #expect(h.send("abort").first?.message == "(-55) NOTHING_TO_ABORT")
    }

    @Test func abortWorksOnPreAuthToo() throws {
        let h = Harness(realTime)
        _ = h.send("pre_auth&amount=5000&clientTransactionId=pa")
        let r = try #require(h.send("abort").first)
        #expect(r.message == "(-57) ABORTED")
        #expect(r.clientTransactionId == "pa")
    }
}

@Suite struct ScenarioTests {
    @Test func declinedByServerHasEmptyStanAndAuthCode() throws {
        let h = Harness(realTime)
        let r = try #require(h.completedSale("sale&amount=666&tipAmount=10&clientTransactionId=d"))
        #expect(names(r) == saleFieldOrder)
        #expect(r.status == .fail)
        #expect(r.message == "(-12) TRANSACTION_DECLINED_BY_SERVER")
        #expect(r.messageCode == -12)
        #expect(r["referenceNumber"] == "" && r["authorisationCode"] == "")
        #expect(r.cardType != nil && r.accountNumber != nil)   // the card was read
        #expect(h.sim.state.nextStan == 1)                       // no STAN used
        #expect(h.sim.state.transactions.last?.remaining == 0)
        // The next approved sale gets STAN 000001.
        #expect(h.completedSale("sale&amount=100")?.referenceNumber == "000001")
    }

    @Test func insufficientFunds() throws {
        let h = Harness(realTime)
        let r = try #require(h.completedSale("sale&amount=551"))
        #expect(r.status == .fail)
        #expect(r.message == "(-51) INSUFFICIENT_FUNDS")
        #expect(r["referenceNumber"] == "")
    }

    @Test func cancelledByTheCardholderWhenTheCardIsDue() throws {
        let h = Harness(realTime)
        _ = h.send("sale&amount=404")
        #expect(h.advance(to: T0 + 2999).isEmpty)
        let out = h.advance(to: T0 + 3000)
        let r = try #require(out.first)
        #expect(r.status == .fail)
        #expect(r.message == "(-4) USER_CANCEL")
        #expect(r["cardType"] == "" && r["accountNumber"] == "")   // no card was read
        #expect(names(r) == saleFieldOrder)
    }

    @Test func theScenarioIsPickedByTheAmountWithoutTheTip() throws {
        let h = Harness(instant)
        #expect(h.send("sale&amount=600&tipAmount=66").first?.isApproved == true)     // 6.66 in total, but amount 6.00
        #expect(h.send("sale&amount=666&tipAmount=1").first?.message == "(-12) TRANSACTION_DECLINED_BY_SERVER")
        #expect(h.send("pre_auth&amount=551").first?.message == "(-51) INSUFFICIENT_FUNDS")
    }

    @Test func slowHostTakesFifteenSeconds() throws {
        let h = Harness(realTime)
        _ = h.send("sale&amount=777")
        _ = h.advance(to: T0 + 3000)
        #expect(h.sim.nextDueMs == T0 + 18_000)
        #expect(h.advance(to: T0 + 17_999).isEmpty)
        #expect(h.advance(to: T0 + 18_000).first?.isApproved == true)
        // Scaled by speed.
        let fast = Harness(SimulatorConfig(speed: 0.1))
        _ = fast.send("sale&amount=777")
        _ = fast.advance(to: T0 + 300)
        #expect(fast.sim.nextDueMs == T0 + 300 + 1500)
    }

    @Test func cardNeverPresentedGivesUpAfterTheTimeout() throws {
        let h = Harness(realTime)
        _ = h.send("sale&amount=808&clientTransactionId=n")
        #expect(h.sim.nextDueMs == T0 + 60_000)
        #expect(h.advance(to: T0 + 59_999).isEmpty)
        #expect(h.sim.state.pending?.stage == .waitingForCard)
        let r = try #require(h.advance(to: T0 + 60_000).first)
        #expect(r.message == "(-4) USER_CANCEL")
        #expect(r.clientTransactionId == "n")
        #expect(h.sim.state.pending == nil)
    }

    @Test func cardNeverPresentedCanBeAborted() throws {
        let h = Harness(SimulatorConfig(speed: 1, giveUpAfterMs: 90_000))
        _ = h.send("sale&amount=808")
        #expect(h.sim.nextDueMs == T0 + 90_000)
        h.now += 45_000
        #expect(h.send("abort").first?.message == "(-57) ABORTED")
        #expect(h.advance(by: hour).isEmpty)
    }

    @Test func noAnswerCanBeAbortedWhileItWaitsForTheCard() throws {
        let h = Harness(realTime)
        #expect(h.send("sale&amount=909&clientTransactionId=q").isEmpty)
        #expect(h.sim.nextDueMs == T0 + 60_000)
        #expect(h.advance(by: 59_000).isEmpty)
        #expect(h.sim.state.pending?.stage == .waitingForCard)
        let r = try #require(h.send("abort").first)
        #expect(r.message == "(-57) ABORTED")
        #expect(r.clientTransactionId == "q")
    }

    @Test func noAnswerGivesUpSilentlyAndFreesTheTerminal() throws {
        let h = Harness(realTime)
        #expect(h.send("sale&amount=909&clientTransactionId=q").isEmpty)
        // The app gives up after about a minute: no callback ever, but the terminal is free again.
        #expect(h.advance(by: 24 * hour).isEmpty)
        #expect(h.sim.state.pending == nil)
        let t = try #require(h.sim.state.transaction(clientTransactionId: "q"))
        #expect(!t.approved && !t.answered)
        #expect(h.send("sale&amount=1000").isEmpty)           // accepted, not TRANSACTION_IN_PROGRESS
        #expect(h.advance(by: 10_000).first?.isApproved == true)
    }

    @Test func crashAfterApprovalSendsNothingButKeepsTheApproval() throws {
        let h = Harness(realTime)
        _ = h.send("sale&amount=1313&tipAmount=100&clientTransactionId=crash-1")
        #expect(h.advance(by: 60_000).isEmpty)
        #expect(h.sim.state.pending == nil)
        let t = try #require(h.sim.state.transaction(clientTransactionId: "crash-1"))
        #expect(t.approved && !t.answered && t.referenceNumber == "000001" && t.remaining == 1413)
        let d = try #require(h.send("transactionDetails&clientTransactionId=crash-1").first)
        #expect(d.status == .success)
        #expect(d.message == "Transaction Details Fetched")
        #expect(d.referenceNumber == "000001")
        #expect(d["transactionStatus"] == "success")
        // Sending the sale again does not charge twice: the approval comes back.
        let again = try #require(h.send("sale&amount=1313&tipAmount=100&clientTransactionId=crash-1").first)
        #expect(again.isApproved && again.action == .sale && again.referenceNumber == "000001")
        #expect(h.sim.state.transactions.count == 1)
    }
}

@Suite struct DetailsAndRepeatTests {
    @Test func detailsFindTheTransactionByClientId() throws {
        let h = Harness(instant)
        let sale = try #require(h.send("sale&amount=2500&tipAmount=300&clientTransactionId=abc").first)
        let d = try #require(h.send("transactionDetails&clientTransactionId=abc").first)
        #expect(d.status == .success)
        #expect(d.message == "Transaction Details Fetched")
        #expect(d.action == .transactionDetails)
        for k in ["clientTransactionId", "amount", "tipAmount", "rrn", "cardType", "accountNumber", "referenceNumber",
                  "authorisationCode", "tid", "orderCode", "shortOrderCode", "transactionDate", "transactionId"] {
            #expect(d[k] == sale[k], "\(k)")
        }
        #expect(d["transactionType"] == "sale")
        #expect(d["transactionMessage"] == "Transaction successful.")
    }

    @Test func detailsOfADeclinedSaleSayItWasDeclined() throws {
        let h = Harness(instant)
        _ = h.send("sale&amount=666&clientTransactionId=dd")
        let d = try #require(h.send("transactionDetails&clientTransactionId=dd").first)
        #expect(d.status == .success)
        #expect(d["transactionStatus"] == "fail")
        #expect(d["transactionMessage"] == "(-12) TRANSACTION_DECLINED_BY_SERVER")
    }

    @Test func detailsNotFound() throws {
        let h = Harness(instant)
        let d = try #require(h.send("transactionDetails&clientTransactionId=nope").first)
        #expect(names(d) == ["status", "message", "action", "clientTransactionId"])
        #expect(d.status == .fail)
        #expect(d.message == "(-30) TRANSACTION_NOT_FOUND")
    }

    @Test func aRepeatedClientIdDoesNotChargeTwice() throws {
        let h = Harness(instant)
        let first = h.sim.receive(base + "sale&amount=1000&clientTransactionId=once", nowMs: T0)
        let again = h.sim.receive(base + "sale&amount=1000&clientTransactionId=once", nowMs: T0 + 5000)
        #expect(first == again)                     // byte for byte the original's answer
        #expect(h.sim.state.transactions.count == 1)
        #expect(h.sim.state.nextStan == 2)
        // A different callback gets the same result at its own address.
        let other = h.sim.receive("vivapayclient://pay/v1?callback=other&merchantKey=K&appId=a&action=sale&amount=1000&clientTransactionId=once", nowMs: T0 + 6000)
        #expect(other.first.flatMap { try? CallbackResponse.decode($0) }?.referenceNumber == "000001")
        #expect(other.first?.hasPrefix("other://result?") == true)
    }

    @Test func aRepeatWhileInProgressGetsTheOneAnswerOnly() throws {
        let h = Harness(realTime)
        _ = h.send("sale&amount=1000&clientTransactionId=r")
        #expect(h.send("sale&amount=1000&clientTransactionId=r").isEmpty)
        let out = h.advance(by: 10_000)
        #expect(out.count == 1)
        #expect(h.sim.state.transactions.count == 1)
    }

    @Test func aDeclinedClientIdMayBeTriedAgain() throws {
        let h = Harness(instant)
        #expect(h.send("sale&amount=666&clientTransactionId=t").first?.status == .fail)
        #expect(h.send("sale&amount=1000&clientTransactionId=t").first?.isApproved == true)
        #expect(h.sim.state.transactions.count == 2)
        #expect(h.send("transactionDetails&clientTransactionId=t").first?["transactionStatus"] == "success")
        // And the approved one is not charged again.
        #expect(h.send("sale&amount=1000&clientTransactionId=t").first?.referenceNumber == "000001")
        #expect(h.sim.state.transactions.count == 2)
    }
}

/// `tip = "included"` (found by attack): the simulator took the card to have paid amount + tip, so a full refund of a
/// 22.00 charge (amount 2200 holding a 2.00 tip) gave back 24.00, and a partial one up to 24.00 was accepted.
@Suite struct IncludedTipSimulatorTests {
    @Test func aRefundGivesBackAtMostWhatTheCardPaid() throws {
        let h = Harness(SimulatorConfig(speed: 0, tipStyle: .included))
        let sale = try #require(h.completedSale("sale&amount=2200&tipAmount=200&clientTransactionId=inc-1"))
        #expect(sale.isApproved)
        let stan = try #require(sale.referenceNumber)
        let tooMuch = try #require(h.completedSale("cancel&referenceNumber=\(stan)&amount=2300"))
        #expect(!tooMuch.isApproved, "a refund of 23.00 of a 22.00 charge")
        let full = try #require(h.completedSale("cancel&referenceNumber=\(stan)"))
        #expect(full.isApproved && full.amount == Money(cents: 2200))
    }

    @Test func theScenarioAmountsAreTheGoods() throws {
        // 6.66 is the scenario of a decline: typed as goods, with a tip in the amount.
        let h = Harness(SimulatorConfig(speed: 0, tipStyle: .included))
        let declined = try #require(h.completedSale("sale&amount=766&tipAmount=100&clientTransactionId=inc-2"))
        #expect(!declined.isApproved)
    }
}
