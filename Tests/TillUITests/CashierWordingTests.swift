import Foundation
import Testing
import TillModel
import TillProtocol
@testable import TillUI

@Suite struct CashierWordingTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The string literals of the simulator's `SimMessage`, read from its source so a message added
    /// there fails this test until it has words.
    static func simulatorMessages() throws -> [String] {
        let source = try String(contentsOf: repo.appendingPathComponent("Sources/TillSimulator/Model.swift"), encoding: .utf8)
        let start = try #require(source.range(of: "public enum SimMessage {"))
        let end = try #require(source.range(of: "\n}", range: start.upperBound..<source.endIndex))
        let body = source[start.upperBound..<end.lowerBound]
        return body.split(separator: "\n").compactMap { line -> String? in
            guard let q1 = line.firstIndex(of: "\""), let q2 = line[line.index(after: q1)...].firstIndex(of: "\"") else { return nil }
            return String(line[line.index(after: q1)..<q2])
        }
    }

    @Test func everySimulatorMessageHasItsOwnWords() throws {
        let messages = try Self.simulatorMessages()
        #expect(messages.count >= 19, "SimMessage not found where expected: \(messages)")
        for m in messages {
            #expect(TerminalMessage(message: m) != .unrecognised(code: nil), "\(m)")
            if case .unrecognised = TerminalMessage(message: m) { Issue.record("no words for the simulator's \(m)") }
            for approved in [true, false] {
                for action in Action.allCases {
                    let s = CashierWording.sentence(forMessage: m, action: action, approved: approved)
                    #expect(!s.contains("_") && !s.contains("(-"), "\(m): \(s)")
                }
            }
        }
    }

    /// Every message text the simulator sends goes through `SimMessage` (no literal elsewhere), so the
    /// list above is all of them.
    @Test func simulatorSendsNoMessageOutsideSimMessage() throws {
        let dir = Self.repo.appendingPathComponent("Sources/TillSimulator")
        for f in try FileManager.default.contentsOfDirectory(atPath: dir.path) where f.hasSuffix(".swift") {
            let text = try String(contentsOf: dir.appendingPathComponent(f), encoding: .utf8)
            #expect(!text.contains("(\"message\", \""), "\(f) sends a literal message")
        }
    }

    /// Messages from the vendor's pages and from real terminals (shared/protocol/README.md).
    @Test(arguments: [
        ("(-4) USER_CANCEL", TerminalMessage.userCancel),
        ("(-12) TRANSACTION_DECLINED_BY_SERVER", .declinedByBank),
        ("(-55) NOTHING_TO_ABORT", .nothingToAbort),
        ("(-57) ABORTED", .aborted),
        ("(-62) RESELLER_ORDER_DECLINED", .resellerDeclined),
        ("Transaction declined by host.", .declinedByBank),
        ("Transaction successful.", .success),
        ("Transaction successful", .success),
        ("Transaction Details Fetched", .detailsFetched),
        ("Batch closed", .batchClosed),
        ("aborted", .aborted),
        ("nothing to abort", .nothingToAbort),
        ("(-43)", .exceedsRemaining),
        ("( -12 )  TRANSACTION_DECLINED_BY_SERVER ", .declinedByBank),
        ("(-51) INSUFFICIENT_FUNDS", .insufficientFunds),
        ("(-20) TRANSACTION_IN_PROGRESS", .terminalBusy),
        ("(-30) BATCH_ERROR", .unrecognised(code: -30)),     // a known code with another name is not guessed at
        ("(-99) SOMETHING_NEW", .unrecognised(code: -99)),
        ("", .unrecognised(code: nil)),
    ])
    func readsTheProtocolsMessages(text: String, expected: TerminalMessage) {
        #expect(TerminalMessage(message: text) == expected)
    }

    @Test func sentencesSayWhatToDo() {
        #expect(CashierWording.sentence(forMessage: "(-12) TRANSACTION_DECLINED_BY_SERVER", action: .sale)
                == "Declined by the card's bank: not charged so far. Ask for another card.")
        #expect(CashierWording.sentence(forMessage: "(-4) USER_CANCEL", action: .sale).hasPrefix("Cancelled on the terminal: no money was taken."))
        #expect(CashierWording.sentence(forMessage: "(-43) AMOUNT_EXCEEDS_REMAINING", action: .cancel).contains("refund a smaller amount"))
        #expect(CashierWording.sentence(forMessage: "(-43) AMOUNT_EXCEEDS_REMAINING", action: .capturePreAuth).contains("capture a smaller amount"))
        #expect(CashierWording.sentence(forMessage: "(-30) TRANSACTION_NOT_FOUND", action: .cancel).contains("STAN"))
        #expect(CashierWording.sentence(forMessage: "(-62) RESELLER_ORDER_DECLINED").contains("nothing was charged"))
        #expect(CashierWording.sentence(forMessage: "(-51) INSUFFICIENT_FUNDS").contains("not enough money"))
    }

    /// Whatever the terminal sends, the main screen gets words, never the raw text: hostile or unknown
    /// messages fall back to a sentence that names at most the code.
    @Test(arguments: ["(-99) SOMETHING_NEW", "NullPointerException at com.vivawallet", "<script>", "(-12", "%00", "(21474836.47)", ""])
    func fallbackNeverShowsTheRawText(message: String) {
        let declined = CashierWording.sentence(forMessage: message, action: .sale, approved: false)
        #expect(declined.hasPrefix("The terminal did not approve it"))
        #expect(declined.contains("nothing was charged"))
        if !message.isEmpty { #expect(!declined.contains(message)) }
        #expect(CashierWording.sentence(forMessage: "(-99) SOMETHING_NEW").contains("(code -99)"))
        #expect(CashierWording.sentence(forMessage: message, action: .batch) == "The terminal did not do it\(message == "(-99) SOMETHING_NEW" ? " (code -99)" : ""). The terminal's screen says why.")
        #expect(CashierWording.sentence(forMessage: message, action: .sale, approved: true) == "Paid: the card was charged.")
    }

    // MARK: - Verdicts

    static func answer(_ query: String) -> CallbackResponse {
        try! CallbackResponse.decode("interapp-callback://result?" + query)
    }

    static func journalEntry(_ action: Action, cents: Int?, tip: Int? = nil, state: EntryState, response: CallbackResponse? = nil,
                             note: String? = nil) -> JournalEntry {
        JournalEntry(id: 7, requestId: "r", action: action, clientTransactionId: nil, amount: cents.map { Money(cents: $0) },
                     tipAmount: tip.map { Money(cents: $0) }, requestURL: "vivapayclient://pay/v1?action=\(action.rawValue)",
                     state: state, createdAtMs: 0, updatedAtMs: 0, response: response, note: note)
    }

    // With the tip included, the terminal's amount is what the card paid: 22.00, never 22.00 + 2.00.
    // The entry's own style (as journaled), whatever the config says when it is shown.
    @Test func theHeadlineReadsTheTipStyle() {
        var e = Self.journalEntry(.sale, cents: 2200, tip: 200, state: .approved,
            response: Self.answer("status=success&message=Transaction successful.&action=sale&amount=2200&tipAmount=200"))
        e.tipStyle = .included
        #expect(CashierWording.verdict(for: .answered(e), tipStyle: .onTop).headlineLine() == "✓ SALE APPROVED € 22.00")
        #expect(Format.total(e) == Money(cents: 2200) && Format.goods(e) == Money(cents: 2000))
        e.tipStyle = .onTop
        #expect(CashierWording.verdict(for: .answered(e), tipStyle: .included).headlineLine() == "✓ SALE APPROVED € 24.00")
    }

    @Test func headlinesOfTheOutcomes() {
        let sale = CashierWording.verdict(for: .answered(Self.journalEntry(.sale, cents: 2000, tip: 200, state: .approved,
            response: Self.answer("status=success&message=Transaction successful.&action=sale&amount=2000&tipAmount=200"))), tipStyle: .onTop)
        #expect(sale.headlineLine() == "✓ SALE APPROVED € 22.00")
        #expect(sale.word == "APPROVED" && sale.role == .approved)
        #expect(sale.bigCandidates == ["✓ APPROVED", "APPROVED", "✓"])

        let refund = CashierWording.verdict(for: .answered(Self.journalEntry(.cancel, cents: 1250, state: .approved,
            response: Self.answer("status=success&message=Transaction successful.&action=cancel&amount=1250"))), tipStyle: .onTop)
        #expect(refund.headlineLine() == "✓ REFUNDED € 12.50")

        let declined = CashierWording.verdict(for: .answered(Self.journalEntry(.sale, cents: 666, state: .declined,
            response: Self.answer("status=fail&message=(-12) TRANSACTION_DECLINED_BY_SERVER&action=sale&amount=666"))), tipStyle: .onTop)
        #expect(declined.headlineLine() == "✗ NOT CHARGED")
        #expect(declined.word == "DECLINED" && declined.sentence == "Declined by the card's bank: not charged so far. Ask for another card.")

        let cancelled = CashierWording.verdict(for: .answered(Self.journalEntry(.sale, cents: 666, state: .declined,
            response: Self.answer("status=fail&message=(-4) USER_CANCEL&action=sale"))), tipStyle: .onTop)
        #expect(cancelled.word == "NOT PAID" && cancelled.headline == "NOT CHARGED")

        let unknown = CashierWording.verdict(for: .unknown(Self.journalEntry(.sale, cents: 1313, state: .unknown, note: "No answer in 90 s.")), tipStyle: .onTop)
        #expect(unknown.headlineLine() == "? CHECK THE TERMINAL")
        #expect(unknown.sentence.contains("€ 13.13 may have been charged"))
        #expect(unknown.word == "UNKNOWN" && unknown.role == .unknown)

        let captured = CashierWording.verdict(for: Self.journalEntry(.capturePreAuth, cents: 6000, state: .approved), tipStyle: .onTop)
        #expect(captured.headlineLine() == "✓ CAPTURED € 60.00")
        let preAuth = CashierWording.verdict(for: Self.journalEntry(.preAuth, cents: 8000, state: .approved), tipStyle: .onTop)
        #expect(preAuth.headlineLine() == "✓ PRE-AUTHORISED € 80.00")
        let aborted = CashierWording.verdict(for: Self.journalEntry(.sale, cents: 1000, state: .aborted,
            response: Self.answer("status=fail&message=(-57) ABORTED&action=ABORT")), tipStyle: .onTop)
        #expect(aborted.headlineLine() == "✗ ABORTED" && aborted.sentence.contains("no money was taken"))
        var earlier = Self.journalEntry(.sale, cents: 1313, state: .unknown)
        earlier.createdAtMs = 10 * 3_600_000 + 31 * 60_000          // 10:31 UTC, 11:31 at +01:00
        let confirm = CashierWording.verdict(for: .needsConfirmation([earlier]), tzOffsetMinutes: 60, tipStyle: .onTop)
        #expect(confirm.sentence == "€ 13.13 at 11:31 may have been charged: check the terminal before charging again.")
        #expect(confirm.role == .unknown && confirm.mark == "?")
        let notSent = CashierWording.verdict(for: .transportError(nil, "The drop folder cannot be written."), tipStyle: .onTop)
        #expect(notSent.headlineLine() == "✗ NOT SENT — NOT CHARGED" && notSent.word != "DECLINED")
    }

    /// Every verdict word fits the result pane at 80×24 in block letters; every mark-and-word at 120.
    @Test func everyVerdictWordFitsTheResultPane() throws {
        var words = Set<String>()
        for action in Action.allCases {
            for state in EntryState.allCases {
                for msg in ["(-4) USER_CANCEL", "(-12) TRANSACTION_DECLINED_BY_SERVER", "Batch closed", ""] {
                    let v = CashierWording.verdict(for: Self.journalEntry(action, cents: 100, state: state,
                        response: Self.answer("status=\(state == .approved ? "success" : "fail")&message=\(msg)&action=\(action.rawValue)")), tipStyle: .onTop)
                    words.insert(v.word)
                    #expect(!v.sentence.isEmpty && !v.headline.isEmpty)
                    #expect(BigText.fit(v.bigCandidates, maxWidth: 44, maxHeight: 3)?.text == v.bigCandidates[0], "\(v.word) at 120")
                }
            }
        }
        for o in [ActionOutcome.busy(InFlight(entry: Self.journalEntry(.sale, cents: 1, state: .sent), startedAtMs: 0, deadlineMs: 1)),
                  .invalid([]), .transportError(nil, "x"), .otherTillBusy("x"), .journalFailed(nil, "x"),
                  .needsConfirmation([Self.journalEntry(.sale, cents: 1313, state: .unknown)])] {
            words.insert(CashierWording.verdict(for: o, tipStyle: .onTop).word)
        }
        for w in words { #expect(BigText.lines(w, maxWidth: 32) != nil, "\(w) does not fit 32 columns") }
    }

    /// The headline line (mark, words, amount) fits the pane's text width at 80×24 (30 columns) even
    /// for the largest amount the protocol carries.
    @Test func headlineLinesFitThePaneAt80Columns() {
        for action in Action.allCases {
            for state in EntryState.allCases {
                let v = CashierWording.verdict(for: Self.journalEntry(action, cents: Money.maximumCents / 2, tip: Money.maximumCents / 2, state: state), tipStyle: .onTop)
                #expect(v.headlineLine().count <= 30, "\(v.headlineLine())")
            }
        }
    }

    /// The four verdicts of the issue, laid out for the pane at 80×24 (32 columns) and at 120 (44).
    @Test func blocksForThePaneAt80And120Columns() {
        let sale = CashierWording.verdict(for: Self.journalEntry(.sale, cents: 2000, tip: 200, state: .approved), tipStyle: .onTop)
        #expect(sale.block(width: 32).map(\.text) == [
            "▄▀▄ █▀▄ █▀▄ █▀▄ █▀█ █ █ █▀▀ █▀▄",
            "█▀█ █▀  █▀  █▀▄ █ █ █ █ █▀  █ █",
            "▀ ▀ ▀   ▀   ▀ ▀ ▀▀▀  ▀  ▀▀▀ ▀▀ ",
            "",
            "    ✓ SALE APPROVED € 22.00",
        ])
        let unknown = CashierWording.verdict(for: Self.journalEntry(.sale, cents: 1313, state: .unknown), tipStyle: .onTop)
        #expect(unknown.block(width: 44).map(\.text) == [
            "  ▀▀▄    █ █ █▄ █ █ █ █▄ █ █▀█ █   █ █▄ █",
            "   ▀     █ █ █ ▀█ █▀▄ █ ▀█ █ █ █▄▀▄█ █ ▀█",
            "   ▀     ▀▀▀ ▀  ▀ ▀ ▀ ▀  ▀ ▀▀▀ ▀   ▀ ▀  ▀",
            "",
            "            ? CHECK THE TERMINAL",
        ])
        let refund = CashierWording.verdict(for: Self.journalEntry(.cancel, cents: 1250, state: .approved), tipStyle: .onTop)
        #expect(refund.block(width: 32).last?.text == "       ✓ REFUNDED € 12.50")
        let declined = CashierWording.verdict(for: Self.journalEntry(.sale, cents: 666, state: .declined), tipStyle: .onTop)
        #expect(declined.block(width: 32).last?.text == "         ✗ NOT CHARGED")
        #expect(declined.block(width: 32).allSatisfy { $0.role == .declined })
        // Narrower: the mark alone in block letters; narrower still, the headline alone.
        #expect(declined.block(width: 20).map(\.text) == ["       ▀▄ ▄▀", "        ▄▀▄ ", "       ▀   ▀", "", "   ✗ NOT CHARGED"])
        #expect(declined.block(width: 4).map(\.text) == ["✗ NOT CHARGED"])
        for v in [sale, unknown, refund, declined] {
            for w in [32, 44] { #expect(v.block(width: w).allSatisfy { $0.text.count <= w }) }
        }
    }
}

