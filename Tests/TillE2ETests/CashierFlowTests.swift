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
        try t.keys("M-2")   // tip 10 %
        t.waitFor("= 1.25", "Total charged  € 13.75")
        try t.keys("Enter")
        t.waitFor("SALE APPROVED", "Tip      € 1.25", "Total    € 13.75", "STAN")
        #expect(t.screen().contains("Amount   € 12.50"))
    }

    @Test func declinedSale() throws {
        let t = try TillSession(args: fast)
        try t.openShift()
        try t.type("6.66")
        try t.keys("Enter")
        t.waitFor("NOT CHARGED")
        // The amount stays for a retry.
        #expect(t.screen().contains("€ 6.66"))
    }

    @Test func escAbortsWhileWaitingForTheCard() throws {
        let t = try TillSession(args: fast)
        try t.openShift()
        try t.type("8.08")
        try t.keys("Enter")
        t.waitFor("Press Esc to abort", "times out in")
        try t.keys("Escape")
        t.waitFor("ABORTED")
    }

    @Test func noAnswerIsOutcomeUnknown() throws {
        let t = try TillSession(args: fast + ["--timeout", "3"])
        try t.openShift()
        try t.type("9.09")
        try t.keys("Enter")
        t.waitFor("Waiting for the terminal")
        t.waitFor("CHECK THE TERMINAL", "1 unresolved", timeout: 20)
    }

    @Test func batchTwoSalesRefundOneClose() throws {
        let t = try TillSession(args: fast)
        t.waitFor("Amount")
        // Open a batch.
        try t.keys("F6")
        t.waitFor("New batch")
        try t.type("Shift A")
        try t.keys("Enter")
        t.waitFor("Open batch?", "Open a new batch named 'Shift A'.")
        try t.keys("y")
        t.waitFor("BATCH OPENED", "batch Shift A")
        // Two sales.
        try t.keys("F2")
        try t.type("10.00")
        try t.keys("Enter")
        t.waitFor("SALE APPROVED", "Amount   € 10.00")
        let firstStan = t.value(after: "STAN")
        try t.type("20.00")
        try t.keys("Enter")
        t.waitFor("Amount   € 20.00", "SALE APPROVED")
        let stan = try #require(t.value(after: "STAN"))
        #expect(stan != firstStan)
        // Refund the second, after the confirmation.
        try t.keys("F5")
        t.waitFor("Find the payment")
        try t.type(stan)
        try t.keys("Enter")
        // The box names the payment the journal knows by that STAN; only y refunds.
        t.waitFor("Refund?", "STAN \(stan)", "Refund the FULL amount", "sale of € ")
        try t.keys("y")
        t.waitFor("REFUNDED", "What     Refund in full")
        // The journal shows both sales and the refund.
        try t.keys("F7")
        t.waitFor("refund", "20.00", "10.00")
        // Close the batch, after the confirmation.
        try t.keys("F6")
        t.waitFor("Active batch", "Shift A")
        try t.keys("C-k")
        t.waitFor("Close batch?", "Close the active batch 'Shift A'")
        try t.keys("y")
        // The shift's Z report comes up full screen: two sales of 30.00, one refund of 20.00.
        t.waitFor("Z report (closing): Shift A", "no batch open")
        #expect(t.screen().contains("€ 10.00"))
        try t.keys("Escape")
        t.waitFor("BATCH CLOSED")
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
        try t.type("9.09")
        try t.keys("Enter")
        t.waitFor("CHECK THE TERMINAL")
        try t.keys("F10")
        t.waitFor("TILL-EXITED 0")
        // Start again on the same journal: the unknown sale comes first.
        try t.restart(args: fast + ["--timeout", "2"])
        t.waitFor("Unresolved transactions", "sale 9.09", timeout: 30)
        try t.keys("Enter")
        t.waitFor("charged (it went through)", "not charged")
        try t.keys("x")
        t.waitFor("marked resolved", "Nothing to check")
    }

    @Test func helpOverlayAndNoColor() throws {
        let t = try TillSession(args: fast + ["--keymap", "keypad"], env: ["NO_COLOR": "1"])
        t.waitFor("Amount")
        try t.keys("F1")
        t.waitFor("Keys (keypad keymap)", "+ Tab ↓", "F7 Alt-j ", "/ Alt-o")
        try t.keys("x")
        t.waitFor("Ready for the next customer.")
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
