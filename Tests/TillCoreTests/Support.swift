import Foundation
import Testing
@testable import TillCore
import TillIO
import TillProtocol
import TillSimulator
import TillSimulatorTransport

/// A fresh folder under /tmp, removed by `cleanup()`.
struct TempDir {
    let path: String
    init(_ label: String = "till-core") {
        var template = Array("/tmp/\(label)-XXXXXX".utf8CString)
        let p = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = String(cString: p!)
    }
    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

/// The `till` binary built by `swift build --product till` (the test script builds it first).
let tillBinary: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }   // Tests/TillCoreTests/Support.swift -> package root
    return url.path + "/.build/debug/till"
}()

let testCaller = Caller(callback: "interapp-callback", merchantKey: "MK-test-key-0042", appId: "com.example.till.tests")

/// A child process (the simulator, or till itself), stopped by `stop()`.
final class Child: @unchecked Sendable {
    let process = Process()
    let stdoutPipe = Pipe()
    init(_ args: [String], environment: [String: String] = [:], stdin: Pipe? = nil) throws {
        process.executableURL = URL(fileURLWithPath: tillBinary)
        process.arguments = args
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardOutput = stdoutPipe
        process.standardError = FileHandle.nullDevice
        if let stdin { process.standardInput = stdin }
        try process.run()
    }
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
    /// Waits for the process to end; returns its status and whether a signal ended it.
    func wait() -> (status: Int32, signalled: Bool) {
        let out = stdoutPipe.fileHandleForReading.readDataToEndOfFile()
        _ = out
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason == .uncaughtSignal)
    }
}

/// Runs `till ARGS` to the end; returns (status, stdout).
func runTill(_ args: [String], environment: [String: String] = [:]) throws -> (status: Int32, signalled: Bool, output: String) {
    let r = try runTillCapturing(args, environment: environment)
    return (r.status, r.signalled, r.output)
}

/// `runTill` off the cooperative thread pool (so a test waiting for a child never starves the controller's timers).
func runTill(_ args: [String], environment: [String: String] = [:]) async throws -> (status: Int32, signalled: Bool, output: String) {
    let r = try await runTillCapturing(args, environment: environment)
    return (r.status, r.signalled, r.output)
}

func runTillCapturing(_ args: [String], environment: [String: String] = [:]) async throws -> (status: Int32, signalled: Bool, output: String, errors: String) {
    try await withCheckedThrowingContinuation { c in
        DispatchQueue.global().async {
            do { c.resume(returning: try runTillCapturing(args, environment: environment)) } catch { c.resume(throwing: error) }
        }
    }
}

/// As `runTill`, with standard error too.
func runTillCapturing(_ args: [String], environment: [String: String] = [:]) throws -> (status: Int32, signalled: Bool, output: String, errors: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: tillBinary)
    p.arguments = args
    var env = ProcessInfo.processInfo.environment
    env["XDG_CONFIG_HOME"] = "/nonexistent-till-config"
    for (k, v) in environment { env[k] = v }
    p.environment = env
    let out = Pipe()
    p.standardOutput = out
    let errPath = "/tmp/till-test-stderr-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    _ = FileManager.default.createFile(atPath: errPath, contents: nil)
    defer { unlink(errPath) }
    p.standardError = FileHandle(forWritingAtPath: errPath)
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, p.terminationReason == .uncaughtSignal, String(decoding: data, as: UTF8.self),
            AtomicFile.read(errPath) ?? "")
}

/// Collects controller events in the background.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [ControllerEvent] = []
    private var task: Task<Void, Never>?
    init(_ controller: TillController) {
        let stream = controller.events()
        task = Task { [weak self] in
            for await e in stream { self?.append(e) }
        }
    }
    private func append(_ e: ControllerEvent) { lock.lock(); events.append(e); lock.unlock() }
    var all: [ControllerEvent] { lock.lock(); defer { lock.unlock() }; return events }
    var problems: [String] { all.compactMap { if case .transportProblem(let p) = $0 { return p }; return nil } }
    var rejected: [(String, String)] { all.compactMap { if case .rejectedAnswer(let f, let r) = $0 { return (f, r) }; return nil } }
    var unmatched: [String] { all.compactMap { if case .unmatchedAnswer(_, let n) = $0 { return n }; return nil } }
}

func sale(_ amount: Int, ctid: String? = nil, tip: Int? = nil) -> Request {
    .sale(SaleRequest(amount: Money(cents: amount), tipAmount: tip.map(Money.init(cents:)), clientTransactionId: ctid))
}

/// A controller on the in-process simulator with its own journal, started.
/// A controller on `transport` with its journal at `dir/j.sqlite`, started, and a log of its events that listened from
/// before the start (so it holds what start-up said too).
func startController(_ dir: TempDir, _ transport: any Transport, timeoutMs: Int64) async throws -> (TillController, EventLog) {
    let c = TillController(transport: transport, journal: try Journal(path: dir.path + "/j.sqlite"), caller: testCaller, timeoutMs: timeoutMs)
    let log = EventLog(c)
    try await c.start()
    return (c, log)
}

/// `startController` on a file-drop transport in `dir/drop`; the third value is that folder.
func startFileDropController(_ dir: TempDir, timeoutMs: Int64) async throws -> (TillController, EventLog, String) {
    let drop = dir.path + "/drop"
    let (c, log) = try await startController(dir, FileDropTransport(directory: drop), timeoutMs: timeoutMs)
    return (c, log, drop)
}

/// The requests till has dropped in `drop` and no peer has claimed yet (not the hidden files being written).
func requestFiles(_ drop: String) -> [String] { Path.list(drop + "/requests").filter { !$0.hasPrefix(".") } }

/// Both waits default to a minute: a test that needs an answer must get it on a loaded machine, where a timer can fire
/// before an answer already on its way is handled. A test whose subject is the timeout passes a short one.
func simulatorController(_ dir: TempDir, config: SimulatorConfig = SimulatorConfig(speed: 0), timeoutMs: Int64 = 60_000,
                         abortWaitMs: Int64 = 60_000) async throws -> TillController {
    let journal = try Journal(path: dir.path + "/journal.sqlite")
    let transport = SimulatorTransport(config: config, statePath: dir.path + "/simulator-state.json")
    let c = TillController(transport: transport, journal: journal, caller: testCaller, timeoutMs: timeoutMs, abortWaitMs: abortWaitMs)
    try await c.start()
    return c
}

/// Async form of `eventually`.
func eventuallyAsync(_ limitSeconds: Double = 20, _ condition: () async -> Bool) async -> Bool {
    let end = Date().addingTimeInterval(limitSeconds)
    while Date() < end {
        if await condition() { return true }
        try? await Task.sleep(nanoseconds: 20_000_000)
    }
    return await condition()
}

extension Journal {
    /// The running report of a batch's entries (nil or "": those outside any batch), from the summary rows every report
    /// reads.
    func running(batchId: String?) throws -> Report {
        Report(kind: .running, batch: nil, generatedAtMs: 0, buckets: try reportBuckets(batchId: batchId))
    }
}

extension TillController {
    /// The running report of the open batch (none open: of the entries outside any batch).
    func running() async throws -> Report { try journal.running(batchId: try journal.batch().id) }
}