/// Found by a cashier in tmux: a refund the terminal was too busy to start said "TERMINAL BUSY — NOT CHARGED", a
/// refund settled as not made read "RESOLVED" in the journal, and a refund not sent because another request waited
/// said "NOT CHARGED". Each says what did not happen to the money, or that nothing was sent.
@Test func aRefundNotMadeSaysNotRefunded() {
    let busy = entry(4, .cancel, cents: 800, state: .resolved, response: response("status=fail&message=(-20) TRANSACTION_IN_PROGRESS&action=cancel"))
    #expect(CashierWording.verdict(for: busy, tipStyle: .onTop).headline == "TERMINAL BUSY — NOT REFUNDED")
    let marked = entry(5, .cancel, cents: 800, state: .resolved)
    #expect(CashierWording.verdict(for: marked, tipStyle: .onTop).headline == "NOT REFUNDED")
    #expect(Format.stateName(marked) == "NOT REFUNDED" && Format.stateName(entry(6, .capturePreAuth, state: .resolved)) == "NOT CAPTURED")
    #expect(Format.stateName(entry(7, .batch, state: .resolved)) == "RESOLVED")
    let notSent = CashierWording.verdict(for: .busy(InFlight(entry: entry(1, .sale, state: .sent), startedAtMs: 0, deadlineMs: 90_000)),
                                         currency: "€", tzOffsetMinutes: 0, tipStyle: .onTop)
    #expect(notSent.headline == "TERMINAL BUSY — NOT SENT")
}
