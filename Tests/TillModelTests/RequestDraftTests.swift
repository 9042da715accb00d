import Testing
import TillModel
import TillProtocol

/// How typed text becomes a request, as the screens and `till` read it.
@Suite struct RequestDraftTests {
    /// Found in a shift by hand: the receipt's STAN 000005 typed as 5 was refused ("must be exactly six digits").
    /// Fewer than six digits are that STAN with zeros in front; anything else is left for the check to refuse.
    @Test(arguments: [("5", "000005"), ("42", "000042"), ("000005", "000005"), ("123456", "123456"), ("12a", "12a"), ("1234567", "1234567")])
    func aShortSTANIsReadWithZerosInFront(typed: String, read: String) {
        for draft in [RequestDraft.refund(amount: nil, reference: typed, orderCode: nil, shortOrderCode: nil, from: nil, to: nil, offsetMinutes: { _ in 0 }),
                      RequestDraft.capture(amount: nil, reference: typed, orderCode: nil, shortOrderCode: nil, from: nil, to: nil, offsetMinutes: { _ in 0 })] {
            let finder: TransactionFinder? = switch draft.request {
            case .cancel(let c): c.finder
            case .capturePreAuth(let c): c.finder
            default: nil
            }
            #expect(finder?.referenceNumber == read)
            let refused = draft.problems(caller: Caller(callback: "t", merchantKey: "t", appId: "t"), tipStyle: .onTop)
                .contains { $0.field == "referenceNumber" }
            #expect(refused == (read.count != 6 || !read.allSatisfy(\.isNumber)))
        }
    }
}

extension RequestDraftTests {
    /// Found in a golden: a search date typed as the form asks (YYYY-MM-DD) but not a real day was refused in the
    /// protocol's words ("not an ISO 8601 date like 2021-03-29T00:00:00.000+03:00"), cut at 80 columns.
    @Test(arguments: ["2026-11-31", "2026-13-01", "yesterday", "29.03.2026"])
    func anUnreadableDateIsSaidAsTheFormAsksForIt(typed: String) {
        let draft = RequestDraft.refund(amount: nil, reference: "000005", orderCode: nil, shortOrderCode: nil, from: typed, to: typed,
                                        offsetMinutes: { _ in 60 })
        let problems = draft.problems(caller: Caller(callback: "t", merchantKey: "t", appId: "t"))
        #expect(problems.map(\.field) == ["txnDateFrom", "txnDateTo"], "\(problems)")
        #expect(problems.allSatisfy { $0.message.contains("type it as YYYY-MM-DD") && !$0.message.contains("ISO") }, "\(problems)")
    }

    @Test func aRealDayIsTheWholeDayInTheTillsZone() {
        let draft = RequestDraft.capture(amount: nil, reference: nil, orderCode: nil, shortOrderCode: "1234567890",
                                         from: "2026-03-29", to: "2026-03-29", offsetMinutes: { _ in 60 })
        guard case .capturePreAuth(let c) = draft.request else { Issue.record("not a capture"); return }
        #expect(draft.errors.isEmpty)
        #expect(c.finder.txnDateFrom == "2026-03-29T00:00:00.000+01:00" && c.finder.txnDateTo == "2026-03-29T23:59:59.999+01:00")
    }
}
