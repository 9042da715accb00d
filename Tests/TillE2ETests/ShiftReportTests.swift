import Foundation
import Testing

/// Issue #6 end to end: a cashier's scripted day through the real UI in tmux, the shift closed,
/// the Z report read on screen, and the exported CSV giving the same totals.
@Suite(.serialized) struct ShiftReportTests {
    @Test func scriptedDayFromOpenToZReportAndExport() throws {
        // Fast simulator (0.6 s card wait); a 3 s timeout so the no-answer sale turns unknown quickly.
        let t = try TillSession(args: ["--sim-speed", "0.2", "--timeout", "3"])
        t.waitFor("Amount", "Ready. No unfinished transactions")

        try t.openShift("Anna morning")

        // Sales: 20.00 + tip 2.00, 12,50, a decline, 40.00 + tip 6.00.
        try t.type("20"); try t.keys("Tab"); try t.type("2"); try t.keys("Enter")
        t.waitFor("SALE APPROVED", "Total    € 22.00")
        try t.sell("12,50", approvedAs: "12.50")
        try t.charge("6.66", thenSee: "NOT CHARGED")
        try t.keys("C-u")                      // clear the declined amount
        try t.type("40"); try t.keys("Tab"); try t.type("6"); try t.keys("Enter")
        t.waitFor("SALE APPROVED", "Total    € 46.00")
        let bigStan = try #require(t.value(after: "STAN"))

        // An abort while the card is awaited.
        try t.charge("8.08", thenSee: "Press Esc to abort"); try t.keys("Escape")
        t.waitFor("ABORTED")
        try t.keys("C-u")

        // A partial refund of 15.00 of the 40.00 sale.
        try t.press("F5", thenSee: "STAN")
        try t.type(bigStan)
        for _ in 0..<5 { try t.keys("Tab") }
        try t.charge("15", thenSee: "Refund?", "Refund € 15.00"); try t.keys("y")
        t.waitFor("REFUNDED", "Amount   € 15.00")

        // A pre-auth of 50.00, captured at 42.00.
        try t.keys("F3"); try t.charge("50")
        t.waitFor("PRE-AUTHORISED", "Amount   € 50.00")
        let preStan = try #require(t.value(after: "STAN"))
        // F4 right after it: its STAN is filled in, the cursor on the amount.
        try t.press("F4", thenSee: "STAN           \(preStan)", "The pre-auth just made")
        try t.charge("42")
        t.waitFor("Capture?", "Capture € 42.00"); try t.keys("y")   // a capture is confirmed, as a refund is
        t.waitFor("CAPTURED", "Amount   € 42.00")

        // Last, a sale the terminal never answers: unknown after till's 3 s timeout.
        try t.keys("F2"); try t.charge("9.09")
        t.waitFor("CHECK THE TERMINAL", timeout: 20)

        // The running X report on the Batch screen: 72.50 + 8.00 + 42.00 − 15.00 = 107.50. Closing asks about the
        // unknown outcome first; the cashier closes anyway.
        try t.closeShift(batchScreenSays: ["Running (X) report", "NET TOTAL                   € 107.50",
                                                  "Outcome unknown (1)         € 9.09", "check the terminal"],
                         boxSays: ["Close batch with unknown outcomes?", "UNKNOWN outcome"])
        t.waitFor("Z report (closing): Anna morning", "no batch open")
        let z = t.screen()
        #expect(z.contains("Sales approved                      3           € 72.50"))
        #expect(z.contains("Tips (on top of sales)              2            € 8.00"))
        #expect(z.contains("Pre-auths captured                  1           € 42.00"))
        #expect(z.contains("Refunds and cancels                 1          -€ 15.00"))
        #expect(z.contains("NET TOTAL                                      € 107.50"))
        try t.keys("PPage")
        try t.keys("NPage")
        t.waitFor("Declined                          1            € 6.66", "Aborted                           1            € 8.08",
                  "Outcome unknown                   1            € 9.09")

        // Export; the CSV of the shift's transactions gives the same totals.
        try t.press("C-e", thenSee: "Saved 2 CSV files in")
        let exports = t.dir + "/exports"
        let files = try FileManager.default.contentsOfDirectory(atPath: exports)
        let txFile = try #require(files.first { $0.hasSuffix("-transactions.csv") })
        let csv = try String(contentsOfFile: exports + "/" + txFile, encoding: .utf8)
        var sales = 0, tips = 0, refunds = 0, captures = 0
        for line in csv.split(separator: "\r\n").dropFirst() {
            let c = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard c.count > 5, c[3] == "approved" else { continue }
            let amount = Int(c[4].replacingOccurrences(of: ".", with: "")) ?? -1_000_000
            let tip = Int(c[5].replacingOccurrences(of: ".", with: "")) ?? -1_000_000
            switch c[2] {
            case "sale": sales += amount; tips += tip
            case "cancel": refunds += amount
            case "capture_pre_auth": captures += amount
            default: break
            }
        }
        #expect(sales == 7250 && tips == 800 && refunds == 1500 && captures == 4200)
        #expect(sales + tips + captures - refunds == 10750)
        let reportFile = try #require(files.first { $0.hasSuffix("-report.csv") })
        let reportCSV = try String(contentsOfFile: exports + "/" + reportFile, encoding: .utf8)
        #expect(reportCSV.contains("totals,net total,,107.50,€"))
    }
}
