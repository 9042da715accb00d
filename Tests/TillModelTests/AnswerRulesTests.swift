import Foundation
import Testing
import TillModel
import TillProtocol

/// The answer rules as a table: which answer names which entry, and what it may say about it.
@Suite struct AnswerRulesTests {
    static let base = "interapp-callback://result?"
    static func answer(_ q: String) throws -> CallbackResponse { try CallbackResponse.decode(base + q) }
    static func entry(_ action: Action, ctid: String? = nil, amount: Int? = nil, url: String = "", requestId: String = "req-1") -> JournalEntry {
        JournalEntry(id: 1, requestId: requestId, action: action, clientTransactionId: ctid, amount: amount.map(Money.init(cents:)),
                     tipAmount: nil, requestURL: url, state: .sent, createdAtMs: 0, updatedAtMs: 0)
    }

    struct Row: Sendable, CustomStringConvertible {
        var answer: String; var entry: JournalEntry; var hint: String?; var link: AnswerLink
        var description: String { answer }
    }

    static let rows: [Row] = [
        // The entry's own reference names it; another reference never does.
        Row(answer: "status=success&action=sale&clientTransactionId=A&amount=1000", entry: entry(.sale, ctid: "A", amount: 1000), link: .exact),
        Row(answer: "status=fail&action=sale&clientTransactionId=B&amount=1000", entry: entry(.sale, ctid: "A", amount: 1000), link: .none),
        // No reference: unnamed, for the same action and amount; nothing for another amount or action.
        Row(answer: "status=fail&action=sale&amount=1000", entry: entry(.sale, ctid: "A", amount: 1000), link: .unnamed),
        Row(answer: "status=success&action=sale&amount=999", entry: entry(.sale, ctid: "A", amount: 1000), link: .none),
        Row(answer: "status=success&action=pre_auth&amount=1000", entry: entry(.sale, ctid: "A", amount: 1000), link: .none),
        Row(answer: "status=success&amount=1000", entry: entry(.sale, ctid: "A", amount: 1000), link: .none),
        // The transport's address for the request names it; an address of another request never does.
        Row(answer: "status=fail&action=sale&amount=1000", entry: entry(.sale, ctid: "A", amount: 1000), hint: "req-1", link: .exact),
        Row(answer: "status=success&action=sale&clientTransactionId=A", entry: entry(.sale, ctid: "A", amount: 1000), hint: "req-2", link: .none),
        // Actions with no reference: the action (and, for a batch, its command) is all there is.
        Row(answer: "status=success&action=cancel&amount=500", entry: entry(.cancel, amount: 1000), link: .exact),
        Row(answer: "status=success&action=batch&command=close", entry: entry(.batch, url: "vivapayclient://pay/v1?action=batch&command=close"), link: .exact),
        Row(answer: "status=success&action=batch&command=open&batchName=X", entry: entry(.batch, url: "vivapayclient://pay/v1?action=batch&command=close"), link: .none),
        // A look-up in flight is ended by any answer to a look-up (it settles no money by itself).
        Row(answer: "status=fail&message=(-99) NOT_FOUND&action=transactionDetails", entry: entry(.transactionDetails, ctid: "A"), link: .exact),
    ]

    @Test(arguments: rows) func link(_ row: Row) throws {
        #expect(AnswerRules.link(try Self.answer(row.answer), to: row.entry, hint: row.hint) == row.link)
    }

    @Test func anAbortEndsOnlyThePaymentItNamesOrAnyWhenItNamesNone() throws {
        let e = Self.entry(.sale, ctid: "A", amount: 1000)
        #expect(AnswerRules.abortNames(try Self.answer("status=fail&message=(-57) ABORTED&action=ABORT"), e))
        #expect(AnswerRules.abortNames(try Self.answer("status=fail&message=(-57) ABORTED&action=ABORT&clientTransactionId=A"), e))
        #expect(!AnswerRules.abortNames(try Self.answer("status=fail&message=(-57) ABORTED&action=ABORT&clientTransactionId=B"), e))
    }

