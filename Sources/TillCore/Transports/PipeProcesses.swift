import Foundation
import TillIO
import TillProtocol
#if canImport(Glibc)
import Glibc
#endif

// The pipe transport's dealings with processes: what environment a bridge gets, its pipes, and stopping its
// process group.
extension PipeTransport {
    // MARK: environment

    /// The variables the bridge gets from till's environment: what any program needs to run in the cashier's locale
    /// (`PATH`, `HOME`, `USER`, `LOGNAME`, `SHELL`, `LANG`, `LANGUAGE`, `LC_*`, `TZ`, `TMPDIR`), nothing else. An
    /// allow-list, not a deny-list: till's environment holds the merchant key and whatever else the shop put there
    /// (PINs, passphrases, credentials under any name), and no list of bad names is ever complete. A bridge that
    /// needs more is given it in its command: `pipe:BRIDGE_URL=… my-bridge`.
    public static let bridgeVariables: Set<String> = ["PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TMPDIR"]

    /// Whether the bridge gets the variable `name` (see `bridgeVariables`).
    public static func passes(_ name: String) -> Bool {
        bridgeVariables.contains(name) || (name.hasPrefix("LC_") && name.count > 3)
    }

    /// `NAME=value` entries for the bridge: those of the given ones that `passes` names.
    public static func bridgeEnvironment(_ entries: [String]) -> [String] {
        entries.filter { entry in
            guard let eq = entry.firstIndex(of: "=") else { return false }
            return passes(String(entry[..<eq]))
        }
    }

    /// This process's environment as `NAME=value` entries.
    static func currentEnvironment() -> [String] {
        var out: [String] = []
        var p = environ
        while let entry = p.pointee {
            out.append(String(cString: entry))
            p += 1
        }
        return out
    }

    static func cloexecPipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    static func describe(status: Int32) -> String {
        let sig = status & 0x7f
        if sig == 0 { return "exited with status \((status >> 8) & 0xff)" }
        return "was killed by signal \(sig)"
    }

    // MARK: the bridge's process group

    /// Whether any process of the group is still running (zombies waiting to be reaped do not count: a child the
    /// bridge left behind is reaped by init, sometimes slowly).
    static func groupAlive(_ pgid: pid_t) -> Bool {
        if kill(-pgid, 0) != 0 && errno == ESRCH { return false }
        for name in Path.list("/proc") where name.first?.isNumber == true {
            guard let stat = AtomicFile.read("/proc/\(name)/stat", limit: 4096), let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // After the command: state, ppid, pgrp, …
            guard fields.count > 2, fields[2] == Substring(String(pgid)) else { continue }
            if fields[0] != "Z" && fields[0] != "X" { return true }
        }
        return false
    }

    /// SIGTERM to the process group, then SIGKILL if any of it still runs after `graceMs`.
    static func terminateGroup(_ pgid: pid_t, graceMs: Int64) async {
        guard kill(-pgid, SIGTERM) == 0 else { return }
        let deadline = WallClock.monotonicNs() + UInt64(graceMs) * 1_000_000
        while WallClock.monotonicNs() < deadline {
            if !groupAlive(pgid) { return }
            await Pause.sleep(nanoseconds: 10_000_000)
        }
        kill(-pgid, SIGKILL)
    }

    /// Waits for the bridge `pid` to end and reaps it; returns its wait status. Called once its output has ended and
    /// its group was killed or is being stopped, so the wait is short: it looks again and again (from 0.5 ms, doubling
    /// to 20 ms) rather than block one of the two threads of Swift's shared pool in `waitpid`.
    static func reap(_ pid: pid_t) async -> Int32 {
        var status: Int32 = 0
        var pause: UInt64 = 500_000
        while true {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { return status }
            if r < 0 && errno != EINTR { return status }   // not our child any more (ECHILD): nothing to learn
            if r == 0 {
                await Pause.sleep(nanoseconds: pause)
                pause = min(pause * 2, 20_000_000)
            }
        }
    }

    // MARK: a bridge that outlives its till

    /// When process `pid` started (clock ticks since boot, `/proc/<pid>/stat` field 22): with the pid, it names one
    /// process (a pid is reused, a pid and its start time are not). Nil when there is no such process.
    static func startTime(of pid: pid_t) -> UInt64? {
        guard let stat = AtomicFile.read("/proc/\(pid)/stat", limit: 4096), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? UInt64(fields[19]) : nil
    }

    /// Whether process `pid`, started at `start`, still runs: a zombie (killed, its parent not yet told) does not.
    static func runs(_ pid: pid_t, startedAt start: UInt64) -> Bool {
        guard let stat = AtomicFile.read("/proc/\(pid)/stat", limit: 4096), let close = stat.lastIndex(of: ")") else { return false }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 19 && fields[0] != "Z" && fields[0] != "X" && UInt64(fields[19]) == start
    }

    var ownRecord: String? { records.map { $0 + "." + String(getpid()) } }

    /// Notes the bridge just started: this till's start time, the bridge's process group and start time.
    func noteBridge(_ pid: pid_t) {
        guard let own = ownRecord, let mine = PipeTransport.startTime(of: getpid()) else { return }
        let bridge = PipeTransport.startTime(of: pid) ?? 0
        try? AtomicFile.write("\(mine) \(pid) \(bridge)\n", to: own)
    }

    /// Stops (SIGKILL, the whole process group) every bridge noted beside the journal whose till is gone: a till
    /// killed with SIGKILL, or crashed, cannot stop its bridge, which runs in a process group of its own and would read
    /// the request left in its pipe later and charge it. A group is stopped only while it is the one noted: its leader
    /// still has the start time noted, or has gone and left the group (a pid in use as a group cannot be reused). A
    /// bridge of a till still running is left alone. Returns the groups stopped.
    func stopOrphanedBridges() -> [pid_t] {
        guard let records else { return [] }
        let folder = Path.directory(of: records), prefix = Path.lastComponent(of: records) + "."
        var stopped: [pid_t] = []
        for name in Path.list(folder) where name.hasPrefix(prefix) {
            guard let tillPid = pid_t(name.dropFirst(prefix.count)), tillPid != getpid() else { continue }
            let path = folder + "/" + name
            let fields = (AtomicFile.read(path, limit: 256) ?? "").split(whereSeparator: { $0 == " " || $0 == "\n" })
            guard fields.count == 3, let tillStart = UInt64(fields[0]), let pgid = pid_t(fields[1]), pgid > 1,
                  let bridgeStart = UInt64(fields[2]) else { unlink(path); continue }
            if PipeTransport.runs(tillPid, startedAt: tillStart) { continue }   // that till still runs: its bridge is its own
            let leader = PipeTransport.startTime(of: pgid)
            if (leader == nil || leader == bridgeStart) && PipeTransport.groupAlive(pgid) {
                kill(-pgid, SIGKILL)
                let deadline = WallClock.monotonicNs() + 2_000_000_000
                while PipeTransport.groupAlive(pgid) && WallClock.monotonicNs() < deadline { usleep(5_000) }
                stopped.append(pgid)
            }
            unlink(path)
        }
        return stopped
    }
}
