import Foundation
import TillIO
import TillCore
import TillProtocol
import TillUI

// The ui benchmarks (see BENCHMARKS.md):
//  1. key-to-frame at 200×60: update + render into the cell buffer + diff against the last frame;
//  2. start to first full frame of the real binary in tmux, side by side with `dialog --msgbox`;
//  3. peak memory (VmHWM) of an idle till.

func uiBench() async throws {
    keyToFrameBench()
    startupBench()
}

func nowNs() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
}

/// Cells that differ between two frames of the same size (what the backend repaints).
func changedCells(_ a: ScreenBuffer, _ b: ScreenBuffer) -> Int {
    guard a.size == b.size else { return b.cells.count }
    var n = 0
    for i in 0..<a.cells.count where a.cells[i] != b.cells[i] { n += 1 }
    return n
}

func keyToFrameBench() {
    let size = Size(width: 200, height: 60)
    let now: Int64 = 1_795_341_600_000
    var state = AppState(size: size, nowMs: now, tzOffsetMinutes: 60)
    _ = initialCommands(&state)
    _ = update(&state, .unresolvedLoaded([], recovered: true))
    _ = update(&state, .batchLoaded(BatchInfo(id: "7885F4F1-59CA-42C2-81BB-6DB48AA138A6", name: "Morning", openedAtMs: now - 3_600_000, isOpen: true)))
    let resp = try! CallbackResponse.decode("interapp-callback://result?status=success&message=Transaction successful.&action=sale&amount=1250&tipAmount=125&verificationMethod=CONTACTLESS&cardType=Visa&accountNumber=478212******7417&referenceNumber=654321&authorisationCode=A1B2C3&orderCode=1234567890123456")
    let entries = (1...500).map { i in
        JournalEntry(id: Int64(i), requestId: "r\(i)", action: .sale, clientTransactionId: "c\(i)", amount: Money(cents: i * 37),
                     tipAmount: nil, requestURL: "", state: i % 7 == 0 ? .declined : .approved, createdAtMs: now - Int64(i) * 60_000,
                     updatedAtMs: now, response: resp)
    }
    // A cashier's mix: typing an amount, fixing it, tip preset, moving through fields, looking at the journal.
    let keys: [Key] = [.char("1"), .char("2"), .char(","), .char("5"), .backspace, .char("0"), .ctrl("t"), .tab, .tab, .backTab,
                       .f(7), .down, .down, .pageDown, .enter, .esc, .up, .char("4"), .backspace, .f(6), .f(1), .char("x"), .f(2), .ctrl("u")]
    var buf = ScreenBuffer(size: size)
    render(state, into: &buf)
    var previous = buf
    var samples: [Double] = []
    let rounds = 20_000
    samples.reserveCapacity(rounds)
    var changed = 0
    for i in 0..<rounds {
        let k = keys[i % keys.count]
        let t0 = nowNs()
        let cmds = update(&state, .key(k))
        if cmds.contains(where: { if case .loadJournal = $0 { return true }; return false }) {
            _ = update(&state, .journalLoaded(entries))
        }
        render(state, into: &buf)
        changed &+= changedCells(previous, buf)
        let t1 = nowNs()
        swap(&previous, &buf)
        samples.append(Double(t1 - t0) / 1_000_000)
        if state.pending != nil { state.pending = nil }
    }
    samples.sort()
    print(String(format: "  key-to-frame 200x60 (update+render+diff), %d keys: p50 %.3f ms, p99 %.3f ms, max %.3f ms (avg %d cells changed)",
                 rounds, percentile(samples, 0.5), percentile(samples, 0.99), samples.last ?? 0, changed / rounds))
}

/// posix_spawn + waitpid of a command with output into a file.
@discardableResult
func spawnWait(_ argv: [String], stdout: String = "/dev/null") -> Int32 {
    guard case .success(let pid) = Spawn.start(argv, stdout: .path(stdout, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644)) else { return -1 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return (status >> 8) & 0xFF
}

/// Peak resident memory (VmHWM) of the first process named `name` under the tmux server, in MB.
func peakMemoryMB(socket: String, out: String) -> Double? {
    spawnWait(["/usr/bin/tmux", "-L", socket, "list-panes", "-t", "b", "-F", "#{pane_pid}"], stdout: out)
    guard let pidText = try? String(contentsOfFile: out, encoding: .utf8), let pid = Int(pidText.trimmingCharacters(in: .whitespacesAndNewlines)),
          let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let kb = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
        return kb / 1024
    }
    return nil
}

func startupBench() {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let till = ProcessInfo.processInfo.environment["TILL_BIN"] ?? ((exe as NSString).deletingLastPathComponent + "/till")
    guard FileManager.default.isExecutableFile(atPath: till), FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else {
        print("  start-up: skipped (needs tmux and \(till); build with `swift build -c release`)"); return
    }
    let hasDialog = FileManager.default.isExecutableFile(atPath: "/usr/bin/dialog")
    let dir = NSTemporaryDirectory() + "till-uibench-\(getpid())"
    try? FileManager.default.createDirectory(atPath: dir + "/data", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let out = dir + "/screen"
    let env = "env TERM=xterm-256color LANG=C.UTF-8 XDG_CONFIG_HOME=\(dir)/cfg XDG_DATA_HOME=\(dir)/data"
    // A first-ever start each round (a new journal: made, migrated, synced), in a running tmux (`TmuxControl`).
    var tillTimes: [Double] = [], dialogTimes: [Double] = []
    let runs = 10
    if let control = TmuxControl("uistart", dir: dir) {
        defer { control.stop() }
        for i in 0..<runs {
            if let t = control.time("exec \(env) \(till) --journal \(dir)/j\(i).sqlite", marker: "Ready for the next customer.") {
                tillTimes.append(t)
            }
            if hasDialog, let t = control.time("exec \(env) dialog --msgbox 'Ready for the next customer.' 8 40",
                                               marker: "Ready for the next customer.") {
                dialogTimes.append(t)
            }
        }
    }
    tillTimes.sort(); dialogTimes.sort()
    let tm = percentile(tillTimes, 0.5), dm = percentile(dialogTimes, 0.5)
    print(String(format: "  first-ever start (new journal) to first full frame (running tmux 80x24, median of %d): till %.1f ms, dialog --msgbox %.1f ms, ratio %.2f",
                 runs, tm, dm, dm > 0 ? tm / dm : 0))
    // Peak memory of an idle till: start, wait for the frame, idle 2 s, read VmHWM.
    let mem = TmuxPane("uimem", command: "exec \(env) \(till) --journal \(dir)/mem.sqlite", dir: dir)
    defer { mem.stop() }
    _ = mem.waitUntil(from: nowNs()) { $0.contains("Ready for the next customer.") }
    Thread.sleep(forTimeInterval: 2)
    if let mb = peakMemoryMB(socket: mem.socket, out: out) { print(String(format: "  idle till peak memory (VmHWM): %.1f MB", mb)) }
}
