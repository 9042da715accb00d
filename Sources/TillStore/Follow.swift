import Foundation
import Synchronization
import TillCore
import TillIO
#if canImport(Glibc)
import Glibc
#endif

/// When `push --follow` talks to the store and when it looks at the journal, as a pure function of its state and the
/// clock (milliseconds of a monotonic clock), so that the whole rhythm is tested on a table of instants.
///
/// - A journal that commits is pushed at once: the follow loop is woken by the kernel (inotify on the journal's file
///   and its `-wal`), not by a poll. The wake can come before the commit can be read (SQLite writes the log, then
///   syncs it, then marks it committed in shared memory, which the kernel does not report), so after each wake the
///   journal (never the store) is looked at again every `settleStepMs` for `settleMs`.
/// - A till with nothing to send says it is there every `heartbeatMs` to `heartbeatMs + heartbeatJitterMs` (jittered
///   so that the tills of a chain do not all come at once): the back office's "last seen".
/// - A store that cannot be reached is tried again after `retryFirstMs`, doubling up to `retryMaxMs`, each delay
///   between its half and its whole at random ("equal jitter"): a store back after an outage sees its tills return
///   within seconds, spread out, not all in the same instant. Meanwhile the journal's commits wait for that try.
///   A refusal that needs a person (a wrong password, a refused journal) is tried again after `setUpRetryMs`.
/// - The connection is kept while the till works and closed `idleCloseMs` after the last push that carried events (or
///   after the start, when none did yet): an idle till holds no server process (a heartbeat logs in, says it, and logs
///   out), so a store's connections go to the tills at work, not to a fleet's idle ones (BENCHMARKS.md, "1,000 tills").
public struct FollowSchedule: Sendable, Hashable {
    public var heartbeatMs: Int64 = 30_000
    public var heartbeatJitterMs: Int64 = 30_000
    public var retryFirstMs: Int64 = 500
    public var retryMaxMs: Int64 = 8_000
    public var setUpRetryMs: Int64 = 60_000
    public var settleMs: Int64 = 1_000
    public var settleStepMs: Int64 = 50
    public var idleCloseMs: Int64 = 120_000
    /// Without a kernel watch on the journal (inotify refused), how often the journal is looked at.
    public var unwatchedCheckMs: Int64 = 200
    /// Ask the kernel to wake the loop when the journal commits (false: look every `unwatchedCheckMs`). A process that
    /// plays hundreds of tills (`till-sync fleet`) watches only the ones that sell: the kernel allows a user 128 watches.
    public var watchesJournal = true

    public init() {}

    /// What the loop knows, all of it set by the loop from what happened; `jitter` is drawn anew (0 ..< 1) after
    /// every talk to the store.
    public struct State: Sendable, Hashable {
        /// When the store last answered (nil: not yet since the start).
        public var lastContactMs: Int64?
        /// When a push last carried events.
        public var lastWorkMs: Int64?
        /// Tries in a row that failed, the last one's time, and whether it needs a person.
        public var failures = 0
        public var failedAtMs: Int64?
        public var needsSetUp = false
        /// When the journal last changed (the kernel's word), and when the loop last looked at it.
        public var lastWakeMs: Int64?
        public var lastCheckMs: Int64?
        /// A kernel watch on the journal is in place.
        public var watched = true
        public var jitter: Double = 0
        /// When the loop started: with nothing sent since, the connection is closed `idleCloseMs` from then.
        public var startMs: Int64 = 0
        public init(jitter: Double = 0, watched: Bool = true) { self.jitter = jitter; self.watched = watched }
    }

    public struct Plan: Sendable, Hashable {
        /// Talk to the store at this instant even if nothing changed (the start, a heartbeat, a retry).
        public var storeAtMs: Int64
        /// A change in the journal is pushed as soon as it is seen (false while a failure's back-off runs).
        public var pushesChanges: Bool
        /// Look at the journal (not the store) at this instant (now or past: at once); nil: only when the kernel says
        /// it changed.
        public var checkAtMs: Int64?
        /// Close a connection held at this instant (nil: keep it).
        public var closeAtMs: Int64?
    }

