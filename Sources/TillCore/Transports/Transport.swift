import Foundation
import TillProtocol

/// What a transport reports, asynchronously, in arrival order.
public enum TransportEvent: Sendable, Hashable {
    /// A callback URL arrived. The controller journals it, then calls `acknowledge` (or `reject`).
    case answer(IncomingAnswer)
    /// The request with this id will get no answer through this transport (the bridge died while it was pending).
    case lost(requestId: String?, reason: String)
    /// A file the transport could not take as an answer was set aside (file drop: `rejected/<file>` + `.reason`).
    case rejected(file: String, reason: String)
    /// Something went wrong that the cashier should know about.
    case problem(String)
    /// The transport is usable (again).
    case ready(String)
}

/// A way of carrying request URLs to the terminal app and callback URLs back.
/// Not request/response pairs: answers come as a stream (an abort's answer may close a sale, a late answer may
/// arrive after a timeout, an answer may wait in a folder while till is down).
public protocol Transport: AnyObject, Sendable {
    /// `simulator`, `file:/srv/drop`, `pipe:…`
    var description: String { get }
    /// Starts the transport; events go to `sink` from then on, in order. Returns answers that were waiting
    /// (file drop: files in `responses/` from while till was down), which the caller handles first.
    func start(sink: @escaping @Sendable (TransportEvent) -> Void) async throws -> [IncomingAnswer]
    /// Hands one request URL to the peer. `id` is till's request id (a UUID).
    func send(id: String, url: String) async throws(TransportError)
    /// The answer is journaled: the transport may drop its copy (file drop: move to `archive/`).
    func acknowledge(_ answer: IncomingAnswer) async
    /// The answer could not be decoded (file drop: move to `rejected/` with `<name>.reason`).
    func reject(_ answer: IncomingAnswer, reason: String) async
    /// The answer is another process's (a till on the same journal and folder waits for it): left where it is, and
    /// offered again later (file drop: at the next listing), in case that process goes without taking it.
    func leave(_ answer: IncomingAnswer) async
    /// Till gave up waiting for this request (timeout). A pipe transport restarts a bridge that hangs; the file drop
    /// withdraws a request file the peer never took. Returns true when the request certainly never reached the peer.
    func gaveUp(on id: String) async -> Bool
    /// Takes back the request `id` if the peer has not claimed it, with no other effect (no bridge is restarted).
    /// True: it was withdrawn, the peer never saw it and never will ("never sent", decided without a race).
    /// False: the peer has it (or had it), or this transport cannot take anything back: the outcome is the answer's.
    /// Call it when an entry settles (answer journaled, abort left unanswered, till stopping) and at start-up for
    /// entries of an earlier run, so no request of a settled entry is left for a peer to run later.
    func withdrawIfUnclaimed(id: String) async -> Bool
    /// Ids of the requests handed over that no peer has claimed yet, an earlier run's included (file drop: the
    /// `requests/<id>.url` files). Empty for transports that cannot tell.
    func unclaimedRequestIds() async -> [String]
    /// Whether this start found a peer an earlier till left running after it died (a pipe bridge, stopped then): it could
    /// have read a request that till journaled `pending`, so such a request is never "never sent".
    var anEarlierPeerOutlivedItsTill: Bool { get }
    func stop() async
}

extension Transport {
    /// A pipe cannot take a request back once written (nor the built-in simulator once its log is read).
    public func withdrawIfUnclaimed(id: String) async -> Bool { false }
    public func unclaimedRequestIds() async -> [String] { [] }
    public var anEarlierPeerOutlivedItsTill: Bool { false }
    /// A pipe's or the simulator's answers are this process's alone.
    public func leave(_ answer: IncomingAnswer) async {}
}

/// Which transport to use, as `--transport` and the config file spell it.
public enum TransportSpec: Sendable, Hashable, CustomStringConvertible {
    case simulator
    case file(String)
    case pipe(String)

    /// `simulator`, `file:DIR`, `pipe:COMMAND`.
    public init(parsing text: String) throws(ConfigError) {
        let t = text.trimmingWhitespace()
        if t == "simulator" || t == "sim" { self = .simulator; return }
        if t.hasPrefix("file:") {
            let dir = String(t.dropFirst(5))
            guard !dir.isEmpty else { throw ConfigError(message: "--transport file: needs a folder, like file:/srv/till-drop") }
            self = .file(dir); return
        }
        if t.hasPrefix("pipe:") {
            let cmd = String(t.dropFirst(5))
            guard !cmd.trimmingWhitespace().isEmpty else {
                throw ConfigError(message: "--transport pipe: needs a command, like 'pipe:till simulate --stdio'")
            }
            self = .pipe(cmd); return
        }
        throw ConfigError(message: "Unknown transport '\(text)': use simulator, file:DIR or pipe:COMMAND.")
    }

    public var description: String {
        switch self {
        case .simulator: return "simulator"
        case .file(let d): return "file:" + d
        case .pipe(let c): return "pipe:" + c
        }
    }
}
