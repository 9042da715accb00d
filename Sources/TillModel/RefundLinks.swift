import TillProtocol

/// Which refund refunds which payment, as a till roll shows it: read from journal rows alone.
///
/// A refund's answer carries the refund's own STAN and order code, not the sale's; the link is in its
/// request, which names the original by STAN (`referenceNumber`, what F5 on a journal row fills in),
/// order code or short order code. The original is the approved sale or capture whose answer carries
/// that key, as the core matches a repeated answer to its transaction (STAN and order code,
/// by the one key the terminal goes by: the short order code, else the order code, else the STAN. STANs
/// wrap, so the latest such payment journaled before the refund is the one. A refund that named no key
/// (the cardholder picked the payment on the terminal) links to nothing.
public struct RefundLinks: Sendable, Hashable {
    /// Refund entry id → the payment it refunds (any refund, whatever its state: a declined one still names it).
    public private(set) var original: [Int64: Int64] = [:]
    /// Payment entry id → its approved refunds, oldest first.
    public private(set) var refunds: [Int64: [Int64]] = [:]
    /// Payment entry id → the money its approved refunds gave back, where their amounts are known.
    public private(set) var refunded: [Int64: Money] = [:]
    /// Payments with an approved refund whose amount nobody knows: a refund "in full" marked charged with no answer.
    /// Never counted as 0.00 (that would read as "nothing went back" and invite a second refund).
    public private(set) var unknownAmount: Set<Int64> = []
    /// Capture entry id → the pre-auth it captures (whatever the capture's state), found as a refund finds its sale.
    public private(set) var preAuthOf: [Int64: Int64] = [:]
    /// Pre-auth entry id → its approved captures, oldest first: a captured pre-auth says so.
    public private(set) var captures: [Int64: [Int64]] = [:]

    public init() {}

    public init(_ entries: [JournalEntry]) {
        let ordered = entries.sorted { $0.id < $1.id }
        // The entries `keep` takes, under each key their answer carries; each list oldest first.
        func index(_ keep: (JournalEntry) -> Bool) -> [FinderKey: [JournalEntry]] {
            var byKey: [FinderKey: [JournalEntry]] = [:]
            for e in ordered where keep(e) {
                guard let r = e.response else { continue }
                if let k = r.referenceNumber { byKey[.referenceNumber(k), default: []].append(e) }
                if let k = r.orderCode { byKey[.orderCode(k), default: []].append(e) }
                if let k = r.shortOrderCode { byKey[.shortOrderCode(k), default: []].append(e) }
            }
            return byKey
        }
        // The payments a refund can name; captures name their pre-auth the same way (by the key the terminal goes by).
        let byKey = index(RefundLinks.isRefundable)
        let preAuths = index { RefundLinks.canBeOriginal($0, capture: true) }
        for e in ordered where e.action.findsEarlierPayment == .toCapture {
            guard let key = RefundLinks.finder(of: e).key, let pre = (preAuths[key] ?? []).last(where: { $0.id < e.id }) else { continue }
            preAuthOf[e.id] = pre.id
            if e.state == .approved { captures[pre.id, default: []].append(e.id) }
        }
        for e in ordered where e.action.findsEarlierPayment == .toRefund {
            // The key the terminal goes by (`TransactionFinder.key`); a refund that named none links to nothing.
            guard let key = RefundLinks.finder(of: e).key else { continue }
            let candidates = byKey[key] ?? []
            guard let sale = candidates.last(where: { $0.id < e.id }) else { continue }
            original[e.id] = sale.id
            guard e.state == .approved else { continue }
            refunds[sale.id, default: []].append(e.id)
            if let amount = e.amount { refunded[sale.id, default: .zero] = refunded[sale.id, default: .zero] + amount }
            else { unknownAmount.insert(sale.id) }
        }
    }

    /// Whether `e` is a payment a refund (a capture) can be of: an approved sale or capture (`isRefundable`), an
    /// approved pre-auth. A journal row and a typed key find it by the same rule.
    public static func canBeOriginal(_ e: JournalEntry, capture: Bool) -> Bool {
        (capture ? e.action.capturable : e.action.refundable) && e.state == .approved
    }

    /// The payment (pre-auth) `key` names among `entries`: the latest that can be one (`canBeOriginal`).
    public static func payment(named key: FinderKey, in entries: [JournalEntry], capture: Bool) -> JournalEntry? {
        entries.filter { canBeOriginal($0, capture: capture) && key.names($0.response) }.max { $0.id < $1.id }
    }

