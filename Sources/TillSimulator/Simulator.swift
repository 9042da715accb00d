import TillProtocol
import TillIO

/// The card-terminal app as a deterministic state machine: request URLs in, callback URLs out,
/// with an injected clock (milliseconds since 1970). Not thread-safe: callers serialise access.
public final class TerminalSimulator {
    public let config: SimulatorConfig
    public private(set) var state: SimulatorState
    /// Counts the calls that may have changed the state (every request, every stage change or auto-close):
    /// equal counts mean an unchanged state.
    public private(set) var changes: Int = 0
    private var rng: SplitMix64

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

    /// When the next scheduled callback / stage change of the transaction in progress is due, if any.
    /// (A batch's 48-hour auto-close is applied at the next `receive`/`advance`; it sends nothing.)
    public var nextDueMs: Int64? { state.pending?.nextMs }

    /// Atomic save of the state as JSON (`AtomicFile`).
    public func save(to path: String) throws {
        state.rng = rng.state
        try AtomicFile.write(try StateCoding.encode(state), to: path)
    }

    /// Loads a saved state; nil when the file does not exist.
    public static func loadState(from path: String) throws -> SimulatorState? {
        guard Path.exists(path) else { return nil }
        guard let text = AtomicFile.read(path, limit: 1 << 30) else {
            throw FileError(path: path, operation: "read")
        }
        return try StateCoding.decode(text)
    }

    // MARK: - Time

