import Foundation
import Synchronization
import TillIO
import TillProtocol
#if canImport(Glibc)
import Glibc
#endif

/// The pipe transport: till starts the bridge (`/bin/sh -c COMMAND`, in a process group of its own, with an
/// allow-listed environment: `bridgeVariables`), writes each request URL as one line to its standard input and reads callback URLs,
/// one a line (at most 64 KiB), from its standard output.
///
/// A request counts as handed over once the bridge has read it from the pipe: `send` watches the pipe drain (or the
/// bridge end) for up to `handoverGraceMs`. A bridge that ends without having read it never saw it: `notSent`
/// ("not found" for exit 127). One that read it and then ended may have acted on it: `lost`, the outcome unknown.
/// A bridge that exits is reported and started again for the next request; one that does not answer before till
/// gives up (the timeout) is stopped and started again. Neither takes till down.
public final class PipeTransport: Transport, @unchecked Sendable {
    public let command: String
    /// The bridge's program name: all of its command that till journals, prints or shows (entry notes, `till export`,
    /// the outbox pushed to the store, the screen). The command line carries the bridge's settings
    /// (`BRIDGE_TOKEN=… bridge --key …`, as the README says to pass them), secrets as often as not.
    public let programName: String
    /// Where the bridge's standard error goes (nil: /dev/null, so it cannot scribble over the full-screen UI).
    public let stderrPath: String?
    /// Where this till notes which bridge it runs (`<records>.<till pid>`: the till's and the bridge's start times and
    /// the bridge's process group), so that the next start can stop a bridge its till left running when it was killed
    /// (`stopOrphanedBridges`). Nil: not noted (a transport with no journal beside it).
    public let records: String?
    public var description: String { "pipe:" + programName }

    /// The longest line read from the bridge; a longer one is dropped (reported once) up to its newline.
    public static let lineLimit = 64 * 1024
    /// How long `send` waits, by default, to see the bridge read the request before counting it handed over all the same.
    public static let defaultHandoverGraceMs: Int64 = 2_000
    /// This transport's wait (a test that needs a bridge's quick exit seen within it widens it for a loaded machine).
    public let handoverGraceMs: Int64
    /// How long `stop` waits after SIGTERM before SIGKILL, by default.
    public static let defaultTermGraceMs: Int64 = 1_000
    /// This transport's wait after SIGTERM (a test that needs a bridge's TERM handler to run within it widens it for
    /// a loaded machine).
    public let termGraceMs: Int64
    /// How long `stop` reads a bridge whose input it closed before it signals it: an answer the terminal gives a moment
    /// after the deciding one (a decline corrected by its approval, a card read before the abort) is still on its way,
    /// and names a payment that must not stay "not charged". A bridge that ends at the end of its input costs nothing.
    public static let drainMs: Int64 = 3_000

    private struct Bridge {
        var pid: pid_t
        var stdin: Int32
        var generation: Int
        var stopping = false
    }
    /// How a bridge ended, and how many bytes it left unread in its standard input.
    struct Exit: Sendable {
        var generation: Int
        var status: Int32
        var unread: Int
    }
    private struct State {
        var sink: (@Sendable (TransportEvent) -> Void)?
        var bridge: Bridge?
        var generation = 0
        /// `stop()` was called: no bridge is started again.
        var stopped = false
        /// The client transaction id of the request last sent: a line that carries it is never held back (`StrayGate`).
        var flightReference: String?
        /// The last request written and not yet followed by any answer line: its id and length in bytes.
        var outstanding: (id: String, length: Int)?
        /// A `send` waiting to see its request read: the bridge's generation (its end is then `send`'s to report).
        var handover: Int?
        var lastExit: Exit?
        var starts = 0
        var lineHighWater = 0
        /// The bridge `stop()` closed and waits on, and whether its output has ended.
        var closing: Int?
        var closingOutputEnded = false
        var orphanStopped = false
    }
    private let state = Mutex(State())

