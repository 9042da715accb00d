import Foundation
import TillIO
#if canImport(Glibc)
import Glibc
#endif

/// A real-clock driver around `TerminalSimulator` for use from other threads and tasks:
/// serialises access, runs the timers of delayed callbacks on its own thread, and persists
/// the state after every change when given a path.
public final class SimulatorRunner: @unchecked Sendable {
    public let config: SimulatorConfig
    public let statePath: String?

    private let condition = NSCondition()
    // Guarded by `condition`:
    private var simulator: TerminalSimulator
    private var queue: [(url: String, tag: String?)] = []
    private var running = false
    private var stopping = false
    private var busy = false
    private var thread: Thread?
    private var finished = true
    private var onAnswer: (@Sendable (SimulatorOutput) -> Void)?
    private var lastError: (any Error)?

    /// Loads the state from `statePath` when the file exists (a restarted process meets the same terminal).
    public init(config: SimulatorConfig, statePath: String?) throws {
        self.config = config
        self.statePath = statePath
        simulator = SimulatorRunner.simulator(config, SimulatorState())
        guard let path = statePath else { return }
        let lock = SimulatorRunner.lock(path)
        defer { SimulatorRunner.unlock(lock) }
        if let state = try TerminalSimulator.loadState(from: path) {
            simulator = SimulatorRunner.simulator(config, state)
            do { try StateLog.compactIfBloated(&simulator.state, path) } catch { lastError = error }
        }
    }

    /// The terminal on `state`, leaving another live process's transaction to that process (`heldElsewhere`).
    private static func simulator(_ config: SimulatorConfig, _ state: SimulatorState) -> TerminalSimulator {
        let s = TerminalSimulator(config: config, state: state)
        s.heldElsewhere = heldByAnotherLiveProcess
        return s
    }

    /// A transaction sent by another process that is still running (signal 0 reaches it, or exists but is not ours).
    static func heldByAnotherLiveProcess(_ p: PendingTransaction) -> Bool {
        guard let owner = p.owner, owner != getpid() else { return false }
        return kill(owner, 0) == 0 || errno == EPERM
    }

    private static func lock(_ path: String) -> Int32 {
        let fd = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if fd >= 0 { while flock(fd, LOCK_EX) != 0 && errno == EINTR {} }
        return fd
    }

    private static func unlock(_ fd: Int32) {
        if fd >= 0 { flock(fd, LOCK_UN); close(fd) }
    }

    /// One terminal across processes: several till processes on one journal share one simulated terminal through its
    /// state file. Each change happens under an exclusive lock of `<state>.lock`, on the newest state (the lines
    /// another process appended since this one last read, or the whole file when it was rewritten), and is saved
    /// before the lock is let go, so STANs and order codes never repeat.
    private func withSharedState<T>(_ body: () -> T) -> T {
        guard let path = statePath else { return body() }
        let fd = SimulatorRunner.lock(path)
        defer { SimulatorRunner.unlock(fd) }
        do {
            if try !simulator.catchUp(with: path), let fresh = try TerminalSimulator.loadState(from: path) {
                simulator = SimulatorRunner.simulator(config, fresh)
                changesAtLastSave = simulator.changes
                try StateLog.compactIfBloated(&simulator.state, path)
            }
        } catch { lastError = error }
        return body()
    }

    /// Milliseconds since 1970 by the wall clock.
    public static func nowMs() -> Int64 { WallClock.nowMs() }

    /// Delivers a request; its callbacks (now or later) go to the callback given to `start`.
    public func submit(_ requestURL: String) { submit(requestURL, tag: nil) }

    /// Delivers a request with a tag (e.g. a file-drop id) that comes back with each of its answers.
    public func submit(_ requestURL: String, tag: String?) {
        condition.lock()
        queue.append((requestURL, tag))
        condition.signal()
        condition.unlock()
    }

