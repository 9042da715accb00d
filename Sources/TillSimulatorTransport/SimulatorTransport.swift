import Foundation
import TillCore
import TillSimulator

/// The built-in transport: the terminal simulator in this process (`SimulatorRunner`), its state kept in a file
/// (by default `<journal folder>/simulator-state.json`) so that separate runs of till meet the same terminal.
/// A target of its own, so that TillCore (the controller, the journal, the other transports) does not depend on
/// the simulator; the executable's `TillFactory` makes it for `transport = "simulator"`.
///
/// The simulated terminal starts beside till, as the real terminal app runs beside it: its state log, which holds
/// the whole training history, is read on a task of its own while till opens its journal and paints. Read before
/// the first frame, it made the till's start grow with the simulator's history (about 1.2 ms for 30 sales, 19 ms for
/// 1,000, 1.3 s for 100,000; BENCHMARKS.md). A request waits until the log is read. A log that cannot be read
/// leaves the terminal unreachable: every request is certainly not sent, and the cashier is told why at once.
public final class SimulatorTransport: Transport, @unchecked Sendable {
    private let loading: Task<SimulatorRunner, any Error>
    public var description: String { "simulator" }
    private let lock = NSLock()
    // Guarded by `lock`:
    /// The controller's sink, set by `start` and cleared by `stop`; the runner calls back on a thread of its own.
    private var sink: (@Sendable (TransportEvent) -> Void)?
    /// Starts the runner once its log is read; `stop` waits for it, so no runner is started after `stop`.
    private var starting: Task<Void, Never>?

    public init(config: SimulatorConfig, statePath: String?) {
        loading = Task.detached { try SimulatorRunner(config: config, statePath: statePath) }
    }

    /// The simulator, once its log is read (tests look at its ledger).
    public func runner() async throws -> SimulatorRunner { try await loading.value }

    private func locked<R>(_ body: () -> R) -> R {
        lock.lock(); defer { lock.unlock() }
        return body()
    }

    private var currentSink: (@Sendable (TransportEvent) -> Void)? { locked { sink } }

    private static func unreachable(_ error: any Error) -> String {
        "The simulated terminal cannot start (\(error)); move that file away to start it afresh."
    }

    public func start(sink: @escaping @Sendable (TransportEvent) -> Void) async throws -> [IncomingAnswer] {
        let loading = self.loading
        locked {
            self.sink = sink
            starting = Task { [weak self] in
                do {
                    try await loading.value.start(onAnswer: { [weak self] out in
                        guard let s = self?.currentSink else { return }
                        s(.answer(IncomingAnswer(text: out.url, receipt: nil, requestIdHint: out.tag)))
                    })
                } catch {
                    self?.currentSink?(.problem(Self.unreachable(error)))
                }
            }
        }
        return []
    }

    public func send(id: String, url: String) async throws(TransportError) {
        let runner: SimulatorRunner
        do { runner = try await loading.value } catch { throw .notSent(Self.unreachable(error)) }
        runner.submit(url, tag: id)
    }

    public func acknowledge(_ answer: IncomingAnswer) async {}
    public func reject(_ answer: IncomingAnswer, reason: String) async {}
    public func gaveUp(on id: String) async -> Bool { false }

    public func stop() async {
        let starting = locked { () -> Task<Void, Never>? in sink = nil; return self.starting }
        await starting?.value
        guard let r = try? await loading.value else { return }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { r.stop(); c.resume() }
        }
    }
}