    @Test func aLookUpSaysWhatThePaymentDidOnlyByItsTransactionStatus() throws {
        #expect(AnswerRules.detailsState(try Self.answer("status=success&action=transactionDetails&amount=100&transactionId=t")) == nil)
        #expect(AnswerRules.detailsState(try Self.answer("status=success&action=transactionDetails&transactionStatus=success")) == .approved)
        #expect(AnswerRules.detailsState(try Self.answer("status=success&action=transactionDetails&transactionStatus=fail")) == .declined)
        #expect(AnswerRules.detailsState(try Self.answer("status=success&action=transactionDetails&transactionStatus=pending")) == nil)
    }

    @Test func anApprovalCountsOnlyWithAnAmountThatReadsAsAsked() throws {
        func problems(_ q: String, asked: Int?, tip: Int? = nil, _ action: Action = .sale) throws -> [String] {
            AnswerRules.moneyProblems(try Self.answer(q), action: action, askedAmount: asked.map(Money.init(cents:)), askedTip: tip.map(Money.init(cents:)))
        }
        #expect(try problems("status=success&action=sale&amount=1000&tipAmount=0", asked: 1000).isEmpty)
        #expect(try problems("status=success&action=sale&amount=1000.00", asked: 1000).first?.contains("cannot be read") == true)
        #expect(try problems("status=success&action=sale&amount=", asked: 1000).first?.contains("cannot be read") == true)
        #expect(try problems("status=success&action=sale", asked: 1000) == ["no amount"])
        #expect(try problems("status=success&action=sale&amount=1", asked: 1000) == ["amount 0.01 instead of 10.00"])
        #expect(try problems("status=success&action=sale&amount=1000&tipAmount=x", asked: 1000).first?.contains("tip that cannot be read") == true)
        // A full refund asks no amount: the terminal's is the truth.
        #expect(try problems("status=success&action=cancel&amount=700", asked: nil, .cancel).isEmpty)
        // A full refund or capture approved with no amount: counted, it would be 0.00 and miss the whole sum.
        #expect(try problems("status=success&action=cancel&referenceNumber=000002", asked: nil, .cancel) == ["no amount"])
        #expect(try problems("status=success&action=capture_pre_auth&referenceNumber=000002", asked: nil, .capturePreAuth) == ["no amount"])
        // A tip asked and not stated (absent or empty) is not counted at the tip asked; no tip asked, none needed.
        #expect(try problems("status=success&action=sale&amount=1250&tipAmount=100", asked: 1250, tip: 100).isEmpty)
        #expect(try problems("status=success&action=sale&amount=1250", asked: 1250, tip: 100) == ["no tip where 1.00 was asked"])
        #expect(try problems("status=success&action=sale&amount=1250&tipAmount=", asked: 1250, tip: 100) == ["no tip where 1.00 was asked"])
        #expect(try problems("status=success&action=sale&amount=1250", asked: 1250).isEmpty)
        #expect(try problems("status=success&action=sale&amount=1250&tipAmount=", asked: 1250, tip: 0).isEmpty)
    }

    /// Found by an outside peer: `café` typed as é (NFC) and as e + a combining accent (NFD) were two references to the
    /// journal (bytes) but one to the answer rules (Swift's `==`): the answer for one settled the other, a sale never
    /// charged was printed APPROVED. The rules compare references as the journal does.
    @Test func referencesAreComparedByteForByteAsTheJournalDoes() throws {
        let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
        #expect(nfc == nfd && !AnswerRules.sameReference(nfc, nfd))
        let r = try Self.answer("status=success&action=sale&amount=500&clientTransactionId=" + nfc.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        #expect(AnswerRules.link(r, to: Self.entry(.sale, ctid: nfd, amount: 500), hint: nil) == .none)
        #expect(AnswerRules.link(r, to: Self.entry(.sale, ctid: nfc, amount: 500), hint: nil) == .exact)
    }
}

extension AnswerRulesTests {
    /// Found by an outside cashier: `till details` said "Journal entry 4: approved" where the terminal had said the
    /// payment failed (USER_CANCEL), and the journal listed a look-up and its sale as two approved rows, one STAN.
    /// A look-up reads as what it found.
    @Test(arguments: [
        ("status=success&action=transactionDetails&transactionStatus=fail&transactionMessage=(-4) USER_CANCEL", "look-up: payment declined"),
        ("status=success&action=transactionDetails&transactionStatus=success&referenceNumber=000007", "look-up: payment approved"),
        ("status=fail&action=transactionDetails&message=(-30) TRANSACTION_NOT_FOUND", "look-up: no record"),
        ("status=success&action=transactionDetails&message=Transaction Details Fetched", "look-up: payment status not given"),
    ])
    func aLookUpReadsAsWhatItFound(answer: String, words: String) throws {
        var e = Self.entry(.transactionDetails, ctid: "A", amount: 909)
        e.state = .approved
        e.response = try Self.answer(answer)
        #expect(e.stateWords == words)
        var sale = Self.entry(.sale, ctid: "A", amount: 909)
        sale.state = .approved
        #expect(sale.lookUpFinding == nil && sale.stateWords == "approved")
    }
}

/// issue 33: which late answers overturn "not charged", and what a look-up after an abort's "aborted" says.
@Suite struct LateAnswerRulesTests {
    static func entry(_ state: EntryState, _ action: Action = .sale) -> JournalEntry {
        var e = AnswerRulesTests.entry(action, ctid: action == .sale ? "A" : nil, amount: 1000)
        e.state = state
        return e
    }

