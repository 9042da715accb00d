import Testing
import TillProtocol
@testable import TillSimulator

/// 2026-11-18T11:06:40Z: an arbitrary, fixed start of the injected clock.
let T0: Int64 = 1_795_000_000_000
let hour: Int64 = 3_600_000
let base = "vivapayclient://pay/v1?callback=interapp-callback&merchantKey=SG23323424EXS3&appId=com.example.till&action="

/// Checks what every callback must satisfy: decodes with no warnings and round-trips byte for byte.
@discardableResult
func checked(_ url: String, sourceLocation: SourceLocation = #_sourceLocation) -> CallbackResponse? {
    guard let r = try? CallbackResponse.decode(url) else {
        Issue.record("callback does not decode: \(url)", sourceLocation: sourceLocation)
        return nil
    }
    // The one exception: real terminals answer an abort with `action=ABORT` (the brief and the pages' digest
    // prescribe it), and TillProtocol's decoder deliberately flags that spelling as `.actionCase("ABORT")`
    // (its own tests assert so). Only that warning, only on abort answers; anything else fails.
    let allowed: [DecodeWarning] = r.rawAction == "ABORT" ? [.actionCase("ABORT")] : []
    #expect(r.warnings.filter { !allowed.contains($0) }.isEmpty, "warnings \(r.warnings) for \(url)",
            sourceLocation: sourceLocation)
    let again = CallbackResponse.url(callback: r.target, fields: r.fields.map { ($0.name, $0.value) })
    #expect(again == url, "round trip differs", sourceLocation: sourceLocation)
    return r
}

/// Drives a simulator with an injected clock; every answer is checked.
final class Harness {
    let sim: TerminalSimulator
    var now: Int64
    /// Every callback URL so far, in order.
    var transcript: [String] = []

    init(_ config: SimulatorConfig = SimulatorConfig(), state: SimulatorState = .init(), now: Int64 = T0) {
        sim = TerminalSimulator(config: config, state: state)
        self.now = now
    }

    /// Sends `base + rest` (or a full URL) at the current time.
    @discardableResult
    func send(_ rest: String, sourceLocation: SourceLocation = #_sourceLocation) -> [CallbackResponse] {
        let url = rest.hasPrefix("vivapayclient://") || rest.contains("://") ? rest : base + rest
        return take(sim.receive(url, nowMs: now), sourceLocation)
    }

    @discardableResult
    func advance(by ms: Int64, sourceLocation: SourceLocation = #_sourceLocation) -> [CallbackResponse] {
        now += ms
        return take(sim.advance(toMs: now), sourceLocation)
    }

    @discardableResult
    func advance(to t: Int64, sourceLocation: SourceLocation = #_sourceLocation) -> [CallbackResponse] {
        now = t
        return take(sim.advance(toMs: now), sourceLocation)
    }

    private func take(_ urls: [String], _ loc: SourceLocation) -> [CallbackResponse] {
        transcript += urls
        return urls.compactMap { checked($0, sourceLocation: loc) }
    }

    /// Sends a sale at speed 0-like timing: sends, then advances past every stage.
    func completedSale(_ rest: String, sourceLocation: SourceLocation = #_sourceLocation) -> CallbackResponse? {
        var out = send(rest, sourceLocation: sourceLocation)
        var guardCount = 0
        while out.isEmpty, let due = sim.nextDueMs, guardCount < 10 {
            out += advance(to: due, sourceLocation: sourceLocation)
            guardCount += 1
        }
        #expect(out.count == 1, "expected one answer, got \(out.count)", sourceLocation: sourceLocation)
        return out.first
    }
}

/// Names of the fields, in order.
func names(_ r: CallbackResponse?) -> [String] { r?.fields.map(\.name) ?? [] }

func isDigits(_ s: String?, _ n: Int) -> Bool {
    guard let s else { return false }
    return s.utf8.count == n && s.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
}

let instant = SimulatorConfig(speed: 0)
