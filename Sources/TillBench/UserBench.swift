import Foundation
import TillIO
import TillCore
import TillProtocol
import TillUI

// What a user meets (issue 11), whole process, each side by side with its peer in one run:
//  1. Enter -> verdict on screen (built-in simulator, speed 0) in tmux, against a key echoed by `cat`;
//  2. start -> the first frame showing the open shift's name on the status line, against `dialog --msgbox`;
//  3. `till decode --json -` on 200,000 callback URLs, against Python's parse_qsl + json.dumps;
//  4. idle wake-ups per second of the UI (context switches of every thread over 10 s);
//  5. instruction counts (callgrind) of one decode and of one frame's render + diff.

struct UserFigures {
    var enterToVerdictMs: Double?
    var keyEchoMs: Double?
    var startupMs: Double?
    var dialogMs: Double?
    var decodeSeconds: Double?
    var pythonSeconds: Double?
    var decodeURLs = 0
    var idleWakeups: Double?
    var idleWakeupsLoopThread: Double?
    var idleThreads: [(String, Double)] = []
    var idlePreempted: Double?
    var decodeInstructions: Double?
    var frameInstructions: Double?
}

/// The till binary beside this one (or $TILL_BIN).
func tillBinaryPath() -> String {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    return ProcessInfo.processInfo.environment["TILL_BIN"] ?? ((exe as NSString).deletingLastPathComponent + "/till")
}

