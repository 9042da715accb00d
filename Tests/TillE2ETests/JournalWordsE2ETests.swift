import Foundation
import Testing

/// The words on the screen, as a cashier reads them at 80×24 on the built-in simulator: a part refund reads as one,
/// the journal counts its rows plainly, a "Wait: … in flight" goes with the flight, and keys typed while the window
/// is too small are said not taken.
@Suite(.serialized) struct JournalWordsE2ETests {
    let fast = ["--sim-speed", "0.2"]

    @Test func aPartRefundReadsAsOneAt80x24() throws {
        let t = try TillSession(args: fast)
        try t.openShift()
        try t.sell("22", approvedAs: "22.00")
        try t.press("F7", thenSee: "22.00    APPROVED")
        #expect(t.screen().contains(" entries") || t.screen().contains(" entry"), "\(t.screen())")
        try t.press("F5", thenSee: "Refund", "€ _")
        try t.charge("12.50", thenSee: "Refund?")
        try t.press("y", thenSee: "REFUNDED")
        // Issue 34: at 80 columns the STAN is always shown; the part refund has its own word in the result column.
        try t.press("F7", thenSee: "PART REF 000001")
        let screen = t.screen()
        #expect(screen.contains("22.00    PART REF 000001"), "\(screen)")
        #expect(!screen.contains(" of 3") && !screen.contains(" of 4"), "\(screen)")
    }

    @Test func waitInFlightGoesWithTheFlight() throws {
        let t = try TillSession(args: ["--sim-speed", "0.5"])
        try t.openShift()
        try t.startSale("7.77")
        try t.charge("5", thenSee: "Wait: Sale € 7.77 is in flight")
        t.waitFor("SALE APPROVED", timeout: 30)
        #expect(!t.screen().contains("in flight"), "\(t.screen())")
    }

    @Test func keysTypedWhileTooSmallAreSaidNotTaken() throws {
        let t = try TillSession(args: fast)
        t.waitFor("Amount", "Ready")
        try t.shrinkBelowTheMinimum()
        try t.charge("12", thenSee: "3 keys not taken")
        try t.restoreFullSize(also: ["3 keys typed while the window was too small were not taken"])
        #expect(!t.screen().contains("€ 12"))
        #expect(!t.screen().contains("Waiting for the terminal"))
    }
}
