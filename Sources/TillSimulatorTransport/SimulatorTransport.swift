import Foundation
import Synchronization
import TillCore
import TillSimulator

/// The built-in transport: the terminal simulator in this process (`SimulatorRunner`), its state kept in a file
/// (by default `<journal folder>/simulator-state.json`) so that separate runs of till meet the same terminal.
/// A target of its own, so that TillCore (the controller, the journal, the other transports) does not depend on
/// the simulator; the executable's `TillFactory` makes it for `transport = "simulator"`.
///
/// The simulated terminal starts when the transport starts, as the real terminal app runs beside till: its state
/// log, which holds the whole training history, is read on a thread of its own (about 1.2 ms for 30 sales, 18 ms for
/// 1,000, 1.2 s for 100,000; BENCHMARKS.md), so the cashier's screen, which starts the transport after its first
/// frame, is never held up by it. Requests sent meanwhile wait, and are handed over in the order they came.
/// A log that cannot be read leaves the terminal unreachable: every request is certainly not sent, and the cashier
/// is told why at once.
public final class SimulatorTransport: Transport, Sendable {
    public var description: String { "simulator" }

    private enum Phase {
        /// The log is being read. The requests sent meanwhile wait here in the order they came (an abort must never
        /// overtake the sale it aborts), each with its sender, and so do the callers of `runner()`.
        case loading([Waiting], [CheckedContinuation<SimulatorRunner, any Error>])
        case ready(SimulatorRunner)
        /// The log could not be read: why, in the cashier's words.
        case unreachable(String)
    }

    private struct Waiting {
        var id: String
        var url: String
        var sender: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var phase = Phase.loading([], [])
        /// The controller's sink, set by `start` and cleared by `stop`; the runner calls back on a thread of its own.
        var sink: (@Sendable (TransportEvent) -> Void)?
        var started = false
        /// Once stopped, a runner whose log is read later is never started: it would deliver the answers that fell
        /// due into no sink, and save the state without them.
        var stopped = false
        /// The log's reading has begun.
        var reading = false
    }
    private let state = Mutex(State())

    private let config: SimulatorConfig
    private let statePath: String?

    public init(config: SimulatorConfig, statePath: String?) {
        self.config = config
        self.statePath = statePath
    }

    /// Under the lock: begins reading the log, once. Not on Swift's shared pool (two threads on two cores): reading
    /// the log waits for another till's lock of it, and decoding a long history takes a while.
    private func beginReading(_ s: inout State) {
        guard !s.reading else { return }
        s.reading = true
        let (config, statePath) = (config, statePath)
        let reader = Thread { [self] in
            loaded(Result { try SimulatorRunner(config: config, statePath: statePath) })
        }
        reader.name = "till-simulator-start"
        reader.start()
    }

    private static func unreachable(_ error: any Error) -> String {
        "The simulated terminal cannot start (\(error)): move that file away, then start till again."
    }

    private func loaded(_ result: Result<SimulatorRunner, any Error>) {
        // Each request waiting is handed over under the lock, in the order they came, before any later request can be;
        // the senders and askers are resumed after it.
        let after: (@Sendable () -> Void)? = state.withLock { s in
            guard case .loading(let waiting, let askers) = s.phase else { return nil }
            switch result {
            case .success(let runner) where !s.stopped:
                s.phase = .ready(runner)
                for w in waiting { runner.submit(w.url, tag: w.id) }
                if s.started { startRunner(runner) }
                return {
                    for w in waiting { w.sender.resume() }
                    for a in askers { a.resume(returning: runner) }
                }
            case .success(let runner):
                s.phase = .ready(runner)
                return {
                    for w in waiting { w.sender.resume(throwing: TransportError.notSent("till stopped before the simulated terminal had started")) }
                    for a in askers { a.resume(returning: runner) }
                }
            case .failure(let error):
                let why = Self.unreachable(error)
                s.phase = .unreachable(why)
                let sink = s.sink
                return {
                    for w in waiting { w.sender.resume(throwing: TransportError.notSent(why)) }
                    for a in askers { a.resume(throwing: TransportError.notSent(why)) }
                    sink?(.problem(why))
                }
            }
        }
        after?()
    }

    /// Under the lock. The runner's callbacks take the lock (for the sink) from its own thread, which `start` only makes.
    private func startRunner(_ runner: SimulatorRunner) {
        runner.start(onAnswer: { [weak self] out in
            guard let s = self?.state.withLock({ $0.sink }) else { return }
            s(.answer(IncomingAnswer(text: out.url, receipt: nil, requestIdHint: out.tag)))
        })
    }

    /// The simulator, once its log is read (tests look at its ledger).
    public func runner() async throws -> SimulatorRunner {
        try await withCheckedThrowingContinuation { asker in
            let now: Result<SimulatorRunner, TransportError>? = state.withLock { s in
                beginReading(&s)
                switch s.phase {
                case .loading(let waiting, let askers):
                    s.phase = .loading(waiting, askers + [asker])
                    return nil
                case .ready(let r): return .success(r)
                case .unreachable(let why): return .failure(.notSent(why))
                }
            }
            if let now { asker.resume(with: now.mapError { $0 as any Error }) }
        }
    }

    public func start(sink: @escaping @Sendable (TransportEvent) -> Void) async throws -> [IncomingAnswer] {
        let problem = state.withLock { s -> String? in
            s.sink = sink
            s.started = true
            beginReading(&s)
            switch s.phase {
            case .ready(let r): startRunner(r); return nil
            case .unreachable(let why): return why
            case .loading: return nil   // started once its log is read
            }
        }
        if let problem { sink(.problem(problem)) }
        return []
    }

    public func send(id: String, url: String) async throws(TransportError) {
        do {
            try await withCheckedThrowingContinuation { (sender: CheckedContinuation<Void, any Error>) in
                let now: Result<Void, TransportError>? = state.withLock { s in
                    beginReading(&s)
                    switch s.phase {
                    case .loading(let waiting, let askers):
                        s.phase = .loading(waiting + [Waiting(id: id, url: url, sender: sender)], askers)
                        return nil
                    case .ready(let r):
                        r.submit(url, tag: id)
                        return .success(())
                    case .unreachable(let why):
                        return .failure(.notSent(why))
                    }
                }
                if let now { sender.resume(with: now.mapError { $0 as any Error }) }
            }
        } catch let e as TransportError { throw e } catch { throw .notSent("\(error)") }
    }

    /// A request still waiting for the log was never handed to the terminal: taken back, it never will be (till is
    /// stopping, or gave up on it). One handed over is the terminal's, as with the real app.
    public func withdrawIfUnclaimed(id: String) async -> Bool {
        let taken = state.withLock { s -> Waiting? in
            guard case .loading(var waiting, let askers) = s.phase, let i = waiting.firstIndex(where: { $0.id == id }) else {
                return nil
            }
            let w = waiting.remove(at: i)
            s.phase = .loading(waiting, askers)
            return w
        }
        taken?.sender.resume(throwing: TransportError.notSent("withdrawn before the simulated terminal had started"))
        return taken != nil
    }

    public func acknowledge(_ answer: IncomingAnswer) async {}
    public func reject(_ answer: IncomingAnswer, reason: String) async {}
    public func gaveUp(on id: String) async -> Bool { await withdrawIfUnclaimed(id: id) }

    public func stop() async {
        let runner = state.withLock { s -> SimulatorRunner? in
            s.sink = nil
            s.stopped = true
            if case .ready(let r) = s.phase { return r }
            return nil
        }
        guard let runner else { return }   // still reading its log: never started
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { runner.stop(); c.resume() }
        }
    }
}