    /// The retry delay after `failures` (1 or more) failed tries in a row, from its half to its whole by `jitter`.
    public func retryDelayMs(failures: Int, jitter: Double) -> Int64 {
        let doublings = min(max(0, failures - 1), 30)
        let full = min(retryMaxMs, retryFirstMs << Int64(doublings))
        return full / 2 + Int64((Double(full - full / 2) * min(max(jitter, 0), 1)).rounded(.down))
    }

    public func plan(_ s: State, nowMs now: Int64) -> Plan {
        let storeAt: Int64
        let failing = s.failures > 0
        if failing, let failed = s.failedAtMs {
            storeAt = failed + (s.needsSetUp ? setUpRetryMs : retryDelayMs(failures: s.failures, jitter: s.jitter))
        } else if let contact = s.lastContactMs {
            storeAt = contact + heartbeatMs + Int64((Double(heartbeatJitterMs) * min(max(s.jitter, 0), 1)).rounded(.down))
        } else {
            storeAt = now
        }
        var check: Int64?
        if !failing {
            if !s.watched {
                check = (s.lastCheckMs ?? now) + unwatchedCheckMs
            } else if let w = s.lastWakeMs {
                // The first step of the settling after the last look (a step already looked at is not due again).
                let looked = max(s.lastCheckMs ?? w, w)
                let next = w + ((looked - w) / settleStepMs + 1) * settleStepMs
                if next <= w + settleMs { check = next }
            }
        }
        // From the last work, not the last contact: a heartbeat comes sooner than `idleCloseMs` and would keep it open.
        let close: Int64? = failing || s.lastContactMs == nil ? nil : (s.lastWorkMs ?? s.startMs) + idleCloseMs
        return Plan(storeAtMs: storeAt, pushesChanges: !failing, checkAtMs: check, closeAtMs: close)
    }
}

/// Wakes the follow loop when the journal's file or its write-ahead log is written (inotify on their folder, so a log
/// deleted and made again is still seen), from a thread of its own that blocks in the kernel: nothing polls.
final class JournalWake: Sendable {
    private let watcher: DirectoryWatcher
    private let names: Set<String>
    private struct State {
        /// The journal changed since the last wait returned.
        var changed = false
        /// The wait in progress, to be woken: its number and how.
        var waiter: (id: Int, wake: @Sendable () -> Void)?
        var waits = 0
        var stopped = false
    }
    private let state = Mutex(State())

    init?(journalPath: String) {
        let url = URL(fileURLWithPath: journalPath)
        let base = url.lastPathComponent
        guard let w = try? DirectoryWatcher(directory: url.deletingLastPathComponent().path, modifications: true) else { return nil }
        watcher = w
        names = [base, base + "-wal"]
        let thread = Thread { [self] in run() }
        thread.name = "till-sync journal watch"
        thread.start()
    }

    private func run() {
        while true {
            let events = watcher.events(timeoutMs: -1)
            let relevant = events.contains(where: { $0.kind == .overflow || names.contains($0.name) })
            let (stopped, wake) = state.withLock { s -> (Bool, (@Sendable () -> Void)?) in
                if s.stopped { return (true, nil) }
                guard relevant else { return (false, nil) }
                s.changed = true
                defer { s.waiter = nil }
                return (false, s.waiter?.wake)
            }
            if stopped { return }
            wake?()
        }
    }

    /// True when the journal changed since the last wait returned, at once, or as soon as it changes before
    /// `deadline`; false at the deadline (or when the task is cancelled).
    func wait(until deadline: ContinuousClock.Instant) async -> Bool {
        let once = Once<Void>()
        let id: Int = state.withLock { s in s.waits += 1; return s.waits }
        let timer = Task {
            try? await Task.sleep(until: deadline)
            once.fire(())
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                once.set { _ in c.resume() }
                let now: Bool = state.withLock { s in
                    if s.changed { return true }
                    s.waiter = (id, { once.fire(()) })
                    return false
                }
                if now { once.fire(()) }
            }
        } onCancel: {
            once.fire(())
        }
        timer.cancel()
        return state.withLock { s in
            if s.waiter?.id == id { s.waiter = nil }
            defer { s.changed = false }
            return s.changed
        }
    }

    func stop() {
        state.withLock { $0.stopped = true }
        watcher.wake()
    }
}

