import TillProtocol
import TillIO

/// The card-terminal app as a deterministic state machine: request URLs in, callback URLs out,
/// with an injected clock (milliseconds since 1970). Not thread-safe: callers serialise access.
public final class TerminalSimulator {
    public let config: SimulatorConfig
    public internal(set) var state: SimulatorState
    /// Counts the calls that may have changed the state (every request, every stage change or auto-close):
    /// equal counts mean an unchanged state.
    public private(set) var changes: Int = 0
    var rng: SplitMix64

    /// A batch closes itself this long after it was opened.
    public static let batchLifetimeMs: Int64 = 48 * 3600 * 1000

    public init(config: SimulatorConfig = .init(), state: SimulatorState = .init()) {
        self.config = config
        var s = state
        if s.rng == nil { s.rng = config.seed }
        self.state = s
        self.rng = SplitMix64(state: s.rng!)
    }

    // MARK: - The public driving API

    /// One request URL arrives at `nowMs`. Returns the callback URLs due at once.
    public func receive(_ requestURL: String, nowMs: Int64) -> [String] {
        receive(requestURL, tag: nil, nowMs: nowMs).map(\.url)
    }

    /// Callback URLs that have become due by `nowMs`, in order (and stage changes applied).
    public func advance(toMs nowMs: Int64) -> [String] {
        advanceTagged(toMs: nowMs).map(\.url)
    }

    /// As `receive(_:nowMs:)`, with a tag (e.g. a file-drop id) that comes back with every answer
    /// to this request, now or later.
    public func receive(_ requestURL: String, tag: String?, nowMs: Int64) -> [SimulatorOutput] {
        var out: [SimulatorOutput] = []
        runDue(nowMs, &out)
        handle(requestURL, tag: tag, now: nowMs, &out)
        changes &+= 1
        runDue(nowMs, &out)
        state.rng = rng.state
        return out
    }

    /// As `advance(toMs:)`, with the tags of the requests answered.
    public func advanceTagged(toMs nowMs: Int64) -> [SimulatorOutput] {
        var out: [SimulatorOutput] = []
        runDue(nowMs, &out)
        state.rng = rng.state
        return out
    }

    /// Whether the transaction in progress is another live process's to move on and answer (set by `SimulatorRunner`
    /// where several processes share one state): its answer goes to the till that sent it, never to another that
    /// would not be waiting for it. Nil: every transaction is this one's.
    public var heldElsewhere: (@Sendable (PendingTransaction) -> Bool)?

    /// When the next scheduled callback / stage change of the transaction in progress is due, if any.
    /// (A batch's 48-hour auto-close is applied at the next `receive`/`advance`; it sends nothing.)
    public var nextDueMs: Int64? { state.pending.flatMap { heldElsewhere?($0) == true ? nil : $0.nextMs } }

    /// Saves the state to its file (StateLog.swift): appends what changed since the last save to or load from
    /// this file, or writes the file whole (atomically) when the state did not come from it.
    public func save(to path: String) throws {
        state.rng = rng.state
        try StateLog.save(&state, to: path)
    }

    /// Loads a saved state; nil when the file does not exist.
    public static func loadState(from path: String) throws -> SimulatorState? {
        try StateLog.load(path)
    }

    /// Reads what other processes appended to the state file since this one last read or wrote it. False when the
    /// file must be loaded whole instead (rewritten, another file, or changes here not saved).
    func catchUp(with path: String) throws -> Bool {
        state.rng = rng.state
        let before = state.log.offset
        guard try StateLog.catchUp(&state, path) else { return false }
        if state.log.offset != before, let r = state.rng { rng = SplitMix64(state: r) }
        return true
    }

    // MARK: - Time

    func runDue(_ now: Int64, _ out: inout [SimulatorOutput]) {
        while true {
            let closeAt = state.activeBatch.map { $0.openedMs + TerminalSimulator.batchLifetimeMs }
            let stepAt = nextDueMs
            if let c = closeAt, c <= now, stepAt == nil || c <= stepAt! {
                // batch.txt:10: closed after 48 hours "and a new one being started". A till that was off
                // for days finds one new batch, started at the last 48-hour mark (not one per 48 hours).
                closeActive(at: c, by: .autoClose)
                let lifetime = TerminalSimulator.batchLifetimeMs
                let start = c + (now - c) / lifetime * lifetime
                openBatch(name: nil, at: start)
                changes &+= 1
                continue
            }
            if let s = stepAt, s <= now {
                step(at: s, &out)
                changes &+= 1
                continue
            }
            return
        }
    }

    func step(at t: Int64, _ out: inout [SimulatorOutput]) {
        guard var p = state.pending else { return }
        switch p.stage {
        case .waitingForCard:
            switch p.scenario {
            case .userCancel, .cardNeverPresented:
                finish(p, at: t, approved: false, message: SimMessage.userCancel, cardRead: false, send: true, &out)
            case .noAnswer:
                // The app gives up on the card after about a minute, like the real one, but the
                // answer never reaches the till: it ends here, unanswered, and the terminal is free again.
                finish(p, at: t, approved: false, message: SimMessage.userCancel, cardRead: false, send: false, &out)
            default:
                p.stage = .atHost
                p.nextMs = t + config.scaled(p.scenario == .slow ? Scenario.slowHostMs : config.hostRoundTripMs)
                state.pending = p
            }
        case .atHost:
            switch p.scenario {
            case .declined:
                let message = config.declineStyle == .page ? SimMessage.declinedByHost : SimMessage.declined
                finish(p, at: t, approved: false, message: message, cardRead: true, send: true, &out)
            case .insufficientFunds:
                finish(p, at: t, approved: false, message: SimMessage.insufficientFunds, cardRead: true, send: true, &out)
            case .crashAfterApproval:
                finish(p, at: t, approved: true, message: SimMessage.success, cardRead: true, send: false, &out)
            default:
                finish(p, at: t, approved: true, message: SimMessage.success, cardRead: true, send: true, &out)
            }
        }
    }