    /// How many times a bridge process was started (for tests and the status line).
    public var bridgeStarts: Int { state.withLock { $0.starts } }
    /// Whether this start stopped a bridge an earlier till left running: a request of that till's it could have read
    /// may have reached the terminal, so recovery never calls one "never sent".
    public var anEarlierPeerOutlivedItsTill: Bool { state.withLock { $0.orphanStopped } }
    /// The most bytes the line buffer ever held (tests: a bridge that writes without a newline).
    var lineBufferHighWater: Int { state.withLock { $0.lineHighWater } }

    public init(command: String, stderrPath: String? = nil, records: String? = nil,
                handoverGraceMs: Int64 = PipeTransport.defaultHandoverGraceMs, termGraceMs: Int64 = PipeTransport.defaultTermGraceMs) {
        self.records = records
        self.command = command
        self.programName = PipeTransport.programName(of: command)
        self.stderrPath = stderrPath
        self.handoverGraceMs = handoverGraceMs
        self.termGraceMs = termGraceMs
        signal(SIGPIPE, SIG_IGN)
    }

    public func start(sink: @escaping @Sendable (TransportEvent) -> Void) async throws -> [IncomingAnswer] {
        state.withLock { $0.sink = sink; $0.stopped = false }
        let orphans = stopOrphanedBridges()
        if !orphans.isEmpty { state.withLock { $0.orphanStopped = true } }
        for stopped in orphans {
            sink(.problem("Stopped the bridge (process group \(stopped)) that an earlier till, killed or crashed, left running: it "
                          + "could still have read that till's last request. What that till left open is checked on the terminal."))
        }
        do { try ensureBridge() } catch {
            sink(.problem("The bridge '\(programName)' could not be started: \(error). till tries again with the next request."))
        }
        return []
    }

