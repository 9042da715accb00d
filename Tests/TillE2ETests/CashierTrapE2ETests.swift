import Foundation
import Testing

/// Issue 10's traps at the counter, each as a cashier falls into it: the real binary in tmux on
/// the built-in simulator (8.08: the card is never presented, so the sale waits).
@Suite(.serialized) struct CashierTrapE2ETests {
    let fast = ["--sim-speed", "0.2"]

    @Test func escOnTheJournalDoesNotAbortTheSaleInFlight() throws {
        // Esc aborted the payment in flight from any screen.
        let t = try TillSession(args: ["--sim-speed", "1"])
        t.waitFor("Amount", "Ready")
        try t.type("8.08")
        try t.keys("Enter")
        t.waitFor("Press Esc to abort")
        try t.keys("F7")
        t.waitFor("Esc aborts on Sale (F2)")
        try t.keys("Escape")
        // Back on Sale, still waiting: nothing was aborted.
        t.waitFor("Press Esc to abort", "Waiting for the terminal")
        #expect(!t.screen().contains("Abort requested"))
        try t.keys("Escape")
        t.waitFor("A B O R T E D")
    }

    @Test func keysWhileTheWindowIsTooSmallDoNothing() throws {
        let t = try TillSession(args: fast)
        t.waitFor("Amount", "Ready")
        try t.resize(width: 60, height: 20)
        t.waitFor("Please enlarge the window", "80×24")
        try t.type("12")
        try t.keys("Enter")
        try t.resize(width: 80, height: 24)
        t.waitFor("Amount", "Ready for the next customer.")
        #expect(!t.screen().contains("€ 12"))
        #expect(!t.screen().contains("Waiting for the terminal"))
    }

    @Test func theSimulatorSaysTraining() throws {
        let t = try TillSession(args: fast)
        t.waitFor("Amount", "TRAINING")
    }
}
