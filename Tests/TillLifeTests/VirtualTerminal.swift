import TillModel
import TillProtocol
// The seeded generator, the same numbers for the same seed on every machine (the simulator's own).
import struct TillSimulator.SplitMix64

/// The card terminal of the virtual-clock simulation: it keeps its own ledger (the truth: what it charged), and
/// answers in every way a real one was seen to — on time, late, twice, never, without naming the payment, a decline
/// corrected by an approval 1.5 s later, an abort answered ABORTED with the sale's approval 7 s later. It is not the
/// built-in simulator (TillSimulator): a peer that is not ours, with its own ledger.
struct VirtualTerminal {
    enum Fate: Hashable { case waiting, charged, declined, aborted }
    struct Transaction {
        /// A sale charges the card; a pre-auth holds the amount on it (what a capture later charges).
        var action: Action = .sale
        var ctid: String
        var amount: Money
        var fate: Fate
        var stan: String
    }
    /// An answer the terminal sent: delivered to till at `at` (virtual ms), the text as a bridge would pass it.
    struct Answer {
        var at: Int64
        var text: String
        var hint: String?
        var ctid: String?
    }
    /// How the terminal answers one card transaction.
    enum Manner: CaseIterable {
        case onTime, late, twice, never, unnamedFirst, correctsDecline, chargesAfterAbort
    }

    private(set) var ledger: [String: Transaction] = [:]
    /// A refund the terminal made: of the sale with STAN `of`, for `amount`, under transaction id `transactionId`.
    struct Refund: Hashable { var transactionId: String; var of: String; var amount: Money }
    /// The refunds it made, by the request id of the refund request that made each.
    private(set) var refunds: [String: Refund] = [:]
    /// The captures it made (of a pre-auth's STAN, at most once each, for at most what it holds), by request id.
    private(set) var captures: [String: Refund] = [:]
    /// The transaction the terminal is working on (waiting for a card).
    private(set) var working: String?
    var rng: SplitMix64
    /// The manners this run may use (a failing run is shrunk by taking them away).
    var manners: [Manner]
    private var stanCounter = 0

    init(rng: SplitMix64, manners: [Manner]) { self.rng = rng; self.manners = manners }

    mutating func pick(_ n: Int) -> Int { Int(rng.next() % UInt64(max(1, n))) }

    static func url(_ fields: [(String, String)]) -> String {
        "till-sim://result?" + fields.map { $0.0 + "=" + QueryCodec.encode($0.1) }.joined(separator: "&")
    }

    func answerFields(_ t: Transaction, named: Bool) -> [(String, String)] {
        var f: [(String, String)] = []
        if t.fate == .charged {
            f += [("status", "success"), ("message", "Transaction successful.")]
        } else {
            f += [("status", "fail"), ("message", "(-12) TRANSACTION_DECLINED_BY_SERVER")]
        }
        f += [("action", t.action.rawValue), ("amount", String(t.amount.cents)), ("tipAmount", "0")]
        if named { f.append(("clientTransactionId", t.ctid)) }
        if t.fate == .charged { f += [("referenceNumber", t.stan), ("orderCode", "9" + t.stan), ("transactionId", "tx-" + t.stan)] }
        return f
    }

