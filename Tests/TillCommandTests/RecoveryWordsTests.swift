import Testing
import TillModel
import TillProtocol
@testable import TillUI
@testable import till

/// What became of a payment found settled reads the same on the screen and from `till` headless: a pre-auth found
/// approved was "WAS AUTHORISED" headless and "WAS RESERVED" on the screen, a capture "WAS CHARGED" and "WAS CAPTURED".
@Suite struct RecoveryWordsTests {
    @Test(arguments: [Action.sale, .preAuth, .capturePreAuth, .cancel], [EntryState.approved, .declined])
    func theScreenAndTheCommandLineSayTheSame(action: Action, state: EntryState) {
        let e = JournalEntry(id: 4, requestId: "r4", action: action, clientTransactionId: "c4", amount: Money(cents: 1500),
                             tipAmount: nil, requestURL: "", state: state, createdAtMs: 0, updatedAtMs: 0, response: nil)
        let screen = CashierWording.foundWords(e)
        #expect(recoveredText(e).contains(screen), "headless \(recoveredText(e)) | screen \(screen)")
        let expected = ["sale": "CHARGED", "pre-auth": "RESERVED", "capture": "CAPTURED", "refund": "REFUNDED"][action.words.name]
        #expect(screen.uppercased().hasSuffix(expected ?? "?"), "\(screen)")
    }
}