    // MARK: - Requests

    func handle(_ url: String, tag: String?, now: Int64, _ out: inout [SimulatorOutput]) {
        let request: TerminalRequest
        do {
            request = try TerminalRequest.parse(url)
        } catch {
            answerUnparseable(url, error: error, tag: tag, &out)
            return
        }
        let callback = request.caller.callback
        guard TerminalSimulator.isAddressable(callback) else { return }
        func send(_ fields: [(String, String)]) {
            out.append(SimulatorOutput(url: TerminalSimulator.callbackURL(callback: callback, fields: fields), tag: tag))
        }
        /// A set-up request is refused while a card transaction runs.
        func setUp(_ answer: () -> [(String, String)]) {
            if state.pending != nil {
                send([("status", "fail"), ("message", SimMessage.inProgress), ("action", request.request.action.rawValue)])
                return
            }
            send(answer())
        }
        let errors = request.validationErrors()
        if let first = errors.first {
            send(refusal(request.request, message: TerminalSimulator.message(forInvalidField: first.field)))
            return
        }
        switch request.request {
        case .sale(let s):
            startCardTransaction(kind: .sale, callback: callback, tag: tag, clientTransactionId: s.clientTransactionId,
                                 amount: s.amount.cents, tip: s.tipAmount?.cents ?? 0,
                                 installments: s.withInstallments == true ? s.preferredInstallments : nil,
                                 paymentMethod: s.paymentMethod, now: now, &out)
        case .preAuth(let p):
            startCardTransaction(kind: .preAuth, callback: callback, tag: tag, clientTransactionId: p.clientTransactionId,
                                 amount: p.amount.cents, tip: 0, installments: nil, paymentMethod: p.paymentMethod, now: now, &out)
        case .abort:
            abort(callback: callback, tag: tag, now: now, &out)
        case .batch(let b):
            send(batch(b, now: now))
        case .cancel(let c):
            if state.pending != nil { send([("status", "fail"), ("message", SimMessage.inProgress), ("action", "cancel")]); return }
            send(refund(c, now: now))
        case .capturePreAuth(let c):
            if state.pending != nil { send([("status", "fail"), ("message", SimMessage.inProgress), ("action", "capture_pre_auth")]); return }
            send(capture(c, now: now))
        case .transactionDetails(let d):
            send(details(d))
        // The terminal's own set-up: SimulatorSetup.swift. No `default`: a new action is answered here on purpose,
        // not as "invalid request" by a forgotten arm.
        case .reprint(let x): setUp { reprint(x) }
        case .getPrintingSettings: setUp { printingSettings() }
        case .setPrintingSettings(let p): setUp { setPrintingSettings(p) }
        case .sendLogs: setUp { sendLogs() }
        case .getActivationCode: setUp { activationCode() }
        case .activatePos(let a): setUp { activate(a) }
        }
    }

    /// The text `CallbackResponse.url(callback:fields:)` gives, built in one buffer (`CallbackURLBuilder`;
    /// every test checks the simulator's answers against `CallbackResponse.url`, byte for byte).
    static func callbackURL(callback: String, fields: [(String, String)]) -> String {
        var u = CallbackURLBuilder(callback: callback)
        for (k, v) in fields { u.add(k, v) }
        return u.url
    }

    /// A callback this simulator can answer to: the one rule till's validation uses too.
    static func isAddressable(_ callback: String) -> Bool { CallbackAddress.isAddressable(callback) }

    static func message(forInvalidField field: String?) -> String {
        switch field {
        case "amount", "tipAmount", "ISV_amount": return SimMessage.invalidAmount
        case "txnDateFrom", "txnDateTo": return SimMessage.invalidDateRange
        default: return SimMessage.invalidRequest
        }
    }

    /// A refusal (invalid fields, or a refund or capture that finds nothing to take): the request's fields a terminal
    /// repeats are its declaration's (`refusalEcho`).
    func refusal(_ r: Request, message: String) -> [(String, String)] {
        [("status", "fail"), ("message", message), ("action", r.action.rawValue)] + r.action.declaration.refusalFields(of: r)
    }

    /// A request the protocol library could not read: answered when a callback can be found in it.
    func answerUnparseable(_ url: String, error: RequestParseError, tag: String?, _ out: inout [SimulatorOutput]) {
        guard let map = TerminalRequest.looseFields(url) else { return }
        guard let callback = map["callback"], TerminalSimulator.isAddressable(callback) else { return }
        var fields: [(String, String)] = [("status", "fail"), ("message", TerminalSimulator.message(forInvalidField: error.field))]
        let action = map["action"].flatMap { Action(lenient: $0) }
        if let action { fields.append(("action", action.rawValue)) }
        // The actions that carry a client transaction id repeat it, as their refusals do (`refusalEcho`).
        if let action, action.startsPayment || action.isLookUp, let c = map["clientTransactionId"] {
            fields.append(("clientTransactionId", c))
        }
        out.append(SimulatorOutput(url: TerminalSimulator.callbackURL(callback: callback, fields: fields), tag: tag))
    }
}
