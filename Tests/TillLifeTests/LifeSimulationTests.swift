import Foundation
import Testing
import TillLife
import TillModel

// The virtual-clock simulation of payments' lives (`LifeSimulation`). CI runs seeds 1, 2, … until a million events
// have been handled. `TILL_LIFE_SEEDS=N` runs N seeds from `TILL_LIFE_FIRST` (default 1); a failure prints its
// seed and the smallest options that still fail, to replay with `TILL_LIFE_REPLAY="<seed> <payments> <manners> <faults>"`.
@Suite struct LifeSimulationTests {
    static let paymentsPerSeed = 150

    @Test func everyAnswerReachesItsPaymentOnAVirtualClock() throws {
        let env = ProcessInfo.processInfo.environment
        if let replay = env["TILL_LIFE_REPLAY"] {
            let options = try #require(LifeSimulation.Options(replay: replay), "TILL_LIFE_REPLAY: \(replay)")
            var sim = LifeSimulation(options)
            let failure = sim.run()
            #expect(failure == nil, "\(options): \(failure ?? "")")
            return
        }
        // Seeds from `first` on, until a million events have been handled (or `TILL_LIFE_SEEDS` seeds).
        let fixed = Int(env["TILL_LIFE_SEEDS"] ?? "")
        let first = UInt64(env["TILL_LIFE_FIRST"] ?? "") ?? 1
        let start = Date()
        var events = 0, payments = 0, queued = 0, retries = 0, seeds = 0, refunds = 0, captures = 0, preAuths = 0
        var seed = first
        while fixed.map({ seeds < $0 }) ?? (events < 1_000_000) {
            let options = LifeSimulation.Options.all(seed: seed, payments: Self.paymentsPerSeed)
            var sim = LifeSimulation(options)
            if let failure = sim.run() {
                let smallest = LifeSimulation.shrink(options)
                Issue.record("""
                    \(options) failed: \(failure)
                    smallest that still fails: \(smallest)
                    replay: TILL_LIFE_REPLAY="\(smallest.replay)" swift test --filter LifeSimulationTests
                    """)
                return
            }
            events += sim.events
            payments += sim.started
            queued += sim.queued
            retries += sim.retries
            refunds += sim.terminal.refunds.count
            captures += sim.terminal.captures.count
            preAuths += sim.terminal.ledger.values.filter { $0.action == .preAuth }.count
            seeds += 1
            seed += 1
        }
        let seconds = Date().timeIntervalSince(start)
        print("life simulation: \(seeds) seeds (\(first)…\(seed - 1)), \(payments) payments (\(preAuths) pre-auths the terminal read), \(refunds) refunds and \(captures) captures made, \(events) events in \(String(format: "%.1f", seconds)) s "
              + "(\(queued) scheduled events, \(retries) of them a cashier's retry)")
    }
}

extension LifeSimulation.Options {
    var replay: String {
        "\(seed) \(payments) \(manners.map { "\($0)" }.joined(separator: ",")) \(faults.sorted().map(\.rawValue).joined(separator: ","))"
    }

    init?(replay: String) {
        let parts = replay.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard parts.count >= 2, let seed = UInt64(parts[0]), let payments = Int(parts[1]) else { return nil }
        let names = parts.count > 2 ? parts[2].split(separator: ",").map(String.init) : []
        let manners = VirtualTerminal.Manner.allCases.filter { names.contains("\($0)") }
        let faults = parts.count > 3 ? Set(parts[3].split(separator: ",").compactMap { LifeSimulation.Fault(rawValue: String($0)) }) : []
        self.init(seed: seed, payments: payments, manners: manners.isEmpty ? [.onTime] : manners, faults: faults)
    }
}

extension LifeSimulation {
    static func fails(_ o: Options) -> Bool { var s = LifeSimulation(o); return s.run() != nil }

    /// The smallest options that still fail: fewer payments, then each manner and fault taken away while it still fails.
    static func shrink(_ failing: Options) -> Options {
        var o = failing
        var n = o.payments / 2
        while n >= 1 {
            var smaller = o
            smaller.payments = n
            if fails(smaller) { o = smaller; n = o.payments / 2 } else { break }
        }
        for m in o.manners where o.manners.count > 1 {
            var fewer = o
            fewer.manners.removeAll { $0 == m }
            if fails(fewer) { o = fewer }
        }
        for f in o.faults.sorted() {
            var fewer = o
            fewer.faults.remove(f)
            if fails(fewer) { o = fewer }
        }
        return o
    }
}
