import Foundation
import Testing
import TillProtocol
import TillIO

/// The built binary: `swift build --product till` runs before `swift test` (scripts/test).
let tillBinary = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent(".build/debug/till").path

/// A running `till simulate` with pipes.
final class SimProcess {
    let process = Process()
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    private var buffer = [UInt8]()

    init(_ args: [String]) throws {
        process.executableURL = URL(fileURLWithPath: tillBinary)
        process.arguments = ["simulate"] + args
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
    }

    func send(_ line: String) { stdin.fileHandleForWriting.write(Data((line + "\n").utf8)) }
    func closeInput() { try? stdin.fileHandleForWriting.close() }

    /// The next line of stdout (nil at end of output).
    func readLine() -> String? {
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            let data = stdout.fileHandleForReading.availableData
            if data.isEmpty { return nil }
            buffer += data
        }
    }

    /// Everything left on stdout until the process closes it.
    func readToEnd() -> [String] {
        var lines: [String] = []
        while let l = readLine() { lines.append(l) }
        return lines
    }

    /// Kills the process if it is still running after `seconds` (a hung test fails instead of hanging).
    func watchdog(_ seconds: Double) {
        let p = process
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { if p.isRunning { p.terminate() } }
    }

    var log: String { String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
}

func requireBinary() throws {
    try #require(FileManager.default.isExecutableFile(atPath: tillBinary),
                 "build the binary first: swift build --product till (\(tillBinary))")
}

@Suite(.serialized) struct ProcessTests {
    @Test func stdioBridgeAnswersOneLinePerRequest() throws {
        try requireBinary()
        let p = try SimProcess(["--stdio", "--speed", "0", "--seed", "5"])
        p.watchdog(60)
        p.send(base + "batch&command=open&batchName=pipe")
        let open = try #require(p.readLine())
        #expect(checked(open)?.message == "Batch opened")
        p.send(base + "sale&amount=1200&tipAmount=200&clientTransactionId=pipe-1&ISV_clientSecret=TOPSECRET&ISV_clientId=c&ISV_amount=10")
        let sale = try #require(p.readLine())
        #expect(checked(sale)?.isApproved == true)
        p.send(base + "sale&amount=0")
        #expect(try #require(p.readLine()).contains("INVALID_AMOUNT"))
        p.send("garbage")                                     // no callback: no answer, nothing breaks
        p.send(base + "abort")
        #expect(checked(try #require(p.readLine()))?.message == "(-55) NOTHING_TO_ABORT")
        p.closeInput()
        #expect(p.readToEnd().isEmpty)
        p.process.waitUntilExit()
        #expect(p.process.terminationStatus == 0)
        let log = p.log
        #expect(log.contains("sale"))
        #expect(!log.contains("TOPSECRET") && !log.contains("SG23323424EXS3"))
    }

    @Test func stdioDeliversDelayedAnswersWhileReadingAndAtEndOfInput() throws {
        try requireBinary()
        let p = try SimProcess(["--stdio", "--speed", "1", "--card-wait-ms", "100", "--host-ms", "100"])
        p.watchdog(60)
        p.send(base + "sale&amount=1000&clientTransactionId=late-1")
        // stdin stays open: the delayed answer still arrives.
        let first = try #require(p.readLine())
        #expect(checked(first)?.clientTransactionId == "late-1")
        // Input ends while a sale waits for its card: the answer is delivered, then the process exits. The two lines
        // go in one write, so that 9.09 reaches the terminal while 20.00 still waits for its card (0.1 s) however
        // late this process is scheduled between two writes.
        p.send(base + "sale&amount=2000&clientTransactionId=late-2\n"
               + base + "sale&amount=909&clientTransactionId=never")   // 9.09 waits forever: not waited for
        p.closeInput()
        let rest = p.readToEnd()
        p.process.waitUntilExit()
        #expect(rest.count == 2)
        let decoded = rest.compactMap { checked($0) }
        #expect(decoded.contains { $0.message == "(-20) TRANSACTION_IN_PROGRESS" && $0.clientTransactionId == "never" })
        #expect(decoded.contains { $0.isApproved && $0.clientTransactionId == "late-2" })
        #expect(p.process.terminationStatus == 0)
    }

    @Test func stdioWithAStateFileContinuesAfterARestart() throws {
        try requireBinary()
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let a = try SimProcess(["--stdio", "--speed", "0", "--state", dir + "/s.json"])
        a.watchdog(60)
        a.send(base + "sale&amount=1000&clientTransactionId=kept")
        a.closeInput()
        #expect(a.readToEnd().count == 1)
        a.process.waitUntilExit()
        let b = try SimProcess(["--stdio", "--speed", "0", "--state", dir + "/s.json"])
        b.watchdog(60)
        b.send(base + "transactionDetails&clientTransactionId=kept")
        b.send(base + "sale&amount=500")
        b.closeInput()
        let out = b.readToEnd().compactMap { checked($0) }
        b.process.waitUntilExit()
        #expect(out.first?.message == "Transaction Details Fetched")
        #expect(out.last?.referenceNumber == "000002")
    }

