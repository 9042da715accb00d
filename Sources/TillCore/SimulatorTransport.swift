import Foundation
import TillSimulator

/// The built-in transport: the terminal simulator in this process (`SimulatorRunner`), its state kept in a file
/// (by default `<journal folder>/simulator-state.json`) so that separate runs of till meet the same terminal.
public final class SimulatorTransport: Transport, @unchecked Sendable {
    public let runner: SimulatorRunner
    public var description: String { "simulator" }
    private let sink = Locked<(@Sendable (TransportEvent) -> Void)?>(nil)

    public init(config: SimulatorConfig, statePath: String?) throws {
        runner = try SimulatorRunner(config: config, statePath: statePath)
    }

    public func start(sink: @escaping @Sendable (TransportEvent) -> Void) async throws -> [IncomingAnswer] {
        self.sink.withLock { $0 = sink }
        runner.start(onAnswer: { [weak self] out in
            guard let s = self?.sink.withLock({ $0 }) else { return }
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
        sink.withLock { $0 = nil }
        let r = runner
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { r.stop(); c.resume() }
        }
    }
}
