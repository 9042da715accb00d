import Foundation
import Testing

/// A whole shift by keys at 80×24 on the built-in simulator, as a cashier does it: open, five sales
/// (tip, installments, decline, abort, no answer), a full and a partial refund from journal rows,
/// a pre-auth and its capture, the journal, the X report, the close with its Z report, the export.
/// Every key is counted per task; the cashier guide's key-count table is this test's output.
@Suite(.serialized) struct FullShiftTests {
    final class Keys {
        let t: TillSession
        var task = ""
        var counts: [(String, Int)] = []
        /// The digits among the keys (amounts, STANs, an installments count): the rest are the keys "beyond digits".
        var digits = 0
        init(_ t: TillSession) { self.t = t }
        func begin(_ name: String) { task = name; counts.append((name, 0)) }
        func bump(_ n: Int) { counts[counts.count - 1].1 += n }
        func keys(_ k: String...) throws { bump(k.count); for key in k { try t.keys(key) } }
        func type(_ s: String) throws { bump(s.count); digits += s.filter(\.isNumber).count; try t.type(s) }
        var total: Int { counts.reduce(0) { $0 + $1.1 } }

        /// Finds the payment by its STAN in the journal, opens `key`'s box on its row (F5 refund, F4 capture),
        /// types `amount` (nothing: all of it), and confirms the box once it shows `boxSays`.
        func fromJournalRow(_ stan: String, _ key: String, amount: String? = nil, boxSays: String...) throws {
            try keys("F7"); try type(stan)
            t.waitFor("1 of "); try keys(key)
            t.waitFor(stan)
            if let amount { try type(amount) }
            try keys("Enter")
            t.waitFor(all: boxSays); try keys("y")
        }
    }

    @Test func aWholeShiftByKeys() throws {
        let t = try TillSession(width: 80, height: 24, args: ["--sim-speed", "0.2", "--timeout", "3"])
        let k = Keys(t)
        t.waitFor("Amount", "no batch open")

        k.begin("open the shift (at the first sale) and sell 20.00 + 10 % tip")
        try k.type("20"); try k.keys("C-t", "C-t", "Enter")
        t.waitFor("No shift open", "charge € 22.00"); try k.keys("o")
        t.waitFor("SALE APPROVED € 22.00")
        let firstStan = try #require(t.value(after: "STAN"))

        k.begin("sale of 40.00 in 6 installments")
        // Alt-i goes to Installments from the amount (Tab Tab went past the tip).
        try k.type("40"); try k.keys("M-i"); try k.type("6"); try k.keys("Enter")
        t.waitFor("SALE APPROVED € 40.00")
        let secondStan = try #require(t.value(after: "STAN"))
        #expect(firstStan != secondStan)

        k.begin("sale declined (6.66)")
        try k.type("6.66"); try k.keys("Enter")
        t.waitFor("NOT CHARGED")

        k.begin("sale aborted while waiting for the card (8.08)")
        try k.type("8.08"); try k.keys("Enter")
        t.waitFor("Press Esc to abort"); try k.keys("Escape")
        t.waitFor("ABORTED")

        k.begin("full refund of the 22.00 sale by its STAN typed on Refund")
        // The STAN is typed where the Refund form starts (its cursor is there); Enter finds the sale, and its box names it.
        try k.keys("F5"); t.waitFor("REFUND: Enter")
        try k.type(firstStan); try k.keys("Enter")
        t.waitFor("Refund?", "Refund the FULL amount", "sale of € 22.00"); try k.keys("y")
        t.waitFor("REFUNDED")

        k.begin("partial refund (15.00) of the 40.00 sale from its journal row")
        try k.fromJournalRow(secondStan, "F5", amount: "15", boxSays: "Refund?", "Refund € 15.00", "sale of € 40.00")
        t.waitFor("REFUNDED € 15.00")

        k.begin("pre-auth of 50.00 (then back on Sale by itself)")
        try k.keys("F3"); try k.type("50"); try k.keys("Enter")
        t.waitFor("PRE-AUTHORISED € 50.00", "Sale: Enter charges the card")
        let preStan = try #require(t.value(after: "STAN"))

        k.begin("capture 42.00 of it (F4 right after it: its STAN filled in)")
        try k.keys("F4"); t.waitFor("STAN           \(preStan)", "The pre-auth just made")
        try k.type("42"); try k.keys("Enter")
        t.waitFor("Capture?", "Capture € 42.00", "pre-auth of € 50.00"); try k.keys("y")
        t.waitFor("CAPTURED € 42.00")

        k.begin("sale the terminal never answers (9.09)")
        // Back on Sale after the capture (issue 34): no F2 needed.
        t.waitFor("Sale: Enter charges the card")
        try k.type("9.09"); try k.keys("Enter")
        t.waitFor("CHECK THE TERMINAL", "1 unresolved", timeout: 20)

        k.begin("the journal")
        try k.keys("F7")
        t.waitFor("refund", "capture", "pre-auth")

        k.begin("X report, full screen")
        try k.keys("F9")
        t.waitFor("X report (running)")

        // Ctrl-k closes the shift from any screen, the report's included: no key to go back first, none to go to Batch.
        k.begin("close the shift (warned about the unknown sale) and see its Z report")
        try k.keys("C-k")
        t.waitFor("unknown outcome", "close anyway"); try k.keys("y")
        t.waitFor("Z report (closing)")

        k.begin("export the Z report as CSV")
        try k.keys("C-e")
        t.waitFor("Saved 2 CSV files")

        reportKeyCounts(k.counts, title: "80x24 full shift", file: "till-full-shift-keys.txt")
        // docs/cashier-guide.md's table, and its "beyond digits" (decimal points among them: three).
        #expect(k.total == 62 && k.total - k.digits == 30, "\(k.total) keys, \(k.total - k.digits) beyond digits: \(k.counts)")
    }

