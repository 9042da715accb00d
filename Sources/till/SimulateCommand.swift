import ArgumentParser
import Foundation
import Synchronization
import TillIO
import TillProtocol
import TillSimulator

/// `till simulate`.
let simulatorCommands: [any ParsableCommand.Type] = [SimulateCommand.self]

/// Runs the built-in terminal simulator as a separate process: a pipe bridge or a file-drop folder.
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run the terminal simulator as a pipe bridge (--stdio) or on a file-drop folder (--dir).",
        discussion: """
        --stdio: one request URL a line on stdin, one callback URL a line on stdout. At end of input the \
        simulator still delivers the callbacks already scheduled (a sale waiting for its card or the host), \
        then exits; a transaction that never answers (amount 9.09) is not waited for.
        --dir DIR: requests arrive as DIR/requests/<id>.url (written atomically); each is claimed by renaming it \
        into DIR/claimed/ before it is read (a request the till withdrew first is never run), run, deleted, and \
        answered with DIR/responses/<id>.url. The folders must be this user's alone (chmod 700). Runs until killed.
        Scenarios by amount: 6.66 declined, 5.51 insufficient funds, 4.04 cardholder cancels, 7.77 slow host, \
        8.08 card never presented, 9.09 no answer ever, 13.13 crash after approval; anything else is approved.
        """
    )

    @Flag(name: .long, help: "Serve stdin/stdout: one request URL a line in, one callback URL a line out.")
    var stdio = false

    @Option(name: .long, help: "Serve a file-drop folder (requests/ and responses/ inside it).")
    var dir: String?

    @Option(name: .long, help: "Seed of the simulator's random choices.")
    var seed: UInt64 = 1

    @Option(name: .long, help: "Delay factor: 1 = real time, 0 = no delays.")
    var speed: Double = 1

    @Option(name: .customLong("card-wait-ms"), help: "Time until the card is read (ms, before --speed).")
    var cardWaitMs: Int = 3000

    @Option(name: .customLong("host-ms"), help: "Time the host takes (ms, before --speed).")
    var hostMs: Int = 1000

    @Option(name: .customLong("give-up-ms"), help: "The app gives up waiting for a card after this long (ms, before --speed).")
    var giveUpMs: Int = 60000

    @Option(name: .long, help: "The terminal's TID.")
    var tid: String = "16016684"

    @Option(name: .customLong("utc-offset-minutes"), help: "Offset of the transaction dates, in minutes.")
    var utcOffsetMinutes: Int = 0

    @Option(name: .long, help: "Keep the terminal's state in this file (JSON), so a restarted simulator continues.")
    var state: String?

    @Option(name: .customLong("abort-style"),
            help: ArgumentHelp("How an abort is answered: terminal (real terminals: action=ABORT, status=fail, (-57) ABORTED; the default), page (abort.txt: action=abort, status=success, aborted, then the sale's own answer), sale-only (no abort answer, only the sale's, aborted).",
                               valueName: AbortStyle.names))
    var abortStyle: AbortStyle = .terminal

    @Option(name: .customLong("decline-style"),
            help: ArgumentHelp("How a decline by the host (amount 6.66) reads: terminal ((-12) TRANSACTION_DECLINED_BY_SERVER; the default) or page (status=failed, Transaction declined by host.).",
                               valueName: DeclineStyle.names))
    var declineStyle: DeclineStyle = .terminal

    func validate() throws {
        if stdio == (dir != nil) { throw ValidationError("Give exactly one of --stdio or --dir DIR.") }
        if !(speed >= 0) || speed > SimulatorConfig.maximumSpeed {
            throw ValidationError("--speed must be from 0 (no delays) to \(Int(SimulatorConfig.maximumSpeed)) (delays 1000 times real time).")
        }
        if cardWaitMs < 0 || hostMs < 0 || giveUpMs < 0 { throw ValidationError("Delays cannot be negative.") }
    }

    var simulatorConfig: SimulatorConfig {
        SimulatorConfig(seed: seed, speed: speed, cardWaitMs: cardWaitMs, hostRoundTripMs: hostMs,
                        giveUpAfterMs: giveUpMs, tid: tid, utcOffsetMinutes: utcOffsetMinutes,
                        abortStyle: abortStyle, declineStyle: declineStyle)
    }

    func run() throws {
        signal(SIGPIPE, SIG_IGN)
        let runner: SimulatorRunner
        do { runner = try SimulatorRunner(config: simulatorConfig, statePath: state) } catch {
            SimLog.line("cannot load the state file: \(error)")
            throw ExitCode(1)
        }
        if let dir { try serveFolder(dir, runner: runner) } else { serveStdio(runner: runner) }
    }

    func serveStdio(runner: SimulatorRunner) {
        let out = LineWriter()
        runner.start(onAnswer: { answer in
            SimLog.answer(answer)
            out.write(answer.url)
        })
        var n = 0
        while let line = readLine(strippingNewline: true) {
            let trimmed = line.trimmingWhitespace()
            if trimmed.isEmpty { continue }
            n += 1
            let tag = String(n)
            SimLog.request(trimmed, tag: tag)
            runner.submit(trimmed, tag: tag)
        }
        runner.waitUntilIdle()
        runner.stop()
        if let e = runner.saveError { SimLog.line("could not save the state: \(e)") }
    }

    func serveFolder(_ dir: String, runner: SimulatorRunner) throws {
        let requests = dir + "/requests"
        let responses = dir + "/responses"
        let claimed = dir + "/claimed"
        do {
            for d in [requests, responses, claimed] { try Path.makeDirectories(d) }
        } catch {
            SimLog.line("\(error)")
            throw ExitCode(1)
        }
        // Whoever else can write here could plant a request (a charge): the folder must be this user's alone.
        for d in [dir, requests, responses, claimed] {
            if let problem = PrivateFolder.problem(d, allowLink: d == dir) {
                SimLog.line(problem)
                throw ExitCode(1)
            }
        }
        let watcher: DirectoryWatcher
        do { watcher = try DirectoryWatcher(directory: requests) } catch {
            SimLog.line("\(error)")
            throw ExitCode(1)
        }
        runner.start(onAnswer: { answer in
            SimLog.answer(answer)
            guard let id = answer.tag else { return }
            do { try AtomicFile.write(answer.url + "\n", to: responses + "/" + id + ".url") } catch {
                SimLog.line("cannot write the answer to \(id): \(error)")
            }
        })
        let left = Path.list(claimed).filter { !$0.hasPrefix(".") }
        if !left.isEmpty {
            SimLog.line("claimed/ holds \(left.count) request(s) an earlier run claimed and never ran; left as they are")
        }
        SimLog.line("serving \(dir) (requests/ in, claimed/ taken, responses/ out)")
        /// The claim contract: rename `requests/<id>.url` into `claimed/` BEFORE reading it. If till withdrew it first,
        /// the rename fails and the request is never run; once the rename succeeded, till can no longer withdraw it.
        func take(_ name: String) {
            guard name.hasSuffix(".url"), !name.hasPrefix("."), name.count > 4 else { return }
            let mine = claimed + "/" + name
            guard rename(requests + "/" + name, mine) == 0 else { return }   // withdrawn by till, or gone
            AtomicFile.syncDirectory(requests)
            AtomicFile.syncDirectory(claimed)
            let id = String(name.dropLast(4))
            defer { unlink(mine) }
            switch AtomicFile.readRegular(mine, limit: 64 * 1024) {
            case .text(let text):
                let line = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).first.map(String.init) ?? ""
                SimLog.request(line, tag: id)
                runner.submit(line, tag: id)
            case .notRegular(let what):
                SimLog.line("<- \(id) not run: the request is \(what), not a regular file")
            case .tooLarge(let size):
                SimLog.line("<- \(id) not run: the request is \(size) bytes")
            case .gone, .unreadable:
                SimLog.line("<- \(id) not run: the claimed request cannot be read")
            }
        }
        for name in Path.list(requests) { take(name) }
        while true {
            let names = watcher.wait(timeoutMs: 2000)
            if names.isEmpty {
                for name in Path.list(requests) { take(name) }   // nothing missed, even without an event
            } else {
                for name in names { take(name) }
            }
        }
    }
}