/// Sleeps until the deadline when the journal cannot be watched.
private func sleepUntil(_ deadline: ContinuousClock.Instant) async -> Bool {
    try? await Task.sleep(until: deadline)
    return false
}

extension Sync {
    /// Pushes until cancelled, on the rhythm of `schedule` (see `FollowSchedule`): at once when the journal commits, on
    /// one connection kept while the till works, a heartbeat while it is idle, and a jittered back-off while the store
    /// cannot be reached. A failure is said once (until it changes or the store answers again); a push that carried
    /// events or pruned the outbox is reported; a pruning that failed is reported once, until it works again or fails
    /// otherwise.
    public func follow(schedule: FollowSchedule = FollowSchedule(),
                       report: @Sendable (Result<PushResult, StoreError>) -> Void) async {
        let clock = ContinuousClock()
        let origin = clock.now
        func nowMs() -> Int64 {
            let d = clock.now - origin
            return d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
        }
        let wake = schedule.watchesJournal ? JournalWake(journalPath: journalPath) : nil
        defer { wake?.stop() }
        var state = FollowSchedule.State(jitter: Double.random(in: 0..<1), watched: wake != nil)
        var store: StoreConnection?
        var reader: (OutboxReader, ino_t)?
        var known: (journalId: String, storeLastSeq: Int64)?
        var lastError: StoreError?
        var lastPruneProblem: String?
        var woke = false

        /// The journal as it is now: kept open between pushes, opened again when the file was replaced.
        func journal() throws -> OutboxReader {
            var st = stat()
            if stat(journalPath, &st) == 0, let open = reader, open.1 == st.st_ino { return open.0 }
            reader?.0.close()
            reader = nil
            let r = try OutboxReader(path: journalPath)
            reader = (r, st.st_ino)
            return r
        }
        /// The journal holds what the store does not, as far as this loop knows (an unreadable journal: a push says why).
        func changed() -> Bool {
            guard let known, let now = try? journal().identity() else { return true }
            return now.journalId != known.journalId || now.lastSeq != known.storeLastSeq
        }

        while !Task.isCancelled {
            let now = nowMs()
            let plan = schedule.plan(state, nowMs: now)
            var due = now >= plan.storeAtMs
            if !due, plan.pushesChanges, woke || (plan.checkAtMs.map { now >= $0 } ?? false) {
                state.lastCheckMs = now
                due = changed()
            }
            woke = false
            if due {
                do {
                    var r = try await recorded {
                        let held: StoreConnection
                        if let store { held = store } else { held = try await StoreConnection.connect(address); store = held }
                        return try await pushAndPrune(try journal(), held)
                    }
                    known = (r.journalId, r.storeLastSeq)
                    let after = nowMs()
                    state.lastContactMs = after
                    if r.pushed > 0 { state.lastWorkMs = after }
                    state.failures = 0; state.failedAtMs = nil; state.needsSetUp = false
                    if r.pruneProblem == lastPruneProblem { r.pruneProblem = nil } else { lastPruneProblem = r.pruneProblem }
                    if lastError != nil || r.pushed > 0 || r.pruned > 0 || r.pruneProblem != nil { report(.success(r)) }
                    lastError = nil
                } catch {
                    if Task.isCancelled { break }
                    let e = (error as? StoreError) ?? StoreError("\(error)", transient: true)
                    // A connection that failed may be half gone: the next try logs in afresh.
                    await store?.close()
                    store = nil
                    if e != lastError { report(.failure(e)) }
                    lastError = e
                    state.failures += 1; state.failedAtMs = nowMs(); state.needsSetUp = !e.transient
                }
                state.jitter = Double.random(in: 0..<1)
                continue
            }
            if store != nil, let close = plan.closeAtMs, now >= close {
                await store?.close()
                store = nil
                continue
            }
            var next = plan.storeAtMs
            if let c = plan.checkAtMs { next = min(next, c) }
            if store != nil, let c = plan.closeAtMs { next = min(next, c) }
            let deadline = origin + .milliseconds(max(next, now))
            if let wake {
                woke = await wake.wait(until: deadline)
                if woke { state.lastWakeMs = nowMs() }
            } else {
                _ = await sleepUntil(deadline)
            }
        }
        await store?.close()
        reader?.0.close()
    }
}
