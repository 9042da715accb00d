import Foundation
import Synchronization
import TillIO
import TillProtocol
#if canImport(Glibc)
import Glibc
#endif

/// Broadcasts controller events to every stream handed out by `events()`. The last `transportReady` or
/// `transportProblem` is kept and begins every stream made later (the screen's is made after the controller started),
/// so a transport that failed while till was starting is shown failed, as the screen shows any problem until the
/// transport says it is ready again.
final class EventHub: Sendable {
    private struct Subscribers {
        var all: [UUID: AsyncStream<ControllerEvent>.Continuation] = [:]
        var transport: ControllerEvent?
    }
    private let subscribers = Mutex(Subscribers())

    func stream() -> AsyncStream<ControllerEvent> {
        let (stream, continuation) = AsyncStream<ControllerEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        subscribers.withLock {
            $0.all[id] = continuation
            if let t = $0.transport { continuation.yield(t) }
        }
        // No `onTermination` that takes the lock: a stream's task cancelled holds the task's own lock while its
        // termination handler runs, and `emit`, holding this lock, waits for that task's lock to resume it: each
        // waited for the other (a till that hung on its terminal's hang-up, cancelling its shift-close watcher while
        // the transport said it was ready). An ended stream is dropped at the next event instead.
        return stream
    }

    /// Under the lock with the condition's update, so that a stream made meanwhile gets the condition before any
    /// later event, and no event twice.
    func emit(_ e: ControllerEvent) {
        subscribers.withLock {
            switch e {
            case .transportReady, .transportProblem: $0.transport = e
            default: break
            }
            for (id, c) in $0.all {
                if case .terminated = c.yield(e) { $0.all.removeValue(forKey: id) }
            }
        }
    }

    func finish() {
        for c in subscribers.withLock({ s -> [AsyncStream<ControllerEvent>.Continuation] in
            let all = Array(s.all.values); s.all.removeAll(); return all
        }) { c.finish() }
    }
}

/// Test-only crash points: `TILL_CRASH_AT=journaled|sent|received|answer-journaled` makes the process SIGKILL
/// itself at that step of the first request it performs (the crash tests use it; nothing else sets it).
enum CrashHook {
    static let point: String? = Environment.process["TILL_CRASH_AT"]
    static func hit(_ name: String, armed: Bool) {
        guard armed, point == name else { return }
        kill(getpid(), SIGKILL)
    }
}

