import Testing
import TillLife
import TillModel
import TillProtocol

// One payment's life on a virtual clock: each event at the moment a test chooses, `now` given, effects read back.
@Suite struct PaymentLifeTests {
    let caller = Caller(callback: "till-sim", merchantKey: "MK", appId: "till.sim")
    let waits = PaymentLife.Waits(answerMs: 90_000, abortMs: 5_000, lookUpMs: 15_000, unnamedGraceMs: 3_000)
    let t0: Int64 = 1_800_000_000_000

    func sale(_ book: MemoryBook, cents: Int = 1250, ctid: String = "c-1") throws -> (PaymentLife, [LifeEffect]) {
        let request = TerminalRequest(caller: caller, request: .sale(SaleRequest(amount: Money(cents: cents), clientTransactionId: ctid)))
        let entry = try book.insertPending(requestId: "req-1", request: request, batch: book.open, parentId: nil, nowMs: t0)
        var effects: [LifeEffect] = []
        let life = PaymentLife(entry: entry, url: request.url, hooks: false, caller: caller, waits: waits, now: t0, effects: &effects)
        return (life, effects)
    }

    /// A sale (`sale`) handed over at t0 + 10 ms and declined 3 s after its start: its flight as the decline left it.
    func declinedSale(_ book: MemoryBook) throws -> PaymentLife? {
        var (life, _) = try sale(book)
        _ = life.handedOver(.request, book: book, now: t0 + 10)
        var flight: PaymentLife? = life
        _ = desk(book, t0 + 3_000).take(Self.decline, flight: &flight)
        return flight
    }

    func desk(_ book: MemoryBook, _ now: Int64, ids: [String] = ["look-1"]) -> AnswerDesk<MemoryBook> {
        var rest = ids
        return AnswerDesk(book: book, now: now, anotherTillSending: { false }, newRequestId: { rest.isEmpty ? "id" : rest.removeFirst() })
    }

    static func answer(_ status: String, _ message: String, action: String = "sale", ctid: String? = "c-1", cents: Int = 1250, extra: String = "") -> IncomingAnswer {
        IncomingAnswer(text: "till-sim://result?status=\(status)&message=\(message)&action=\(action)"
                       + (ctid.map { "&clientTransactionId=\($0)" } ?? "") + "&amount=\(cents)&tipAmount=0" + extra)
    }
    static let approval = answer("success", "APPROVED", extra: "&referenceNumber=100001&orderCode=9100001&transactionId=tx-1")
    static let decline = answer("fail", "(-12)%20TRANSACTION_DECLINED_BY_SERVER")

    @Test func theRequestIsSentFirstAndTheDeadlineRunsFromItsHandOver() throws {
        let book = MemoryBook()
        var (life, effects) = try sale(book)
        #expect(effects.contains { if case .send(let id, _, .request) = $0 { return id == "req-1" }; return false })
        #expect(life.nextDeadline == nil, "nothing is timed while the request is being handed over")
        _ = life.handedOver(.request, book: book, now: t0 + 40)
        #expect(life.nextDeadline == t0 + 90_000)
        #expect(try book.entry(id: 1)?.state == .sent)
        // Early calls do nothing; at the deadline the entry is unknown and the transport is asked to take it back.
        #expect(life.timeReached(book: book, now: t0 + 89_999).isEmpty)
        let atDeadline = life.timeReached(book: book, now: t0 + 90_000)
        #expect(atDeadline.contains(.giveUp(requestId: "req-1")))
        #expect(try book.entry(id: 1)?.state == .unknown)
        #expect(life.nextDeadline == nil, "no second give-up while the transport is asked")
        let ended = life.gaveUp(withdrawn: false, book: book, now: t0 + 90_010)
        #expect(ended.contains { if case .settled(.unknown) = $0 { return true }; return false })
    }

    @Test func anAnswerDuringTheHandOverSettlesAndTheHandOverChangesNothingAfter() throws {
        let book = MemoryBook()
        var (life, _) = try sale(book)
        var flight: PaymentLife? = life
        let effects = desk(book, t0 + 10).take(Self.approval, flight: &flight)
        #expect(effects.contains(.acknowledge))
        life = try #require(flight)
        #expect(life.isSettled)
        #expect(life.handedOver(.request, book: book, now: t0 + 20).isEmpty)
        #expect(try book.entry(id: 1)?.state == .approved)
    }

    @Test func aDeclineCorrectedByItsOwnApprovalAfterTheCommandEndedIsCountedLoudly() throws {
        let book = MemoryBook()
        var flight = try declinedSale(book)
        #expect(flight?.outcome.map { if case .answered(let e) = $0 { return e.state == .declined }; return false } == true)
        // The command ended: nothing in flight. The approval comes 1.5 s later.
        flight = nil
        let later = desk(book, t0 + 4_500).take(Self.approval, flight: &flight)
        let e = try #require(try book.entry(id: 1))
        #expect(e.state == .approved)
        #expect(e.note?.hasPrefix("CHECK THE TERMINAL") == true)
        #expect(later.contains { if case .changed(let c) = $0 { return c.id == 1 }; return false })
    }

