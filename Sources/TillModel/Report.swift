import TillProtocol

/// One aggregate of journal entries: everything a shift report needs, and nothing more.
/// The same buckets come from an in-memory list (`ReportBucket.aggregate`) or from SQL,
/// so the screen, the headless report and the exports always show the same numbers.
public struct ReportBucket: Sendable, Hashable, Codable {
    public var action: Action
    public var state: EntryState
    public var cardType: String
    public var verificationMethod: String
    public var count: Int
    public var amountCents: Int
    public var tipCents: Int
    /// How many of the entries carried a tip.
    public var tippedCount: Int
    /// The part of `tipCents` that the amounts already hold (entries journaled with the tip included): the goods are
    /// `amountCents - includedTipCents`, the cards paid `amountCents + tipCents - includedTipCents`.
    public var includedTipCents: Int
    public var firstAtMs: Int64
    public var lastAtMs: Int64

    public init(action: Action, state: EntryState, cardType: String, verificationMethod: String,
                count: Int, amountCents: Int, tipCents: Int, tippedCount: Int, firstAtMs: Int64, lastAtMs: Int64,
                includedTipCents: Int = 0) {
        self.action = action; self.state = state; self.cardType = cardType; self.verificationMethod = verificationMethod
        self.count = count; self.amountCents = amountCents; self.tipCents = tipCents; self.tippedCount = tippedCount
        self.firstAtMs = firstAtMs; self.lastAtMs = lastAtMs; self.includedTipCents = includedTipCents
    }

    /// What sorts entries into one bucket.
    public struct Key: Hashable { var action: Action; var state: EntryState; var cardType: String; var method: String }
    public var key: Key { Key(action: action, state: state, cardType: cardType, method: verificationMethod) }

    /// Adds another bucket's entries of the same key to this one.
    public mutating func add(_ other: ReportBucket) {
        count += other.count; amountCents += other.amountCents; tipCents += other.tipCents; tippedCount += other.tippedCount
        includedTipCents += other.includedTipCents
        firstAtMs = min(firstAtMs, other.firstAtMs); lastAtMs = max(lastAtMs, other.lastAtMs)
    }

    /// The amount an entry moved, as the journal counts it (`JournalEntry.amount`).
    public static func amountCents(of e: JournalEntry) -> Int { e.amount?.cents ?? 0 }
    public static func tipCents(of e: JournalEntry) -> Int { e.tipAmount?.cents ?? 0 }

    /// Aggregates entries into buckets (batch and abort/details entries carry no money and are skipped).
    public static func aggregate(_ entries: [JournalEntry]) -> [ReportBucket] {
        var map: [Key: ReportBucket] = [:]
        var order: [Key] = []
        for e in entries where e.action.movesMoney {
            let amount = amountCents(of: e), tip = tipCents(of: e)
            let one = ReportBucket(action: e.action, state: e.state, cardType: e.response?.cardType ?? "",
                                   verificationMethod: e.response?.verificationMethod ?? "", count: 1, amountCents: amount,
                                   tipCents: tip, tippedCount: tip > 0 ? 1 : 0, firstAtMs: e.createdAtMs, lastAtMs: e.createdAtMs,
                                   includedTipCents: e.tipStyle == .included ? tip : 0)
            if map[one.key]?.add(one) == nil {
                order.append(one.key)
                map[one.key] = one
            }
        }
        return order.map { map[$0]! }
    }
}

/// A count and a sum.
public struct Tally: Sendable, Hashable, Codable {
    public var count: Int = 0
    public var cents: Int = 0
    public init(count: Int = 0, cents: Int = 0) { self.count = count; self.cents = cents }
    mutating func add(_ c: Int, _ s: Int) { count += c; cents += s }
}