    /// Starts the timer thread; callbacks are passed to `onCallback` (from the runner's thread).
    public func start(onCallback: @escaping @Sendable (String) -> Void) {
        start(onAnswer: { onCallback($0.url) })
    }

    /// As `start(onCallback:)`, with the tag of the request each answer belongs to.
    public func start(onAnswer: @escaping @Sendable (SimulatorOutput) -> Void) {
        condition.lock()
        defer { condition.unlock() }
        guard !running else { return }
        running = true; stopping = false; finished = false
        self.onAnswer = onAnswer
        let t = Thread { [self] in self.loop() }
        t.name = "till-simulator"
        thread = t
        t.start()
    }

    /// Stops the timer thread (waits for it). Callbacks not yet due stay pending in the state.
    public func stop() {
        condition.lock()
        guard running else { condition.unlock(); return }
        stopping = true
        condition.broadcast()
        if Thread.current === thread {       // called from a callback: the loop ends once it returns
            condition.unlock()
            return
        }
        while !finished { condition.wait() }
        running = false
        thread = nil
        condition.unlock()
    }

    /// Blocks until every submitted request was handled and nothing is scheduled any more
    /// (a transaction that waits forever, scenario 9.09, is not waited for).
    public func waitUntilIdle() {
        condition.lock()
        while running && (!queue.isEmpty || busy || simulator.nextDueMs != nil) { condition.wait() }
        condition.unlock()
    }

    /// A copy of the terminal's state.
    public var state: SimulatorState {
        condition.lock(); defer { condition.unlock() }
        return simulator.state
    }

    /// When the next delayed callback is due (ms since 1970), if any.
    public var nextDueMs: Int64? {
        condition.lock(); defer { condition.unlock() }
        return simulator.nextDueMs
    }

    /// The last error from saving the state, if any.
    public var saveError: (any Error)? {
        condition.lock(); defer { condition.unlock() }
        return lastError
    }

    private func loop() {
        condition.lock()
        while !stopping {
            var outputs: [SimulatorOutput] = []
            withSharedState {
                var changed = false
                let now = SimulatorRunner.nowMs()
                let due = simulator.advanceTagged(toMs: now)
                if simulator.changes != changesAtLastSave { changed = true }
                outputs += due
                while !queue.isEmpty {
                    let (url, tag) = queue.removeFirst()
                    let before = simulator.state.pending
                    outputs += simulator.receive(url, tag: tag, nowMs: SimulatorRunner.nowMs())
                    // A transaction this request started is this process's to answer.
                    if statePath != nil, before == nil, simulator.state.pending != nil { simulator.state.pending?.owner = getpid() }
                    changed = true
                }
                if changed, let path = statePath {
                    do { try simulator.save(to: path); lastError = nil } catch { lastError = error }
                }
                changesAtLastSave = simulator.changes
            }
            if !outputs.isEmpty, let deliver = onAnswer {
                busy = true
                condition.unlock()
                for o in outputs { deliver(o) }
                condition.lock()
                busy = false
                condition.broadcast()
                continue
            }
            condition.broadcast()
            if !queue.isEmpty { continue }
            if let p = simulator.state.pending, simulator.heldElsewhere?(p) == true {
                // Another till's transaction: looked at again each second, in case that till is gone.
                _ = condition.wait(until: Date(timeIntervalSinceNow: 1))
            } else if let next = simulator.nextDueMs {
                // At most an hour at a time (the loop looks again): a delay scaled past what a date can hold made
                // the wait trap and took the process down.
                let wait = min(max(0, next - SimulatorRunner.nowMs()), 3_600_000)
                if wait > 0 { _ = condition.wait(until: Date(timeIntervalSinceNow: Double(wait) / 1000)) }
            } else {
                condition.wait()
            }
        }
        finished = true
        running = false
        thread = nil
        condition.broadcast()
        condition.unlock()
    }

    private var changesAtLastSave = 0
}
