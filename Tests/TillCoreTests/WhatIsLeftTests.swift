import Foundation
import Testing
@testable import TillCore
import TillIO
import TillProtocol

/// Issue 33, items 7, 6 and 4: what the terminal could have done bounds what till sends and what a person's figure
/// counts; an outcome not known blocks the next request that could be the same money.
@Suite(.serialized) struct WhatIsLeftTests {
    static func refund(_ amount: Int?, _ stan: String?) -> Request {
        .cancel(CancelRequest(amount: amount.map(Money.init(cents:)), finder: TransactionFinder(referenceNumber: stan)))
    }
    static func capture(_ amount: Int?, _ stan: String?) -> Request {
        .capturePreAuth(CaptureRequest(amount: amount.map(Money.init(cents:)), finder: TransactionFinder(referenceNumber: stan)))
    }
    static func invalid(_ o: ActionOutcome) -> Bool { if case .invalid = o { return true }; return false }
    static func needsConfirmation(_ o: ActionOutcome) -> Bool { if case .needsConfirmation = o { return true }; return false }

    /// A controller on the built-in simulator in `dir`, with shift `batch` opened.
    static func onShift(_ batch: String, _ dir: TempDir) async throws -> TillController {
        let c = try await simulatorController(dir)
        _ = await c.perform(.batch(BatchRequest(command: .open, batchName: batch)))
        return c
    }

    /// The STAN of a sale of `cents` on `c`, approved (the test stops when it is not).
    static func stanOfASale(_ cents: Int, on c: TillController) async throws -> String {
        let paid = try #require(await c.perform(sale(cents)).journalEntry)
        return try #require(paid.response?.referenceNumber)
    }

    /// A request journaled and left `unknown` (sent, no answer), as a timeout leaves it.
    static func leftUnknown(_ c: TillController, _ request: Request) throws -> JournalEntry {
        let e = try c.journal.insertPending(requestId: UUID().uuidString.lowercased(), request: TerminalRequest(caller: testCaller, request: request),
                                            batch: try c.journal.batch(for: request.action))
        try c.journal.transition(e.id, to: .unknown, note: "no answer", from: [.pending])
        return e
    }

    // Item 7: refunds of 10 + 10 + 500 on a 10.00 sale and a capture of 200 on a 100.00 pre-auth were all sent.
    @Test func refundsAndCapturesBeyondWhatIsLeftAreRefusedBeforeSending() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let c = try await Self.onShift("left", dir)
        let stan = try await Self.stanOfASale(1000, on: c)
        #expect(await c.perform(Self.refund(1000, stan)).journalEntry?.state == .approved)
        let before = try c.journal.entries(JournalFilter()).count
        for again in [Self.refund(1000, stan), Self.refund(50_000, stan), Self.refund(nil, stan)] {
            let o = await c.perform(again)
            #expect(Self.invalid(o), "\(o)")
        }
        let pre = try #require(await c.perform(.preAuth(PreAuthRequest(amount: Money(cents: 10_000)))).journalEntry)
        let preStan = try #require(pre.response?.referenceNumber)
        let over = await c.perform(Self.capture(20_000, preStan))
        #expect(Self.invalid(over), "\(over)")
        let count = try c.journal.entries(JournalFilter()).count
        #expect(count == before + 1, "refused requests were journaled (sent)")
        #expect(await c.perform(Self.capture(10_000, preStan)).journalEntry?.state == .approved)
        let twice = await c.perform(Self.capture(nil, preStan))
        #expect(Self.invalid(twice), "\(twice)")
        await c.shutdown()
    }

    // Item 6: `resolve --charged --amount 9000` on a capture of a 30.00 pre-auth, and a 10.00 sale resolved at 999.00,
    // were accepted.
    @Test func aPersonsFigureIsBoundedByWhatTheTerminalCouldHaveDone() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let c = try await Self.onShift("bound", dir)
        let pre = try #require(await c.perform(.preAuth(PreAuthRequest(amount: Money(cents: 3000)))).journalEntry)
        let capture = try Self.leftUnknown(c, Self.capture(nil, pre.response?.referenceNumber))
        #expect(throws: ResolveError.self) { try c.journal.resolve(capture.id, charged: true, note: "x", amount: Money(cents: 900_000)) }
        let sold = try Self.leftUnknown(c, sale(1000, tip: 100))
        #expect(throws: ResolveError.self) { try c.journal.resolve(sold.id, charged: true, note: "x", amount: Money(cents: 99_900)) }
        #expect(throws: ResolveError.self) { try c.journal.resolve(sold.id, charged: true, note: "x", amount: Money(cents: 1000), tip: Money(cents: 5000)) }
        // Within what was asked: counted. Beyond it only with a reason, journaled.
        try c.journal.resolve(capture.id, charged: true, note: "x", amount: Money(cents: 3000))
        try c.journal.resolve(sold.id, charged: true, note: "seen", amount: Money(cents: 99_900),
                              beyondBecause: "the customer asked for 999.00 on the terminal itself")
        let e = try #require(try c.journal.entry(id: sold.id))
        #expect(e.state == .approved && e.amount == Money(cents: 99_900) && (e.note ?? "").contains("999.00 on the terminal itself"), "\(e)")
        await c.shutdown()
    }

    // Item 4: a keyless refund (the cardholder picks the payment) whose outcome is unknown did not block later
    // refunds: three 20.00 refunds went out on one 20.00 sale.
    @Test func aKeylessRefundOfUnknownOutcomeBlocksTheNextRefund() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let c = try await Self.onShift("keyless", dir)
        let stan = try await Self.stanOfASale(2000, on: c)
        let keyless = try Self.leftUnknown(c, Self.refund(2000, nil))
        let keyed = await c.perform(Self.refund(2000, stan))
        #expect(Self.needsConfirmation(keyed), "\(keyed)")
        let again = await c.perform(Self.refund(2000, nil))
        #expect(Self.needsConfirmation(again), "\(again)")
        // A keyed refund of unknown outcome blocks a keyless one too: the cardholder may pick that payment.
        try c.journal.confirmRetry([keyless.id])
        let other = try Self.leftUnknown(c, Self.refund(500, stan))
        let third = await c.perform(Self.refund(500, nil))
        #expect(Self.needsConfirmation(third) && { if case .needsConfirmation(let l) = third { return l.map(\.id) == [other.id] }; return false }(), "\(third)")
        // A capture left unknown without a key blocks the next capture the same way.
        let pre = try #require(await c.perform(.preAuth(PreAuthRequest(amount: Money(cents: 4000)))).journalEntry)
        _ = try Self.leftUnknown(c, Self.capture(nil, nil))
        let cap = await c.perform(Self.capture(4000, pre.response?.referenceNumber))
        #expect(Self.needsConfirmation(cap), "\(cap)")
        await c.shutdown()
    }
}