/// A running (X) or closing (Z) report of one batch (shift).
///
/// Money rules (see README): the tip is added on top of the amount, so the card was charged
/// amount + tip. Net total = approved sales + their tips + captured pre-auths − refunds/cancels.
/// Pre-auths only reserve money: they count in the net total once captured.
public struct Report: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable { case running = "X", closing = "Z" }


    public var kind: Kind
    public var batchId: String?
    public var batchName: String?
    public var openedAtMs: Int64?
    public var closedAtMs: Int64?
    /// How the batch ended; nil while open. Stored (in the journal's Z reports) as its raw value, the same text as
    /// before it was typed, so Z reports stored earlier read unchanged.
    public var closedHow: BatchCloseReason?
    /// When the report was made (till's clock).
    public var generatedAtMs: Int64

    public var sales = Tally()
    /// `count` is the number of approved sales that carried a tip.
    public var tips = Tally()
    public var preAuths = Tally()
    public var captures = Tally()
    public var refunds = Tally()
    public var declined = Tally()
    public var aborted = Tally()
    /// Settled as unknown: no answer came within the wait, or recovery could not ask the terminal. A person checks.
    public var unknown = Tally()
    /// Journaled and sent (or about to be) with no answer yet: while a till runs, the payment the terminal is working
    /// on; when none runs, one its next start asks the terminal about. Optional in storage so Z reports stored before
    /// it existed still read (they counted these as unknown).
    public var waiting: Tally { get { waitingStored ?? Tally() } set { waitingStored = newValue } }
    private var waitingStored: Tally?
    /// Whatever has no outcome yet, waiting or unknown: for a reader that cannot tell whether a till is still waiting
    /// (the central store).
    public var notYetKnown: Tally { Tally(count: unknown.count + waiting.count, cents: unknown.cents + waiting.cents) }
    /// Settled as not charged without a decline: the terminal was busy and did not start it, it was never sent, or a
    /// person found it not charged. Optional in storage so Z reports stored before it existed still read.
    public var notCharged: Tally { get { notChargedStored ?? Tally() } set { notChargedStored = newValue } }
    private var notChargedStored: Tally?
    /// Answers that need a person before they count (approved for another amount than asked, answers that matched
    /// nothing till sent). Optional in storage so Z reports stored before it existed still read.
    public var review: Tally { get { reviewStored ?? Tally() } set { reviewStored = newValue } }
    private var reviewStored: Tally?
    /// Answers of money moved that came while no batch was open (between shifts, right after a close) and wait for a
    /// person: outside every batch until settled, then filed under a batch (the open one, or one opened for them). Every
    /// report says so, as it is money no batch counts yet. Optional in storage so Z reports stored before it still read.
    public var waitingForABatch: Tally { get { waitingForABatchStored ?? Tally() } set { waitingForABatchStored = newValue } }
    private var waitingForABatchStored: Tally?
    /// Answers that repeated a transaction already journaled: nothing new was charged.
    public var duplicates: Tally { get { duplicatesStored ?? Tally() } set { duplicatesStored = newValue } }
    private var duplicatesStored: Tally?
    /// Approved sales by card type, then by verification method (count and amount + tip).
    public var byCardType: [String: Tally] = [:]
    public var byVerificationMethod: [String: Tally] = [:]
    public var firstAtMs: Int64?
    public var lastAtMs: Int64?
    /// Set on a Z report made again because an entry of its batch was settled after the first one was made (a sale
    /// marked charged after the close): when that first one was made and its net total, so nobody takes the new
    /// figures for the ones printed at the close.
    public var restated: Restated?

    public struct Restated: Sendable, Hashable, Codable {
        public var firstMadeAtMs: Int64
        public var firstNetCents: Int
        public init(firstMadeAtMs: Int64, firstNetCents: Int) { self.firstMadeAtMs = firstMadeAtMs; self.firstNetCents = firstNetCents }
    }

    /// Approved pre-auths not yet captured. A capture settles its pre-auth (any remainder is released),
    /// so this is a count; the reserved amount per pre-auth is in the journal.
    public var preAuthsAwaitingCapture: Int { max(0, preAuths.count - captures.count) }
    public var netCents: Int { sales.cents + tips.cents + captures.cents - refunds.cents }

    /// Each bucket says how much of its tips its amounts already hold (the tip style each entry was journaled with), so
    /// the figures never depend on today's config.
    public init(kind: Kind, batch: BatchInfo?, closedAtMs: Int64? = nil, closedHow: BatchCloseReason? = nil,
                generatedAtMs: Int64, buckets: [ReportBucket]) {
        self.kind = kind
        batchId = batch?.id; batchName = batch?.name; openedAtMs = batch?.openedAtMs
        self.closedAtMs = closedAtMs; self.closedHow = closedHow; self.generatedAtMs = generatedAtMs
        /// A bucket's money as the card pays it: amount + tip on top, the amount alone when it holds the tip.
        func asked(_ b: ReportBucket) -> Int { b.amountCents + b.tipCents - b.includedTipCents }
        for b in buckets where b.action.movesMoney {
            firstAtMs = min(firstAtMs ?? b.firstAtMs, b.firstAtMs)
            lastAtMs = max(lastAtMs ?? b.lastAtMs, b.lastAtMs)
            switch b.state {
            case .approved:
                switch b.action.reportRole {
                case .sale:
                    // The terminal's figures are the truth; the tip style says whether its amount holds the tip.
                    // `sales` is always the goods and `tips` the tips, so the net total is the money the cards paid.
                    let goods = b.amountCents - b.includedTipCents
                    sales.add(b.count, goods); tips.add(b.tippedCount, b.tipCents)
                    byCardType[b.cardType.isEmpty ? "(unknown)" : b.cardType, default: Tally()].add(b.count, goods + b.tipCents)
                    byVerificationMethod[b.verificationMethod.isEmpty ? "(unknown)" : b.verificationMethod, default: Tally()]
                        .add(b.count, goods + b.tipCents)
                case .preAuth: preAuths.add(b.count, b.amountCents)
                case .capture: captures.add(b.count, b.amountCents)
                case .refund: refunds.add(b.count, b.amountCents)
                case .none: break
                }
            // Outside the totals: what the card was asked for (or may have paid), read with each entry's tip style.
            case .declined: declined.add(b.count, asked(b))
            case .aborted: aborted.add(b.count, asked(b))
            case .pending, .sent: waiting.add(b.count, asked(b))
            case .unknown: unknown.add(b.count, asked(b))
            case .review: review.add(b.count, asked(b))
            case .duplicate: duplicates.add(b.count, asked(b))
            case .resolved: notCharged.add(b.count, asked(b))
            }
        }
    }

    public var title: String {
        (kind == .running ? "X report (running)" : "Z report (closing)") + (batchName.map { ": \($0)" } ?? "")
    }
}