    @Test func aGarbledStateFileIsAnErrorNotAFreshTerminal() throws {
        try requireBinary()
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try AtomicFile.write("{ not a terminal", to: dir + "/s.json")
        let p = try SimProcess(["--stdio", "--speed", "0", "--state", dir + "/s.json"])
        p.watchdog(60)
        p.closeInput()
        #expect(p.readToEnd().isEmpty)
        p.process.waitUntilExit()
        #expect(p.process.terminationStatus == 1)
        #expect(p.log.contains("cannot load the state file"))
        #expect(AtomicFile.read(dir + "/s.json") == "{ not a terminal")   // left as it was
    }

    @Test func rejectsBadOptions() throws {
        try requireBinary()
        let p = try SimProcess(["--speed", "0"])       // neither --stdio nor --dir
        p.closeInput()
        p.process.waitUntilExit()
        #expect(p.process.terminationStatus != 0)
    }
}

/// Writes a request the way the till does: hidden temp file, fsync, rename.
func dropRequest(_ dir: String, id: String, _ url: String) throws {
    try AtomicFile.write(url + "\n", to: dir + "/requests/" + id + ".url")
}

/// Waits (polling, up to `seconds`) for a response file; returns its one line.
func awaitResponse(_ dir: String, id: String, seconds: Double = 30) -> String? {
    let path = dir + "/responses/" + id + ".url"
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if let text = AtomicFile.read(path) { return text.trimmingCharacters(in: .newlines) }
        usleep(20_000)
    }
    return nil
}

func awaitGone(_ path: String, seconds: Double = 30) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end { if !Path.exists(path) { return true }; usleep(20_000) }
    return false
}

@Suite(.serialized) struct FolderProcessTests {
    @Test func folderModeTakesRequestsAndAnswersByTheirId() throws {
        try requireBinary()
        let dir = tempDir() + "/drop"          // does not exist yet: the simulator creates it
        defer { try? FileManager.default.removeItem(atPath: (dir as NSString).deletingLastPathComponent) }
        try Path.makeDirectories(dir + "/requests")
        try dropRequest(dir, id: "before-start", base + "sale&amount=700&clientTransactionId=early")
        let p = try SimProcess(["--dir", dir, "--speed", "0", "--state", dir + "/state.json"])
        p.watchdog(120)
        defer { if p.process.isRunning { p.process.terminate() }; p.process.waitUntilExit() }
        // A request that was there before the start is picked up by the first scan.
        let early = try #require(awaitResponse(dir, id: "before-start"))
        #expect(checked(early)?.clientTransactionId == "early")
        // One written while it runs is seen through inotify.
        try dropRequest(dir, id: "0002", base + "batch&command=open&batchName=folder")
        let batch = try #require(awaitResponse(dir, id: "0002"))
        #expect(checked(batch)?.batchName == "folder")
        // Taken requests are deleted; answers are whole single lines; no temp files stay behind.
        #expect(awaitGone(dir + "/requests/0002.url"))
        #expect(Path.list(dir + "/requests").isEmpty)
        #expect(Path.list(dir + "/responses") == ["0002.url", "before-start.url"])
        #expect(AtomicFile.read(dir + "/responses/0002.url")?.filter { $0 == "\n" }.count == 1)
        // A bad request with a callback is answered under its id too.
        try dropRequest(dir, id: "bad", base + "sale&amount=abc")
        #expect(awaitResponse(dir, id: "bad")?.contains("INVALID_AMOUNT") == true)
    }

    @Test func folderModeAbortAnswersUnderTheAbortsIdAndDelayedSalesUnderTheSalesId() throws {
        try requireBinary()
        let dir = tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let p = try SimProcess(["--dir", dir, "--speed", "1", "--card-wait-ms", "100", "--host-ms", "100", "--state", dir + "/s.json"])
        p.watchdog(120)
        defer { if p.process.isRunning { p.process.terminate() }; p.process.waitUntilExit() }
        #expect(awaitGone(dir + "/nothing") && awaitDir(dir + "/requests"))
        // Card never presented: waits (60 s) until the abort.
        try dropRequest(dir, id: "sale-1", base + "sale&amount=808&tipAmount=20&clientTransactionId=wait")
        #expect(awaitGone(dir + "/requests/sale-1.url"))
        try dropRequest(dir, id: "abort-1", base + "abort")
        let abort = try #require(awaitResponse(dir, id: "abort-1"))
        let r = checked(abort)
        #expect(r?.message == "(-57) ABORTED" && r?.clientTransactionId == "wait" && r?.tipAmount == Money(cents: 20))
        // A delayed sale answer uses the sale's id.
        try dropRequest(dir, id: "sale-2", base + "sale&amount=1500")
        let sale = try #require(awaitResponse(dir, id: "sale-2"))
        #expect(checked(sale)?.isApproved == true)
        #expect(!Path.exists(dir + "/responses/sale-1.url"))
        // A restarted simulator on the same state file meets the same terminal.
        p.process.terminate()
        p.process.waitUntilExit()
        let q = try SimProcess(["--dir", dir, "--speed", "0", "--state", dir + "/s.json"])
        q.watchdog(120)
        defer { if q.process.isRunning { q.process.terminate() }; q.process.waitUntilExit() }
        try dropRequest(dir, id: "details", base + "transactionDetails&clientTransactionId=wait")
        let d = checked(try #require(awaitResponse(dir, id: "details")))
        #expect(d?.message == "Transaction Details Fetched" && d?["transactionMessage"] == "(-57) ABORTED")
    }
}

func awaitDir(_ path: String, seconds: Double = 30) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end { if Path.exists(path) { return true }; usleep(20_000) }
    return false
}
