import Foundation
import Testing
import TillIO

/// SIGTERM and SIGHUP while a headless sale waits on a bridge that never answers (issue 9): the entry
/// must end `unknown`, never stay `sent`, and the bridge's whole process group must be stopped.
@Suite(.serialized) struct SignalTests {
    /// How long after the bridge read the request till is given to journal `sent` (see the test).
    static let sentJournaledWindowNs: UInt64 = 200_000_000

    @Test(arguments: [SIGTERM, SIGHUP])
    func headlessSaleStoppedBySignalIsUnknownAndTheBridgeIsStopped(sig: Int32) async throws {
        let dir = TempDir("till-signal"); defer { dir.cleanup() }
        let journal = dir.path + "/journal.sqlite"
        let pidFile = dir.path + "/bridge.pid"
        let p = try SpawnedTill(["sale", "--amount", "12.00", "--journal", journal, "--timeout", "600",
                                 "--transport", "pipe:read l; echo $$ > '\(pidFile)'; exec sleep 1000"])
        defer { p.kill() }

        // Wait (with a deadline) until the bridge has read the request (it writes its pid after reading).
        // The journal is read only once till has ended: a reader run beside a live till currently loses
        // that till's later writes (its WAL is deleted under it; reported to the lead), which is not
        // what this test is about.
        var bridge: pid_t = 0
        let sent = await eventuallyAsync(30) {
            bridge = pid_t((AtomicFile.read(pidFile) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            return bridge > 0
        }
        try #require(sent, "the sale never reached the bridge")
        // till journals `sent` once its write to the bridge returned, which can be just after the bridge read. The
        // journal is the only place that says so and is read only after till ends (above): so a window, not a signal.
        try await Task.sleep(nanoseconds: Self.sentJournaledWindowNs)

        kill(p.pid, sig)
        let ended = await eventuallyAsync(30) { p.poll() != nil }
        try #require(ended, "till did not end after signal \(sig)")
        #expect(p.poll() == .signalled(sig))

        let after = try await runTill(["journal", "--json", "--journal", journal]).output
        #expect(after.contains("\"state\": \"unknown\""), "journal after signal \(sig): \(after)")
        #expect(!after.contains("\"state\": \"sent\""))
        // The bridge (sh, which read the request and exec'd sleep: its process group's only member) is gone, or dead and waiting to be
        // reaped by whichever process adopted it.
        let gone = await eventuallyAsync(20) { !isRunning(bridge) }
        #expect(gone, "the bridge \(bridge) survived signal \(sig): \(AtomicFile.read("/proc/\(bridge)/stat") ?? "")")
        if !gone { kill(-bridge, SIGKILL) }
    }
}

/// `till ARGS` started with posix_spawn (output to /dev/null) and reaped with `waitpid(WNOHANG)`:
/// Foundation's Process can miss a child's exit inside the test runner.
final class SpawnedTill: @unchecked Sendable {
    enum End: Equatable { case exited(Int32), signalled(Int32) }
    let pid: pid_t
    private var end: End?
    init(_ args: [String]) throws {
        var fa = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&fa)
        defer { posix_spawn_file_actions_destroy(&fa) }
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0)
        let argv = [tillBinary] + args
        let cargs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { cargs.forEach { free($0) } }
        var env = ProcessInfo.processInfo.environment
        env["XDG_CONFIG_HOME"] = "/nonexistent-till-config"
        let cenv: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { cenv.forEach { free($0) } }
        var p: pid_t = 0
        guard posix_spawn(&p, tillBinary, &fa, nil, cargs, cenv) == 0 else { throw SpawnError() }
        pid = p
    }
    struct SpawnError: Error {}
    /// How it ended, or nil while it runs.
    func poll() -> End? {
        if let end { return end }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        end = (status & 0x7F) == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
        return end
    }
    func kill() {
        if poll() == nil { Glibc.kill(pid, SIGKILL); var s: Int32 = 0; waitpid(pid, &s, 0) }
    }
}

/// A process that exists and is not a zombie.
func isRunning(_ pid: pid_t) -> Bool {
    guard let stat = AtomicFile.read("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return false }
    let state = stat[stat.index(close, offsetBy: 2)...].prefix(1)
    return state != "Z" && state != "X"
}