    /// A shift as a busy cashier works it: typing the next customer's amount while the terminal works, a refund box
    /// cancelled and answered again, till stopped in the middle of a payment and started again. Nothing typed is
    /// charged by surprise, nothing twice; the cashier guide's second key-count table is this test's output.
    @Test func aShiftWithTypingAheadACancelledBoxAndARestart() throws {
        let args = ["--sim-speed", "0.5", "--timeout", "60"]
        let t = try TillSession(width: 80, height: 24, args: args)
        let k = Keys(t)
        t.waitFor("Amount", "no batch open")

        k.begin("open the shift (at the first sale) and sell 20.00")
        try k.type("20"); try k.keys("Enter")
        t.waitFor("No shift open", "charge € 20.00"); try k.keys("o")
        t.waitFor("SALE APPROVED € 20.00")

        k.begin("sell 7.77 (slow), typing the next customer's 4.00 meanwhile, then sell it")
        try k.type("7.77"); try k.keys("Enter")
        t.waitFor("Waiting for the terminal")
        try k.type("4")
        t.waitFor("€ 4_", "Sale € 7.77")
        t.waitFor("SALE APPROVED € 7.77", timeout: 30)
        try k.keys("Enter")
        t.waitFor("SALE APPROVED € 4.00")
        let stan = try #require(t.value(after: "STAN"))

        k.begin("refund the 4.00 by its STAN: the box cancelled, then answered")
        try k.keys("F5"); t.waitFor("Find the payment")
        try k.type(stan); try k.keys("Enter")
        t.waitFor("Refund?", "sale of € 4.00 at")
        try k.keys("Enter")
        t.waitFor("Press y to refund")
        try k.keys("Escape")
        t.waitFor("Cancelled: nothing was done")
        try k.keys("Enter")
        t.waitFor("Refund?", "sale of € 4.00 at"); try k.keys("y")
        t.waitFor("REFUNDED € 4.00")

        k.begin("sell 7.77 again; quit while it waits; start again")
        try k.keys("F2"); try k.type("7.77"); try k.keys("Enter")
        t.waitFor("Waiting for the terminal")
        try k.keys("F10"); t.waitFor("Quit while waiting?")
        try k.keys("y")
        t.waitFor("TILL-EXITED")
        try t.restart(args: args)
        t.waitFor("ASKING THE TERMINAL", timeout: 30)
        t.waitFor("WAS CHARGED", timeout: 40)

        k.begin("close the shift and see its Z report")
        try k.keys("F6", "C-k")
        t.waitFor("Close batch?"); try k.keys("y")
        t.waitFor("Z report (closing)")
        // Charged: 20.00, 7.77, 4.00 and the 7.77 found at the restart (39.54), refunded 4.00: never 7.774, never twice.
        t.waitFor("Sales approved                      4           € 39.54", "NET TOTAL                                       € 35.54")

        reportKeyCounts(k.counts, title: "80x24 shift with typing ahead, a cancelled box and a restart", file: "till-intent-shift-keys.txt")
        // docs/cashier-guide.md's second table.
        #expect(k.counts.map(\.1) == [4, 7, 12, 8, 3], "\(k.counts)")
    }
}
