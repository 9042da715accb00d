import Foundation
import Testing

/// The built-in simulator at a fifth of its delays: each step still shows on screen, and a test takes seconds.
let fast = ["--sim-speed", "0.2"]

/// The cashier's steps, as the tests say them: each sends the keys a cashier presses and waits (with a deadline)
/// for what the screen must show before the next step. A step that does not come records an issue at the test's
/// line, with the screen.
extension TillSession {
    /// Opens a shift from the Batch screen, then goes back to Sale (selling needs an open shift). `boxSays`: more
    /// that the confirmation box must show.
    func openShift(_ name: String = "Test", boxSays: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
        waitFor("Amount", sourceLocation: sourceLocation)
        try keys("F6"); waitFor("New batch", sourceLocation: sourceLocation)
        try type(name); try keys("Enter")
        waitFor(all: ["Open batch?"] + boxSays, sourceLocation: sourceLocation); try keys("y")
        waitFor("batch \(name)", "BATCH OPENED", sourceLocation: sourceLocation)
        try keys("F2")
    }

    /// A till on `args` (default: the fast simulator) with a shift opened (`openShift`), back on Sale: where most
    /// tests start.
    static func withShiftOpen(width: Int = 80, height: Int = 24, args: [String] = fast,
                              sourceLocation: SourceLocation = #_sourceLocation) throws -> TillSession {
        let t = try TillSession(width: width, height: height, args: args, sourceLocation: sourceLocation)
        try t.openShift(sourceLocation: sourceLocation)
        return t
    }

    /// Presses `keys` (tmux names), then waits until every text of `thenSee` is on screen.
    func press(_ keys: String..., thenSee texts: String..., timeout: Double = 20, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try tmux(["send-keys", "-t", name] + keys)
        waitFor(all: texts, timeout: timeout, sourceLocation: sourceLocation)
    }

    /// Types an amount on the form shown (nothing: the amount already there) and presses Enter; then waits until
    /// every text of `thenSee` is on screen.
    func charge(_ amount: String = "", thenSee texts: String..., timeout: Double = 20, sourceLocation: SourceLocation = #_sourceLocation) throws {
        if !amount.isEmpty { try type(amount) }
        try keys("Enter")
        if !texts.isEmpty { waitFor(all: texts, timeout: timeout, sourceLocation: sourceLocation) }
    }

    /// Sells `amount` (nothing: the amount already typed) and waits for it to be approved as `shown` (`"12.00"`).
    func sell(_ amount: String = "", approvedAs shown: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try charge(amount)
        waitFor("SALE APPROVED", "Amount   € \(shown)", sourceLocation: sourceLocation)
    }

    /// Sells `amount` as the shift's first sale (STAN 000001) and opens its refund from its journal row (F7, F5): the
    /// refund form on that STAN, the cursor on its empty amount (Enter there refunds it all, after the box).
    func sellThenOpenItsRefund(_ amount: String, approvedAs shown: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try sell(amount, approvedAs: shown, sourceLocation: sourceLocation)
        try press("F7", thenSee: shown, "APPROVED 000001", sourceLocation: sourceLocation)
        try press("F5", thenSee: "REFUND: Enter", "000001", "€ _", sourceLocation: sourceLocation)
    }

    /// Sells `amount` and waits until the till waits for the terminal (and shows `also`).
    func startSale(_ amount: String, also: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
        try charge(amount)
        waitFor(all: ["Waiting for the terminal"] + also, sourceLocation: sourceLocation)
    }

    /// Sells `amount` with no shift open, from the first screen: the till offers to open one (`boxSays`).
    func chargeWithNoShiftOpen(_ amount: String, boxSays: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
        waitFor("Amount", "no batch open", sourceLocation: sourceLocation)
        try charge(amount)
        waitFor(all: ["No shift open"] + boxSays, sourceLocation: sourceLocation)
    }

    /// Stops waiting for the sale in flight: Ctrl-W, the box (and `boxSays`), y.
    func stopWaiting(boxSays: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
        try keys("C-w")
        waitFor(all: ["Stop waiting?"] + boxSays, sourceLocation: sourceLocation)
        try keys("y")
    }

    /// A new sale of `amount` while an earlier one's outcome is unknown: the till names it, y charges anyway.
    func chargeAnyway(_ amount: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try charge(amount)
        waitFor("may have been charged", sourceLocation: sourceLocation)
        try keys("y")
    }

    /// Sells `amount`, leaves its outcome unknown (the terminal never answers it before the till's `--timeout`),
    /// quits, and starts till again with `args` on the same journal.
    func leaveAnUnknownSaleAndRestart(_ amount: String, args: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        try charge(amount, thenSee: "CHECK THE TERMINAL", sourceLocation: sourceLocation)
        try quit(status: 0, sourceLocation: sourceLocation)
        try restart(args: args, sourceLocation: sourceLocation)
    }

    /// Quits with F10 and waits for the pane to say till exited (with `status`, when given).
    func quit(status: Int32? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try keys("F10")
        waitFor("TILL-EXITED" + (status.map { " \($0)" } ?? ""), sourceLocation: sourceLocation)
    }

    /// Quits while a payment is in flight: F10, the box, y; waits for till to exit.
    func quitWhileWaiting(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try keys("F10"); waitFor("Quit while waiting?", sourceLocation: sourceLocation)
        try keys("y")
        waitFor("TILL-EXITED", sourceLocation: sourceLocation)
    }

    /// Closes the active shift from the Batch screen (which must show `batchScreenSays`): Ctrl-K, the box
    /// (`boxSays`), y.
    func closeShift(batchScreenSays: [String], boxSays: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        try keys("F6")
        waitFor(all: batchScreenSays, sourceLocation: sourceLocation)
        try keys("C-k")
        waitFor(all: boxSays, sourceLocation: sourceLocation)
        try keys("y")
    }

    /// Makes the window smaller than 80×24 (60×20) and waits for the till to ask for a larger one.
    func shrinkBelowTheMinimum(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try resize(width: 60, height: 20)
        waitFor("Please enlarge the window", "80×24", sourceLocation: sourceLocation)
    }

    /// Gives the window its 80×24 back and waits for the Sale screen (showing `also`).
    func restoreFullSize(also: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        try resize(width: 80, height: 24)
        waitFor(all: ["Amount"] + also, sourceLocation: sourceLocation)
    }

    /// Every byte the till wrote under its directory (journal, WAL, config, data, stderr).
    func allWrittenBytes() -> Data {
        var all = Data()
        let fm = FileManager.default
        for case let p as String in fm.enumerator(atPath: dir)?.allObjects ?? [] {
            var isDir: ObjCBool = false
            let full = dir + "/" + p
            if fm.fileExists(atPath: full, isDirectory: &isDir), !isDir.boolValue, let d = fm.contents(atPath: full) { all.append(d) }
        }
        return all
    }
}

/// The key counts of a shift, as docs/cashier-guide.md's tables show them: printed, and written to `file` in the temporary
/// directory.
func reportKeyCounts(_ counts: [(String, Int)], title: String, file: String) {
    var report = "KEY COUNTS (\(title))\n"
    for (task, n) in counts { report += "| \(task) | \(n) |\n" }
    report += "| total | \(counts.reduce(0) { $0 + $1.1 }) |\n"
    print(report)
    try? report.write(toFile: NSTemporaryDirectory() + file, atomically: true, encoding: .utf8)
}
