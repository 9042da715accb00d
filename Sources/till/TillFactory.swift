import TillCore
import TillProtocol
import TillSimulator
import TillSimulatorTransport

/// Builds a ready controller from settings: opens the journal, builds and starts the transport. It lives in the
/// executable because it is where every transport is known: TillCore reads the config and holds the file drop and
/// pipe transports, the built-in simulator's transport is a target of its own, and each is one case of `makeTransport`.
enum TillFactory {
    /// The settings (the config file with the flags on top). The returned controller is started unless `start` is
    /// false (the cashier's screen: its recovery, right after the first frame, starts it); call `recover()` next to
    /// settle what an earlier run left open, and `shutdown()` at the end. `beforeStart` sees the controller before its
    /// transport starts: what the start handles (answers that waited in a drop folder) is said to it.
    static func makeController(config c: TillConfig, caller: Caller? = nil, start: Bool = true,
                               beforeStart: (TillController) -> Void = { _ in }) async throws -> TillController {
        let journal = try Journal(path: c.resolvedJournalPath, tipStyle: c.resolvedTip)
        let transport = makeTransport(c)
        let controller = TillController(transport: transport, journal: journal, caller: caller ?? c.caller(),
                                        timeoutMs: c.resolvedTimeoutMs)
        beforeStart(controller)
        if start { try await controller.start() }
        return controller
    }

    static func makeTransport(_ c: TillConfig) -> any Transport {
        switch c.resolvedTransport {
        case .simulator:
            let sim = SimulatorConfig(seed: c.simSeed ?? 1, speed: c.simSpeed ?? 1, abortStyle: c.simAbortStyle ?? .terminal,
                                      tipStyle: c.resolvedTip)
            return SimulatorTransport(config: sim, statePath: c.resolvedSimStatePath)
        case .file(let dir): return FileDropTransport(directory: dir)
        case .pipe(let cmd): return PipeTransport(command: cmd, records: c.resolvedJournalPath + ".bridge")
        }
    }
}
