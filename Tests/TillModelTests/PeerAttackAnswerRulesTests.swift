import Testing
import TillModel
import TillProtocol

/// Found by attacking till as a misbehaving terminal peer (branch attack-peer).
@Suite struct PeerAttackAnswerRulesTests {
    // Guarantee 7: "An approval whose amount or tip cannot be read (`amount=1000.00`, `amount=`, no amount) is `review`,
    // never counted at the amount asked." Defect: a sale asked with a tip of 1.00 and approved with no `tipAmount`, or
    // with `tipAmount=` empty, has no money problem: the journal counts the tip asked (12.50 + 1.00 = 13.50) although
    // the terminal's answer states only 12.50 ("what the terminal answered is the truth for every total").
    @Test func anApprovalThatStatesNoTipIsNotCountedAtTheTipAsked() throws {
        func problems(_ q: String) throws -> [String] {
            AnswerRules.moneyProblems(try CallbackResponse.decode("interapp-callback://result?" + q), action: .sale,
                                      askedAmount: Money(cents: 1250), askedTip: Money(cents: 100))
        }
        #expect(try problems("status=success&action=sale&amount=1250&tipAmount=100").isEmpty)
        #expect(!(try problems("status=success&action=sale&amount=1250")).isEmpty, "no tipAmount: counted at the tip asked")
        #expect(!(try problems("status=success&action=sale&amount=1250&tipAmount=")).isEmpty, "tipAmount= empty: counted at the tip asked")
    }

    // Guarantee 7 (same words: "no amount" is `review`). Defect: a full refund or a full capture (no amount asked: "the
    // terminal's is the truth") approved by an answer with no `amount` has no money problem: it is journaled approved
    // and counted at 0.00, so the X/Z report's NET TOTAL and the export's `paid` miss the whole refund or capture.
    @Test func aFullRefundOrCaptureApprovedWithNoAmountIsNotCountedAtZero() throws {
        for action in [Action.cancel, .capturePreAuth] {
            let answer = try CallbackResponse.decode("interapp-callback://result?status=success&action=\(action.rawValue)&referenceNumber=000002")
            #expect(!AnswerRules.moneyProblems(answer, action: action, askedAmount: nil, askedTip: nil).isEmpty,
                    "\(action.rawValue): approved with no amount, counted at 0.00")
        }
    }
}
