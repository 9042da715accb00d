import Foundation

/// `TillBench all`: the user-facing figures, then every inner-loop benchmark (each in a process of its
/// own, its figures kept as printed), then ONE summary at the top of BENCHMARKS.md, between
/// `<!-- summary:start -->` and `<!-- summary:end -->`.
func benchAll() async throws {
    let started = Date()
    let loadBefore = loadAverage()
    print("== user")
    let u = try await userBench()
    var inner: [(String, [String])] = []
    let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    for area in ["protocol", "simulator", "core", "ui", "report"] {
        print("== \(area)")
        let out = NSTemporaryDirectory() + "till-bench-\(area)-\(getpid())"
        defer { unlink(out) }
        spawnWait([me, area], stdout: out)
        let lines = ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        for l in lines where !l.hasPrefix("==") { print(l) }
        inner.append((area, lines.filter { $0.hasPrefix("  ") && !$0.hasPrefix("    ") }.map { $0.trimmingCharacters(in: .whitespaces) }))
    }
    let loadAfter = loadAverage()
    let markdown = summaryMarkdown(u, inner: inner, started: started, load: (loadBefore, loadAfter))
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("BENCHMARKS.md").path
    try rewriteSummary(path, markdown)
    print("== wrote the summary into \(path)")
}

func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
}

func gitCommit() -> String {
    let out = NSTemporaryDirectory() + "till-bench-git-\(getpid())"
    defer { unlink(out) }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    spawnWait(["/usr/bin/git", "-C", root, "describe", "--always", "--dirty"], stdout: out)
    return ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "?").trimmingCharacters(in: .whitespacesAndNewlines)
}

func summaryMarkdown(_ u: UserFigures, inner: [(String, [String])], started: Date, load: (String, String)) -> String {
    func f(_ x: Double?, _ format: String) -> String { x.map { String(format: format, $0) } ?? "n/a" }
    func verdict(_ ok: Bool?) -> String { ok.map { $0 ? "met" : "**not met**" } ?? "not measured" }
    let enterRatio = u.enterToVerdictMs.flatMap { t in u.keyEchoMs.map { t / $0 } }
    let startRatio = u.startupMs.flatMap { t in u.dialogMs.map { t / $0 } }
    let decodeRatio = u.decodeSeconds.flatMap { t in u.pythonSeconds.map { $0 / t } }
    let stamp = ISO8601DateFormatter().string(from: started)
    var s = """
    ## Summary: what a user meets, one run

    Measured \(stamp) at commit `\(gitCommit())` on the project machine (2 cores, shared), load average
    \(load.0) before and \(load.1) after (1, 5, 15 minutes), with:

    ```sh
    ./scripts/build-release   # till as deployed: .build-release/release/till, as ./scripts/run and ./scripts/install build it
    swift build -c release --product TillBench
    TILL_BIN=.build-release/release/till .build/release/TillBench all   # rewrites this summary
    ```

    The till binary measured: `\(tillBinaryPath())` (`TILL_BIN`; without it, the `till` beside TillBench).

    | what a user meets | till | peer, same harness | ratio | target | |
    | --- | --- | --- | --- | --- | --- |
    | Enter → verdict on screen, built-in simulator at speed 0, tmux (median) | \(f(u.enterToVerdictMs, "%.2f ms")) | key echoed by `cat`: \(f(u.keyEchoMs, "%.2f ms")) | \(f(enterRatio, "%.2f×")) | ≤ 3× | \(verdict(enterRatio.map { $0 <= 3 })) |
    | start → first frame with the open shift's name on the status line, in a tmux 80×24 that is already running (control-mode client, median of 41) | \(f(u.startupMs, "%.1f ms")) | `dialog --msgbox`: \(f(u.dialogMs, "%.1f ms")) | \(f(startRatio, "%.2f×")) | ≤ 2× | \(verdict(startRatio.map { $0 <= 2 })) |
    | `till decode --json -` on \(u.decodeURLs) callback URLs, whole process (median of 3) | \(f(u.decodeSeconds, "%.3f s")) | Python `parse_qsl` + `json.dumps`: \(f(u.pythonSeconds, "%.3f s")) | till \(f(decodeRatio, "%.1f×")) faster | ≥ 5× faster | \(verdict(decodeRatio.map { $0 >= 5 })) |
    | idle wake-ups of the UI after a sale, nothing in flight (voluntary context switches/s, every thread, over 10 s) | whole process \(f(u.idleWakeups, "%.1f/s")) (UI loop thread \(f(u.idleWakeupsLoopThread, "%.1f/s")), the clock; the rest is libdispatch's worker-pool monitor); preempted \(f(u.idlePreempted, "%.1f/s")) | | | ≤ 2/s | \(verdict(u.idleWakeups.map { $0 <= 2.05 })) |
    | instructions (callgrind), `decode --json` of one URL (2,000 − 1,000 URLs, ÷ 1,000) | \(f(u.decodeInstructions, "%.0f")) | | | stable figure | |
    | instructions (callgrind), one frame's update + render + diff at 200×60 (200 − 100 frames, ÷ 100) | \(f(u.frameInstructions, "%.0f")) | | | stable figure | |

    Idle, per thread (voluntary context switches/s): \(u.idleThreads.map { "\($0.0) \(String(format: "%.1f", $0.1))" }.joined(separator: "; ")).

    ### Inner loops, same run

    | area | figure (as `TillBench <area>` prints it) |
    | --- | --- |

    """
    for (area, lines) in inner {
        for l in lines { s += "| \(area) | \(l.replacingOccurrences(of: "|", with: "\\|")) |\n" }
    }
    return s
}

/// Replaces the summary between the markers (or, the first time, from `## Summary` up to the first section marker).
func rewriteSummary(_ path: String, _ summary: String) throws {
    var text = try String(contentsOfFile: path, encoding: .utf8)
    let start = "<!-- summary:start -->", end = "<!-- summary:end -->"
    let block = start + "\n" + summary + end
    if let a = text.range(of: start), let b = text.range(of: end) {
        text.replaceSubrange(a.lowerBound..<b.upperBound, with: block)
    } else if let a = text.range(of: "## Summary"), let b = text.range(of: "<!-- section:") {
        text.replaceSubrange(a.lowerBound..<b.lowerBound, with: block + "\n\n")
    } else {
        text += "\n" + block + "\n"
    }
    try text.write(toFile: path, atomically: true, encoding: .utf8)
}
