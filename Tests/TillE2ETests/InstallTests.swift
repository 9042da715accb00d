import Foundation
import Testing

/// `scripts/install` into a temporary PREFIX (with the already built binaries, `TILL_BIN` and `TILL_SYNC_BIN`), then
/// the installed copies: their help, man pages, completions and versions, the sync's systemd unit, and the shipped
/// themes and keymaps found with no `themes/` or `keymaps/` folder anywhere near till (they are built into it).
@Suite(.serialized) struct InstallTests {
    static let repo = TillSession.repo

    /// A fresh PREFIX with till installed in it; removed by the caller.
    static func install() throws -> String {
        let prefix = NSTemporaryDirectory() + "till-install-" + UUID().uuidString.prefix(8).lowercased()
        let log = prefix + ".log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: log) }
        let status = TillSession.spawn(["/usr/bin/env", "PREFIX=" + prefix, "TILL_BIN=" + TillSession.binary,
                                        "TILL_SYNC_BIN=" + TillSession.syncBinary,
                                        "/bin/bash", repo.appendingPathComponent("scripts/install").path], stdout: log)
        guard status == 0 else { throw E2EError("scripts/install failed (\(status)): " + ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")) }
        return prefix
    }

    static func run(_ argv: [String]) -> (Int32, String) {
        let out = NSTemporaryDirectory() + "till-install-out-" + UUID().uuidString
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: out) }
        let status = TillSession.spawn(argv, stdout: out)
        return (status, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "")
    }

    /// The subcommands `--help` lists (its SUBCOMMANDS section).
    static func subcommands(inHelp help: String) -> [String] {
        let section = help.components(separatedBy: "SUBCOMMANDS:").last ?? ""
        var names: [String] = []
        for line in section.split(separator: "\n") where line.hasPrefix("  ") && !line.hasPrefix("   ") {
            guard let first = line.split(separator: " ").first, first != "See" else { continue }
            names.append(String(first.filter { $0 != "," }))
        }
        return names
    }