    /// The name of the program a shell command line runs: its first word after any `NAME=value` settings (and `exec`
    /// or `env`), without its folder. Nothing after it (arguments, keys) and nothing before it (settings) is kept.
    static func programName(of command: String) -> String {
        for word in command.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }) {
            if let eq = word.firstIndex(of: "="), eq != word.startIndex, word.first?.isNumber == false,
               word[..<eq].allSatisfy({ $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }) { continue }
            if word == "exec" || word == "env" { continue }
            let bare = word.filter { $0 != "'" && $0 != "\"" }
            let name = bare.split(separator: "/").last.map(String.init) ?? ""
            return name.isEmpty ? "bridge" : SafeText.terminal(name)
        }
        return "bridge"
    }

    // MARK: the bridge process

    private func ensureBridge() throws(TransportError) {
        if state.withLock({ $0.bridge != nil }) { return }
        // After stop() no bridge is started again: one started then would outlive till (nobody stops it).
        if state.withLock({ $0.stopped }) { throw .notSent("till is stopping; the bridge is not started again") }
        var inPipe: [Int32] = [0, 0]
        var outPipe: [Int32] = [0, 0]
        guard PipeTransport.cloexecPipe(&inPipe) else { throw .notSent("cannot make a pipe: \(String(cString: strerror(errno)))") }
        guard PipeTransport.cloexecPipe(&outPipe) else {
            close(inPipe[0]); close(inPipe[1])
            throw .notSent("cannot make a pipe: \(String(cString: strerror(errno)))")
        }
        let errPath = stderrPath ?? "/dev/null"
        // In a process group of its own, so that it is stopped as a group (with whatever it started), and a Ctrl-C
        // meant for till does not reach it first.
        let started = Spawn.start(["/bin/sh", "-c", command], stdin: .descriptor(inPipe[0]), stdout: .descriptor(outPipe[1]),
                                  stderr: .path(errPath, flags: O_WRONLY | O_CREAT | O_APPEND), newGroup: true,
                                  environment: PipeTransport.bridgeEnvironment(PipeTransport.currentEnvironment()))
        var pid: pid_t = 0
        var rc: Int32 = 0
        switch started {
        case .success(let p): pid = p
        case .failure(let e): rc = e.code
        }
        close(inPipe[0]); close(outPipe[1])
        guard rc == 0 else {
            close(inPipe[1]); close(outPipe[0])
            throw .notSent("cannot start /bin/sh: \(String(cString: strerror(rc)))")
        }
        let generation = state.withLock { s -> Int in
            s.generation += 1
            s.starts += 1
            s.bridge = Bridge(pid: pid, stdin: inPipe[1], generation: s.generation)
            return s.generation
        }
        noteBridge(pid)
        let output = DescriptorReader(fd: outPipe[0], name: "till-pipe-bridge", closesDescriptor: true)
        let childPid = pid
        Task.detached { [weak self] in await self?.readBridge(output, pid: childPid, generation: generation) }
    }

    /// Splits the bridge's output into lines, scanning each byte once; a line over `lineLimit` is dropped (reported
    /// once) and reading resumes after its newline, so a bridge without newlines cannot grow till's memory.
    struct LineSplitter {
        let limit: Int
        private(set) var line: [UInt8] = []
        private var discarding = false
        init(limit: Int) { self.limit = limit }

        enum Piece: Equatable { case line([UInt8]); case overlong }

        /// Takes the new bytes; returns the whole lines they complete and one `.overlong` per line dropped.
        mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [Piece] {
            var out: [Piece] = []
            var start = 0
            let n = bytes.count
            while start <= n {
                let nl: Int? = start < n ? memchr(bytes.baseAddress! + start, 0x0A, n - start).map { $0 - UnsafeMutableRawPointer(mutating: bytes.baseAddress!) } : nil
                let end = nl ?? n
                let segment = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
                if !discarding {
                    if line.count + segment.count > limit {
                        discarding = true
                        line = []
                        out.append(.overlong)
                    } else {
                        line.append(contentsOf: segment)
                    }
                }
                guard nl != nil else { break }
                if !discarding { out.append(.line(line)) }
                discarding = false
                line.removeAll(keepingCapacity: line.capacity <= 4096)
                start = end + 1
            }
            return out
        }
    }

    /// The value of `clientTransactionId` in a request or callback URL (percent-decoded, trimmed), or nil. A scan of
    /// the query, not a full decoding: it runs for every line a bridge writes.
    static func clientTransactionId(in url: String) -> String? {
        guard let q = url.firstIndex(of: "?") else { return nil }
        for pair in url[url.index(after: q)...].split(separator: "&") {
            let p = pair.drop { $0 == " " }
            guard p.hasPrefix("clientTransactionId") else { continue }
            let rest = p.dropFirst("clientTransactionId".count).drop { $0 == " " }
            guard rest.first == "=" else { continue }
            let value = String(rest.dropFirst()).trimmingWhitespace()
            return (value.removingPercentEncoding ?? value).trimmingWhitespace()
        }
        return nil
    }

    /// Bounds what a bridge can make till queue. Every line goes to the controller, which journals it (a durable
    /// commit each); a bridge can write far faster than that, and a queue without bound grew by hundreds of megabytes
    /// and put the real answer behind a hundred thousand strays. So: a line that carries the reference of the request
    /// in flight always passes at once; any other line passes while a budget lasts (a burst of `burst`, refilled at
    /// `perSecond`), and beyond it is dropped and counted, and the count reported (`problem`) at most once a second.
    /// Nothing of a flood is kept: memory stays what one line needs.
    struct StrayGate {
        static let burst = 200.0
        static let perSecond = 50.0
        var tokens = StrayGate.burst
        var lastRefillNs: UInt64 = 0
        var dropped = 0
        var lastReportNs: UInt64 = 0

        /// Whether a line that is not the flight's answer may pass now.
        mutating func admit(nowNs: UInt64) -> Bool {
            if lastRefillNs != 0 {
                tokens = min(StrayGate.burst, tokens + Double(nowNs - lastRefillNs) / 1e9 * StrayGate.perSecond)
            }
            lastRefillNs = nowNs
            if tokens >= 1 { tokens -= 1; return true }
            dropped += 1
            return false
        }

        /// The count to report now (and reset), if any and a second passed since the last report (or `force`).
        mutating func report(nowNs: UInt64, force: Bool = false) -> Int? {
            guard dropped > 0, force || nowNs - lastReportNs >= 1_000_000_000 else { return nil }
            defer { dropped = 0; lastReportNs = nowNs }
            return dropped
        }
    }

    private func droppedMessage(_ n: Int) -> String {
        "The bridge '\(programName)' wrote \(n) answer line(s) faster than till can journal them, none naming the request in "
            + "flight: they were dropped, not journaled. A terminal does not send that many: check the bridge."
    }

    /// Reads the bridge's output until its end (the reader closes it then), then reaps the bridge and says how it ended.
    private func readBridge(_ output: DescriptorReader, pid: pid_t, generation: Int) async {
        var gate = StrayGate()
        var splitter = LineSplitter(limit: PipeTransport.lineLimit)
        for await chunk in output {
            let pieces = chunk.withUnsafeBytes { splitter.feed($0) }
            let held = splitter.line.count
            state.withLock { $0.lineHighWater = max($0.lineHighWater, held) }
            for piece in pieces {
                switch piece {
                case .overlong:
                    let sink = state.withLock { s in s.bridge?.generation == generation ? s.sink : nil }
                    sink?(.rejected(file: "(bridge line)", reason: "The bridge '\(programName)' wrote a line longer than 64 KiB; "
                                    + "till dropped it and reads on from the next newline."))
                case .line(let bytes):
                    let line = String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
                    guard !line.isEmpty else { continue }
                    let reference = state.withLock { $0.flightReference }
                    let now = WallClock.monotonicNs()
                    let theFlights = reference != nil && PipeTransport.clientTransactionId(in: line) == reference
                    let pass = theFlights || gate.admit(nowNs: now)
                    let sink = state.withLock { s -> (@Sendable (TransportEvent) -> Void)? in
                        guard s.bridge?.generation == generation || s.bridge == nil else { return nil }
                        if pass { s.outstanding = nil }
                        return s.sink
                    }
                    if pass { sink?(.answer(IncomingAnswer(text: line))) }
                    if let n = gate.report(nowNs: now) { sink?(.problem(droppedMessage(n))) }
                }
            }
        }
        if let sink = state.withLock({ s in s.bridge?.generation == generation || s.bridge == nil ? s.sink : nil }) {
            if let n = gate.report(nowNs: WallClock.monotonicNs(), force: true) { sink(.problem(droppedMessage(n))) }
            // A line cut short cannot be read for certain (an approval's amount cut to its first digit): not taken as
            // an answer, and never dropped without a word.
            if !splitter.line.isEmpty {
                sink(.rejected(file: "(bridge line)", reason: "The bridge '\(programName)' ended in the middle of a line (\(splitter.line.count) "
                               + "bytes without a newline); till dropped it. It may have been an answer: check the terminal."))
            }
        }
        state.withLock { s in if s.closing == generation { s.closingOutputEnded = true } }
        // Standard output is closed: the bridge (and whatever it started that held it) ended. Unless till is stopping
        // it, end the rest of its group now, so nothing left can still read its input, then see what it left unread.
        let deliberate = state.withLock { s in s.bridge?.generation != generation || s.bridge?.stopping == true }
        if !deliberate { kill(-pid, SIGKILL) }
        let status = await PipeTransport.reap(pid)
        let how = PipeTransport.describe(status: status)
        let (sink, lost, reportedBySend) = state.withLock { s -> ((@Sendable (TransportEvent) -> Void)?, (id: String, length: Int)?, Bool) in
            guard let b = s.bridge, b.generation == generation, !b.stopping else { return (nil, nil, true) }
            var unread: Int32 = 0
            if ioctl(b.stdin, UInt(FIONREAD), &unread) != 0 { unread = 0 }
            close(b.stdin)
            s.bridge = nil
            s.lastExit = Exit(generation: generation, status: status, unread: Int(unread))
            let handedOver = s.handover == generation
            let lost = handedOver ? nil : s.outstanding
            if !handedOver { s.outstanding = nil }
            return (s.sink, lost, handedOver)
        }
        guard !reportedBySend, let sink else { return }
        if let lost {
            sink(.lost(requestId: lost.id, reason: "The bridge '\(programName)' \(how) before answering."))
        }
        sink(.problem(endMessage(status: status) + " till starts it again for the next request."))
    }

    /// What the cashier reads when a bridge ended: "not found" for exit 127, "not executable" for 126.
    func endMessage(status: Int32) -> String {
        if status & 0x7f == 0 {
            switch (status >> 8) & 0xff {
            case 127: return "The bridge '\(programName)' was not found (exit 127): check the command in --transport / the config."
            case 126: return "The bridge '\(programName)' could not be run (exit 126: not executable): check the command in --transport / the config."
            default: break
            }
        }
        return "The bridge '\(programName)' \(PipeTransport.describe(status: status))."
    }

    /// A bridge that ended without reading the request: "not found" and "not executable" say it all; otherwise say so.
    func neverReadMessage(status: Int32) -> String {
        let code = status & 0x7f == 0 ? (status >> 8) & 0xff : -1
        return code == 126 || code == 127 ? endMessage(status: status) : endMessage(status: status) + " It never read the request."
    }

    // MARK: sending

    private enum Handover {
        /// The bridge read (some of) the request: it has it.
        case read
        /// It neither read it nor ended within the grace: counted as handed over.
        case waited
        /// It ended; `unread` of its input bytes were never read.
        case ended(Exit)
        /// Till itself stopped the bridge meanwhile.
        case stopped
    }

    /// Waits until the bridge of `generation` read the last `length` bytes written, ended, or the grace passed.
    private func watchHandover(generation: Int, length: Int) async -> Handover {
        let deadline = WallClock.monotonicNs() + UInt64(handoverGraceMs) * 1_000_000
        var pause: UInt64 = 100_000
        while true {
            let seen = state.withLock { s -> Handover? in
                if let e = s.lastExit, e.generation == generation { return .ended(e) }
                guard let b = s.bridge, b.generation == generation, !b.stopping else { return .stopped }
                var unread: Int32 = 0
                guard ioctl(b.stdin, UInt(FIONREAD), &unread) == 0 else { return .waited }
                return Int(unread) < length ? .read : nil
            }
            if let seen { return seen }
            if WallClock.monotonicNs() >= deadline { return .waited }
            await Pause.sleep(nanoseconds: pause)   // a cancelled sleep only shortens the pause
            pause = min(pause * 2, 20_000_000)
        }
    }

    /// Waits (up to the grace) for the bridge of `generation` to be reaped by its reader; nil if it was not.
    private func awaitExit(generation: Int) async -> Exit? {
        let deadline = WallClock.monotonicNs() + UInt64(handoverGraceMs) * 1_000_000
        while WallClock.monotonicNs() < deadline {
            if let e = state.withLock({ s in s.lastExit?.generation == generation ? s.lastExit : nil }) { return e }
            await Pause.sleep(nanoseconds: 2_000_000)
        }
        return nil
    }

    private func endHandover(clearOutstanding: Bool) {
        state.withLock { s in
            s.handover = nil
            if clearOutstanding { s.outstanding = nil }
        }
    }

    public func send(id: String, url: String) async throws(TransportError) {
        let bytes = Array((url + "\n").utf8)
        for attempt in 0..<2 {
            try ensureBridge()
            guard let current = state.withLock({ s in s.bridge.map { (fd: $0.stdin, generation: $0.generation) } }) else { continue }
            let (fd, generation) = (current.fd, current.generation)
            let reference = PipeTransport.clientTransactionId(in: url)
            state.withLock { s in
                s.outstanding = (id, bytes.count)
                s.handover = generation
                s.flightReference = reference
            }
            var written = 0
            var failure: Int32 = 0
            while written < bytes.count {
                let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if n < 0 { if errno == EINTR { continue }; failure = errno; break }
                written += n
            }
            if failure != 0 {
                if written == 0 && (failure == EPIPE || failure == EBADF) {
                    // Gone before it read a byte: it cannot have seen the request (EBADF: its end was already noticed,
                    // and till closed the pipe to it, before this write). Learn why; try a fresh one once, unless it
                    // cannot start at all.
                    let exit = await awaitExit(generation: generation)
                    killBridge(generation: generation, reason: nil)
                    endHandover(clearOutstanding: true)
                    let code = exit.map { $0.status & 0x7f == 0 ? ($0.status >> 8) & 0xff : -1 } ?? -1
                    if attempt == 0 && code != 127 && code != 126 { continue }
                    throw .notSent(exit.map { neverReadMessage(status: $0.status) }
                                   ?? "The bridge '\(programName)' did not take the request: \(String(cString: strerror(failure))).")
                }
                killBridge(generation: generation, reason: nil)
                endHandover(clearOutstanding: true)
                if written == 0 { throw .notSent("The bridge '\(programName)' did not take the request: \(String(cString: strerror(failure))).") }
                throw .maybeSent("The bridge '\(programName)' took part of the request and failed: \(String(cString: strerror(failure))).")
            }
            switch await watchHandover(generation: generation, length: bytes.count) {
            case .read, .waited, .stopped:
                endHandover(clearOutstanding: false)
                return
            case .ended(let exit) where exit.unread >= bytes.count:
                // It ended without reading a byte of the request: never sent.
                endHandover(clearOutstanding: true)
                throw .notSent(neverReadMessage(status: exit.status))
            case .ended(let exit):
                // It read the request and then ended: it may have acted on it. Reported as its reader would have.
                endHandover(clearOutstanding: true)
                if let sink = state.withLock({ $0.sink }) {
                    sink(.lost(requestId: id, reason: "The bridge '\(programName)' \(PipeTransport.describe(status: exit.status)) after reading the request."))
                    sink(.problem(endMessage(status: exit.status) + " till starts it again for the next request."))
                }
                return
            }
        }
        throw .notSent("The bridge '\(programName)' could not be started.")
    }

    // MARK: stopping

    /// Takes the bridge of `generation` (any, when nil) out of service; returns it, or nil if there was none.
    /// `closing`: `stop()` waits for its output to end (`closingOutputEnded`), marked in the same step so that an end
    /// right after it is not missed.
    private func detachBridge(generation: Int?, closing: Bool = false) -> Bridge? {
        state.withLock { s -> Bridge? in
            guard var b = s.bridge, generation == nil || b.generation == generation else { return nil }
            b.stopping = true
            s.bridge = nil
            s.outstanding = nil
            if closing { s.closing = b.generation; s.closingOutputEnded = false }
            return b
        }
    }

    /// Stops a bridge that failed or hangs (its whole process group: SIGTERM, then SIGKILL); its reader reaps it.
    private func killBridge(generation: Int?, reason: String?) {
        guard let b = detachBridge(generation: generation) else { return }
        close(b.stdin)
        let grace = termGraceMs
        Task.detached { await PipeTransport.terminateGroup(b.pid, graceMs: grace) }
        if let reason, let sink = state.withLock({ $0.sink }) { sink(.problem(reason)) }
    }

    public func acknowledge(_ answer: IncomingAnswer) async {}
    public func reject(_ answer: IncomingAnswer, reason: String) async {}

    public func gaveUp(on id: String) async -> Bool {
        killBridge(generation: nil, reason: "The bridge '\(programName)' did not answer in time; it was stopped and starts again for the next request.")
        return false
    }

    /// Closes the bridge's input and reads what it still writes until its output ends, for up to `termGraceMs`: a
    /// terminal may answer again after the answer that ended the command (its own approval after its decline), and a
    /// line never read is a charge in no journal. Then its whole process group is ended: SIGTERM, and SIGKILL after
    /// the same grace. A bridge that ends when its input closes costs no wait.
    public func stop() async {
        state.withLock { $0.stopped = true }
        guard let b = detachBridge(generation: nil, closing: true) else {
            state.withLock { $0.sink = nil }
            return
        }
        close(b.stdin)
        await awaitClosingOutputEnd(withinMs: max(termGraceMs, PipeTransport.drainMs))
        await PipeTransport.terminateGroup(b.pid, graceMs: termGraceMs)
        // What it wrote before the signal ended it is read too (briefly: a child outside its group may hold its output).
        await awaitClosingOutputEnd(withinMs: 100)
        state.withLock { $0.sink = nil; $0.closing = nil }
        if let own = ownRecord { unlink(own) }
    }

    /// Waits until the reader of the bridge `stop()` closed has seen its output end, or `ms` passed.
    private func awaitClosingOutputEnd(withinMs ms: Int64) async {
        let deadline = WallClock.monotonicNs() + UInt64(ms) * 1_000_000
        while !state.withLock({ $0.closingOutputEnded }), WallClock.monotonicNs() < deadline { await Pause.sleep(nanoseconds: 2_000_000) }
    }
}