    private func runDue(_ now: Int64, _ out: inout [SimulatorOutput]) {
        while true {
            let closeAt = state.activeBatch.map { $0.openedMs + TerminalSimulator.batchLifetimeMs }
            let stepAt = state.pending?.nextMs
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

    private func step(at t: Int64, _ out: inout [SimulatorOutput]) {
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

    private func handle(_ url: String, tag: String?, now: Int64, _ out: inout [SimulatorOutput]) {
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
        let errors = request.validationErrors()
        if let first = errors.first {
            send(invalidFields(request.request, message: TerminalSimulator.message(forInvalidField: first.field)))
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
        case .reprint, .getPrintingSettings, .setPrintingSettings, .sendLogs, .getActivationCode, .activatePos:
            if state.pending != nil {
                send([("status", "fail"), ("message", SimMessage.inProgress), ("action", request.request.action.rawValue)])
                return
            }
            send(administrative(request.request))
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

    private func invalidFields(_ r: Request, message: String) -> [(String, String)] {
        var f: [(String, String)] = [("status", "fail"), ("message", message), ("action", r.action.rawValue)]
        switch r {
        case .sale(let s):
            f.append(("clientTransactionId", s.clientTransactionId ?? ""))
            f.append(("amount", String(s.amount.cents))); f.append(("tipAmount", String(s.tipAmount?.cents ?? 0)))
        case .preAuth(let p):
            f.append(("clientTransactionId", p.clientTransactionId ?? "")); f.append(("amount", String(p.amount.cents)))
        case .transactionDetails(let d):
            f.append(("clientTransactionId", d.clientTransactionId))
        case .cancel(let c):
            if let a = c.amount { f.append(("amount", String(a.cents))) }
        case .capturePreAuth(let c):
            if let a = c.amount { f.append(("amount", String(a.cents))) }
        case .batch(let b):
            f.append(("command", b.command.rawValue))
        case .reprint(let r):
            if let o = r.orderCode { f.append(("orderCode", o)) }
        case .abort, .getPrintingSettings, .setPrintingSettings, .sendLogs, .getActivationCode, .activatePos: break
        }
        return f
    }

    /// A request the protocol library could not read: answered when a callback can be found in it.
    private func answerUnparseable(_ url: String, error: RequestParseError, tag: String?, _ out: inout [SimulatorOutput]) {
        guard let q = url.firstIndex(of: "?") else { return }
        var map: [String: String] = [:]
        for part in url[url.index(after: q)...].split(separator: "&") {
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let k = QueryCodec.decode(String(kv[0])).trimmingSpaces()
            let v = kv.count > 1 ? QueryCodec.decode(String(kv[1])).trimmingSpaces() : ""
            if map[k] == nil { map[k] = v }
        }
        guard let callback = map["callback"], TerminalSimulator.isAddressable(callback) else { return }
        var fields: [(String, String)] = [("status", "fail"), ("message", TerminalSimulator.message(forInvalidField: error.field))]
        let action = map["action"].flatMap { Action(lenient: $0) }
        if let action { fields.append(("action", action.rawValue)) }
        if let action, action == .sale || action == .preAuth || action == .transactionDetails, let c = map["clientTransactionId"] {
            fields.append(("clientTransactionId", c))
        }
        out.append(SimulatorOutput(url: TerminalSimulator.callbackURL(callback: callback, fields: fields), tag: tag))
    }

    // MARK: - Sale and pre-auth

    private func startCardTransaction(kind: TransactionKind, callback: String, tag: String?, clientTransactionId: String?,
                                      amount: Int, tip: Int, installments: Int?, paymentMethod: PaymentMethod?, now: Int64,
                                      _ out: inout [SimulatorOutput]) {
        // A repeated client transaction id does not charge twice: the original's result again.
        if let cid = clientTransactionId {
            if let p = state.pending, p.clientTransactionId == cid {
                return  // the same transaction is in progress: its one answer is still to come
            }
            if let t = state.transaction(clientTransactionId: cid), t.approved {
                out.append(SimulatorOutput(url: cardAnswerURL(t, callback: callback), tag: tag))
                return
            }
        }
        if state.pending != nil {
            var f: [(String, String)] = [("status", "fail"), ("message", SimMessage.inProgress), ("action", kind.rawValue),
                                         ("clientTransactionId", clientTransactionId ?? ""), ("amount", String(amount))]
            if kind == .sale { f.append(("tipAmount", String(tip))) }
            out.append(SimulatorOutput(url: TerminalSimulator.callbackURL(callback: callback, fields: f), tag: tag))
            return
        }
        // The scenario amounts are the goods the cashier types (with the tip included, the amount sent holds the tip).
        let scenario = Scenario.forAmount(cents: config.tipStyle == .included ? amount - tip : amount)
        let next: Int64?
        switch scenario {
        case .cardNeverPresented, .noAnswer: next = now + config.scaled(config.giveUpAfterMs)
        default: next = now + config.scaled(config.cardWaitMs)
        }
        state.pending = PendingTransaction(kind: kind, callback: callback, tag: tag, clientTransactionId: clientTransactionId,
                                           amount: amount, tipAmount: tip, installments: installments, scenario: scenario,
                                           stage: .waitingForCard, startedMs: now, nextMs: next, paymentMethod: paymentMethod)
    }

    private func abort(callback: String, tag: String?, now: Int64, _ out: inout [SimulatorOutput]) {
        func answer(_ f: [(String, String)]) {
            out.append(SimulatorOutput(url: TerminalSimulator.callbackURL(callback: callback, fields: f), tag: tag))
        }
        guard let p = state.pending else {
            switch config.abortStyle {
            case .page:
                // abort.txt:69-71: action=abort, status=success, message "nothing to abort".
                answer([("status", "success"), ("message", SimMessage.pageNothingToAbort), ("action", "abort")])
            case .terminal, .saleOnly:
                answer([("status", "fail"), ("message", SimMessage.nothingToAbort), ("action", "ABORT")])
            }
            return
        }
        // Past the point of no return (abort.txt:14-16: the card read, a QR payment chosen, at the host):
        // no abort answer; the sale answers itself.
        guard p.stage == .waitingForCard, !(p.paymentMethod?.isQR ?? false) else { return }
        let txn = record(p, at: now, approved: false, message: SimMessage.aborted, cardRead: false, answered: true)
        state.pending = nil
        switch config.abortStyle {
        case .terminal:
            // The one answer closes both the abort and the sale; the sale is kept as aborted.
            answer([("status", "fail"), ("message", SimMessage.aborted), ("action", "ABORT"),
                    ("amount", String(p.amount)), ("tipAmount", String(p.tipAmount)),
                    ("clientTransactionId", p.clientTransactionId ?? "")])
        case .page:
            // The page's abort answer, then the sale's own (aborted) answer to the sale's callback.
            answer([("status", "success"), ("message", SimMessage.pageAborted), ("action", "abort")])
            out.append(SimulatorOutput(url: cardAnswerURL(txn, callback: p.callback), tag: p.tag))
        case .saleOnly:
            out.append(SimulatorOutput(url: cardAnswerURL(txn, callback: p.callback), tag: p.tag))
        }
    }

    private func finish(_ p: PendingTransaction, at t: Int64, approved: Bool, message: String, cardRead: Bool, send: Bool,
                        _ out: inout [SimulatorOutput]) {
        let txn = record(p, at: t, approved: approved, message: message, cardRead: cardRead, answered: send)
        state.pending = nil
        if send {
            out.append(SimulatorOutput(url: cardAnswerURL(txn, callback: p.callback), tag: p.tag))
        }
    }

    @discardableResult
    private func record(_ p: PendingTransaction, at t: Int64, approved: Bool, message: String, cardRead: Bool,
                        answered: Bool) -> SimTransaction {
        let card = cardRead ? drawCard() : ("", "", "")
        let rrnHead = cardRead ? digits(6) : ""
        var stan = ""
        var auth = ""
        if approved { stan = takeStan(); auth = digits(6) }
        let rrn = cardRead ? rrnHead + (stan.isEmpty ? digits(6) : stan) : ""
        var installments = p.installments
        // 0, or more than the terminal allows: the cardholder is prompted (sale.txt:28) and chooses.
        if let n = installments, n == 0 || n > Limits.installmentsWithoutPrompt { installments = Int(rng.below(11)) + 2 }
        let (order, short) = takeOrderCode()
        let instant = takeInstant(t)
        let txn = SimTransaction(
            kind: p.kind, approved: approved, message: message, clientTransactionId: p.clientTransactionId,
            amount: p.amount, tipAmount: p.tipAmount, installments: installments,
            referenceNumber: stan, rrn: rrn, authorisationCode: auth, tid: config.tid,
            orderCode: order, shortOrderCode: short, transactionId: uuid(upper: false),
            transactionDate: TerminalDate.format(instant: instant, offsetMinutes: config.utcOffsetMinutes), instant: instant,
            cardType: card.0, accountNumber: card.1,
            verificationMethod: cardRead && p.paymentMethod == .moto ? "MANUAL ENTRY" : card.2,
            // What the card paid (the tip on top of the amount, or in it): what refunds may give back.
            remaining: approved ? config.tipStyle.charged(amount: Money(cents: p.amount), tip: Money(cents: p.tipAmount)).cents : 0,
            captured: false,
            batchId: batchForTransaction(at: t).id, originalTransactionId: nil, answered: answered,
            paymentMethod: p.paymentMethod)
        state.append(txn)
        return txn
    }

    /// The answer of a sale or pre-auth, fields in the pages' order.
    func cardAnswer(_ t: SimTransaction) -> [(String, String)] {
        var u = FieldList()
        cardAnswer(t, into: &u)
        return u.fields
    }

    func cardAnswerURL(_ t: SimTransaction, callback: String) -> String {
        var u = CallbackURLBuilder(callback: callback)
        cardAnswer(t, into: &u)
        return u.url
    }

    func cardAnswer<S: FieldSink>(_ t: SimTransaction, into f: inout S, status: String? = nil, message: String? = nil,
                                  action: String? = nil) {
        // The page's decline (overview-sale-cancel.txt:131) reads `failed`; real terminals say `fail`.
        f.add("status", status ?? (t.approved ? "success" : t.message == SimMessage.declinedByHost ? "failed" : "fail"))
        f.add("message", message ?? t.message)
        f.add("action", action ?? t.kind.rawValue)
        f.add("clientTransactionId", t.clientTransactionId ?? "")
        f.add("amount", String(t.amount))
        if t.kind == .sale { f.add("tipAmount", String(t.tipAmount)) }
        f.add("verificationMethod", t.verificationMethod); f.add("rrn", t.rrn); f.add("cardType", t.cardType)
        f.add("accountNumber", t.accountNumber); f.add("referenceNumber", t.referenceNumber)
        f.add("authorisationCode", t.authorisationCode); f.add("tid", t.tid); f.add("orderCode", t.orderCode)
        f.add("shortOrderCode", t.shortOrderCode)
        if let i = t.installments { f.add("installments", String(i)) }
        f.add("transactionDate", t.transactionDate); f.add("transactionId", t.transactionId)
    }

    // MARK: - Batches

    private func batchForTransaction(at t: Int64) -> SimBatch {
        if let b = state.activeBatch { return b }
        return openBatch(name: nil, at: t)
    }

    @discardableResult
    private func openBatch(name: String?, at t: Int64) -> SimBatch {
        if state.activeBatch != nil { closeActive(at: t, by: .replaced) }
        state.batchCount += 1
        let b = SimBatch(name: name ?? "Batch \(state.batchCount)", id: uuid(upper: true), openedMs: t)
        state.activeBatch = b
        return b
    }

    private func closeActive(at t: Int64, by reason: BatchCloseReason) {
        guard var b = state.activeBatch else { return }
        b.closedMs = t; b.closedBy = reason
        state.closedBatches.append(b)
        state.activeBatch = nil
    }

    private func batch(_ r: BatchRequest, now: Int64) -> [(String, String)] {
        switch r.command {
        case .open:
            let b = openBatch(name: r.batchName, at: now)
            return [("status", "success"), ("message", SimMessage.batchOpened), ("action", "batch"), ("command", "open"),
                    ("batchName", b.name), ("batchId", b.id)]
        case .close:
            let fail: [(String, String)] = [("status", "fail"), ("message", SimMessage.batchNotFound), ("action", "batch"),
                                            ("command", "close"), ("batchName", r.batchName ?? ""), ("batchId", r.batchId ?? "")]
            guard let b = state.activeBatch else { return fail }
            if let id = r.batchId, id.uppercased() != b.id.uppercased() { return fail }
            if let name = r.batchName, name != b.name { return fail }
            closeActive(at: now, by: .command)
            return [("status", "success"), ("message", SimMessage.batchClosed), ("action", "batch"), ("command", "close"),
                    ("batchName", b.name), ("batchId", b.id)]
        }
    }

    // MARK: - Finding transactions

    private enum Found { case found(Int), notFound, badWindow }

    /// shortOrderCode beats orderCode, which beats referenceNumber; then the date window.
    private func find(_ f: TransactionFinder, now: Int64, defaultToLatest: (SimTransaction) -> Bool) -> Found {
        var index: Int?
        if let s = f.shortOrderCode {
            index = state.index(shortOrderCode: s)
            if let i = index, state.transactions[i].tid != config.tid { index = nil }  // same terminal only
        } else if let o = f.orderCode {
            index = state.index(orderCode: o)
        } else if let r = f.referenceNumber {
            index = state.index(stan: r)
        } else {
            index = cardholderPick(defaultToLatest)
        }
        if f.txnDateTo != nil && f.txnDateFrom == nil { return .badWindow }
        guard let i = index else { return .notFound }
        if let fromText = f.txnDateFrom {
            guard let from = TerminalDate.parse(fromText) else { return .badWindow }
            let to: Int64
            if let toText = f.txnDateTo {
                guard let d = TerminalDate.parse(toText) else { return .badWindow }
                to = d.instant
            } else {
                to = now * 10_000 + 9_999
            }
            let at = state.transactions[i].instant
            if at < from.instant || at > to { return .notFound }
        }
        return .found(i)
    }

    /// No key (overview-sale-cancel.txt:148): the card is presented and the app lists "the last 3
    /// transactions made with the presented card"; the cardholder picks one. The card presented is that
    /// of the latest eligible transaction; the pick is seeded among that card's last three, of which
    /// those still eligible. Never older than the card's last three, never another card's.
    private func cardholderPick(_ eligible: (SimTransaction) -> Bool) -> Int? {
        guard let latest = state.transactions.lastIndex(where: eligible) else { return nil }
        let card = state.transactions[latest].accountNumber
        var lastThree: [Int] = []
        for i in state.indices(card: card).reversed() {
            let t = state.transactions[i]
            if t.approved, t.kind == .sale || t.kind == .capture { lastThree.append(i) }
            if lastThree.count == 3 { break }
        }
        let choices = lastThree.filter { eligible(state.transactions[$0]) }
        // All of the card's last three are refunded already: the list offers nothing older.
        guard !choices.isEmpty else { return nil }
        return choices[Int(rng.below(UInt64(choices.count)))]
    }

    // MARK: - Refund

    private func refund(_ r: CancelRequest, now: Int64) -> [(String, String)] {
        func fail(_ m: String) -> [(String, String)] {
            var f: [(String, String)] = [("status", "fail"), ("message", m), ("action", "cancel")]
            if let a = r.amount { f.append(("amount", String(a.cents))) }
            return f
        }
        let i: Int
        switch find(r.finder, now: now, defaultToLatest: { ($0.kind == .sale || $0.kind == .capture) && $0.approved && $0.remaining > 0 }) {
        case .badWindow: return fail(SimMessage.invalidDateRange)
        case .notFound: return fail(SimMessage.notFound)
        case .found(let x): i = x
        }
        let orig = state.transactions[i]
        guard orig.approved, orig.kind == .sale || orig.kind == .capture else { return fail(SimMessage.notRefundable) }
        let amount = r.amount?.cents ?? orig.remaining
        guard amount > 0, amount <= orig.remaining else { return fail(SimMessage.exceedsRemaining) }
        state.transactions[i].remaining -= amount
        let t = derived(from: orig, kind: .refund, amount: amount, clientTransactionId: nil, now: now)
        state.append(t)
        return [("status", "success"), ("message", t.message), ("action", "cancel"), ("amount", String(t.amount)),
                ("cardType", t.cardType), ("accountNumber", t.accountNumber), ("tid", t.tid),
                ("transactionDate", t.transactionDate), ("transactionId", t.transactionId),
                ("referenceNumber", t.referenceNumber), ("orderCode", t.orderCode), ("shortOrderCode", t.shortOrderCode)]
    }

    // MARK: - Capture

    private func capture(_ r: CaptureRequest, now: Int64) -> [(String, String)] {
        func fail(_ m: String) -> [(String, String)] {
            var f: [(String, String)] = [("status", "fail"), ("message", m), ("action", "capture_pre_auth")]
            if let a = r.amount { f.append(("amount", String(a.cents))) }
            return f
        }
        let i: Int
        switch find(r.finder, now: now, defaultToLatest: { _ in false }) {
        case .badWindow: return fail(SimMessage.invalidDateRange)
        case .notFound: return fail(SimMessage.notFound)
        case .found(let x): i = x
        }
        let orig = state.transactions[i]
        guard orig.kind == .preAuth, orig.approved else { return fail(SimMessage.notCapturable) }
        guard !orig.captured else { return fail(SimMessage.alreadyCaptured) }
        let amount = r.amount?.cents ?? orig.remaining
        guard amount > 0, amount <= orig.remaining else { return fail(SimMessage.exceedsRemaining) }
        state.transactions[i].captured = true
        state.transactions[i].remaining = 0
        let t = derived(from: orig, kind: .capture, amount: amount, clientTransactionId: orig.clientTransactionId, now: now)
        state.append(t)
        return [("status", "success"), ("message", t.message), ("action", "capture_pre_auth"),
                ("clientTransactionId", t.clientTransactionId ?? ""), ("amount", String(t.amount)),
                ("cardType", t.cardType), ("accountNumber", t.accountNumber), ("orderCode", t.orderCode),
                ("shortOrderCode", t.shortOrderCode), ("tid", t.tid), ("transactionDate", t.transactionDate),
                ("transactionId", t.transactionId), ("referenceNumber", t.referenceNumber)]
    }

    /// A new approved transaction on the card of `orig` (refund or capture).
    private func derived(from orig: SimTransaction, kind: TransactionKind, amount: Int, clientTransactionId: String?,
                         now: Int64) -> SimTransaction {
        let stan = takeStan()
        let rrn = digits(6) + stan
        let auth = digits(6)
        let (order, short) = takeOrderCode()
        let instant = takeInstant(now)
        return SimTransaction(
            kind: kind, approved: true, message: SimMessage.success, clientTransactionId: clientTransactionId,
            amount: amount, tipAmount: 0, installments: nil, referenceNumber: stan, rrn: rrn, authorisationCode: auth,
            tid: config.tid, orderCode: order, shortOrderCode: short, transactionId: uuid(upper: false),
            transactionDate: TerminalDate.format(instant: instant, offsetMinutes: config.utcOffsetMinutes), instant: instant,
            cardType: orig.cardType, accountNumber: orig.accountNumber, verificationMethod: orig.verificationMethod,
            remaining: kind == .capture ? amount : 0, captured: false, batchId: batchForTransaction(at: now).id,
            originalTransactionId: orig.transactionId, answered: true)
    }

    // MARK: - Details

    private func details(_ d: DetailsRequest) -> [(String, String)] {
        let cid = d.clientTransactionId
        // The Android sample's sourceTerminalId: a transaction of another terminal is not found here.
        if let source = d.sourceTerminalId, source != config.tid {
            return [("status", "fail"), ("message", SimMessage.notFound), ("action", "transactionDetails"),
                    ("clientTransactionId", cid), ("sourceTerminalId", source)]
        }
        if let p = state.pending, p.clientTransactionId == cid {
            return [("status", "fail"), ("message", SimMessage.inProgress), ("action", "transactionDetails"),
                    ("clientTransactionId", cid)]
        }
        guard let t = state.transaction(clientTransactionId: cid) else {
            return [("status", "fail"), ("message", SimMessage.notFound), ("action", "transactionDetails"),
                    ("clientTransactionId", cid)]
        }
        var f = FieldList()
        cardAnswer(t, into: &f, status: "success", message: SimMessage.detailsFetched, action: "transactionDetails")
        f.add("transactionType", t.kind.rawValue)
        f.add("transactionStatus", t.approved ? "success" : "fail")
        f.add("transactionMessage", t.message)
        if let source = d.sourceTerminalId { f.add("sourceTerminalId", source) }
        return f.fields
    }

    // MARK: - The sample apps' administrative actions

    /// Reprint, printing settings, logs and activation: answered with the sample apps' field names
    /// (the Android sample's result screen reads them: `activationCode`, `isCustomerReceiptEnabled`, …).
    private func administrative(_ r: Request) -> [(String, String)] {
        let action = r.action.rawValue
        switch r {
        case .reprint(let x):
            let index: Int?
            if let o = x.orderCode { index = state.index(orderCode: o) }
            else { index = state.transactions.lastIndex(where: { $0.answered && !$0.orderCode.isEmpty }) }
            guard let i = index else {
                var f: [(String, String)] = [("status", "fail"), ("message", SimMessage.notFound), ("action", action)]
                if let o = x.orderCode { f.append(("orderCode", o)) }
                return f
            }
            state.setup.reprints += 1
            let t = state.transactions[i]
            return [("status", "success"), ("message", SimMessage.reprinted), ("action", action),
                    ("orderCode", t.orderCode), ("transactionId", t.transactionId)]
        case .getPrintingSettings:
            return [("status", "success"), ("message", SimMessage.printingSettings), ("action", action)] + state.setup.printing.fields
        case .setPrintingSettings(let p):
            state.setup.printing = state.setup.printing.applying(p)
            return [("status", "success"), ("message", SimMessage.printingSettingsSaved), ("action", action)] + state.setup.printing.fields
        case .sendLogs:
            state.setup.logsSent += 1
            return [("status", "success"), ("message", SimMessage.logsSent), ("action", action)]
        case .getActivationCode:
            let code = String(digits(8))
            state.setup.activationCode = code
            return [("status", "success"), ("message", SimMessage.activationCode), ("action", action), ("activationCode", code)]
        case .activatePos(let a):
            // By the code last issued, or by an API key and secret (any: the simulator has no accounts).
            let byCode = a.activationCode != nil && a.activationCode == state.setup.activationCode
            guard byCode || (a.activationCode == nil && a.apiKey != nil && a.apiSecret != nil) else {
                return [("status", "fail"), ("message", SimMessage.activationFailed), ("action", action)]
            }
            state.setup.activated = true
            state.setup.activationCode = nil
            state.setup.sourceId = a.sourceId
            for (k, v) in a.flags { state.setup.flags[k] = v }
            var f: [(String, String)] = [("status", "success"), ("message", SimMessage.activated), ("action", action),
                                         ("sourceTerminalId", config.tid)]
            if let source = a.sourceId { f.append(("sourceID", source)) }
            return f
        default:
            return [("status", "fail"), ("message", SimMessage.invalidRequest), ("action", action)]
        }
    }

    // MARK: - Numbers

    private static let cards: [(type: String, bin: String)] = [
        ("VISA", "479275"), ("Debit Mastercard", "537489"), ("Visa Credit", "478212"), ("Maestro", "675964"),
    ]
    private static let methods = ["CHIP", "CONTACTLESS", "MAGNETIC", "MANUAL ENTRY"]

    private func drawCard() -> (String, String, String) {
        let c = TerminalSimulator.cards[Int(rng.below(UInt64(TerminalSimulator.cards.count)))]
        let m = TerminalSimulator.methods[Int(rng.below(UInt64(TerminalSimulator.methods.count)))]
        var last4 = rng.next()
        let pan = String(unsafeUninitializedCapacity: 16) { buf in
            var k = 0
            for b in c.bin.utf8 { buf[k] = b; k += 1 }
            for _ in 0..<6 { buf[k] = 0x2A; k += 1 }
            for _ in 0..<4 { buf[k] = TerminalSimulator.digitBytes[Int(last4 % 10)]; last4 /= 10; k += 1 }
            return k
        }
        return (c.type, pan, m)
    }

    private static let digitBytes: [UInt8] = Array("0123456789".utf8)

    /// `n` random decimal digits (n ≤ 18).
    private func digits(_ n: Int) -> String {
        var v = rng.next()
        return String(unsafeUninitializedCapacity: n) { buf in
            for k in 0..<n { buf[k] = TerminalSimulator.digitBytes[Int(v % 10)]; v /= 10 }
            return n
        }
    }

    private static func padded(_ v: Int, _ width: Int) -> String {
        var x = v
        return String(unsafeUninitializedCapacity: width) { buf in
            for k in stride(from: width - 1, through: 0, by: -1) { buf[k] = digitBytes[x % 10]; x /= 10 }
            return width
        }
    }

    /// The instant of a new transaction in 100-ns ticks: inside millisecond `t`, and always after the previous one.
    private func takeInstant(_ t: Int64) -> Int64 {
        let msStart = t * 10_000
        var instant: Int64
        if let last = state.lastInstant, last >= msStart {
            instant = last + 1 + Int64(rng.below(16))     // another one in the same millisecond
        } else {
            instant = msStart + Int64(rng.below(5_000))
        }
        if let last = state.lastInstant, instant <= last { instant = last + 1 }  // a clock that went back
        state.lastInstant = instant
        return instant
    }

    private func takeStan() -> String {
        let s = state.nextStan
        state.nextStan = s >= 999_999 ? 1 : s + 1
        return TerminalSimulator.padded(s, 6)
    }

    /// A 16-digit order code whose first 10 digits (the short order code) never repeat:
    /// they walk a permutation of 1_000_000_000...9_999_999_999 seeded by the config.
    private func takeOrderCode() -> (String, String) {
        let n = state.orderCount
        state.orderCount += 1
        let span: UInt64 = 9_000_000_000
        var mix = SplitMix64(state: config.seed)
        let start = mix.next() % span
        let short = 1_000_000_000 + (start &+ UInt64(n) &* 1_234_567_891) % span
        let shortText = String(short)
        return (shortText + digits(6), shortText)
    }

    private static let hexBytes: [UInt8] = Array("0123456789abcdef".utf8)
    private static let hexUpper: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// A version-4 UUID from the seeded generator.
    private func uuid(upper: Bool) -> String {
        var a = rng.next()
        var b = rng.next()
        a = (a & ~0xF000) | 0x4000                         // version 4
        b = (b & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // variant 1
        let table = upper ? TerminalSimulator.hexUpper : TerminalSimulator.hexBytes
        return String(unsafeUninitializedCapacity: 36) { buf in
            var k = 0
            for i in 0..<16 {
                let byte = i < 8 ? UInt8(truncatingIfNeeded: a >> UInt64(56 - 8 * i)) : UInt8(truncatingIfNeeded: b >> UInt64(56 - 8 * (i - 8)))
                if i == 4 || i == 6 || i == 8 || i == 10 { buf[k] = 0x2D; k += 1 }
                buf[k] = table[Int(byte >> 4)]; buf[k + 1] = table[Int(byte & 0xF)]; k += 2
            }
            return 36
        }
    }
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
