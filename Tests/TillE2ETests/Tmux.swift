import Foundation
import Testing

/// Drives the real `till` binary in a detached tmux session on a private tmux server:
/// keys in with `send-keys`, the screen out with `capture-pane -p`. Every wait polls the screen
/// with a deadline; nothing sleeps a fixed time.
final class TillSession {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The binary under test: $TILL_BIN, else the debug build (./scripts/test builds it first).
    static var binary: String {
        if let b = ProcessInfo.processInfo.environment["TILL_BIN"], !b.isEmpty { return b }
        return repo.appendingPathComponent(".build/debug/till").path
    }

    /// The sync's binary: $TILL_SYNC_BIN, else the one beside `binary` (./scripts/test builds both).
    static var syncBinary: String {
        if let b = ProcessInfo.processInfo.environment["TILL_SYNC_BIN"], !b.isEmpty { return b }
        return URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent("till-sync").path
    }

    let socket: String
    let name: String
    let dir: String

    /// `ignoreHangup`: start till with SIGHUP ignored (as `nohup` would), so only the terminal's own end
    /// (end of file or an error reading it) can tell it the terminal is gone. `wrapper`: a command that starts till
    /// (strace, to see its writes from the first); `tillPid` is then the wrapper's.
    init(width: Int = 80, height: Int = 24, args: [String] = [], env: [String: String] = [:], ignoreHangup: Bool = false,
         wrapper: [String] = [], journalSubdirectory: String = "", sourceLocation: SourceLocation = #_sourceLocation) throws {
        let id = UUID().uuidString.prefix(8).lowercased()
        socket = "till-e2e-\(getpid())-\(id)"
        name = "till-\(id)"
        dir = NSTemporaryDirectory() + "till-e2e-" + id
        try FileManager.default.createDirectory(atPath: dir + "/config", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/data", withIntermediateDirectories: true)
        journalPath = dir + journalSubdirectory + "/journal.sqlite"
        try FileManager.default.createDirectory(atPath: dir + journalSubdirectory, withIntermediateDirectories: true)
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw E2EError("no till binary at \(Self.binary): run `swift build --product till` first")
        }
        var vars = ["XDG_CONFIG_HOME": dir + "/config", "XDG_DATA_HOME": dir + "/data", "TERM": "xterm-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"]
        for (k, v) in env { vars[k] = v }
        envText = vars.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.quote($0.value))" }.joined(separator: " ")
        self.ignoreHangup = ignoreHangup
        self.wrapper = wrapper
        self.sourceLocation = sourceLocation
        try tmux(["new-session", "-d", "-s", name, "-x", "\(width)", "-y", "\(height)", paneCommand(args)])
        _ = try? tmux(["set-option", "-t", name, "window-size", "manual"])
        serverPid = Int32((try? tmux(["display-message", "-p", "#{pid}"]))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        tillPid = waitForPid()
    }

    private let envText: String
    /// The journal's path: in the test's directory, or deeper (`journalSubdirectory`).
    let journalPath: String
    private let ignoreHangup: Bool
    private let wrapper: [String]
    private var pidFile: String { dir + "/till.pid" }

    /// The pane's command: an inner shell writes its pid, then becomes env, then till (the pid is till's);
    /// the outer shell shows the exit status and keeps the pane open.
    private func paneCommand(_ args: [String]) -> String {
        let argText = (["--journal", journalPath] + args).map(Self.quote).joined(separator: " ")
        let program = (wrapper + [Self.binary]).map(Self.quote).joined(separator: " ")
        let start = "echo $$ > \(Self.quote(pidFile)); exec env \(envText) \(program) \(argText)"
        return (ignoreHangup ? "trap '' HUP; " : "")
            + "/bin/sh -c \(Self.quote(start)) 2>\(Self.quote(dir + "/stderr")); echo TILL-EXITED $?; sleep 600"
    }

