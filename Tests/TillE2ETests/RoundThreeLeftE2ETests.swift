import Foundation
import Testing

/// Issue 34, what was left of it, on the real binary at 80×24: F5 on a sale refunded in full says so and opens no
/// refund of nothing; the keypad keymap's tab bar names keypad keys, and each route it names goes there.
@Suite(.serialized) struct RoundThreeLeftE2ETests {
    @Test func f5OnASaleRefundedInFullSaysSo() throws {
        let t = try TillSession.withShiftOpen()
        try t.sellThenOpenItsRefund("3", approvedAs: "3.00")
        try t.press("Enter", thenSee: "Refund?", "Refund the FULL amount")
        try t.press("y", thenSee: "REFUNDED € 3.00", "Sale: Enter charges")
        // The same row again: it opened an empty refund form (the box then warned only after Enter).
        try t.press("F7", thenSee: "REFUNDED 000001")
        try t.type("1")
        t.waitFor("Filter   1_")
        try t.press("F5", thenSee: "STAN 000001 was refunded in full already: nothing is left to refund")
        #expect(t.screen().contains("Journal: current batch") && !t.screen().contains("REFUND: Enter gives money BACK"), "\(t.screen())")
        // An amount and Enter by habit: the filter, nothing sent. Enter opens at most the row the filter matched (a
        // reference is a random UUID, which holds "13" about one time in eight): never a refund.
        try t.type("3")
        t.waitFor("Filter   13_")
        try t.keys("Enter")
        Thread.sleep(forTimeInterval: 1)
        #expect(!t.screen().contains("Refund?") && !t.screen().contains("REFUND: Enter"), "\(t.screen())")
    }

    @Test func theKeypadTabBarNamesKeypadKeysThatGoThere() throws {
        let t = try TillSession(args: ["--keymap", "keypad"] + fast)
        t.waitFor("Amount")
        let bar = t.screen().split(separator: "\n").first.map(String.init) ?? ""
        #expect(bar.contains("* Sale") && bar.contains("/06 Journal") && !bar.contains("F2"), "\(bar)")
        try t.press("KP/", "KP0", "KP6", thenSee: "Journal: current batch")
        try t.press("KP*", thenSee: "Sale: Enter charges")
        try t.press("KP/", "KP0", "KP5", thenSee: "Batch (shift)")
    }
}
