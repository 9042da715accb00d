import Foundation
import Testing
import TillTestSupport
import TillProtocol
import TillIO
@testable import TillSimulator

func tempDir() -> String {
    let d = NSTemporaryDirectory() + "till-sim-tests-" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
    return d
}

/// A script of (time offset, request) exercising every action.
let script: [(Int64, String)] = [
    (0, "batch&command=open&batchName=morning"),
    (1_000, "sale&amount=1200&tipAmount=200&clientTransactionId=s-1"),
    (2_000, "abort"),                                   // while waiting for the card
    (10_000, "sale&amount=2500&clientTransactionId=s-2"),
    (13_500, "abort"),                                  // card read: no abort answer
    (20_000, "pre_auth&amount=8000&clientTransactionId=p-1"),
    (30_000, "capture_pre_auth&amount=6000&referenceNumber=000002"),
    (40_000, "cancel&amount=500&referenceNumber=000001"),
    (41_000, "sale&amount=666&clientTransactionId=s-3"),
    (50_000, "sale&amount=551"),
    (60_000, "sale&amount=404"),
    (70_000, "sale&amount=777&withInstallments=true&preferredInstallments=3"),
    (71_000, "sale&amount=100"),                        // in progress
    (100_000, "sale&amount=808&clientTransactionId=s-4"),
    (170_000, "sale&amount=1313&clientTransactionId=s-5"),
    (180_000, "transactionDetails&clientTransactionId=s-5"),
    (181_000, "sale&amount=1313&clientTransactionId=s-5"),
    (182_000, "transactionDetails&clientTransactionId=none"),
    (183_000, "batch&command=close"),
    (184_000, "batch&command=close&batchName=morning"),
    (185_000, "sale&amount=909&clientTransactionId=s-6"),
    (200_000, "abort"),
    (201_000, "abort"),
    (202_000, "sale&amount=0"),
    (203_000, "cancel&referenceNumber=000003"),
    (204_000, "cancel&orderCode=0000000000"),
]

/// Runs the script on `h` from index `range`, advancing between requests; returns the transcript.
func run(_ h: Harness, _ range: Range<Int>) {
    for i in range {
        let (at, rest) = script[i]
        _ = h.advance(to: T0 + at)
        _ = h.send(rest)
    }
}

@Suite struct DeterminismTests {
    @Test func sameSeedSameRequestsSameTimesSameAnswers() {
        let a = Harness(realTime), b = Harness(realTime)
        run(a, 0..<script.count); _ = a.advance(by: hour)
        run(b, 0..<script.count); _ = b.advance(by: hour)
        #expect(a.transcript == b.transcript)
        #expect(a.transcript.count > 20)
        #expect(a.sim.state == b.sim.state)
    }

    @Test func anotherSeedGivesOtherCards() {
        let a = Harness(SimulatorConfig(seed: 1, speed: 0)), b = Harness(SimulatorConfig(seed: 2, speed: 0))
        for _ in 0..<5 { _ = a.send("sale&amount=100"); _ = b.send("sale&amount=100") }
        #expect(a.transcript != b.transcript)
    }

    @Test func cardTypesAndMethodsVary() {
        let h = Harness(instant)
        var types = Set<String>(), methods = Set<String>()
        for _ in 0..<200 {
            if let r = h.send("sale&amount=100").first { types.insert(r.cardType ?? ""); methods.insert(r.verificationMethod ?? "") }
        }
        #expect(types == ["VISA", "Debit Mastercard", "Visa Credit", "Maestro"])
        #expect(methods == ["CHIP", "CONTACTLESS", "MAGNETIC", "MANUAL ENTRY"])
        #expect(Set(h.sim.state.transactions.map(\.shortOrderCode)).count == 200)
        #expect(Set(h.sim.state.transactions.map(\.transactionId)).count == 200)
    }

    @Test func transactionDatesNeverGoBackWithinOneMillisecond() {
        let h = Harness(instant)
        for _ in 0..<50 { _ = h.send("sale&amount=100") }
        let instants = h.sim.state.transactions.map(\.instant)
        #expect(zip(instants, instants.dropFirst()).allSatisfy { $0 < $1 })
        #expect(instants.allSatisfy { $0 / 10_000 == T0 })
    }

    @Test func stanWrapsAfter999999() {
        var s = SimulatorState()
        s.nextStan = 999_999
        let h = Harness(instant, state: s)
        #expect(h.send("sale&amount=100").first?.referenceNumber == "999999")
        #expect(h.send("sale&amount=100").first?.referenceNumber == "000001")
    }
}