/// How amounts and times are written in reports.
public struct ReportFormat: Sendable, Hashable {
    public var currencySymbol: String
    public var decimalSeparator: String
    /// Minutes east of UTC for the times shown.
    public var utcOffsetMinutes: Int
    public init(currencySymbol: String = "€", decimalSeparator: String = ".", utcOffsetMinutes: Int = 0) {
        self.currencySymbol = currencySymbol; self.decimalSeparator = decimalSeparator; self.utcOffsetMinutes = utcOffsetMinutes
    }
    /// The currency's ISO 4217 code, for exports: the configured currency when it is one (`EUR`), else the code of a
    /// symbol that names one currency only (`€`, `£`); empty when the symbol is ambiguous (`$`, `kr`).
    public var currencyCode: String {
        let s = currencySymbol.trimmingWhitespace()
        if s.count == 3, s.allSatisfy({ $0.isASCII && $0.isUppercase }) { return s }
        return ["€": "EUR", "£": "GBP", "zł": "PLN", "Kč": "CZK", "Ft": "HUF", "lei": "RON", "лв": "BGN", "₺": "TRY",
                "CHF": "CHF", "¥": "JPY", "₹": "INR", "₽": "RUB", "₴": "UAH", "₪": "ILS"][s] ?? ""
    }

    public func money(_ cents: Int) -> String {
        Money(cents: cents).formatted(symbol: currencySymbol, decimalSeparator: decimalSeparator)
    }
    public func time(_ ms: Int64?) -> String {
        guard let ms else { return "-" }
        let t = TerminalDate.format(instant: ms * 10_000, offsetMinutes: utcOffsetMinutes)
        // 2026-11-22T09:15:02.0000000+01:00 -> 2026-11-22 09:15:02
        return String(t.prefix(10)) + " " + String(t.dropFirst(11).prefix(8))
    }
}
