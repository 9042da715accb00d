import Testing
@testable import TillProtocol

// The registry of action declarations: every action has one, it answers for its own action only, and what it writes
// it reads back. The URLs byte for byte are in GoldenRequestTests and SampleActionsTests.

private let caller = Caller(callback: "interapp-callback", merchantKey: "SG23323424EXS3", appId: "com.vivawallet.InterAppDemo")

/// One valid request of every action.
private let samples: [Request] = [
    .sale(SaleRequest(amount: Money(cents: 1200), tipAmount: Money(cents: 200), clientTransactionId: "a1",
                      withInstallments: true, preferredInstallments: 3, paymentMethod: .moto,
                      isv: ISVFields(amount: Money(cents: 10), clientId: "c", clientSecret: "s"), protocolName: "int_default")),
    .preAuth(PreAuthRequest(amount: Money(cents: 8000), clientTransactionId: "p1", showReceipt: true)),
    .cancel(CancelRequest(amount: Money(cents: 500), finder: TransactionFinder(referenceNumber: "833121"))),
    .abort,
    .batch(BatchRequest(command: .close, batchName: "morning", batchId: "7885F4F1-59CA-42C2-81BB-6DB48AA138A6")),
    .capturePreAuth(CaptureRequest(finder: TransactionFinder(shortOrderCode: "1091139195"))),
    .transactionDetails(DetailsRequest(clientTransactionId: "d1", sourceTerminalId: "16016684")),
    .reprint(ReprintRequest(orderCode: "1091166300000136")),
    .getPrintingSettings,
    .setPrintingSettings(PrintingSettings(logo: true, businessDescriptionType: .tradeName)),
    .sendLogs,
    .getActivationCode,
    .activatePos(ActivationRequest(activationCode: "12345678", sourceId: "Default", pinCode: "1234", flags: ["lockRefund": true])),
]

@Suite("Action declarations")
struct ActionRegistryTests {
    @Test func everyActionHasItsOwnDeclarationAndASample() {
        for a in Action.allCases { #expect(a.declaration.action == a) }
        #expect(Set(samples.map(\.action)) == Set(Action.allCases))
    }

    @Test func aDeclarationReadsOnlyItsOwnRequests() {
        for r in samples {
            for a in Action.allCases {
                #expect((a.declaration.summary(of: r, SummaryContext()) != nil) == (a == r.action), "\(a) on \(r.action)")
            }
        }
    }

    @Test func whatADeclarationWritesItReadsBack() throws {
        for r in samples {
            let t = TerminalRequest(caller: caller, request: r)
            #expect(t.validationErrors().isEmpty, "\(r.action): \(t.validationErrors())")
            let back = try TerminalRequest.parse(t.url)
            #expect(back.request == r, "\(r.action)")
        }
    }

    @Test func moneyAndSetUpAreDeclaredNotListed() {
        #expect(Set(Action.allCases.filter(\.movesMoney)) == [.sale, .preAuth, .cancel, .capturePreAuth])
        #expect(Set(Action.allCases.filter(\.isAdministrative))
                == [.reprintTransaction, .getPrintingSettings, .setPrintingSettings, .sendLogs, .getActivationCode, .activatePos])
        #expect(Action.allCases.filter { !$0.declaration.sendsMerchantKey } == [.getActivationCode, .activatePos])
        #expect(Action.sale.reportRole == .sale && Action.cancel.reportRole == .refund && Action.batch.reportRole == .none)
    }

    /// The facts the journal, recovery, the screens and the simulator ask instead of naming actions: each is the set
    /// of actions those places named before it was declared, so reading a fact keeps what they did.
    @Test func theFactsOfEachActionAreDeclared() {
        func with(_ fact: (Action) -> Bool) -> Set<Action> { Set(Action.allCases.filter(fact)) }
        let setUp: Set<Action> = [.reprintTransaction, .getPrintingSettings, .setPrintingSettings, .sendLogs, .getActivationCode, .activatePos]
        #expect(with(\.startsPayment) == [.sale, .preAuth])
        #expect(with { $0.findsEarlierPayment == .toRefund } == [.cancel])
        #expect(with { $0.findsEarlierPayment == .toCapture } == [.capturePreAuth])
        #expect(with(\.amountMayBeLess) == [.cancel, .capturePreAuth])
        #expect(with(\.refundable) == [.sale, .capturePreAuth])
        #expect(with(\.capturable) == [.preAuth])
        #expect(with(\.takesTip) == [.sale])
        #expect(with(\.isLookUp) == [.transactionDetails])
        #expect(with(\.aboutAnotherRequest) == [.abort, .transactionDetails])
        #expect(with { $0.recovery == .nothingToSettle } == [.abort, .transactionDetails])
        #expect(with { $0.recovery == .askByClientTransactionId } == [.sale, .preAuth])
        #expect(with { $0.recovery == .flagUnknown } == setUp.union([.cancel, .capturePreAuth, .batch]))
        #expect(with { $0.words.declinedWord == "FAILED" } == [.batch, .transactionDetails])
        // What a batch request asked, read back from its URL; another action's request asks none.
        let close = TerminalRequest(caller: caller, request: samples[4]).url
        #expect(BatchAction.command(of: .batch, requestURL: close) == .close)
        #expect(BatchAction.command(of: .sale, requestURL: close) == nil)
        // Refund and capture give their keys; no other request has any.
        #expect(samples.filter { $0.finding != nil }.map(\.action) == [.cancel, .capturePreAuth])
    }

    @Test func theMoneyAskedIsTheJournals() {
        // What TillCore's Journal.amounts(of:) reads today, action by action.
        let asked = samples.map(\.asked)
        #expect(asked[0] == AskedMoney(amount: Money(cents: 1200), tip: Money(cents: 200)))
        #expect(asked[1] == AskedMoney(amount: Money(cents: 8000)) && asked[2] == AskedMoney(amount: Money(cents: 500)))
        #expect(asked[5] == AskedMoney() && asked[3] == AskedMoney() && asked[7] == AskedMoney())
    }

    @Test func namesAreOneEach() {
        #expect(Set(Action.allCases.map(\.words.name)).count == Action.allCases.count)
        #expect(Set(Action.allCases.map(\.words.answerLabel)).count == Action.allCases.count)
        for a in Action.allCases { #expect(Action(exact: a.rawValue) == a) }
        #expect(Action(exact: "Sale") == nil && Action(exact: "") == nil && Action(lenient: "ABORT") == .abort)
    }

    @Test func aRefusalRepeatsTheDeclaredFields() {
        #expect(ReprintAction.refusalFields(of: .reprint(ReprintRequest(orderCode: "1234567890"))).map(\.0) == ["orderCode"])
        #expect(SaleAction.refusalFields(of: samples[0]).map(\.0) == ["clientTransactionId", "amount", "tipAmount"])
        #expect(AbortAction.refusalFields(of: .abort).isEmpty)
    }

    @Test func theSimulatorsUUIDsAreVersion4() {
        let u = UUIDText.version4(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210, uppercase: false)
        #expect(u == "01234567-89ab-4def-bedc-ba9876543210")
        #expect(UUIDText.isValid(u))
        #expect(UUIDText.version4(high: 0, low: 0, uppercase: true) == "00000000-0000-4000-8000-000000000000")
    }

    @Test func looseFieldsTrimAndKeepTheFirst() {
        let m = TerminalRequest.looseFields("vivapayclient://pay/v1?callback= cb &action=sale&action=abort&amount=1%2")
        #expect(m?["callback"] == "cb" && m?["action"] == "sale")
        #expect(TerminalRequest.looseFields("no query") == nil)
    }
}
