import Foundation
import TillCore
import TillIO
import TillProtocol
import TillSimulator
import TillSimulatorTransport

/// What the simulated link between till and the terminal does to the next answer (FoundationDB-style fault
/// injection: the terminal itself stays the real simulator; only the link misbehaves).
enum AnswerFault: String, Sendable, Hashable, CaseIterable {
    /// Delivered as sent.
    case none
    /// Lost on the way (the terminal charged, till never hears).
    case drop
    /// Delivered twice.
    case duplicate
    /// The amount is changed on the way (an approval for another amount than asked).
    case wrongAmount
    /// Held back; delivered at a later step (late, possibly after till gave up).
    case hold
    // A misbehaving terminal, as an independent peer showed one (each comes before the real answer, which follows):
    /// A failure of the same action and amount that names no payment.
    case unnamedFailureFirst
    /// An earlier answer of this terminal again.
    case repeatEarlierAnswer
    /// An abort's answer naming another payment.
    case abortOfAnotherFirst
    /// An approval naming another payment, same action and amount.
    case approvalOfAnotherFirst
    /// An approval of the same action and amount that names no payment (of a sale or pre-auth, which carry one).
    case unnamedApprovalFirst
    /// The real answer, with its amount written as the terminal never should (`10.00` for 1000 cents).
    case unreadableAmount
    /// A look-up's answer without its transaction status (`status=success` alone).
    case lookUpWithoutStatus
    /// A terminal that corrects itself (issue 33): a sale's approval is delivered first as a decline naming the sale,
    /// the approval itself only later (at a `releaseHeld`, possibly after a kill and a restart: a bridge that
    /// delivers again at its next start).
    case declineThenLateApproval
}

/// A transport around the built-in simulator whose link can drop, repeat, alter or delay answers, and inject
/// answers the terminal never sent (stray files, another till's answers).
final class FaultyTransport: Transport, @unchecked Sendable {
    let inner: SimulatorTransport
    var description: String { "simulator" }
    private let lock = NSLock()
    private var sink: (@Sendable (TransportEvent) -> Void)?
    private var nextFault: AnswerFault = .none
    private var held: [IncomingAnswer] = []
    /// Approvals held by `declineThenLateApproval`, and those released that till has not acknowledged yet: kept
    /// across a kill and a restart (handed to the next transport, which delivers them again, as a bridge re-delivers
    /// what was not acknowledged).
    var late: [IncomingAnswer] {
        get { lock.withLock { lateHeld + lateReleased } }
        set { lock.withLock { lateHeld = newValue; lateReleased = [] } }
    }
    private var lateHeld: [IncomingAnswer] = []
    /// Late approvals handed to till, until till acknowledges them (it does once they are journaled).
    private var lateReleased: [IncomingAnswer] = []
    /// Whether the approval of the sale with this reference is still on its way: held by the link, or handed to till
    /// and not yet journaled (the journal may say "not charged so far" meanwhile, never after).
    func holdsApproval(of ctid: String) -> Bool {
        lock.withLock {
            (lateHeld + lateReleased).contains { $0.text.contains("clientTransactionId=" + ctid + "&") || $0.text.hasSuffix("clientTransactionId=" + ctid) }
        }
    }
    /// Every answer delivered so far (for repeats).
    private var delivered: [String] = []
    private var strayCount = 0

    init(_ inner: SimulatorTransport) { self.inner = inner }

    func setNextFault(_ f: AnswerFault) { lock.withLock { nextFault = f } }

    func start(sink: @escaping @Sendable (TransportEvent) -> Void) async throws -> [IncomingAnswer] {
        lock.withLock { self.sink = sink }
        return try await inner.start(sink: { [weak self] e in self?.intercept(e) })
    }

