import TillProtocol
import TillSimulator
import TillIO
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// CPU time of this thread in seconds (less disturbed than the wall clock on a shared machine).
private func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// The simulator benchmarks: see BENCHMARKS.md (`swift run -c release TillBench simulator`).
func simulatorBench() async throws {
    let base = "vivapayclient://pay/v1?callback=interapp-callback&merchantKey=SG23323424EXS3&appId=com.example.till&action="
    let clock = ContinuousClock()

    func measure(_ name: String, count: Int, _ body: (TerminalSimulator, Int) -> Int) {
        var best = Double.infinity
        var bestCPU = Double.infinity
        var answers = 0
        for _ in 0..<3 {
            let sim = TerminalSimulator(config: SimulatorConfig(seed: 42, speed: 0))
            let start = clock.now
            let cpu0 = threadCPUSeconds()
            answers = body(sim, count)
            let cpu = threadCPUSeconds() - cpu0
            let d = clock.now - start
            let seconds = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
            best = min(best, seconds)
            bestCPU = min(bestCPU, cpu)
        }
        func f(_ x: Double) -> String { String(Int(x * 1000)) + " ms" }
        print("  \(name): \(count) in \(f(best)) wall = \(Int(Double(count) / best)) per second; "
              + "\(f(bestCPU)) CPU = \(Int(Double(count) / bestCPU)) per CPU-second "
              + "(best of 3; \(answers) answers)")
    }

    // Plain approved sales, each with its own client transaction id, clock ticking 1 s per sale.
    let n = 200_000
    let sales = (0..<n).map { base + "sale&amount=\(2000 + $0 % 5000)&tipAmount=\($0 % 50)&clientTransactionId=bench-\($0)" }
    measure("approved sales, speed 0", count: n) { sim, count in
        var answers = 0
        var now: Int64 = 1_795_000_000_000
        for i in 0..<count {
            answers += sim.receive(sales[i], nowMs: now).count
            now += 1000
        }
        return answers
    }

    // A mix: sale, partial refund of it, batch open every 100, details lookup.
    let mix = 50_000
    measure("mixed (sale + refund + details, batch every 100), speed 0", count: mix) { sim, count in
        var answers = 0
        var now: Int64 = 1_795_000_000_000
        for i in 0..<count {
            if i % 100 == 0 { answers += sim.receive(base + "batch&command=open", nowMs: now).count }
            answers += sim.receive(sales[i], nowMs: now).count
            answers += sim.receive(base + "cancel&amount=50", nowMs: now).count
            answers += sim.receive(base + "transactionDetails&clientTransactionId=bench-\(i)", nowMs: now).count
            now += 1000
        }
        return answers
    }

    try persistedSales()
}

/// A sale and its save to the state file, with N past transactions (`TILL_BENCH_SIM_HISTORY=1000,100000` by default):
/// the state file as a log (`TerminalSimulator.save(to:)` appends what changed) against the former save, which
/// rewrote the whole state as one JSON object (`AtomicFile.write` of the sorted-keys encoding) after every answer.
private func persistedSales() throws {
    let base = "vivapayclient://pay/v1?callback=interapp-callback&merchantKey=SG23323424EXS3&appId=com.example.till&action="
    let sizes = (ProcessInfo.processInfo.environment["TILL_BENCH_SIM_HISTORY"] ?? "1000,100000").split(separator: ",").compactMap { Int($0) }
    let dir = NSTemporaryDirectory() + "till-bench-sim-\(getpid())"
    try Path.makeDirectories(dir)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let clock = ContinuousClock()
    func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }
    func size(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? -1
    }
    for n in sizes {
        let sim = TerminalSimulator(config: SimulatorConfig(seed: 42, speed: 0))
        var now: Int64 = 1_795_000_000_000
        for i in 0..<n {
            _ = sim.receive(base + "sale&amount=\(2000 + i % 5000)&clientTransactionId=past-\(i)", nowMs: now)
            now += 1000
        }
        func sale() { _ = sim.receive(base + "sale&amount=1500", nowMs: now); now += 1000 }

        // The former save: the whole state, encoded and written atomically.
        let former = dir + "/former-\(n).json"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let formerRuns = n >= 50_000 ? 3 : 20
        var formerTimes: [Double] = []
        for _ in 0..<formerRuns {
            let t0 = clock.now
            sale()
            try AtomicFile.write(String(decoding: try encoder.encode(sim.state), as: UTF8.self) + "\n", to: former)
            formerTimes.append(ms(clock.now - t0))
        }
        let formerBytes = size(former)
        try? FileManager.default.removeItem(atPath: former)

        // The log: written whole once, then every sale appends.
        let log = dir + "/log-\(n).json"
        try sim.save(to: log)
        let start = size(log)
        let logRuns = 200
        var logTimes: [Double] = [], saveTimes: [Double] = []
        for _ in 0..<logRuns {
            let t0 = clock.now
            sale()
            let t1 = clock.now
            try sim.save(to: log)
            let t2 = clock.now
            logTimes.append(ms(t2 - t0)); saveTimes.append(ms(t2 - t1))
        }
        let perSale = (size(log) - start) / Int64(logRuns)
        let t1 = clock.now
        _ = try TerminalSimulator.loadState(from: log)
        let loadMs = ms(clock.now - t1)
        try? FileManager.default.removeItem(atPath: log)
        func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
        print(String(format: "  persisted sale, %ld past transactions: former whole rewrite %.2f ms (median of %ld; %lld bytes written per sale); "
                     + "log %.3f ms, of which the save %.3f ms (median of %ld; %lld bytes appended per sale); load of the log %.0f ms",
                     n, median(formerTimes), formerRuns, formerBytes, median(logTimes), median(saveTimes), logRuns, perSale, loadMs))
    }
}