    /// The terminal reads a request handed to it at `now`; returns the answers it will send, and when the card of a
    /// sale is read (then `cardRead` is called).
    mutating func read(_ url: String, requestId: String, now: Int64) -> (answers: [Answer], cardAt: Int64?) {
        guard let request = try? TerminalRequest.parse(url) else { return ([], nil) }
        func cardPayment(_ action: Action, _ amount: Money, _ ctid: String?) -> (answers: [Answer], cardAt: Int64?) {
            guard let ctid else { return ([], nil) }
            if working != nil || ledger[ctid] != nil {
                // Busy with another one (or a request read twice): not started, nothing charged.
                let f: [(String, String)] = [("status", "fail"), ("message", "(-20) TRANSACTION_IN_PROGRESS"), ("action", action.rawValue),
                                             ("clientTransactionId", ctid)]
                return ([Answer(at: now + 50, text: Self.url(f), hint: requestId, ctid: ctid)], nil)
            }
            stanCounter += 1
            ledger[ctid] = Transaction(action: action, ctid: ctid, amount: amount, fate: .waiting, stan: String(100_000 + stanCounter))
            working = ctid
            return ([], now + 200 + Int64(pick(4_000)))
        }
        switch request.request {
        case .sale(let s): return cardPayment(.sale, s.amount, s.clientTransactionId)
        case .preAuth(let p): return cardPayment(.preAuth, p.amount, p.clientTransactionId)
        case .abort:
            guard let ctid = working, var t = ledger[ctid] else {
                let f: [(String, String)] = [("status", "success"), ("message", "(-55) NOTHING_TO_ABORT"), ("action", "abort")]
                return ([Answer(at: now + 30, text: Self.url(f), hint: requestId, ctid: nil)], nil)
            }
            working = nil
            let abortedAnswer = Answer(at: now + 30, text: Self.url([("status", "fail"), ("message", "(-57) ABORTED"), ("action", "abort"), ("amount", "0")]),
                                       hint: requestId, ctid: nil)
            if manners.contains(.chargesAfterAbort), pick(3) == 0 {
                // The card had been read already: the terminal charges all the same, answers the abort ABORTED, and
                // the sale's approval follows 7 s later (or, its bridge gone, never).
                t.fate = .charged
                ledger[ctid] = t
                var out = [abortedAnswer]
                if pick(3) != 0 { out.append(Answer(at: now + 7_000, text: Self.url(answerFields(t, named: true)), hint: nil, ctid: ctid)) }
                return (out, nil)
            }
            t.fate = .aborted
            ledger[ctid] = t
            var out = [abortedAnswer]
            if pick(2) == 0 {
                // The sale's own word too.
                out.append(Answer(at: now + 60, text: Self.url([("status", "fail"), ("message", "(-57) ABORTED"), ("action", "sale"),
                                                                  ("clientTransactionId", ctid), ("amount", String(t.amount.cents))]),
                                  hint: nil, ctid: ctid))
            }
            return (out, nil)
        case .cancel(let r): return takeFrom(r, capture: false, requestId: requestId, now: now)
        case .capturePreAuth(let r): return takeFrom(r, capture: true, requestId: requestId, now: now)
        case .transactionDetails(let d):
            let ctid = d.clientTransactionId
            var f: [(String, String)]
            if let t = ledger[ctid], t.fate != .waiting {
                f = [("status", "success"), ("action", "transactionDetails"), ("clientTransactionId", ctid),
                     ("amount", String(t.amount.cents)), ("tipAmount", "0")]
                switch t.fate {
                case .charged:
                    f += [("transactionStatus", "success"), ("referenceNumber", t.stan), ("orderCode", "9" + t.stan), ("transactionId", "tx-" + t.stan)]
                case .aborted: f += [("transactionStatus", "fail"), ("transactionMessage", "(-57) ABORTED")]
                default: f += [("transactionStatus", "fail")]
                }
            } else if ledger[ctid] != nil {
                f = [("status", "fail"), ("message", "(-20) TRANSACTION_IN_PROGRESS"), ("action", "transactionDetails"), ("clientTransactionId", ctid)]
            } else {
                f = [("status", "fail"), ("message", "(-99) TRANSACTION_NOT_FOUND"), ("action", "transactionDetails"), ("clientTransactionId", ctid)]
            }
            return ([Answer(at: now + 40 + Int64(pick(400)), text: Self.url(f), hint: requestId, ctid: nil)], nil)
        default:
            return ([], nil)
        }
    }

