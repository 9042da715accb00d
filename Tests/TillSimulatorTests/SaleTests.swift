import Testing
import TillProtocol
@testable import TillSimulator

let saleFieldOrder = ["status", "message", "action", "clientTransactionId", "amount", "tipAmount", "verificationMethod", "rrn",
                      "cardType", "accountNumber", "referenceNumber", "authorisationCode", "tid", "orderCode", "shortOrderCode",
                      "transactionDate", "transactionId"]

@Suite struct SaleTests {
    @Test func approvedSaleHasEveryFieldInThePagesOrder() throws {
        let h = Harness(instant)
        let out = h.send("sale&amount=1200&tipAmount=200&clientTransactionId=order-42")
        try #require(out.count == 1)
        let r = out[0]
        #expect(r.target == "interapp-callback://result")
        #expect(names(r) == saleFieldOrder)
        #expect(r.isApproved)
        #expect(r.message == "Transaction successful.")
        #expect(r.action == .sale)
        #expect(r.clientTransactionId == "order-42")
        #expect(r.amount == Money(cents: 1200))
        #expect(r.tipAmount == Money(cents: 200))
        #expect(r.referenceNumber == "000001")
        #expect(isDigits(r.rrn, 12))
        #expect(r.rrn?.hasSuffix("000001") == true)
        #expect(isDigits(r.authorisationCode, 6))
        #expect(r.tid == "16016684")
        #expect(isDigits(r.orderCode, 16))
        #expect(r.shortOrderCode == String(r.orderCode!.prefix(10)))
        #expect(UUIDText.isValid(r.transactionId ?? ""))
        #expect(["VISA", "Debit Mastercard", "Visa Credit", "Maestro"].contains(r.cardType ?? ""))
        #expect(["CHIP", "CONTACTLESS", "MAGNETIC", "MANUAL ENTRY"].contains(r.verificationMethod ?? ""))
        let pan = try #require(r.accountNumber)
        #expect(pan.count == 16 && isDigits(String(pan.prefix(6)), 6) && isDigits(String(pan.suffix(4)), 4)
                && pan.dropFirst(6).prefix(6) == "******")
        let date = try #require(r.transactionDate)
        #expect(date.instant / 10_000 == T0)
        #expect(r["transactionDate"]!.hasSuffix("+00:00"))
        // 7 fractional digits: "….ddddddd+00:00"
        let text = r["transactionDate"]!
        let dot = try #require(text.firstIndex(of: "."))
        #expect(text[text.index(after: dot)...].prefix(while: { $0.isNumber }).count == 7)
    }

    @Test func stansIncreaseAndTheStateKeepsEverything() throws {
        let h = Harness(instant)
        let a = h.send("sale&amount=1000&tipAmount=100").first
        let b = h.send("sale&amount=2000").first
        let c = h.send("pre_auth&amount=3000").first
        #expect(a?.referenceNumber == "000001")
        #expect(b?.referenceNumber == "000002")
        #expect(c?.referenceNumber == "000003")
        let s = h.sim.state
        #expect(s.transactions.count == 3)
        #expect(s.transactions[0].remaining == 1100)   // the tip is on top of the amount
        #expect(s.transactions[1].remaining == 2000)
        #expect(s.transactions[2].kind == .preAuth && s.transactions[2].remaining == 3000)
        #expect(s.transactions.allSatisfy { $0.batchId == s.activeBatch?.id })
        #expect(Set(s.transactions.map(\.orderCode)).count == 3)
        #expect(Set(s.transactions.map(\.shortOrderCode)).count == 3)
    }

    @Test func aSaleWithNoOpenBatchOpensOne() {
        let h = Harness(instant)
        #expect(h.sim.state.activeBatch == nil)
        _ = h.send("sale&amount=500")
        let b = h.sim.state.activeBatch
        #expect(b?.name == "Batch 1")
        #expect(b?.openedMs == T0)
        #expect(UUIDText.isValid(b?.id ?? ""))
        #expect(h.sim.state.transactions[0].batchId == b?.id)
    }

    @Test func installmentsOnlyWhenAskedFor() throws {
        let h = Harness(instant)
        let r = try #require(h.send("sale&amount=90000&withInstallments=true&preferredInstallments=10").first)
        var order = saleFieldOrder
        order.insert("installments", at: order.firstIndex(of: "transactionDate")!)
        #expect(names(r) == order)
        #expect(r.installments == 10)
        let chosen = try #require(h.send("sale&amount=90000&withInstallments=true&preferredInstallments=0").first)
        #expect((2...12).contains(chosen.installments ?? -1))
    }

    @Test func preAuthIsSaleShapedWithoutTip() throws {
        let h = Harness(instant)
        let r = try #require(h.send("pre_auth&amount=5000&clientTransactionId=p1").first)
        #expect(names(r) == saleFieldOrder.filter { $0 != "tipAmount" })
        #expect(r.action == .preAuth)
        #expect(r.isApproved)
    }

    @Test func aCallbackWithSchemeAndHostIsUsedAsItIs() throws {
        let h = Harness(instant)
        let url = "vivapayclient://pay/v1?callback=mycallbackscheme%3A%2F%2Fresult&merchantKey=K&appId=a&action=sale&amount=100"
        let r = try #require(h.send(url).first)
        #expect(r.target == "mycallbackscheme://result")
    }

    @Test(arguments: [
        ("sale&amount=0", "(-41) INVALID_AMOUNT"),
        ("sale&amount=-5", "(-41) INVALID_AMOUNT"),
        ("sale&amount=12.50", "(-41) INVALID_AMOUNT"),
        ("sale&amount=1000&tipAmount=1001", "(-41) INVALID_AMOUNT"),
        ("sale&tipAmount=10", "(-41) INVALID_AMOUNT"),
        ("pre_auth&amount=0", "(-41) INVALID_AMOUNT"),
        ("cancel&amount=0&referenceNumber=000001", "(-41) INVALID_AMOUNT"),
        ("sale&amount=100&withInstallments=true", "(-40) INVALID_REQUEST"),
        ("batch&command=reopen", "(-40) INVALID_REQUEST"),
        ("frobnicate&amount=1", "(-40) INVALID_REQUEST"),
        ("capture_pre_auth&amount=100", "(-40) INVALID_REQUEST"),
        ("cancel&referenceNumber=12", "(-40) INVALID_REQUEST"),
    ])
    func invalidRequestsFailWithACode(rest: String, message: String) throws {
        let h = Harness(instant)
        let r = try #require(h.send(rest).first)
        #expect(r.status == .fail)
        #expect(r.message == message)
        #expect(h.sim.state.transactions.isEmpty)
        #expect(h.sim.state.nextStan == 1)
    }

    @Test func invalidAnswersNameTheActionAndClientId() throws {
        let h = Harness(instant)
        let r = try #require(h.send("sale&amount=0&clientTransactionId=z9").first)
        #expect(r.action == .sale)
        #expect(r.clientTransactionId == "z9")
        let u = try #require(h.send("frobnicate").first)
        #expect(u.action == nil && u["action"] == nil)   // an unknown action is not echoed
    }

    @Test(arguments: [
        "",
        "not a url",
        "vivapayclient://pay/v1?merchantKey=K&appId=a&action=sale&amount=100",            // no callback
        "vivapayclient://pay/v1?callback=a%26b&merchantKey=K&appId=a&action=sale&amount=100", // callback that cannot be addressed
        "vivapayclient://pay/v1?callback=&merchantKey=K&appId=a&action=sale&amount=0",
        "https://example.com/?callback=x&action=sale&amount=100",                            // not for the terminal, no answer address
    ])
    func requestsWithNoAddressGetNothing(url: String) {
        let h = Harness(instant)
        let out = h.sim.receive(url, nowMs: T0)
        if url.hasPrefix("https://") {
            // Not a terminal request, but it names a callback: it gets a failure there.
            #expect(out.count == 1)
            if let r = out.first.flatMap({ checked($0) }) { #expect(r.message == "(-40) INVALID_REQUEST") }
        } else {
            #expect(out.isEmpty)
        }
        #expect(h.sim.state.transactions.isEmpty)
    }

    @Test func valuesThatLookLikeParametersStayValues() throws {
        let h = Harness(instant)
        let r = try #require(h.send("batch&command=open&batchName=a%26action%3Dsale").first)
        #expect(r.batchName == "a&action=sale")
        #expect(r.action == .batch)
        #expect(h.sim.state.transactions.isEmpty)
    }
}
