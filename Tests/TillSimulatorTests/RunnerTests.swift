import Foundation
import Synchronization
import Testing
import TillProtocol
@testable import TillSimulator

final class Collected: Sendable {
    private let items = Mutex<[SimulatorOutput]>([])
    func add(_ o: SimulatorOutput) { items.withLock { $0.append(o) } }
    var all: [SimulatorOutput] { items.withLock { $0 } }
}

@Suite struct RunnerTests {
    @Test func theRunnerAnswersInOrderAndPersists() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/state.json"
        let got = Collected()
        let runner = try SimulatorRunner(config: SimulatorConfig(speed: 0), statePath: path)
        runner.start(onAnswer: { got.add($0) })
        runner.submit(base + "batch&command=open&batchName=r", tag: "b")
        runner.submit(base + "sale&amount=1000&clientTransactionId=r-1", tag: "s")
        runner.submit(base + "abort", tag: "a")
        runner.waitUntilIdle()
        runner.stop()
        let out = got.all
        #expect(out.map(\.tag) == ["b", "s", "a"])
        let decoded = out.compactMap { checked($0.url) }
        #expect(decoded.map(\.message) == ["Batch opened", "Transaction successful.", "(-55) NOTHING_TO_ABORT"])
        // A new runner on the same file meets the same terminal.
        let again = try SimulatorRunner(config: SimulatorConfig(speed: 0), statePath: path)
        #expect(again.state.transactions.count == 1)
        #expect(again.state.activeBatch?.name == "r")
        let got2 = Collected()
        again.start(onCallback: { url in got2.add(SimulatorOutput(url: url, tag: nil)) })
        again.submit(base + "transactionDetails&clientTransactionId=r-1")
        again.waitUntilIdle()
        again.stop()
        #expect(got2.all.first.flatMap { checked($0.url) }?.referenceNumber == "000001")
    }

    @Test func delayedAnswersKeepTheTagOfTheirRequest() throws {
        let got = Collected()
        let runner = try SimulatorRunner(config: SimulatorConfig(speed: 0.001), statePath: nil)
        runner.start(onAnswer: { got.add($0) })
        runner.submit(base + "sale&amount=777", tag: "slow")
        runner.submit(base + "batch&command=open", tag: "batch")
        runner.waitUntilIdle()
        runner.stop()
        #expect(Set(got.all.map(\.tag)) == ["slow", "batch"])
        #expect(got.all.first { $0.tag == "slow" }.flatMap { checked($0.url) }?.isApproved == true)
    }

    @Test func aCallbackMayStopTheRunner() throws {
        let runner = try SimulatorRunner(config: SimulatorConfig(speed: 0), statePath: nil)
        let stopped = DispatchSemaphore(value: 0)
        runner.start(onCallback: { _ in runner.stop(); stopped.signal() })
        runner.submit(base + "abort")
        stopped.wait()
        runner.stop()
        #expect(runner.state.transactions.isEmpty)
    }

    @Test func stopLeavesAPendingSaleInTheState() throws {
        let runner = try SimulatorRunner(config: SimulatorConfig(speed: 1, cardWaitMs: 3_600_000), statePath: nil)
        runner.start(onCallback: { _ in })
        runner.submit(base + "sale&amount=1000")
        let deadline = Date().addingTimeInterval(30)
        while runner.state.pending == nil && Date() < deadline { usleep(1000) }
        runner.stop()
        #expect(runner.state.pending?.stage == .waitingForCard)
        #expect(runner.nextDueMs != nil)
    }
}

extension RunnerTests {
    /// Found by an outside cashier: a second till started on the same simulator state while the first waited for its
    /// sale (2 of 7 tries) took the sale's approval (its runner found it due first), and the first till waited its
    /// 90 s for nothing. A transaction is answered by the process that sent it while that process lives.
    @Test func anotherProcessNeverAnswersThisOnesTransaction() throws {
        try requireBinary()
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/state.json"
        let config = SimulatorConfig(speed: 0.05)
        let first = try SimulatorRunner(config: config, statePath: path)
        first.start(onAnswer: { _ in })
        first.submit(base + "sale&amount=1000&clientTransactionId=mine", tag: "mine")
        let end = Date().addingTimeInterval(10)
        while first.state.pending == nil && Date() < end { usleep(1_000) }
        first.stop()   // the sale stays pending in the state, this process its owner
        #expect(first.state.pending?.owner == getpid())
        // Another process on the same state, past the sale's time: it does not answer it.
        let other = try SimProcess(["--stdio", "--state", path, "--speed", "0.05"])
        other.watchdog(30)
        usleep(1_500_000)
        other.closeInput()
        #expect(other.readToEnd().isEmpty, "another process answered this one's sale")
        // This process, started again, answers it.
        let got = Collected()
        let again = try SimulatorRunner(config: config, statePath: path)
        again.start(onAnswer: { got.add($0) })
        again.waitUntilIdle()
        again.stop()
        #expect(got.all.map(\.tag) == ["mine"] && got.all.first.flatMap { checked($0.url) }?.isApproved == true, "\(got.all)")
    }
}