    /// How a refund (capture) of `amount` (nil: all of it) would go beyond what the journal says is left of `payment`.
    public enum Beyond: Sendable, Hashable {
        /// A capture of a pre-auth captured already (`capture`): a pre-auth is captured once.
        case alreadyCaptured(capture: JournalEntry)
        /// A capture of more than the pre-auth.
        case moreThanThePreAuth(asked: Money, preAuth: Money)
        /// A refund of more than is left once its approved refunds are taken off (a refund in full with nothing left).
        case moreThanIsLeft(asked: Money?, left: Money, refunded: Money)
        /// A refund of more than the payment, none refunded yet.
        case moreThanThePayment(asked: Money, paid: Money)

        /// The refusal, in a cashier's words.
        public var sentence: String {
            switch self {
            case .alreadyCaptured(let c):
                return "The pre-auth was captured already\(c.charged.map { " (" + $0.description + ")" } ?? ""): "
                    + "a second capture is refused by the terminal, or charges twice."
            case .moreThanThePreAuth(let asked, let pre):
                return "A capture of \(asked) is more than the pre-auth of \(pre)."
            case .moreThanIsLeft(let asked, let left, let back):
                return "\(back) of the payment was refunded already: \(left) is left, "
                    + (asked.map { "not \($0)." } ?? "nothing to refund in full.")
            case .moreThanThePayment(let asked, let paid):
                return "A refund of \(asked) is more than the payment of \(paid)."
            }
        }
    }

    /// What a refund (`capture` false) or capture of `amount` (nil: all of it) would take beyond what is left of
    /// `payment`, by the links `entries` hold; nil when within it or when the journal cannot tell (a refund of unknown
    /// amount). One rule: the screen's box warns with it, and the controller refuses with it before anything is
    /// journaled or sent (`till refund`, `till capture`).
    public static func beyond(_ payment: JournalEntry, entries: [JournalEntry], amount: Money?, capture: Bool) -> Beyond? {
        let links = RefundLinks(entries)
        let total = payment.charged
        if capture {
            if let id = links.captures[payment.id]?.last, let c = entries.first(where: { $0.id == id }) { return .alreadyCaptured(capture: c) }
            if let total, let amount, amount > total { return .moreThanThePreAuth(asked: amount, preAuth: total) }
            return nil
        }
        if let back = links.refunded[payment.id] {
            guard let total else { return nil }
            let left = Money(cents: max(0, total.cents - back.cents))
            if let amount { return amount > left ? .moreThanIsLeft(asked: amount, left: left, refunded: back) : nil }
            return left.cents == 0 ? .moreThanIsLeft(asked: nil, left: left, refunded: back) : nil
        }
        if links.unknownAmount.contains(payment.id) { return nil }
        if let total, let amount, amount > total { return .moreThanThePayment(asked: amount, paid: total) }
        return nil
    }

    /// Whether an earlier refund (capture) `earlier` may have moved the money a new one with `finder` asks for: both
    /// name the same payment (the same key, or the earlier's key names `payment`, the one the new key finds), or
    /// either names none (the cardholder picks the payment on the terminal: it may be any). One rule for the screen's
    /// warning and the controller's refusal (an unknown keyless refund let three refunds of one sale go).
    public static func mayBeSameMoney(_ earlier: JournalEntry, as finder: TransactionFinder, payment: JournalEntry?) -> Bool {
        guard let was = RefundLinks.finder(of: earlier).key, let asked = finder.key else { return true }
        return was == asked || payment.map { was.names($0.response) } == true
    }

    /// A payment a refund can give money back from: an approved sale or capture.
    public static func isRefundable(_ e: JournalEntry) -> Bool {
        e.action.refundable && e.state == .approved
    }

    /// The keys a refund's or a capture's request named (empty for any other entry).
    public static func finder(of e: JournalEntry) -> TransactionFinder {
        guard e.action.findsEarlierPayment != nil, let fields = QueryFields(url: e.requestURL) else { return TransactionFinder() }
        func key(_ name: String) -> String? { fields.value(named: name).flatMap { $0.isEmpty ? nil : $0 } }
        return TransactionFinder(referenceNumber: key("referenceNumber"), orderCode: key("orderCode"), shortOrderCode: key("shortOrderCode"))
    }
}
