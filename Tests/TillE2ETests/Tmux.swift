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

    let socket: String
    let name: String
    let dir: String

    init(width: Int = 80, height: Int = 24, args: [String] = [], env: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let id = UUID().uuidString.prefix(8).lowercased()
        socket = "till-e2e-\(getpid())-\(id)"
        name = "till-\(id)"
        dir = NSTemporaryDirectory() + "till-e2e-" + id
        try FileManager.default.createDirectory(atPath: dir + "/config", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/data", withIntermediateDirectories: true)
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw E2EError("no till binary at \(Self.binary): run `swift build --product till` first")
        }
        var vars = ["XDG_CONFIG_HOME": dir + "/config", "XDG_DATA_HOME": dir + "/data", "TERM": "xterm-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"]
        for (k, v) in env { vars[k] = v }
        let envText = vars.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.quote($0.value))" }.joined(separator: " ")
        let argText = (["--journal", dir + "/journal.sqlite"] + args).map(Self.quote).joined(separator: " ")
        let command = "env \(envText) \(Self.quote(Self.binary)) \(argText) 2>\(Self.quote(dir + "/stderr")); echo TILL-EXITED $?; sleep 600"
        try tmux(["new-session", "-d", "-s", name, "-x", "\(width)", "-y", "\(height)", command])
        _ = try? tmux(["set-option", "-t", name, "window-size", "manual"])
        serverPid = Int32((try? tmux(["display-message", "-p", "#{pid}"]))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
    }

    /// The private tmux server's pid: killed at the end even when `kill-server` leaves it running.
    private(set) var serverPid: Int32 = 0

    func panePids() -> [Int32] {
        ((try? tmux(["list-panes", "-a", "-F", "#{pane_pid}"])) ?? "").split(separator: "\n").compactMap { Int32($0) }
    }

    deinit {
        let panes = panePids()
        _ = try? tmux(["kill-server"])
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
        FileManager.default.createFile(atPath: outPath, contents: nil)
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

    func screen() -> String { (try? tmux(["capture-pane", "-p", "-t", name])) ?? "" }

    /// Waits until every text is on screen; records an issue with the screen when the deadline passes.
    @discardableResult
    func waitFor(_ texts: String..., timeout: Double = 20, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = screen()
            if texts.allSatisfy({ last.contains($0) }) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let err = (try? String(contentsOfFile: dir + "/stderr", encoding: .utf8)) ?? ""
        Issue.record("timed out after \(timeout) s waiting for \(texts); screen:\n\(last)\nstderr:\n\(err)", sourceLocation: sourceLocation)
        return false
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