    /// The installed `name` (till or till-sync): its help, its man page listing every subcommand the help lists (a
    /// page not regenerated after a command was added fails here), and its completions. Returns its `--version`.
    static func checkInstalled(_ name: String, prefix: String, overview: String, minimumSubcommands: Int,
                               sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let (status, help) = run([prefix + "/bin/" + name, "--help"])
        #expect(status == 0, sourceLocation: sourceLocation)
        #expect(help.contains("OVERVIEW: " + overview), "\(help)", sourceLocation: sourceLocation)

        let manPath = prefix + "/share/man/man1/\(name).1"
        let roff = try String(contentsOfFile: manPath, encoding: .utf8)
        #expect(roff.contains(".Dt \(name.uppercased()) 1"), sourceLocation: sourceLocation)
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/man") {
            let (manStatus, page) = run(["/usr/bin/env", "MANPAGER=cat", "PAGER=cat", "/usr/bin/man", "-l", manPath])
            #expect(manStatus == 0, sourceLocation: sourceLocation)
            #expect(page.contains("\(name.uppercased())(1)"), sourceLocation: sourceLocation)
        }
        let names = subcommands(inHelp: help)
        #expect(names.count >= minimumSubcommands, "no subcommands read from --help: \(help)", sourceLocation: sourceLocation)
        for sub in names {
            #expect(roff.contains(".It Em \(sub)\n") || roff.contains(".It Em \"\(sub),"),
                    "man/\(name).1 lacks '\(sub)': run scripts/generate-man", sourceLocation: sourceLocation)
        }

        let bash = try String(contentsOfFile: prefix + "/share/bash-completion/completions/" + name, encoding: .utf8)
        #expect(bash.contains("complete") && bash.contains(name), sourceLocation: sourceLocation)
        #expect(FileManager.default.fileExists(atPath: prefix + "/share/zsh/site-functions/_" + name), sourceLocation: sourceLocation)
        #expect(FileManager.default.fileExists(atPath: prefix + "/share/fish/vendor_completions.d/\(name).fish"), sourceLocation: sourceLocation)

        let (versionStatus, version) = run([prefix + "/bin/" + name, "--version"])
        #expect(versionStatus == 0, sourceLocation: sourceLocation)
        return version.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func installsBinariesManPagesCompletionsAndTheSyncUnit() throws {
        let prefix = try Self.install()
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let till = try Self.checkInstalled("till", prefix: prefix, overview: "Take card payments", minimumSubcommands: 10)
        let sync = try Self.checkInstalled("till-sync", prefix: prefix, overview: "Pushes a till's journal", minimumSubcommands: 8)
        #expect(!till.isEmpty && till == sync, "till --version '\(till)', till-sync --version '\(sync)'")

        // The sync's unit, installed (not enabled: nothing links it into a target's .wants), starting the binary
        // installed beside it.
        let unit = try String(contentsOfFile: prefix + "/lib/systemd/system/till-sync@.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=\(prefix)/bin/till-sync push --follow "), "\(unit)")
        #expect(!unit.contains("@bindir@"))
    }

    /// Starts the installed binary in tmux with `args`, quits it with F10, and returns what it wrote on
    /// standard error (where it repeats every theme/keymap warning when it exits).
    static func startAndQuit(_ binary: String, args: [String], config: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let id = UUID().uuidString.prefix(8).lowercased()
        let dir = NSTemporaryDirectory() + "till-installed-" + id
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let socket = "till-install-\(getpid())-\(id)"
        func tmux(_ a: [String]) -> (Int32, String) { run(["/usr/bin/tmux", "-L", socket] + a) }
        let vars = ["XDG_CONFIG_HOME=" + config, "XDG_DATA_HOME=" + dir, "TERM=xterm-256color", "LANG=C.UTF-8", "LC_ALL=C.UTF-8"]
        let command = (["env"] + vars + [binary, "--journal", dir + "/journal.sqlite", "--sim-speed", "0"] + args).map(TillSession.quote).joined(separator: " ")
            + " 2>" + TillSession.quote(dir + "/stderr") + "; echo TILL-EXITED $?; sleep 600"
        let (started, _) = tmux(["new-session", "-d", "-s", "t", "-x", "80", "-y", "24", command])
        guard started == 0 else { throw E2EError("tmux new-session failed") }
        let panes = tmux(["list-panes", "-a", "-F", "#{pane_pid}"]).1.split(separator: "\n").compactMap { Int32($0) }
        let server = Int32(tmux(["display-message", "-p", "#{pid}"]).1.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        defer {
            _ = tmux(["kill-server"])
            for p in panes { kill(p, SIGKILL) }
            if server > 0 { kill(server, SIGKILL) }
        }
        func waitFor(_ text: String) -> Bool {
            let deadline = Date().addingTimeInterval(20)
            var screen = ""
            while Date() < deadline {
                screen = tmux(["capture-pane", "-p", "-t", "t"]).1
                if screen.contains(text) { return true }
                Thread.sleep(forTimeInterval: 0.05)
            }
            Issue.record("timed out waiting for \(text); screen:\n\(screen)", sourceLocation: sourceLocation)
            return false
        }
        guard waitFor("simulator") else { return "" }
        _ = tmux(["send-keys", "-t", "t", "F10"])
        guard waitFor("TILL-EXITED") else { return "" }
        return (try? String(contentsOfFile: dir + "/stderr", encoding: .utf8)) ?? ""
    }

    @Test func installedBinaryFindsTheShippedThemesAndKeymaps() throws {
        let prefix = try Self.install()
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let config = prefix + "/config"   // empty: no user themes
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        let binary = prefix + "/bin/till"
        #expect(!FileManager.default.fileExists(atPath: prefix + "/bin/themes") && !FileManager.default.fileExists(atPath: prefix + "/themes"))

        for (theme, keymap) in [("high-contrast", "keypad"), ("monochrome", "default")] {
            let stderr = try Self.startAndQuit(binary, args: ["--theme", theme, "--keymap", keymap], config: config)
            #expect(!stderr.contains("not found") && !stderr.contains("using the default"), "\(theme)/\(keymap): \(stderr)")
        }
        // The check sees a miss when there is one.
        let missing = try Self.startAndQuit(binary, args: ["--theme", "no-such-theme"], config: config)
        #expect(missing.contains("Theme 'no-such-theme' not found"))

        // A user's copy still comes first: a broken one is reported by its path.
        try FileManager.default.createDirectory(atPath: config + "/till/themes", withIntermediateDirectories: true)
        try "[roles.approved]\nfg = = \"red\"\n".write(toFile: config + "/till/themes/high-contrast.toml", atomically: true, encoding: .utf8)
        let overridden = try Self.startAndQuit(binary, args: ["--theme", "high-contrast"], config: config)
        #expect(overridden.contains(config + "/till/themes/high-contrast.toml:2"), "\(overridden)")
    }
}
