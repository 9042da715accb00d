import Foundation
import Testing
import TillIO
@testable import TillSimulator
#if canImport(Glibc)
import Glibc
#endif

private func inode(_ path: String) -> UInt64? {
    var st = stat()
    return stat(path, &st) == 0 ? UInt64(st.st_ino) : nil
}

private func size(_ path: String) -> Int64 {
    var st = stat()
    return stat(path, &st) == 0 ? Int64(st.st_size) : -1
}

private func bytes(_ path: String) -> [UInt8] { Array(FileManager.default.contents(atPath: path) ?? Data()) }

/// The state file is a log: a save appends what changed, so its cost does not grow with the history.
@Suite struct StateLogTests {
    @Test func aSaleAppendsABoundedLineWhateverTheHistory() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/state.json"
        let sim = TerminalSimulator(config: instant)
        var now = T0
        for i in 0..<10_000 {
            _ = sim.receive(base + "sale&amount=\(100 + i % 500)&clientTransactionId=h-\(i)", nowMs: now)
            now += 1000
        }
        try sim.save(to: path)
        let history = size(path)
        #expect(history > 10_000 * 500)
        let head = Array(bytes(path).prefix(4096))
        let file = inode(path)
        for k in 0..<5 {
            let before = size(path)
            let out = sim.receive(base + "sale&amount=1000&clientTransactionId=new-\(k)", nowMs: now)
            now += 1000
            #expect(checked(out.first ?? "")?.isApproved == true)
            try sim.save(to: path)
            let grown = size(path) - before
            // One line: the small state and the one new transaction (about 1.5 KB), not the 10,000 before it.
            #expect(grown > 0 && grown < 4096, "a sale wrote \(grown) bytes")
        }
        // A refund of the first sale writes that sale again and the refund, nothing else.
        let before = size(path)
        _ = sim.receive(base + "cancel&amount=50&referenceNumber=000001", nowMs: now)
        try sim.save(to: path)
        #expect(size(path) - before < 8192)
        #expect(inode(path) == file)                       // written in place, never rewritten
        #expect(Array(bytes(path).prefix(4096)) == head)
        let loaded = try #require(try TerminalSimulator.loadState(from: path))
        #expect(loaded == sim.state)
        #expect(loaded.transactions[0].remaining == sim.state.transactions[0].remaining)
        #expect(sim.state.transactions[0].remaining == 100 - 50)
    }

    @Test func twoRunnersOnOneFileNeverRepeatAStanAndSeeEachOthersTransactions() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/state.json"
        let a = try SimulatorRunner(config: SimulatorConfig(speed: 0), statePath: path)
        let b = try SimulatorRunner(config: SimulatorConfig(speed: 0), statePath: path)
        let gotA = Collected(), gotB = Collected()
        a.start(onAnswer: { gotA.add($0) })
        b.start(onAnswer: { gotB.add($0) })
        defer { a.stop(); b.stop() }
        for i in 0..<20 {
            a.submit(base + "sale&amount=\(1000 + i)&clientTransactionId=a-\(i)")
            b.submit(base + "sale&amount=\(2000 + i)&clientTransactionId=b-\(i)")
        }
        a.waitUntilIdle(); b.waitUntilIdle()
        let answers = (gotA.all + gotB.all).compactMap { checked($0.url) }
        #expect(answers.count == 40 && answers.allSatisfy(\.isApproved))
        let stans = answers.compactMap(\.referenceNumber)
        #expect(Set(stans).count == 40)
        #expect(Set(answers.compactMap(\.shortOrderCode)).count == 40)
        #expect(a.saveError == nil && b.saveError == nil)

        // B refunds a sale A made, by its STAN; A then sees the refund and what is left of its sale.
        let saleOfA = try #require(gotA.all.first.flatMap { checked($0.url) })
        let stanOfA = try #require(saleOfA.referenceNumber)
        b.submit(base + "cancel&amount=100&referenceNumber=\(stanOfA)")
        b.waitUntilIdle()
        let refund = try #require(gotB.all.last.flatMap { checked($0.url) })
        #expect(refund.isApproved && refund.action == .cancel)
        a.submit(base + "transactionDetails&clientTransactionId=b-0")
        a.waitUntilIdle()
        #expect(gotA.all.last.flatMap { checked($0.url) }?.message == "Transaction Details Fetched")
        let seenByA = a.state
        #expect(seenByA.transactions.count == 41)
        let original = try #require(seenByA.transactions.first { $0.referenceNumber == stanOfA })
        #expect(original.remaining == 1000 - 100)
        #expect(seenByA.transactions.last?.originalTransactionId == original.transactionId)
        // A fresh load of the file is the terminal both see.
        #expect(try TerminalSimulator.loadState(from: path) == seenByA)
    }

    @Test func aStateFileOfTheFormerFormatLoadsAndGoesOn() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/state.json"
        let h = Harness(instant)
        _ = h.send("batch&command=open&batchName=old")
        for i in 0..<5 { _ = h.send("sale&amount=\(1000 + i)&clientTransactionId=o-\(i)") }
        _ = h.send("cancel&amount=100&referenceNumber=000002")
        _ = h.send("batch&command=close")
        // The former format: the whole state as one JSON object, rewritten at every save.
        let old = try StateCoding.encode(h.sim.state)
        try AtomicFile.write(old, to: path)
        #expect(try TerminalSimulator.loadState(from: path) == h.sim.state)
        // Without its final newline too.
        try AtomicFile.write(String(old.dropLast()), to: path)
        #expect(try TerminalSimulator.loadState(from: path) == h.sim.state)
        try AtomicFile.write(old, to: path)

        let runner = try SimulatorRunner(config: instant, statePath: path)
        #expect(runner.state == h.sim.state)
        let got = Collected()
        runner.start(onAnswer: { got.add($0) })
        runner.submit(base + "sale&amount=700&clientTransactionId=o-new")
        runner.submit(base + "cancel&amount=50&referenceNumber=000003")
        runner.waitUntilIdle()
        runner.stop()
        #expect(got.all.compactMap { checked($0.url) }.map(\.isApproved) == [true, true])
        #expect(String(decoding: bytes(path), as: UTF8.self).hasPrefix(old))   // appended after the old object
        let again = try #require(try TerminalSimulator.loadState(from: path))
        #expect(again == runner.state)
        #expect(again.transactions.count == 8 && again.closedBatches.count == 1)
    }

    @Test func aCutShortLastLineIsLeftOutAndWrittenOver() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/state.json"
        let h = Harness(instant)
        _ = h.send("sale&amount=1000&clientTransactionId=c-1")
        try h.sim.save(to: path)
        let saved = h.sim.state
        _ = h.send("sale&amount=2000&clientTransactionId=c-2")
        try h.sim.save(to: path)
        let whole = size(path)
        // A crash in the middle of the second save's line.
        #expect(truncate(path, off_t(whole - 40)) == 0)
        let loaded = try #require(try TerminalSimulator.loadState(from: path))
        #expect(loaded == saved)
        #expect(loaded.transaction(clientTransactionId: "c-2") == nil)
        // The next save writes over the cut line.
        let h2 = Harness(instant, state: loaded)
        _ = h2.send("sale&amount=3000&clientTransactionId=c-3")
        try h2.sim.save(to: path)
        let after = try #require(try TerminalSimulator.loadState(from: path))
        #expect(after == h2.sim.state && after.transactions.count == 2)

        // A damaged line before the last is an error, not a shorter history.
        var text = bytes(path)
        let firstNewline = try #require(text.firstIndex(of: 0x0A))
        text[firstNewline / 2] = UInt8(ascii: "#")
        try AtomicFile.write(String(decoding: text, as: UTF8.self), to: path)
        #expect(throws: StateFileError.self) { try TerminalSimulator.loadState(from: path) }
    }

    @Test func aLogFarLongerThanItsStateIsRewrittenWhole() throws {
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/state.json"
        let h = Harness(instant)
        for i in 0..<3 {
            _ = h.send("sale&amount=\(1000 + i)")
            try h.sim.save(to: path)
        }
        _ = h.send("cancel&amount=10&referenceNumber=000001")
        try h.sim.save(to: path)
        var state = try #require(try TerminalSimulator.loadState(from: path))
        #expect(state.log.lines == 4)
        try StateLog.compactIfBloated(&state, path)
        #expect(state.log.lines == 4)                      // not yet
        let file = inode(path)
        state.log.lines = 2_000
        try StateLog.compactIfBloated(&state, path)
        #expect(inode(path) != file && state.log.lines == 1)
        #expect(try TerminalSimulator.loadState(from: path) == h.sim.state)
        #expect(Path.list(dir) == ["state.json"])
    }
}
