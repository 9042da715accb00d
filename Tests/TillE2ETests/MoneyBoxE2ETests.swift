import Foundation
import Testing

/// Issue 34 on the real binary at 80×24, with the keys: a digit and Enter typed by habit never answer a box
/// that moves money or gives a payment up; after a pre-auth, capture or refund the screen is Sale again; a kept refund
/// form comes back on its STAN. On the built-in simulator (9.09: no answer).
@Suite(.serialized) struct MoneyBoxE2ETests {
    @Test func oneEnterOnTheRefundBoxFromAJournalRowRefundsNothing() throws {
        // `F7 F5 Enter 1 Enter` refunded 3.00.
        let t = try TillSession.withShiftOpen()
        try t.sellThenOpenItsRefund("3", approvedAs: "3.00")
        try t.press("Enter", thenSee: "Refund?", "Refund the FULL amount")
        try t.keys("1", "Enter")
        t.waitFor("Press y to refund")
        try t.keys("1", "Enter", "Enter")
        t.waitFor("Press y to refund")
        #expect(t.screen().contains("Refund?") && !t.screen().contains("REFUNDED"))
        // y refunds, and the screen is Sale again: the next amount and Enter are a sale.
        try t.press("y", thenSee: "REFUNDED € 3.00", "back on Sale", "Sale: Enter charges")
        try t.sell("12", approvedAs: "12.00")
    }

    @Test func oneEnterAfterAnUnknownOutcomeChargesNothingNorDoesTwoEnterClose() throws {
        // In "Earlier payment UNKNOWN" `1 Enter` charged anyway; closing with an unknown outcome `2 Enter` closed.
        let t = try TillSession.withShiftOpen(args: fast + ["--timeout", "600"])
        try t.startSale("9.09")
        try t.stopWaiting()
        t.waitFor("CHECK THE TERMINAL", "1 unresolved")
        try t.charge("5", thenSee: "Earlier payment UNKNOWN")
        try t.keys("1", "Enter")
        t.waitFor("Press y to charge anyway")
        #expect(t.screen().contains("Earlier payment UNKNOWN") && !t.screen().contains("Waiting for the terminal"))
        try t.keys("Escape")
        try t.keys("F6", "C-k")
        t.waitFor("Close batch with unknown outcomes?", "[y] close anyway")
        for d in ["2", "1"] {
            try t.keys(d, "Enter")
            t.waitFor("Press y to close anyway")
            #expect(t.screen().contains("Close batch with unknown outcomes?") && !t.screen().contains("Z report (closing)"))
        }
        try t.press("y", thenSee: "Z report (closing)")
    }

    @Test func afterAPreAuthTheNextAmountIsASale() throws {
        // `F3 20 Enter`, verdict, then `12 Enter` sent a second pre-auth.
        let t = try TillSession.withShiftOpen()
        try t.press("F3", thenSee: "PRE-AUTH: Enter HOLDS money")
        try t.charge("20", thenSee: "PRE-AUTHORISED € 20.00", "back on Sale", "Sale: Enter charges")
        try t.sell("12", approvedAs: "12.00")
        t.waitFor("SALE APPROVED € 12.00")
    }

    @Test func aKeptRefundFormComesBackOnItsStan() throws {
        // `F5 1 S-Tab 50 Enter Esc F2 … F5 2 Enter` refunded 2.00.
        let t = try TillSession.withShiftOpen()
        try t.press("F5", thenSee: "Find the payment")
        try t.type("1"); try t.keys("BTab"); try t.type("50")
        try t.press("Enter", thenSee: "Refund?")
        try t.press("Escape", thenSee: "Cancelled")
        try t.press("F2", thenSee: "Sale: Enter charges")
        try t.press("F5", thenSee: "STAN 1, Amount € 50 kept")
        try t.type("2")
        t.waitFor("STAN           2_", "€ 50")
        // The 2 went into the STAN (it refunded 2.00 of STAN 1 before): the box names STAN 000002 and the kept 50.00.
        try t.press("Enter", thenSee: "Refund?", "Refund € 50.00", "STAN 000002")
        #expect(!t.screen().contains("€ 2.00"))
        #expect(!t.screen().contains("kept"))
    }

    @Test func onTheKeypadADigitAndEnterRefundNothingAndPlusRefunds() throws {
        let t = try TillSession.withShiftOpen(args: ["--keymap", "keypad"] + fast)
        try t.sellThenOpenItsRefund("3", approvedAs: "3.00")
        try t.press("KPEnter", thenSee: "Refund?", "[+] refund", "[-] cancel")
        try t.keys("KP1", "KPEnter")
        t.waitFor("Press + to refund")
        #expect(!t.screen().contains("REFUNDED"))
        try t.press("KP+", thenSee: "REFUNDED € 3.00", "Sale: Enter charges")
    }
}