    @Test func aDeclineThenAnotherCardThenTheFirstApprovalSaysTheCustomerMayHavePaidTwice() throws {
        let book = MemoryBook()
        var flight = try declinedSale(book)
        // Enter again by habit: the same amount, another reference, approved.
        let again = TerminalRequest(caller: caller, request: .sale(SaleRequest(amount: Money(cents: 1250), clientTransactionId: "c-2")))
        let second = try book.insertPending(requestId: "req-2", request: again, batch: book.open, parentId: nil, nowMs: t0 + 4_000)
        var effects: [LifeEffect] = []
        flight = PaymentLife(entry: second, url: again.url, hooks: false, caller: caller, waits: waits, now: t0 + 4_000, effects: &effects)
        _ = flight?.handedOver(.request, book: book, now: t0 + 4_010)
        _ = desk(book, t0 + 6_000).take(Self.answer("success", "APPROVED", ctid: "c-2", extra: "&referenceNumber=100002&orderCode=9100002&transactionId=tx-2"),
                                        flight: &flight)
        #expect(try book.entry(id: 2)?.state == .approved)
        flight = nil
        // Then the first sale's own approval: counted, and the note says the customer may have paid twice.
        _ = desk(book, t0 + 7_000).take(Self.approval, flight: &flight)
        let first = try #require(try book.entry(id: 1))
        #expect(first.state == .approved)
        #expect(first.note?.contains("The same 12.50 was charged again after it (STAN 100002): the customer may have paid twice. Refund one.") == true,
                "\(first.note ?? "")")
    }

    @Test func anAbortedSaleIsLookedUpAndItsApprovalSevenSecondsLaterStillCounts() throws {
        let book = MemoryBook()
        var (life, _) = try sale(book)
        _ = life.handedOver(.request, book: book, now: t0 + 10)
        let (asked, refused) = life.askAbort(book: book, requestId: "abort-1", now: t0 + 1_000)
        #expect(refused == nil)
        #expect(asked.contains { if case .send(_, _, .abort) = $0 { return true }; return false })
        _ = life.handedOver(.abort, book: book, now: t0 + 1_010)
        var flight: PaymentLife? = life
        let aborted = desk(book, t0 + 1_100).take(Self.answer("fail", "(-57)%20ABORTED", action: "abort", ctid: nil, cents: 0), flight: &flight)
        // Not proof: the payment is not settled; the terminal is asked.
        #expect(flight?.isSettled == false)
        #expect(aborted.contains { if case .send(let id, let url, .lookUp) = $0 { return id == "look-1" && url.contains("transactionDetails") }; return false })
        #expect(flight?.inFlight.askingAfterAbort == true)
        #expect(flight?.nextDeadline == t0 + 1_100 + 15_000)
        _ = flight?.handedOver(.lookUp, book: book, now: t0 + 1_120)
        // The terminal's record: aborted (the card not read yet).
        let found = Self.answer("success", "OK", action: "transactionDetails", extra: "&transactionStatus=fail&transactionMessage=(-57)%20ABORTED")
        _ = desk(book, t0 + 1_300).take(found, flight: &flight)
        #expect(try book.entry(id: 1)?.state == .aborted)
        flight = nil
        // The card had been read: the approval follows 7 s later, and overturns the abort.
        _ = desk(book, t0 + 8_300).take(Self.approval, flight: &flight)
        let e = try #require(try book.entry(id: 1))
        #expect(e.state == .approved)
        #expect(e.note?.hasPrefix("CHECK THE TERMINAL") == true)
    }

    @Test func aWaitKeepsItsLengthWhateverTheWallClockDoes() throws {
        let book = MemoryBook()
        var (life, _) = try sale(book)
        _ = life.handedOver(.request, book: book, now: t0 + 10)
        let step: Int64 = 49 * 3_600_000
        // Back 49 h, 30 s into the wait: the deadline moves with the clock; 60 s later (on the new clock) it is reached.
        life.clockStepped(by: -step)
        #expect(life.nextDeadline == t0 + 90_000 - step)
        #expect(life.timeReached(book: book, now: t0 + 30_000 - step).isEmpty)
        // Forward 49 h: not over either (the step is no time passing).
        life.clockStepped(by: step)
        #expect(life.timeReached(book: book, now: t0 + 30_000).isEmpty)
        #expect(!life.isSettled)
        _ = life.timeReached(book: book, now: t0 + 90_010)
        _ = life.gaveUp(withdrawn: false, book: book, now: t0 + 90_020)
        // Unknown; the answer that comes later, after another step, still settles it.
        var flight: PaymentLife? = nil
        let late = desk(book, t0 + step + 500).take(Self.approval, flight: &flight)
        #expect(try book.entry(id: 1)?.state == .approved)
        #expect(late.contains { if case .recovered(let e) = $0 { return e.id == 1 }; return false })
    }
}