    private func intercept(_ e: TransportEvent) {
        lock.lock()
        let s = sink
        var out: [TransportEvent] = []
        if case .answer(var a) = e, nextFault != .none {
            let f = nextFault
            nextFault = .none
            // The misbehaving terminal's faults wait for a payment's answer (the look-up's for its own fault).
            let payment = ["action=sale", "action=pre_auth", "action=cancel", "action=capture_pre_auth"].contains { a.text.contains($0) }
            let waits: Set<AnswerFault> = [.unnamedFailureFirst, .repeatEarlierAnswer, .abortOfAnotherFirst, .approvalOfAnotherFirst, .unreadableAmount]
            let named = ["action=sale", "action=pre_auth"].contains { a.text.contains($0) }
            switch f {
            case _ where waits.contains(f) && !payment, .unnamedApprovalFirst where !named:
                nextFault = f
                out = [e]
                nextFault = f
                out = [e]
            case .declineThenLateApproval:
                let r = try? CallbackResponse.decode(a.text)
                guard let r, r.action == .sale, r.isApproved, let ctid = r.clientTransactionId else {
                    nextFault = f   // kept for a sale's approval
                    out = [e]
                    break
                }
                let decline = "interapp-callback://result?status=fail&message=(-12)%20TRANSACTION_DECLINED_BY_SERVER&action=sale"
                    + "&amount=\(r.amount?.cents ?? 0)&tipAmount=\(r.tipAmount?.cents ?? 0)&clientTransactionId=\(ctid)"
                out = [.answer(IncomingAnswer(text: decline))]
                lateHeld.append(a)
            case .none: out = [e]
            case .drop: out = []
            case .duplicate: out = [e, e]
            case .wrongAmount:
                a.text = FaultyTransport.replacing(a.text, "amount") { v in String((Int(v) ?? 0) / 2 + 1) }
                out = [.answer(a)]
            case .hold: held.append(a)
            case .unnamedFailureFirst, .approvalOfAnotherFirst, .abortOfAnotherFirst, .unnamedApprovalFirst:
                strayCount += 1
                let r = try? CallbackResponse.decode(a.text)
                let action = r?.rawAction ?? "sale", amount = r?.amount.map { String($0.cents) } ?? "1000"
                let text: String
                switch f {
                case .unnamedFailureFirst:
                    text = "interapp-callback://result?status=fail&message=(-12)%20TRANSACTION_DECLINED_BY_SERVER&action=\(action)&amount=\(amount)"
                case .unnamedApprovalFirst:
                    text = "interapp-callback://result?status=success&message=Transaction%20successful.&action=\(action)&amount=\(amount)"
                        + "&tipAmount=0&referenceNumber=7\(String(format: "%05d", strayCount))"
                        + "&transactionId=00000000-0000-0000-0001-\(String(format: "%012d", strayCount))"
                case .approvalOfAnotherFirst:
                    text = "interapp-callback://result?status=success&message=Transaction%20successful.&action=\(action)&amount=\(amount)"
                        + "&tipAmount=0&clientTransactionId=another-payment-\(strayCount)&referenceNumber=8\(String(format: "%05d", strayCount))"
                        + "&transactionId=00000000-0000-0000-0000-\(String(format: "%012d", strayCount))"
                default:
                    text = "interapp-callback://result?status=fail&message=(-57)%20ABORTED&action=ABORT&amount=\(amount)&tipAmount=0"
                        + "&clientTransactionId=another-payment-\(strayCount)"
                }
                out = [.answer(IncomingAnswer(text: text)), e]
            case .repeatEarlierAnswer:
                out = (delivered.last.map { [.answer(IncomingAnswer(text: $0))] } ?? []) + [e]
            case .unreadableAmount:
                a.text = FaultyTransport.replacing(a.text, "amount") { v in (Int(v)).map { String(format: "%d.%02d", $0 / 100, $0 % 100) } ?? v }
                out = [.answer(a)]
            case .lookUpWithoutStatus:
                if a.text.contains("action=transactionDetails") {
                    a.text = a.text.replacingOccurrences(of: "&transactionStatus=success", with: "")
                        .replacingOccurrences(of: "&transactionStatus=fail", with: "")
                    out = [.answer(a)]
                } else {
                    nextFault = .lookUpWithoutStatus   // kept for the next look-up
                    out = [e]
                }
            }
        } else {
            out = [e]
        }
        for case .answer(let x) in out { delivered.append(x.text) }
        lock.unlock()
        if ProcessInfo.processInfo.environment["TILL_SIM_TRACE"] != nil, out.count != 1 || out.first.map({ if case .answer(let x) = $0, case .answer(let y) = e { return x.text != y.text }; return false }) == true {
            print("    link: \(out.count) answer(s) for one: \(out.map { if case .answer(let x) = $0 { return String(x.text.prefix(90)) }; return "" })")
        }
        for x in out { s?(x) }
    }

    /// Delivers what was held back, in order.
    func releaseHeld() {
        let (list, s) = lock.withLock { () -> ([IncomingAnswer], (@Sendable (TransportEvent) -> Void)?) in
            let l = held + lateHeld; held = []; lateReleased += lateHeld; lateHeld = []; return (l, sink)
        }
        for a in list { s?(.answer(a)) }
    }

    /// An answer the terminal never sent to this till.
    func inject(_ text: String) {
        let s = lock.withLock { sink }
        s?(.answer(IncomingAnswer(text: text)))
    }

    func send(id: String, url: String) async throws(TransportError) { try await inner.send(id: id, url: url) }
    func acknowledge(_ answer: IncomingAnswer) async {
        lock.withLock { lateReleased.removeAll { $0.text == answer.text } }
        await inner.acknowledge(answer)
    }
    func reject(_ answer: IncomingAnswer, reason: String) async { await inner.reject(answer, reason: reason) }
    func gaveUp(on id: String) async -> Bool { await inner.gaveUp(on: id) }
    func stop() async {
        lock.withLock { sink = nil; held = [] }   // lateHeld stays: the next start's transport delivers it
        await inner.stop()
    }

    static func replacing(_ url: String, _ name: String, _ change: (String) -> String) -> String {
        guard let q = url.firstIndex(of: "?") else { return url }
        let fields = url[url.index(after: q)...].split(separator: "&", omittingEmptySubsequences: false).map { f -> String in
            guard f.hasPrefix(name + "=") else { return String(f) }
            return name + "=" + change(String(f.dropFirst(name.count + 1)))
        }
        return String(url[...q]) + fields.joined(separator: "&")
    }

    /// Answers no request of this till asked for: another till's sale, a stray batch answer, one with no action.
    static let strays = [
        "interapp-callback://result?status=success&message=Transaction%20successful.&action=sale&clientTransactionId=another-till-1&amount=4200&tipAmount=0&referenceNumber=900001&transactionId=00000000-0000-0000-0000-00000000a001",
        "interapp-callback://result?status=success&message=Batch%20opened&action=batch&command=open&batchName=Phantom&batchId=00000000-0000-0000-0000-0000000000b1",
        "interapp-callback://result?status=success&message=Transaction%20successful.&amount=999&tipAmount=0",
        "interapp-callback://result?status=success&message=Batch%20closed&action=batch&command=close",
        "interapp-callback://result?status=fail&message=(-57)%20ABORTED&action=ABORT&amount=10&tipAmount=0",
    ]
}
