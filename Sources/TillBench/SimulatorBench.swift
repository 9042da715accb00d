import TillProtocol
import TillSimulator
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
}
