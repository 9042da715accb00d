import Foundation
import Testing

/// The UI's terminal goes away, or the UI is told to stop, while a sale waits on a bridge that never
/// answers (issue 9): the entry becomes `unknown` (never left `sent`), the bridge's process group is
/// stopped and till exits, instead of living on (once at 100 % CPU) on a deleted terminal.
@Suite(.serialized) struct HangupTests {
    enum Ending: String, CaseIterable, CustomTestStringConvertible {
        /// The tmux server is killed: the pty hangs up and SIGHUP arrives.
        case terminalGone
        /// The same with SIGHUP ignored (`nohup`): only reading the dead terminal can tell.
        case terminalGoneHangupIgnored
        case sigterm
        case sighup
        var testDescription: String { rawValue }
    }

    @Test(arguments: Ending.allCases)
    func inFlightSaleIsUnknownAndTheBridgeStopped(_ ending: Ending) throws {
        let bridgePidFile = NSTemporaryDirectory() + "till-e2e-bridge-\(UUID().uuidString.prefix(8))"
        defer { unlink(bridgePidFile) }
        // A shift must be open to sell: opened beforehand on the built-in simulator, in the journal the UI then uses
        // with a bridge that never answers (the last --journal given is the one till takes).
        // In a folder of its own (0700): till refuses a journal in a folder others can write, /tmp included.
        let folder = NSTemporaryDirectory() + "till-e2e-hangup-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let journal = folder + "/journal.sqlite"
        let opened = TillSession.spawn(["/usr/bin/env", "XDG_CONFIG_HOME=/nonexistent-till-config", TillSession.binary, "batch", "open",
                                        "--name", "Hangup", "--sim-speed", "0", "--sim-state", journal + ".sim.json", "--journal", journal],
                                       stdout: "/dev/null")
        try #require(opened == 0, "could not open a shift beforehand")
        let t = try TillSession(args: ["--journal", journal, "--transport", "pipe:read l; echo $$ > \(bridgePidFile); exec sleep 1000",
                                       "--timeout", "600"],
                                ignoreHangup: ending == .terminalGoneHangupIgnored)
        t.waitFor("Amount")
        try t.type("12.00")
        try t.press("Enter", thenSee: "Waiting for the terminal")
        // The bridge writes its pid once it has read the request. The journal is read only after till has
        // ended (a reader beside a live till currently loses that till's later writes; reported).
        var bridge: Int32 = 0
        let deadline = Date().addingTimeInterval(20)
        while bridge == 0 && Date() < deadline {
            bridge = Int32((try? String(contentsOfFile: bridgePidFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
            if bridge == 0 { Thread.sleep(forTimeInterval: 0.02) }
        }
        try #require(bridge > 0, "the bridge did not read the request")
        defer { if TillSession.running(bridge) { kill(-bridge, SIGKILL) } }
        Thread.sleep(forTimeInterval: 0.2)   // till journals `sent` once the bridge has read

        switch ending {
        case .terminalGone, .terminalGoneHangupIgnored: t.killTerminal()
        case .sigterm: kill(t.tillPid, SIGTERM)
        case .sighup: kill(t.tillPid, SIGHUP)
        }
        #expect(TillSession.waitGone(t.tillPid), "till still runs after \(ending)")
        // Ended by a signal, till still closes its journal first: the file alone, copied before anything else opens
        // it, holds the entry in flight as unknown (nothing left only in the write-ahead log).
        let copy = journal + ".copy.sqlite"
        defer { for suffix in ["", "-wal", "-shm", ".lock"] { unlink(copy + suffix) } }
        try FileManager.default.copyItem(atPath: journal, toPath: copy)
        #expect(try journalStates(copy, t.dir).filter { $0 != "approved" } == ["unknown"], "the journal file alone after \(ending)")
        #expect(try journalStates(journal, t.dir).filter { $0 != "approved" } == ["unknown"], "the entry in flight after \(ending)")
        #expect(TillSession.waitGone(bridge), "the bridge survived \(ending)")
        if ending == .sigterm { t.waitFor("TILL-EXITED 143") }
    }

    /// `state` of every journal entry, read with `till journal --json` (read-only: never waits for the UI).
    func journalStates(_ journal: String, _ dir: String) throws -> [String] {
        try TillSession.journalValues("state", journal: journal, dir: dir)
    }
}