/// Why `resolve` refused.
public struct ResolveError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// The controller: validates, journals, sends through a transport, waits (abortably, up to the timeout),
/// journals the answer and hands it back. One request in flight at a time.
public actor TillController: TillService {
    public nonisolated let transportDescription: String
    public nonisolated let journal: Journal
    public nonisolated let caller: Caller
    /// How long till waits for an answer before it calls the outcome unknown.
    public nonisolated let timeoutMs: Int64
    /// How long `abort()` waits for the abort's own answer before it reports `noAnswer`.
    public nonisolated let abortWaitMs: Int64
    /// How long start-up recovery waits for each `transactionDetails` answer (at most the timeout); once the terminal
    /// does not answer one, recovery stops asking and flags the rest.
    public nonisolated let recoveryTimeoutMs: Int64 = 15_000
    let transport: any Transport
    let hub = EventHub()
    /// One terminal, one sender: the journal's lock file, held while a request is in flight or recovery runs.
    let senderLock: SenderLock

    /// The life of what this till has in flight (`PaymentLife`, pure): kept after it settled until the command
    /// waiting on it collects the outcome (`wait(for:)`).
    var life: PaymentLife?
    /// The command waiting for the flight's outcome.
    var waiter: CheckedContinuation<ActionOutcome, Never>?
    /// `abort()` waiting for how its abort ends; or how it ended before `abort()` began to wait.
    var abortWaiter: CheckedContinuation<AbortResult, Never>?
    var abortEnded: AbortResult?
    /// The wall clock less the monotonic one at the last reading (`now()`): a change is a step of the wall clock.
    var clockOffset: Int64?
    /// The one timer: at the life's `nextDeadline`.
    var timer: (deadlineMs: Int64, task: Task<Void, Never>)?
    /// How long a request that carries no reference waits, after a failure, for an answer that contradicts it. A
    /// variable so that a test that needs the answer to arrive within it can widen it for a loaded machine.
    var unnamedAnswerGraceMs: Int64 = 3_000
    /// The transport's start, once begun (`start()`).
    var starting: Task<Void, any Error>?
    /// Set when `shutdown()` begins: nothing is sent after it.
    var stopped = false
    var consumer: Task<Void, Never>?
    var eventContinuation: AsyncStream<TransportEvent>.Continuation?

    public init(transport: any Transport, journal: Journal, caller: Caller, timeoutMs: Int64 = 90_000, abortWaitMs: Int64 = 5_000) {
        self.transport = transport
        self.transportDescription = transport.description
        self.journal = journal
        self.caller = caller
        self.timeoutMs = timeoutMs
        self.abortWaitMs = abortWaitMs
        self.senderLock = SenderLock(journalPath: journal.path)
    }

    // MARK: life cycle

    /// Starts the transport and handles any answers that waited for till (file drop), before anything else. Called
    /// again, it waits for that start; after a failed one it tries again. A headless command starts the controller
    /// before its work; the cashier's screen leaves it to recovery, its first command after the first frame, so that
    /// nothing a transport does at its start (the simulated terminal reading its history, a bridge process spawned)
    /// delays that frame. Every request starts it first (`ensureStarted`).
    public func start() async throws {
        if let starting { return try await starting.value }
        let t = Task { try await self.startTransport() }
        starting = t
        do { try await t.value } catch {
            if starting == t { starting = nil }
            throw error
        }
    }

    private func startTransport() async throws {
        let (stream, continuation) = AsyncStream<TransportEvent>.makeStream()
        let backlog: [IncomingAnswer]
        do { backlog = try await transport.start(sink: { continuation.yield($0) }) } catch {
            continuation.finish()
            throw error
        }
        eventContinuation = continuation
        for a in backlog { await handleAnswer(a) }
        // A backlog answer that could not be journaled ended no flight; nothing else to do here (it was said).
        consumer = Task { [weak self] in
            for await e in stream {
                guard let self else { return }
                await self.handle(e)
            }
        }
        hub.emit(.transportReady(transportDescription))
    }

    /// Starts the transport if it is not yet; when it cannot start, why, in the cashier's words (also shown as the
    /// transport's problem): nothing can be sent.
    func ensureStarted() async -> String? {
        if stopped { return nil }   // the caller refuses, saying till is stopping
        do { try await start(); return nil } catch {
            let why = "The terminal cannot be reached: \(error)"
            hub.emit(.transportProblem(why))
            return why
        }
    }

    /// Stops the transport; a request still in flight is journaled as unknown. From its first line on nothing more is
    /// sent: a request that comes after it (recovery's next question, the command's own sale, while the bridge is
    /// being stopped) is refused, never handed to a bridge started anew that would outlive till.
    public func shutdown() async {
        stopped = true
        if let l = life, !l.isSettled {
            let abortWithdrawn = if let id = l.abortRequestId { await transport.withdrawIfUnclaimed(id: id) } else { false }
            let withdrawn = await transport.withdrawIfUnclaimed(id: l.requestId)
            await feed(l.requestId) { $0.stopping(withdrawn: withdrawn, abortWithdrawn: abortWithdrawn, book: $1, now: $2) }
        }
        await transport.stop()
        // Answers the transport delivered before it stopped are journaled, not dropped: the sale's own approval read
        // in the same burst as its decline must be in the journal when the command says what became of the sale.
        eventContinuation?.finish()
        await consumer?.value
        hub.finish()
    }

    public nonisolated func events() -> AsyncStream<ControllerEvent> { hub.stream() }

    /// What the last `recover()` did: the entries it settled (as `.recovered` events say), and whether it was left
    /// for later because another till on the journal was sending.
    public struct RecoveryReport: Sendable {
        public var settled: [JournalEntry] = []
        public var skipped = false
    }
    public internal(set) var lastRecovery = RecoveryReport()

    /// Says what recovery (or a late answer) learned: the event for screens, the list for the command line.
    func reportRecovered(_ e: JournalEntry) {
        lastRecovery.settled.append(e)
        hub.emit(.recovered(e))
    }

    /// Test-only: the process dies here, as with SIGKILL. Nothing more is journaled, answers are no longer taken, the
    /// transport stops, the sender lock goes (as the kernel drops a dead process's locks), and a waiter is woken with
    /// "killed" so the test's task does not hang; what the journal says is what a real kill would leave.
    func simulateKill() async {
        killed = true
        timer?.task.cancel()
        timer = nil
        abortWaiter?.resume(returning: .noAnswer)
        abortWaiter = nil
        waiter?.resume(returning: .transportError(nil, "killed"))
        waiter = nil
        life = nil
        consumer?.cancel()
        eventContinuation?.finish()
        await transport.stop()
        senderLock.forceRelease()
        hub.finish()
    }
    var killed = false

    public func inFlight() async -> InFlight? { life.flatMap { $0.isSettled ? nil : $0.inFlight } }
}