/// Writes whole lines to stdout, one at a time, flushed per line.
final class LineWriter: Sendable {
    /// Held while a line is written, so that lines never interleave.
    private let writing = Mutex(())
    func write(_ line: String) {
        writing.withLock { _ in writeLine(line) }
    }

    private func writeLine(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { Foundation.write(1, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; return }
            done += n
        }
    }
}

/// One short stderr line per request and answer; never a merchant key or ISV secret.
enum SimLog {
    static let writing = Mutex(())
    static func line(_ s: String) {
        writing.withLock { _ in StandardError.write("till simulate: " + s + "\n") }
    }
    static func request(_ url: String, tag: String) {
        guard let r = try? TerminalRequest.parse(url) else {
            line("<- \(tag) unreadable request (\(url.utf8.count) bytes)")
            return
        }
        var s = "<- \(tag) \(r.request.action.rawValue)"
        for (k, v) in r.request.fields where ["amount", "tipAmount", "clientTransactionId", "command", "batchName",
                                              "referenceNumber", "orderCode", "shortOrderCode"].contains(k) {
            s += " \(k)=\(v.prefix(40))"
        }
        line(s)
    }
    static func answer(_ a: SimulatorOutput) {
        guard let r = try? CallbackResponse.decode(a.url) else { line("-> \(a.tag ?? "-") \(a.url.prefix(80))"); return }
        line("-> \(a.tag ?? "-") \(r.rawAction ?? "") \(r.status) \(r.message ?? "")")
    }
}

extension AbortStyle: ExpressibleByArgument {}
extension DeclineStyle: ExpressibleByArgument {}