    private func waitForPid() -> Int32 {
        let deadline = Date().addingTimeInterval(30)   // a deadline, generous for a loaded machine
        while Date() < deadline {
            if let pid = Int32((try? String(contentsOfFile: pidFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") {
                return pid
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return 0
    }

    /// Starts till again in the same pane, on the same journal and config, with these arguments. The
    /// till before must be gone (tmux ends it with a hang-up), else that is recorded as an issue.
    func restart(args: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let old = tillPid
        unlink(pidFile)
        try tmux(["respawn-pane", "-k", "-t", name, paneCommand(args)])
        tillPid = waitForPid()
        if !Self.waitGone(old) {
            Issue.record("the till before (pid \(old)) still runs after its pane was respawned", sourceLocation: sourceLocation)
            kill(old, SIGKILL)
        }
    }

    /// The till process under test (0 if it never started).
    private(set) var tillPid: Int32 = 0
    private let sourceLocation: SourceLocation

    /// Whether the till under test still runs (a zombie waiting to be reaped does not).
    var tillRunning: Bool { Self.running(tillPid) }

    static func running(_ pid: Int32) -> Bool {
        guard pid > 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(close, offsetBy: 2)...].prefix(1)
        return state != "Z" && state != "X"
    }

    /// Waits (with a deadline, generous for a loaded machine: it returns as soon as the process is gone) until a process
    /// has ended.
    @discardableResult
    static func waitGone(_ pid: Int32, timeout: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while running(pid) && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        return !running(pid)
    }

    /// Ends the terminal under till: the tmux server goes, and with it the pty.
    func killTerminal() {
        _ = try? tmux(["kill-server"])
        if serverPid > 0 { kill(serverPid, SIGKILL) }
    }

    /// The private tmux server's pid: killed at the end even when `kill-server` leaves it running.
    private(set) var serverPid: Int32 = 0

    func panePids() -> [Int32] {
        ((try? tmux(["list-panes", "-a", "-F", "#{pane_pid}"])) ?? "").split(separator: "\n").compactMap { Int32($0) }
    }

    /// Ends the terminal, then checks that the till it started is gone too: a till left running on a
    /// deleted terminal is a defect (it once spun at 100 % CPU), recorded as an issue of the test.
    deinit {
        let panes = panePids()
        killTerminal()
        if !Self.waitGone(tillPid) {
            Issue.record("till (pid \(tillPid)) still runs after its terminal was gone", sourceLocation: sourceLocation)
            kill(tillPid, SIGKILL)
        }
        for p in panes { kill(p, SIGKILL) }
        if serverPid > 0 { kill(serverPid, SIGKILL) }
        try? FileManager.default.removeItem(atPath: dir)
    }

    static func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    @discardableResult
    func tmux(_ args: [String]) throws -> String {
        // Output goes through a file, never a pipe: a tmux server started by new-session would
        // inherit a pipe and keep it open forever.
        let outPath = dir + "/tmux-out-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: outPath) }
        let status = Self.spawn(["/usr/bin/tmux", "-L", socket] + args, stdout: outPath)
        guard status == 0 else { throw E2EError("tmux \(args.first ?? "") failed with \(status)") }
        return (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    }

    /// posix_spawn + waitpid: Foundation's Process can miss the exit of a child inside the test runner.
    static func spawn(_ argv: [String], stdout: String) -> Int32 {
        var fa = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&fa)
        defer { posix_spawn_file_actions_destroy(&fa) }
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&fa, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        let cargs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { cargs.forEach { free($0) } }
        guard posix_spawn(&pid, argv[0], &fa, nil, cargs, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return (status >> 8) & 0xFF
    }

    /// Sends tmux key names (`Enter`, `Escape`, `F2`, `M-2`, `C-k`).
    func keys(_ keys: String...) throws { try tmux(["send-keys", "-t", name] + keys) }

    /// Types text literally.
    func type(_ text: String) throws { try tmux(["send-keys", "-t", name, "-l", text]) }
    /// Sends raw bytes, as a terminal (or an attacker at its line) would: an escape sequence tmux has no name for.
    func bytes(_ b: [UInt8]) throws { try tmux(["send-keys", "-t", name, "-H"] + b.map { String(format: "%02x", $0) }) }

    func screen() -> String { (try? tmux(["capture-pane", "-p", "-t", name])) ?? "" }

    /// Waits until every text is on screen; records an issue with the screen when the deadline passes.
    @discardableResult
    func waitFor(_ texts: String..., timeout: Double = 20, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        waitFor(all: texts, timeout: timeout, sourceLocation: sourceLocation)
    }

    /// `waitFor` with the texts as an array, for helpers that add texts of their own.
    @discardableResult
    func waitFor(all texts: [String], timeout: Double = 20, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        waitUntil("\(texts)", timeout: timeout, sourceLocation: sourceLocation) { screen in texts.allSatisfy { screen.contains($0) } }
    }

    /// Waits until one of the texts is on screen (an outcome that may come either way); records an issue otherwise.
    @discardableResult
    func waitFor(any texts: [String], timeout: Double = 20, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        waitUntil("one of \(texts)", timeout: timeout, sourceLocation: sourceLocation) { screen in texts.contains { screen.contains($0) } }
    }

    private func waitUntil(_ what: String, timeout: Double, sourceLocation: SourceLocation, _ shown: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = screen()
            if shown(last) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let err = (try? String(contentsOfFile: dir + "/stderr", encoding: .utf8)) ?? ""
        Issue.record("timed out after \(timeout) s waiting for \(what); screen:\n\(last)\nstderr:\n\(err)", sourceLocation: sourceLocation)
        return false
    }

    /// The action of every journal entry, oldest first, read with `till journal --json` (read-only: never waits for the UI).
    func journalActions() throws -> [String] { try Self.journalValues("action", journal: journalPath, dir: dir) }

    /// One field of every journal entry, read with `till journal --json` (read-only: never waits for the UI).
    static func journalValues(_ key: String, journal: String, dir: String) throws -> [String] {
        let out = dir + "/journal-\(key).json"
        let status = spawn(["/usr/bin/env", "XDG_CONFIG_HOME=/nonexistent-till-config", binary, "journal", "--json", "--journal", journal],
                           stdout: out)
        guard status == 0 else { throw E2EError("till journal failed with \(status)") }
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [[String: Any]] ?? []
        return json.compactMap { $0[key] as? String }
    }

    func resize(width: Int, height: Int) throws { try tmux(["resize-window", "-t", name, "-x", "\(width)", "-y", "\(height)"]) }

    /// The value after a label in the result pane, e.g. `STAN     000002`.
    func value(after label: String) -> String? {
        for line in screen().split(separator: "\n") {
            guard let r = line.range(of: label + " ") else { continue }
            let rest = line[r.upperBound...].trimmingCharacters(in: .whitespaces)
            return rest.split(separator: " ").first.map(String.init)
        }
        return nil
    }
}

struct E2EError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
