import Foundation
import Testing

/// End-to-end: the real binary in tmux on the built-in simulator (magic amounts: 6.66 declined,
/// 8.08 card never presented, 9.09 no answer ever; anything else approved).
@Suite(.serialized) struct CashierFlowTests {
    /// Fast simulator: its 3 s card wait and 1 s host step become 0.6 s and 0.2 s.
    let fast = ["--sim-speed", "0.2"]

    @Test func saleWithTipIsApproved() throws {
        let t = try TillSession(args: fast)
        try t.openShift()
        try t.type("12.50")
        try t.keys("C-t", "C-t")   // tip 10 %
        t.waitFor("= 1.25", "Total to pay   € 13.75")
        try t.press("Enter", thenSee: "SALE APPROVED", "Tip      € 1.25", "Total    € 13.75", "STAN")
        #expect(t.screen().contains("Amount   € 12.50"))
    }

    @Test func declinedSale() throws {
        let t = try TillSession(args: fast)
        try t.openShift()
        try t.charge("6.66", thenSee: "NOT CHARGED")
        // The amount stays for a retry.
        #expect(t.screen().contains("€ 6.66"))
    }

    @Test func escAbortsWhileWaitingForTheCard() throws {
        let t = try TillSession(args: fast)
        try t.openShift()
        try t.charge("8.08", thenSee: "Press Esc to abort", "times out in")
        try t.press("Escape", thenSee: "ABORTED")
    }

    @Test func noAnswerIsOutcomeUnknown() throws {
        let t = try TillSession(args: fast + ["--timeout", "3"])
        try t.openShift()
        try t.startSale("9.09")
        t.waitFor("CHECK THE TERMINAL", "1 unresolved", timeout: 20)
    }

    @Test func batchTwoSalesRefundOneClose() throws {
        let t = try TillSession(args: fast)
        try t.openShift("Shift A", boxSays: ["Open a new batch named 'Shift A'."])
        // Two sales.
        try t.sell("10.00", approvedAs: "10.00")
        let firstStan = t.value(after: "STAN")
        try t.sell("20.00", approvedAs: "20.00")
        let stan = try #require(t.value(after: "STAN"))
        #expect(stan != firstStan)
        // Refund the second, after the confirmation.
        try t.press("F5", thenSee: "Find the payment")
        try t.type(stan)
        try t.keys("Enter")
        // The box names the payment the journal knows by that STAN; only y refunds.
        t.waitFor("Refund?", "STAN \(stan)", "Refund the FULL amount", "sale of € ")
        try t.press("y", thenSee: "REFUNDED", "What     Refund in full")
        // The journal shows both sales and the refund.
        try t.press("F7", thenSee: "refund", "20.00", "10.00")
        // Close the batch, after the confirmation.
        try t.closeShift(batchScreenSays: ["Active batch", "Shift A"], boxSays: ["Close batch?", "Close the active batch 'Shift A'"])
        // The shift's Z report comes up full screen: two sales of 30.00, one refund of 20.00.
        t.waitFor("Z report (closing): Shift A", "no batch open")
        #expect(t.screen().contains("€ 10.00"))
        try t.press("Escape", thenSee: "BATCH CLOSED")
    }

    @Test func resizeToTinyAndBack() throws {
        let t = try TillSession(args: fast)
        t.waitFor("F2 Sale", "Amount")
        try t.resize(width: 40, height: 12)
        t.waitFor("Please enlarge the window")
        #expect(!t.screen().contains("Amount"))
        try t.resize(width: 80, height: 24)
        t.waitFor("F2 Sale", "Amount", "Ready for the next customer.")
        #expect(!t.screen().contains("enlarge"))
        // Still alive and responsive after the resizes.
        try t.type("1")
        t.waitFor("€ 1_")
    }

    @Test func unresolvedShownFirstAtNextStartAndResolved() throws {
        let t = try TillSession(args: fast + ["--timeout", "2"])
        try t.openShift()
        // Start again on the same journal: the unknown sale comes first.
        try t.leaveAnUnknownSaleAndRestart("9.09", args: fast + ["--timeout", "2"])
        t.waitFor("Unresolved transactions", "sale 9.09", timeout: 30)
        // The list came up by itself: a first Enter (perhaps typed ahead for a sale) only says what the next would do.
        try t.press("Enter", thenSee: "Enter again to resolve")
        try t.press("Enter", thenSee: "charged (it went through)", "not charged")
        try t.press("x", thenSee: "marked resolved", "Nothing to check")
    }

    @Test func helpOverlayAndNoColor() throws {
        let t = try TillSession(args: fast + ["--keymap", "keypad"], env: ["NO_COLOR": "1"])
        t.waitFor("Amount")
        try t.press("F1", thenSee: "Keys (keypad keymap)", "+ Tab ↓", "F7 Alt-j ", "/ Alt-o")
        try t.press("x", thenSee: "Ready for the next customer.")
        // No colour escapes with NO_COLOR: only attributes.
        let styled = try t.tmux(["capture-pane", "-p", "-e", "-t", t.name])
        #expect(colourParameters(styled).isEmpty, "colour escapes with NO_COLOR:\n\(styled)")
        #expect(styled.contains("\u{1B}[7m") || styled.contains(";7m") || styled.contains("[7;"), "no reverse video in monochrome")
    }

    @Test func malformedThemeIsReportedWithLineAndFallsBack() throws {
        let t = try TillSession(args: fast + ["--theme", "broken"])
        try FileManager.default.createDirectory(atPath: t.dir + "/config/till/themes", withIntermediateDirectories: true)
        // Written after start would be too late: restart with the file in place.
        try "name = \"broken\"\n[roles.approved]\nfg = \"green\"\nbg = = \"red\"\n".write(toFile: t.dir + "/config/till/themes/broken.toml", atomically: true, encoding: .utf8)
        try t.restart(args: ["--theme", "broken"])
        t.waitFor("broken.toml:4:")
        t.waitFor("Amount")
    }
}

/// SGR colour parameters (30–49, 90–107) found in text with escape sequences.
func colourParameters(_ text: String) -> [Int] {
    var found: [Int] = []
    var rest = Substring(text)
    while let start = rest.range(of: "\u{1B}[") {
        rest = rest[start.upperBound...]
        guard let end = rest.firstIndex(where: { $0.isLetter }) else { break }
        if rest[end] == "m" {
            for p in rest[..<end].split(separator: ";") {
                if let n = Int(p), n != 39, n != 49, (30...49).contains(n) || (90...107).contains(n) { found.append(n) }
            }
        }
        rest = rest[end...]
    }
    return found
}