@Suite struct PersistenceTests {
    @Test func saveLoadAndContinueGivesTheSameAnswersAsNoRestart() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/state.json"
        let whole = Harness(realTime)
        run(whole, 0..<script.count); _ = whole.advance(by: hour)

        for cut in [1, 2, 5, 13, 14, 21] {
            let first = Harness(realTime)
            run(first, 0..<cut)
            try first.sim.save(to: path)
            let loaded = try #require(try TerminalSimulator.loadState(from: path))
            #expect(loaded == first.sim.state)
            let second = Harness(realTime, state: loaded, now: first.now)
            run(second, cut..<script.count); _ = second.advance(by: hour)
            #expect(first.transcript + second.transcript == whole.transcript, "cut at \(cut)")
            #expect(second.sim.state == whole.sim.state)
        }
    }

    @Test func aSaleInProgressSurvivesARestart() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/state.json"
        let a = Harness(realTime)
        _ = a.send("sale&amount=1000&clientTransactionId=keep")
        try a.sim.save(to: path)
        let b = Harness(realTime, state: try #require(try TerminalSimulator.loadState(from: path)))
        #expect(b.sim.nextDueMs == T0 + 3000)
        let out = b.advance(to: T0 + 4000)
        #expect(out.first?.clientTransactionId == "keep" && out.first?.isApproved == true)
    }

    @Test func loadOfAMissingFileIsNil() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try TerminalSimulator.loadState(from: dir + "/nothing.json") == nil)
    }

    @Test func loadOfAGarbledFileThrows() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try AtomicFile.write("{not json", to: dir + "/s.json")
        #expect(throws: (any Error).self) { try TerminalSimulator.loadState(from: dir + "/s.json") }
    }

    @Test func saveLeavesNoTempFiles() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let h = Harness(instant)
        _ = h.send("sale&amount=100")
        try h.sim.save(to: dir + "/state.json")
        try h.sim.save(to: dir + "/state.json")
        #expect(Path.list(dir) == ["state.json"])
    }

    @Test func theSeedOfALoadedStateIsItsOwn() throws {
        // The random state travels with the saved state; a different config seed does not reset it.
        let a = Harness(SimulatorConfig(seed: 7, speed: 0))
        _ = a.send("sale&amount=100")
        let b = Harness(SimulatorConfig(seed: 7, speed: 0), state: a.sim.state)
        let c = Harness(SimulatorConfig(seed: 8, speed: 0), state: a.sim.state)
        #expect(b.send("sale&amount=100").first?.accountNumber == c.send("sale&amount=100").first?.accountNumber)
    }
}

@Suite struct DecodingTests {
    /// Every answer of a script that touches every action and scenario decodes with no warning (abort answers:
    /// only the decoder's note on the real terminals' `action=ABORT`) and rebuilds to the same text.
    @Test func everyAnswerDecodesCleanlyAndRoundTrips() throws {
        let h = Harness(SimulatorConfig(seed: 99, speed: 1, utcOffsetMinutes: -150))
        run(h, 0..<script.count)
        _ = h.advance(by: hour)
        #expect(h.transcript.count == 22)
        var aborts = 0
        for url in h.transcript {
            let r = try CallbackResponse.decode(url)
            if r.rawAction == "ABORT" {
                aborts += 1
                #expect(r.warnings.isEmpty)
                #expect(r.action == .abort)
            } else {
                #expect(r.warnings.isEmpty, "\(r.warnings) in \(url)")
            }
            #expect(CallbackResponse.url(callback: r.target, fields: r.fields.map { ($0.name, $0.value) }) == url)
            #expect(r.messageCode != nil || ["Transaction successful.", "Batch opened", "Batch closed",
                                             "Transaction Details Fetched"].contains(r.message ?? ""))
            if let d = r["transactionDate"] { #expect(d.hasSuffix("-02:30")) }
        }
        #expect(aborts == 3)
    }
}

@Suite struct GoldenTests {
    static let goldenPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("golden-transcript.txt").path

    /// A fixed seed and script give a fixed transcript, byte for byte.
    /// Regenerate (after a deliberate change) with `UPDATE_GOLDEN=1 swift test --filter GoldenTests`.
    @Test func theScriptGivesTheCommittedTranscript() throws {
        let h = Harness(SimulatorConfig(seed: 20_261_122, speed: 1, utcOffsetMinutes: 120))
        run(h, 0..<script.count)
        _ = h.advance(by: hour)
        let text = h.transcript.joined(separator: "\n") + "\n"
        if let problem = GoldenFile.compare(text, withFileAt: Self.goldenPath) { Issue.record("transcript: \(problem)") }
        #expect(h.transcript.count == 22)
    }
}