    /// A refund of a charged sale, or a capture of a held pre-auth, by its STAN: made at most for what is left (a
    /// pre-auth is captured once), answered in one of the terminal's manners; the answer names no payment.
    mutating func takeFrom(_ r: FinderRequest, capture: Bool, requestId: String, now: Int64) -> (answers: [Answer], cardAt: Int64?) {
        let action: Action = capture ? .capturePreAuth : .cancel
        let key = "finder:" + requestId
        if working != nil {
            let f: [(String, String)] = [("status", "fail"), ("message", "(-20) TRANSACTION_IN_PROGRESS"), ("action", action.rawValue)]
            return ([Answer(at: now + 50, text: Self.url(f), hint: requestId, ctid: key)], nil)
        }
        let of = r.finder.referenceNumber ?? ""
        let original = ledger.values.first { $0.stan == of && $0.fate == .charged && $0.action == (capture ? .preAuth : .sale) }
        let made = capture ? captures : refunds
        let taken = made.values.filter { $0.of == of }
        let left = capture && !taken.isEmpty ? 0 : (original?.amount.cents ?? 0) - taken.reduce(0) { $0 + $1.amount.cents }
        let want = r.amount?.cents ?? left
        guard original != nil, want > 0, want <= left else {
            let f: [(String, String)] = [("status", "fail"), ("message", "(-12) TRANSACTION_DECLINED_BY_SERVER"), ("action", action.rawValue),
                                         ("amount", String(want))]
            return ([Answer(at: now + 100, text: Self.url(f), hint: requestId, ctid: key)], nil)
        }
        stanCounter += 1
        let stan = String(100_000 + stanCounter)
        let tx = (capture ? "cp-" : "rf-") + stan
        if capture { captures[requestId] = Refund(transactionId: tx, of: of, amount: Money(cents: want)) }
        else { refunds[requestId] = Refund(transactionId: tx, of: of, amount: Money(cents: want)) }
        let own = Self.url([("status", "success"), ("message", "Transaction successful."), ("action", action.rawValue), ("amount", String(want)),
                            ("referenceNumber", stan), ("orderCode", "8" + stan), ("transactionId", tx)])
        switch manners[pick(manners.count)] {
        case .late: return ([Answer(at: now + 60_000 + Int64(pick(200_000)), text: own, hint: requestId, ctid: key)], nil)
        case .twice: return ([Answer(at: now + 300, text: own, hint: requestId, ctid: key),
                              Answer(at: now + 300 + Int64(pick(30_000)), text: own, hint: nil, ctid: key)], nil)
        case .never: return ([], nil)
        default: return ([Answer(at: now + 300, text: own, hint: requestId, ctid: key)], nil)
        }
    }

    /// The card of sale `ctid` is read at `now`: charged or declined, and answered in one of the terminal's manners.
    mutating func cardRead(_ ctid: String, requestId: String, now: Int64) -> [Answer] {
        guard var t = ledger[ctid] else { return [] }
        if working == ctid { working = nil }
        // Aborted (or charged at the abort) meanwhile: the card event is over.
        guard t.fate == .waiting else { return [] }
        var manner = manners[pick(manners.count)]
        if manner == .chargesAfterAbort { manner = .onTime }
        t.fate = pick(10) < 7 || manner == .correctsDecline ? .charged : .declined
        ledger[ctid] = t
        let own = Self.url(answerFields(t, named: true))
        switch manner {
        case .onTime, .chargesAfterAbort: return [Answer(at: now + 20, text: own, hint: requestId, ctid: ctid)]
        case .late: return [Answer(at: now + 60_000 + Int64(pick(200_000)), text: own, hint: requestId, ctid: ctid)]
        case .twice:
            return [Answer(at: now + 20, text: own, hint: requestId, ctid: ctid),
                    Answer(at: now + 20 + Int64(pick(30_000)), text: own, hint: nil, ctid: ctid)]
        case .never:
            return []
        case .unnamedFirst:
            return [Answer(at: now + 20, text: Self.url(answerFields(t, named: false)), hint: nil, ctid: nil),
                    Answer(at: now + 40 + Int64(pick(5_000)), text: own, hint: requestId, ctid: ctid)]
        case .correctsDecline:
            // A decline from the card reader, then the host's approval 1.5 s later: the terminal corrects itself.
            var declined = t
            declined.fate = .declined
            return [Answer(at: now + 20, text: Self.url(answerFields(declined, named: true)), hint: requestId, ctid: ctid),
                    Answer(at: now + 1_520, text: own, hint: nil, ctid: ctid)]
        }
    }
}
