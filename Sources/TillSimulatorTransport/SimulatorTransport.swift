import Foundation
import TillCore
import TillSimulator

/// The built-in transport: the terminal simulator in this process (`SimulatorRunner`), its state kept in a file
/// (by default `<journal folder>/simulator-state.json`) so that separate runs of till meet the same terminal.
/// A target of its own, so that TillCore (the controller, the journal, the other transports) does not depend on
/// the simulator; the executable's `TillFactory` makes it for `transport = "simulator"`.
public final class SimulatorTransport: Transport, @unchecked Sendable {
    public let runner: SimulatorRunner
    public var description: String { "simulator" }
    /// The controller's sink, set by `start` and cleared by `stop`; the runner calls back on a thread of its own.
    private var sink: (@Sendable (TransportEvent) -> Void)?
    private let lock = NSLock()

    public init(config: SimulatorConfig, statePath: String?) throws {
        runner = try SimulatorRunner(config: config, statePath: statePath)
    }

    private func withSink<R>(_ body: (inout (@Sendable (TransportEvent) -> Void)?) -> R) -> R {
        lock.lock(); defer { lock.unlock() }
        return body(&sink)
    }

    public func start(sink: @escaping @Sendable (TransportEvent) -> Void) async throws -> [IncomingAnswer] {
        withSink { $0 = sink }
        runner.start(onAnswer: { [weak self] out in
            guard let s = self?.withSink({ $0 }) else { return }
            s(.answer(IncomingAnswer(text: out.url, receipt: nil, requestIdHint: out.tag)))
        })
        return []
    }

    public func send(id: String, url: String) async throws(TransportError) {
        runner.submit(url, tag: id)
    }

    public func acknowledge(_ answer: IncomingAnswer) async {}
    public func reject(_ answer: IncomingAnswer, reason: String) async {}
    public func gaveUp(on id: String) async -> Bool { false }

    public func stop() async {
        withSink { $0 = nil }
        let r = runner
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { r.stop(); c.resume() }
        }
    }
}