    struct Row: Sendable, CustomStringConvertible {
        var state: EntryState; var action: Action = .sale; var answer: String; var exact = true; var overturns: Bool
        var description: String { "\(state.rawValue) \(action.rawValue) \(answer) exact=\(exact)" }
    }

    static let rows: [Row] = [
        // The payment's own approval after any "not charged" settles it as charged.
        Row(state: .declined, answer: "status=success&action=sale&clientTransactionId=A&amount=1000", overturns: true),
        Row(state: .aborted, answer: "status=success&action=sale&clientTransactionId=A&amount=1000", overturns: true),
        Row(state: .resolved, answer: "status=success&action=sale&clientTransactionId=A&amount=1000", overturns: true),
        // Not its own (no reference, another action), not an approval, or nothing to overturn: nothing.
        Row(state: .declined, answer: "status=success&action=sale&amount=1000", exact: false, overturns: false),
        Row(state: .declined, answer: "status=success&action=pre_auth&clientTransactionId=A&amount=1000", overturns: false),
        Row(state: .declined, answer: "status=fail&action=sale&clientTransactionId=A&amount=1000", overturns: false),
        Row(state: .aborted, answer: "status=fail&message=(-57) ABORTED&action=ABORT&clientTransactionId=A", overturns: false),
        Row(state: .approved, answer: "status=success&action=sale&clientTransactionId=A&amount=1000", overturns: false),
        Row(state: .review, answer: "status=success&action=sale&clientTransactionId=A&amount=1000", overturns: false),
        // A look-up or a batch command moves no money: nothing to count.
        Row(state: .declined, action: .transactionDetails, answer: "status=success&action=transactionDetails&transactionStatus=success", overturns: false),
    ]

    @Test(arguments: rows) func overturns(_ row: Row) throws {
        let e = Self.entry(row.state, row.action)
        #expect(AnswerRules.approvalOverturns(e, try AnswerRulesTests.answer(row.answer), exact: row.exact) == row.overturns)
    }

    @Test func aLookUpAfterAnAbortSaysChargedAbortedOrNothingForCertain() throws {
        let e = Self.entry(.sent)
        func after(_ q: String) throws -> EntryState? { AnswerRules.afterAbort(lookUp: try AnswerRulesTests.answer(q), payment: e) }
        #expect(try after("status=success&action=transactionDetails&transactionStatus=success&clientTransactionId=A&amount=1000") == .approved)
        #expect(try after("status=success&action=transactionDetails&transactionStatus=fail&clientTransactionId=A") == .aborted)
        #expect(try after("status=fail&message=(-99) TRANSACTION_NOT_FOUND&action=transactionDetails") == .aborted)
        // Another payment's record, a record without a status, the terminal busy or still at it: not for certain.
        #expect(try after("status=success&action=transactionDetails&transactionStatus=success&clientTransactionId=B") == nil)
        #expect(try after("status=success&action=transactionDetails&clientTransactionId=A&amount=1000") == nil)
        #expect(try after("status=fail&message=(-61) TRANSACTION_IN_PROGRESS&action=transactionDetails&clientTransactionId=A") == nil)
        #expect(try after("status=success&action=transactionDetails&transactionStatus=success&transactionStatus=fail&clientTransactionId=A") == nil)
        #expect(AnswerRules.abortNeedsALookUp(e) && !AnswerRules.abortNeedsALookUp(Self.entry(.sent, .cancel)))
    }
}
