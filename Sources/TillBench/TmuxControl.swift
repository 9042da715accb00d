import Foundation
import TillIO

/// A tmux control-mode client (`tmux -C`) on a private server with one 80x24 session, for timing how long a program
/// takes to put something on the screen of a terminal that is already there, as the cashier's is.
///
/// Commands go to tmux on a pipe; tmux says, unasked, whenever the pane has printed (`%output`), and what is on the
/// screen is asked through the same client. So a look costs no process: polling with a `capture-pane` client per look
/// (as `TmuxPane.waitUntil` does) took CPU from the program being timed, on a 2-core machine.
final class TmuxControl {
    let pane: TmuxPane
    private var client: pid_t = 0
    private var toTmux: Int32 = -1
    private var fromTmux: Int32 = -1
    private var buffer: [UInt8] = []
    /// A `%output` went by while waiting for something else.
    private var printed = false

    init?(_ label: String, dir: String) {
        pane = TmuxPane(label, command: "exec sleep 100000", dir: dir)
        var input: [Int32] = [-1, -1], output: [Int32] = [-1, -1]
        guard pipe(&input) == 0, pipe(&output) == 0 else { return nil }
        let argv = ["/usr/bin/tmux", "-L", pane.socket, "-C", "attach", "-t", "b"]
        let started = Spawn.start(argv, stdin: .descriptor(input[0]), stdout: .descriptor(output[1]), closing: input + output)
        var spawned = false
        if case .success(let pid) = started { client = pid; spawned = true }
        close(input[0]); close(output[1])
        toTmux = input[1]; fromTmux = output[0]
        guard spawned else { stop(); return nil }
        send("refresh-client -C 80x24")
        drain(0.2)
    }

    func send(_ command: String) {
        let bytes = Array((command + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(toTmux, $0.baseAddress, $0.count) }
    }

    /// The next line tmux writes before `deadline` (monotonic ns), or nil.
    private func line(until deadline: UInt64) -> String? {
        while true {
            if let i = buffer.firstIndex(of: 10) {
                let text = String(decoding: buffer[..<i], as: UTF8.self)
                buffer.removeFirst(i + 1)
                return text
            }
            let now = nowNs()
            guard now < deadline else { return nil }
            var p = pollfd(fd: fromTmux, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32((deadline - now) / 1_000_000) + 1) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = read(fromTmux, &chunk, chunk.count)
            guard n > 0 else { return nil }
            buffer += chunk[..<n]
        }
    }

    private func drain(_ seconds: Double) {
        let deadline = nowNs() + UInt64(seconds * 1e9)
        while line(until: deadline) != nil {}
        printed = false
    }

    /// What is on the screen now, as text.
    func screen() -> String {
        send("capture-pane -p -t b")
        var rows: [String] = [], inReply = false
        let deadline = nowNs() + 2_000_000_000
        while let l = line(until: deadline) {
            if l.hasPrefix("%begin") { inReply = true; rows = []; continue }
            if l.hasPrefix("%end") || l.hasPrefix("%error") {
                if inReply { return rows.joined(separator: "\n") }
                continue
            }
            if inReply { rows.append(l) } else if l.hasPrefix("%output") { printed = true }
        }
        return ""
    }

    /// Starts `command` in the pane (once the process before it is gone and the screen is blank): milliseconds from
    /// just before tmux is asked to start it until `marker` is on the screen, looked for whenever the pane prints.
    /// `command` must not contain a double quote; `@T0@` in it becomes the start's time (CLOCK_MONOTONIC ns).
    func time(_ command: String, marker: String) -> Double? {
        let before = pane.panePid
        send("respawn-pane -k -t b 'clear; exec sleep 100000'")
        waitGone(before)
        let blank = nowNs() + 5_000_000_000
        while !screen().trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            guard nowNs() < blank else { return nil }
            drain(0.01)
        }
        drain(0.05)
        let t0 = nowNs()
        let command = command.replacingOccurrences(of: "@T0@", with: String(t0))   // (see `startupRounds`)
        send("respawn-pane -k -t b \"" + command + "\"")
        let deadline = t0 + 10_000_000_000
        while nowNs() < deadline {
            if !printed {
                guard let l = line(until: deadline) else { return nil }
                guard l.hasPrefix("%output") else { continue }
            }
            printed = false
            if screen().contains(marker) { return Double(nowNs() - t0) / 1_000_000 }
        }
        return nil
    }

    func stop() {
        if toTmux >= 0 { close(toTmux) }
        if fromTmux >= 0 { close(fromTmux) }
        toTmux = -1; fromTmux = -1
        if client > 0 {
            kill(client, SIGTERM)
            var status: Int32 = 0
            while waitpid(client, &status, 0) == -1 && errno == EINTR {}
            client = 0
        }
        pane.stop()
    }
}