func median(_ xs: [Double]) -> Double? {
    guard !xs.isEmpty else { return nil }
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// A private tmux server with one 80x24 session running `command`; killed by `stop()`.
final class TmuxPane {
    let socket: String
    let out: String
    private var serverPid: Int32 = 0
    init(_ label: String, command: String, dir: String) {
        socket = "till-bench-\(label)-\(getpid())"
        out = dir + "/screen-\(label)"
        spawnWait(["/usr/bin/tmux", "-L", socket, "new-session", "-d", "-s", "b", "-x", "80", "-y", "24", command])
        spawnWait(["/usr/bin/tmux", "-L", socket, "display-message", "-p", "#{pid}"], stdout: out)
        serverPid = Int32(((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
    func screen() -> String {
        spawnWait(["/usr/bin/tmux", "-L", socket, "capture-pane", "-p", "-t", "b"], stdout: out)
        return (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
    }
    func keys(_ k: [String]) { spawnWait(["/usr/bin/tmux", "-L", socket, "send-keys", "-t", "b"] + k) }
    func type(_ text: String) { keys(["-l", text]) }
    var panePid: Int32 {
        spawnWait(["/usr/bin/tmux", "-L", socket, "list-panes", "-t", "b", "-F", "#{pane_pid}"], stdout: out)
        return Int32(((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
    /// Waits (deadline 10 s) until `ok(screen)`; the milliseconds from `t0`, or nil.
    func waitUntil(from t0: UInt64, _ ok: (String) -> Bool) -> Double? {
        while nowNs() - t0 < 10_000_000_000 {
            if ok(screen()) { return Double(nowNs() - t0) / 1_000_000 }
        }
        return nil
    }
    /// Ends the server (kill-server, then its pid: kill-server alone sometimes leaves it running), and waits until
    /// the program in the pane is gone too: a till hung up finishes its exit (the journal's last checkpoint, which
    /// empties the WAL) after the server has gone, and the next benchmark must not start on its half-written files.
    func stop() {
        let program = panePid
        spawnWait(["/usr/bin/tmux", "-L", socket, "kill-server"])
        if serverPid > 0 { kill(serverPid, SIGKILL); waitGone(serverPid) }
        waitGone(program)
        unlink("/tmp/tmux-\(getuid())/\(socket)")
    }
}

/// `Collected : N` from callgrind's summary of `argv` (stdin from `input`), or nil.
func callgrindInstructions(_ argv: [String], input: String) -> Double? {
    let log = input + ".cg.log"
    defer { unlink(log) }
    // valgrind cannot read the Swift toolchain's debug info: run a stripped copy (same instructions).
    var argv = argv
    let stripped = NSTemporaryDirectory() + "till-cg-\(getpid())-" + (argv[0] as NSString).lastPathComponent
    defer { unlink(stripped) }
    if spawnWait(["/usr/bin/strip", "-o", stripped, argv[0]]) == 0 { argv[0] = stripped }
    let full = ["/usr/bin/valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + argv
    guard case .success(let pid) = Spawn.start(full, stdin: .path(input, flags: O_RDONLY),
                                               stderr: .path(log, flags: O_WRONLY | O_CREAT | O_TRUNC)) else { return nil }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") where line.contains("Collected :") {
        return Double(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces))
    }
    return nil
}

/// Runs `argv` with standard input from a file and output to /dev/null; wall seconds.
func timedRun(_ argv: [String], input: String) -> Double {
    let t0 = nowNs()
    guard case .success(let pid) = Spawn.start(argv, stdin: .path(input, flags: O_RDONLY)) else { return .nan }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return Double(nowNs() - t0) / 1e9
}

func userBench() async throws -> UserFigures {
    var f = UserFigures()
    let till = tillBinaryPath()
    guard FileManager.default.isExecutableFile(atPath: till), FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else {
        print("  skipped: needs tmux and \(till) (swift build -c release --product till)")
        return f
    }
    let dir = NSTemporaryDirectory() + "till-userbench-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let (env, journal) = try openShift(till: till, dir: dir)

    // 1. Enter -> verdict, against a key echoed by cat, interleaved round by round.
    do {
        let cat = TmuxPane("cat", command: "exec cat", dir: dir)
        let ui = TmuxPane("ui", command: "exec \(env) \(till) --journal \(journal) --sim-speed 0", dir: dir)
        defer { cat.stop(); ui.stop() }
        _ = ui.waitUntil(from: nowNs()) { $0.contains("batch Morning") && $0.contains("Ready") }
        var tillMs: [Double] = [], catMs: [Double] = []
        var echoed = ""
        for i in 1...30 {
            let letter = String(UnicodeScalar(UInt8(97 + i % 26)))
            echoed += letter
            let t0 = nowNs()
            cat.type(letter)
            let want = echoed
            if let ms = cat.waitUntil(from: t0, { $0.contains(want) }) { catMs.append(ms) }
            if i % 20 == 0 { cat.keys(["Enter"]); echoed = "" }

            let amount = String(format: "1.%02d", i)
            ui.type(amount)
            _ = ui.waitUntil(from: nowNs()) { $0.contains("€ \(amount)_") }
            let t1 = nowNs()
            ui.keys(["Enter"])
            // The verdict's headline names this round's amount (the block letters above it spell APPROVED).
            if let ms = ui.waitUntil(from: t1, { s in s.contains("SALE APPROVED € \(amount)") }) { tillMs.append(ms) }
        }
        f.enterToVerdictMs = median(tillMs)
        f.keyEchoMs = median(catMs)
        print(String(format: "  Enter -> verdict (tmux, simulator speed 0, median of %d): till %.2f ms; key echo by cat %.2f ms (median of %d): %.1fx",
                     tillMs.count, f.enterToVerdictMs ?? .nan, catMs.count, f.keyEchoMs ?? .nan, (f.enterToVerdictMs ?? .nan) / (f.keyEchoMs ?? .nan)))
    }

    // 2. Start -> first frame with the shift's name, against dialog --msgbox (`startupRounds`).
    (f.startupMs, f.dialogMs) = startupRounds(till: till, env: env, journal: journal, dir: dir)

    // 3. Idle wake-ups after a sale (its timer has run, its worker threads have retired): every thread's
    //    voluntary context switches over 10 s (a thread that slept and was woken); involuntary ones
    //    (preempted while running, e.g. on a loaded machine) are shown beside them.
    do {
        let ui = TmuxPane("idle", command: "exec \(env) \(till) --journal \(journal) --sim-speed 0", dir: dir)
        defer { ui.stop() }
        _ = ui.waitUntil(from: nowNs()) { $0.contains("batch Morning") && $0.contains("Ready") }
        ui.type("2.50")
        ui.keys(["Enter"])
        _ = ui.waitUntil(from: nowNs()) { $0.contains("APPROVED") }
        let pid = ui.panePid
        usleep(7_000_000)   // dispatch's idle worker threads end after 5 s
        let a = threadSwitches(pid)
        usleep(10_000_000)
        let b = threadSwitches(pid)
        var total = 0.0, preempted = 0.0
        var threads: [(String, Double)] = []
        for (tid, v) in b {
            let perSecond = Double(v.voluntary - (a[tid]?.voluntary ?? 0)) / 10
            total += perSecond
            preempted += Double(v.involuntary - (a[tid]?.involuntary ?? 0)) / 10
            if perSecond > 0 { threads.append(("\(v.name) (\(tid))", perSecond)) }
        }
        f.idleWakeups = total
        f.idlePreempted = preempted
        f.idleThreads = threads.sorted { $0.1 > $1.1 }
        // The UI loop is the thread asleep in poll.
        f.idleWakeupsLoopThread = b.filter { $0.value.inPoll }.map { tid, v in Double(v.voluntary - (a[tid]?.voluntary ?? 0)) / 10 }.first
        print(String(format: "  idle wake-ups after a sale (voluntary context switches/s over 10 s): %.1f/s in all; the UI loop thread %.1f/s; preempted %.1f/s",
                     total, f.idleWakeupsLoopThread ?? .nan, preempted))
        for (n, v) in f.idleThreads { print("    \(n): " + String(format: "%.1f/s", v)) }
    }

    // 4. decode --json - on 200,000 URLs, against Python, interleaved, whole process.
    do {
        let count = Int(ProcessInfo.processInfo.environment["TILL_BENCH_DECODE"] ?? "") ?? 200_000
        let corpus = CallbackCorpus.make(count: count, seed: 0x5EED).map(\.url).joined(separator: "\n") + "\n"
        let file = dir + "/corpus.txt"
        try corpus.write(toFile: file, atomically: false, encoding: .utf8)
        let py = dir + "/qsl.py"
        try """
        import sys, json
        from urllib.parse import parse_qsl
        w = sys.stdout.write
        for line in sys.stdin:
            line = line.rstrip("\\r\\n")
            if not line.strip():
                continue
            w(json.dumps(dict(parse_qsl(line.partition("?")[2], keep_blank_values=True))) + "\\n")
        """.write(toFile: py, atomically: false, encoding: .utf8)
        var tillS: [Double] = [], pyS: [Double] = []
        for _ in 0..<3 {
            tillS.append(timedRun([till, "decode", "--json", "-"], input: file))
            pyS.append(timedRun(["/usr/bin/env", "python3", py], input: file))
        }
        f.decodeURLs = count
        f.decodeSeconds = median(tillS)
        f.pythonSeconds = median(pyS)
        print(String(format: "  till decode --json - on %d URLs (whole process, median of 3): %.3f s; python3 parse_qsl + json.dumps %.3f s: till %.1fx faster",
                     count, f.decodeSeconds ?? .nan, f.pythonSeconds ?? .nan, (f.pythonSeconds ?? .nan) / (f.decodeSeconds ?? .nan)))

        // 5. Instruction counts: the difference between 2,000 and 1,000 URLs, per URL.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/valgrind") {
            let lines = corpus.split(separator: "\n")
            let small = dir + "/c1000.txt", large = dir + "/c2000.txt"
            try (lines.prefix(1000).joined(separator: "\n") + "\n").write(toFile: small, atomically: false, encoding: .utf8)
            try (lines.prefix(2000).joined(separator: "\n") + "\n").write(toFile: large, atomically: false, encoding: .utf8)
            if let a = callgrindInstructions([till, "decode", "--json", "-"], input: small),
               let b = callgrindInstructions([till, "decode", "--json", "-"], input: large) {
                f.decodeInstructions = (b - a) / 1000
            }
            let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
            if let a = callgrindInstructions([me, "frames", "100"], input: "/dev/null"),
               let b = callgrindInstructions([me, "frames", "200"], input: "/dev/null") {
                f.frameInstructions = (b - a) / 100
            }
            print(String(format: "  callgrind: decode --json %.0f instructions per URL; one frame's render + diff (200x60) %.0f instructions",
                         f.decodeInstructions ?? .nan, f.frameInstructions ?? .nan))
        }
    }
    return f
}

/// Waits (deadline 5 s) until a process is gone.
func waitGone(_ pid: Int32) {
    guard pid > 0 else { return }
    let t0 = nowNs()
    while kill(pid, 0) == 0 && nowNs() - t0 < 5_000_000_000 { usleep(2_000) }
}

/// tid -> its name, voluntary and involuntary context switches, and whether it is asleep in poll.
func threadSwitches(_ pid: Int32) -> [Int: (name: String, voluntary: Int, involuntary: Int, inPoll: Bool)] {
    var out: [Int: (name: String, voluntary: Int, involuntary: Int, inPoll: Bool)] = [:]
    let base = "/proc/\(pid)/task"
    for t in (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? [] {
        guard let tid = Int(t), let status = try? String(contentsOfFile: "\(base)/\(t)/status", encoding: .utf8) else { continue }
        var voluntary = 0, involuntary = 0
        var name = ""
        for line in status.split(separator: "\n") {
            let value = { Int(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) ?? 0 }
            if line.hasPrefix("Name:") { name = line.dropFirst(5).trimmingCharacters(in: .whitespaces) }
            if line.hasPrefix("voluntary_ctxt_switches:") { voluntary = value() }
            if line.hasPrefix("nonvoluntary_ctxt_switches:") { involuntary = value() }
        }
        let wchan = (try? String(contentsOfFile: "\(base)/\(t)/wchan", encoding: .utf8)) ?? ""
        out[tid] = (name, voluntary, involuntary, wchan.contains("poll"))
    }
    return out
}

/// `TillBench frames N`: N key-to-frame steps (update + render + diff) at 200x60, for callgrind.
func framesOnly(_ n: Int) {
    let size = Size(width: 200, height: 60)
    var state = AppState(size: size, nowMs: 1_795_341_600_000, tzOffsetMinutes: 60)
    _ = initialCommands(&state)
    _ = update(&state, .unresolvedLoaded([], recovered: true))
    _ = update(&state, .batchLoaded(BatchInfo(id: "B", name: "Morning", openedAtMs: 1_795_341_000_000, isOpen: true)))
    let keys: [Key] = [.char("1"), .char("2"), .char(","), .char("5"), .backspace, .char("0"), .ctrl("t"), .tab, .tab, .backTab]
    var buf = ScreenBuffer(size: size)
    render(state, into: &buf)
    var previous = buf
    var changed = 0
    for i in 0..<n {
        _ = update(&state, .key(keys[i % keys.count]))
        render(state, into: &buf)
        changed &+= changedCells(previous, buf)
        swap(&previous, &buf)
    }
    if changed < 0 { print(changed) }
}

/// Start -> the first frame with the shift's name, against `dialog --msgbox`, interleaved, 41 rounds each; medians.
/// One tmux server serves every round, as the cashier's terminal is there before till starts; a control-mode client
/// asks tmux to start the command and learns from tmux each time the pane prints (`TmuxControl`): timed from just
/// before the start is asked to the first look that finds the marker. Until 2026-11-24 each round started a tmux
/// server of its own (its start, about 7 ms, was added to both sides and flattered the ratio: 1.45x for what read
/// 1.82x on one server) and looked by polling with a client process per look (which took CPU from the program being
/// timed). `TILL_BENCH_B=<another till>` times that binary too, in the same rounds (an A/B of two builds on a noisy machine,
/// where runs minutes apart differ by more than a change does).
func startupRounds(till: String, env: String, journal: String, dir: String) -> (till: Double?, dialog: Double?) {
    let hasDialog = FileManager.default.isExecutableFile(atPath: "/usr/bin/dialog")
    let environment = ProcessInfo.processInfo.environment
    let other = environment["TILL_BENCH_B"]
    // till's standard error goes to a file, not to the pane. It writes nothing there before its first frame (checked
    // below); what reached the pane was the exit message of the till stopped at the start of the next round, and
    // with it on the pane the rounds read 1.64-1.66x after `user`'s Enter -> verdict rounds where they read 1.49x
    // alone, and 1.49-1.50x in both with it in a file (2026-11-25; why the message costs only after those rounds was
    // not found). `dialog` writes nothing to standard error.
    let errors = dir + "/till-stderr.txt"
    func command(_ binary: String, env: String = env, journal: String = journal) -> String {
        "exec \(env) \(binary) --journal \(journal) --sim-speed 0 2>>\(errors)"
    }
    // B starts on a copy of the journal and the simulator's state, its own: what one build leaves in the files at
    // exit (a WAL kept or removed) would otherwise be what the other build finds at its start.
    let twin = other.map { _ in copyOfTill(dir: dir, journal: journal) }
    var tillMs: [Double] = [], dialogMs: [Double] = [], otherMs: [Double] = []
    if let control = TmuxControl("start", dir: dir) {
        defer { control.stop() }
        // Three rounds of each first, not counted: this machine pages out file pages that its sampling finds idle
        // (DAMON's pageout, on physical address ranges: a till binary's pages go with their neighbours), and after
        // the other benchmarks a first start read its binary from the disk again (5-7 major page faults, 8-11 ms).
        for round in -3..<41 {
            let counted = round >= 0
            if let ms = control.time(command(till), marker: "batch Morning"), counted { tillMs.append(ms) }
            if hasDialog, let ms = control.time("exec \(env) dialog --msgbox 'Ready for the next customer.' 8 40",
                                                marker: "Ready for the next customer."), counted {
                dialogMs.append(ms)
            }
            if let other, let twin, let ms = control.time(command(other, env: twin.env, journal: twin.journal), marker: "batch Morning"),
               counted { otherMs.append(ms) }
        }
    }
    // Anything till said on standard error besides its exit message would be a start that
    // differs from a cashier's: shown, not hidden.
    let said = ((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "").split(separator: "\n")
        .filter { !$0.hasPrefix("till: stopped by signal") }
    if !said.isEmpty { print("  till wrote on standard error: " + Set(said).sorted().joined(separator: " | ")) }
    let (t, d) = (median(tillMs), median(dialogMs))
    print(String(format: "  start -> first frame with the shift's name (running tmux 80x24, control mode, median of %d): till %.1f ms; dialog --msgbox %.1f ms: %.2fx",
                 tillMs.count, t ?? .nan, d ?? .nan, (t ?? .nan) / (d ?? .nan)))
    if let other, let o = median(otherMs) {
        print(String(format: "    B (%@): %.1f ms: %.2fx", other, o, o / (d ?? .nan)))
    }
    return (t, d)
}

/// A folder for a benchmark's till (config, data, journal) and a shift "Morning" opened in its journal (headless), so
/// that the status line has a name to show: the `env …` prefix that starts till there, and the journal's path.
func openShift(till: String, dir: String) throws -> (env: String, journal: String) {
    try FileManager.default.createDirectory(atPath: dir + "/data", withIntermediateDirectories: true)
    let env = "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 XDG_CONFIG_HOME=\(dir)/cfg XDG_DATA_HOME=\(dir)/data"
    let journal = dir + "/journal.sqlite"
    spawnWait(["/usr/bin/env", "XDG_CONFIG_HOME=\(dir)/cfg", till, "batch", "open", "--name", "Morning", "--journal", journal, "--sim-speed", "0"])
    return (env, journal)
}

/// A copy of the till set up in `dir` (its data folder, its closed journal and the simulated terminal's state) in `dir/b`, for an A/B's second build.
func copyOfTill(dir: String, journal: String) -> (env: String, journal: String) {
    let b = dir + "/b"
    try? FileManager.default.createDirectory(atPath: b, withIntermediateDirectories: true)
    try? FileManager.default.copyItem(atPath: dir + "/data", toPath: b + "/data")
    for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: journal + suffix) {
        try? FileManager.default.copyItem(atPath: journal + suffix, toPath: b + "/journal.sqlite" + suffix)
    }
    // The simulated terminal's state, beside the journal.
    try? FileManager.default.copyItem(atPath: dir + "/simulator-state.json", toPath: b + "/simulator-state.json")
    let env = "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 XDG_CONFIG_HOME=\(b)/cfg XDG_DATA_HOME=\(b)/data"
    return (env, b + "/journal.sqlite")
}

/// `TillBench startup`: only the start-up rounds, on a journal with an open shift, as `userBench` has them.
func startupOnlyBench() {
    let till = tillBinaryPath()
    guard FileManager.default.isExecutableFile(atPath: till), FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else {
        print("  skipped: needs tmux and \(till)")
        return
    }
    let dir = NSTemporaryDirectory() + "till-startbench-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: dir) }
    guard let (env, journal) = try? openShift(till: till, dir: dir) else { return }
    // `TILL_BENCH_SALES=N`: N sales in the shift first (headless), as `userBench`'s Enter -> verdict rounds leave 30.
    for i in 0..<(Int(ProcessInfo.processInfo.environment["TILL_BENCH_SALES"] ?? "") ?? 0) {
        spawnWait(["/usr/bin/env", "XDG_CONFIG_HOME=\(dir)/cfg", till, "sale", "--amount", String(format: "1.%02d", i % 100),
                   "--journal", journal, "--sim-speed", "0"])
    }
    _ = startupRounds(till: till, env: env, journal: journal, dir: dir)
}
