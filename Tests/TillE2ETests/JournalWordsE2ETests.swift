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
        try t.type("22"); try t.keys("Enter")
        t.waitFor("SALE APPROVED", "Amount   € 22.00")
        try t.keys("F7")
        t.waitFor("22.00    APPROVED")
        #expect(t.screen().contains(" entries") || t.screen().contains(" entry"), "\(t.screen())")
        try t.keys("F5")
        t.waitFor("Refund", "€ _")
        try t.type("12.50"); try t.keys("Enter")
        t.waitFor("Refund?")
        try t.keys("y")
        t.waitFor("REFUNDED")
        try t.keys("F7")
        t.waitFor("9.50 left")
        let screen = t.screen()
        #expect(screen.contains("22.00    APPROVED 9.50 left"), "\(screen)")
        #expect(!screen.contains(" of 3") && !screen.contains(" of 4"), "\(screen)")
    }

    @Test func waitInFlightGoesWithTheFlight() throws {
        let t = try TillSession(args: ["--sim-speed", "0.5"])
        try t.openShift()
        try t.type("7.77"); try t.keys("Enter")
        t.waitFor("Waiting for the terminal")
        try t.type("5"); try t.keys("Enter")
        t.waitFor("Wait: Sale € 7.77 is in flight")
        t.waitFor("SALE APPROVED", timeout: 30)
        #expect(!t.screen().contains("in flight"), "\(t.screen())")
    }

    @Test func keysTypedWhileTooSmallAreSaidNotTaken() throws {
        let t = try TillSession(args: fast)
        t.waitFor("Amount", "Ready")
        try t.resize(width: 60, height: 20)
        t.waitFor("Please enlarge the window", "80×24")
        try t.type("12")
        try t.keys("Enter")
        t.waitFor("3 keys not taken")
        try t.resize(width: 80, height: 24)
        t.waitFor("Amount", "3 keys typed while the window was too small were not taken")
        #expect(!t.screen().contains("€ 12"))
        #expect(!t.screen().contains("Waiting for the terminal"))
    }
}
