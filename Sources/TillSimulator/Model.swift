// The terminal simulator: configuration and the state the terminal keeps.
import TillProtocol


extension PaymentMethod {
    /// Paid by QR code or a wallet: abort is impossible once chosen (abort.txt:15).
    var isQR: Bool { self != .cardPresent && self != .moto }
}

/// How the simulated terminal words a decline by the host (amount 6.66).
public enum DeclineStyle: String, Sendable, Hashable, Codable, CaseIterable {
    /// Real terminals: `status=fail&message=(-12) TRANSACTION_DECLINED_BY_SERVER`. The default.
    case terminal
    /// overview-sale-cancel.txt:131: `status=failed&message=Transaction declined by host.`, no STAN, no
    /// authorisation code.
    case page

    public static var names: String { allCases.map(\.rawValue).joined(separator: "|") }
}

/// How the simulated terminal behaves. Every delay is multiplied by `speed`.
public struct SimulatorConfig: Sendable, Hashable, Codable {
    /// Seed of the random choices (card type, verification method, PAN digits, RRN, authorisation code, UUIDs).
    public var seed: UInt64
    /// 1 = real time (demos), 0 = no delays (tests); scales every delay.
    public var speed: Double
    /// Time until the card is read.
    public var cardWaitMs: Int
    /// Time the host takes to answer once the card was read.
    public var hostRoundTripMs: Int
    /// The app gives up waiting for a card after this long (scenario 8.08).
    public var giveUpAfterMs: Int
    /// The terminal's TID.
    public var tid: String
    /// Offset used in `transactionDate`.
    public var utcOffsetMinutes: Int
    public var abortStyle: AbortStyle
    public var declineStyle: DeclineStyle
    /// How this terminal reads `tipAmount` (till's config `tip`): what the card pays, what a refund may give back,
    /// and which amount the scenario amounts (9.09 …) are read on (the goods).
    public var tipStyle: TipStyle

    public init(seed: UInt64 = 1, speed: Double = 1, cardWaitMs: Int = 3000, hostRoundTripMs: Int = 1000,
                giveUpAfterMs: Int = 60000, tid: String = "16016684", utcOffsetMinutes: Int = 0,
                abortStyle: AbortStyle = .terminal, declineStyle: DeclineStyle = .terminal, tipStyle: TipStyle = .onTop) {
        self.seed = seed; self.speed = speed; self.cardWaitMs = cardWaitMs; self.hostRoundTripMs = hostRoundTripMs
        self.giveUpAfterMs = giveUpAfterMs; self.tid = tid; self.utcOffsetMinutes = utcOffsetMinutes
        self.abortStyle = abortStyle; self.declineStyle = declineStyle; self.tipStyle = tipStyle
    }

    enum CodingKeys: String, CodingKey {
        case seed, speed, cardWaitMs, hostRoundTripMs, giveUpAfterMs, tid, utcOffsetMinutes, abortStyle, declineStyle, tipStyle
    }

    /// A config saved before the styles existed reads with the defaults.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(seed: try c.decode(UInt64.self, forKey: .seed), speed: try c.decode(Double.self, forKey: .speed),
                  cardWaitMs: try c.decode(Int.self, forKey: .cardWaitMs), hostRoundTripMs: try c.decode(Int.self, forKey: .hostRoundTripMs),
                  giveUpAfterMs: try c.decode(Int.self, forKey: .giveUpAfterMs), tid: try c.decode(String.self, forKey: .tid),
                  utcOffsetMinutes: try c.decode(Int.self, forKey: .utcOffsetMinutes),
                  abortStyle: try c.decodeIfPresent(AbortStyle.self, forKey: .abortStyle) ?? .terminal,
                  declineStyle: try c.decodeIfPresent(DeclineStyle.self, forKey: .declineStyle) ?? .terminal,
                  tipStyle: try c.decodeIfPresent(TipStyle.self, forKey: .tipStyle) ?? .onTop)
    }

    /// The largest `speed` the commands take (delays 1000 times real time); beyond it delays are meaningless.
    public static let maximumSpeed = 1000.0

    /// A delay in milliseconds, scaled by `speed` (never negative).
    func scaled(_ ms: Int) -> Int64 {
        let v = (Double(ms) * speed).rounded()
        if !(v > 0) { return 0 }
        return v >= 9.0e15 ? 9_000_000_000_000_000 : Int64(v)
    }
}

/// How a batch came to be closed.
public enum BatchCloseReason: String, Sendable, Hashable, Codable {
    /// A `batch` request with `command=close`.
    case command
    /// 48 hours after it was opened.
    case autoClose = "auto-close"
    /// A new batch was opened while this one was open.
    case replaced
}

/// A batch (shift) of transactions.
public struct SimBatch: Sendable, Hashable, Codable {
    public var name: String
    /// Upper-case UUID, e.g. `7885F4F1-59CA-42C2-81BB-6DB48AA138A6`.
    public var id: String
    public var openedMs: Int64
    public var closedMs: Int64?
    public var closedBy: BatchCloseReason?
    public init(name: String, id: String, openedMs: Int64, closedMs: Int64? = nil, closedBy: BatchCloseReason? = nil) {
        self.name = name; self.id = id; self.openedMs = openedMs; self.closedMs = closedMs; self.closedBy = closedBy
    }
}

/// What kind of money movement a transaction is.
public enum TransactionKind: String, Sendable, Hashable, Codable {
    case sale
    case preAuth = "pre_auth"
    /// A cancel or refund (`action=cancel`).
    case refund = "cancel"
    /// The capture of a pre-authorisation (`action=capture_pre_auth`).
    case capture = "capture_pre_auth"
}

/// One transaction as the terminal keeps it (approved or not).
public struct SimTransaction: Sendable, Hashable, Codable {
    public var kind: TransactionKind
    public var approved: Bool
    /// `Transaction successful.` or `(-NN) NAME`.
    public var message: String
    public var clientTransactionId: String?
    /// Cents, without the tip.
    public var amount: Int
    /// Cents added on top of the amount (sales only).
    public var tipAmount: Int
    public var installments: Int?
    /// STAN, 6 digits; empty when not approved.
    public var referenceNumber: String
    /// 12 digits; empty when the card was never read.
    public var rrn: String
    /// 6 digits; empty when not approved.
    public var authorisationCode: String
    public var tid: String
    /// 16 digits.
    public var orderCode: String
    /// The first 10 digits of the order code.
    public var shortOrderCode: String
    /// Lower-case UUID.
    public var transactionId: String
    /// ISO 8601 with 7 fractional digits and offset.
    public var transactionDate: String
    /// The same instant in 100-ns ticks since 1970 (as `TerminalDate.instant`).
    public var instant: Int64
    public var cardType: String
    /// Masked: first 6, last 4.
    public var accountNumber: String
    public var verificationMethod: String
    /// What can still be refunded (sale, capture: amount + tip minus refunds) or captured (pre-auth).
    public var remaining: Int
    /// Pre-auth only: captured already (a pre-auth is captured once).
    public var captured: Bool
    /// The batch the transaction belongs to.
    public var batchId: String?
    /// Refund/capture: the `transactionId` of the transaction it refunds or captures.
    public var originalTransactionId: String?
    /// False when the terminal never sent the answer (scenario 13.13).
    public var answered: Bool
    /// How the customer paid, when the request said (`paymentMethod`).
    public var paymentMethod: PaymentMethod? = nil
}

/// The sale/pre-auth scenario, picked by the request's `amount` (tip excluded).
public enum Scenario: String, Sendable, Hashable, Codable, CaseIterable {
    case approved
    /// 6.66: `(-12) TRANSACTION_DECLINED_BY_SERVER`.
    case declined
    /// 5.51: `(-51) INSUFFICIENT_FUNDS`.
    case insufficientFunds
    /// 4.04: `(-4) USER_CANCEL`.
    case userCancel
    /// 7.77: the host takes 15 s (× speed).
    case slow
    /// 8.08: the card is never presented; the app gives up after `giveUpAfterMs` with `(-4) USER_CANCEL`.
    case cardNeverPresented
    /// 9.09: no answer at all: waits for the card (abort still works) until the app gives up after
    /// `giveUpAfterMs`, and never calls back; then the terminal is free again.
    case noAnswer
    /// 13.13: approved and recorded, but the callback is never sent.
    case crashAfterApproval

    public static func forAmount(cents: Int) -> Scenario {
        switch cents {
        case 666: return .declined
        case 551: return .insufficientFunds
        case 404: return .userCancel
        case 777: return .slow
        case 808: return .cardNeverPresented
        case 909: return .noAnswer
        case 1313: return .crashAfterApproval
        default: return .approved
        }
    }

    /// The host's time for the slow scenario.
    public static let slowHostMs = 15_000
}

/// Where the transaction in progress is.
public enum Stage: String, Sendable, Hashable, Codable {
    /// Waiting for the card: abort still works.
    case waitingForCard
    /// The card was read and the transaction went to the host: abort gets no answer.
    case atHost
}

/// The sale or pre-auth in progress.
public struct PendingTransaction: Sendable, Hashable, Codable {
    public var kind: TransactionKind
    public var callback: String
    /// The caller's own tag for the request (the file-drop id), echoed with the answer.
    public var tag: String?
    public var clientTransactionId: String?
    public var amount: Int
    public var tipAmount: Int
    public var installments: Int?
    public var scenario: Scenario
    public var stage: Stage
    public var startedMs: Int64
    /// When the next stage change is due; nil: never (scenario 9.09 waits forever).
    public var nextMs: Int64?
    public var paymentMethod: PaymentMethod? = nil
    /// The process that sent it (its pid), where a runner saves the state for several: while that process lives,
    /// only it moves the transaction on and sends its answer (`TerminalSimulator.heldElsewhere`).
    public var owner: Int32? = nil
}

/// The terminal's own set-up, kept across requests: printing settings and activation.
public struct SimSetup: Sendable, Hashable, Codable {
    /// Every setting known (a fresh terminal prints both receipts, nothing else).
    public var printing: PrintingSettings
    /// The last code `getActivationCode` issued (8 characters), if any.
    public var activationCode: String?
    public var activated: Bool
    public var sourceId: String?
    /// The activation flags last given (`activateMoto`, `lockRefund`, …).
    public var flags: [String: Bool]
    /// How many times the logs were sent.
    public var logsSent: Int
    /// How many receipts were reprinted.
    public var reprints: Int

    public static let factoryPrinting = PrintingSettings(
        customerReceipt: true, merchantReceipt: true, printing: true, logo: false, vat: false, barcode: false,
        address: false, businessDescription: false, businessDescriptionType: .businessName)

    public init() {
        printing = SimSetup.factoryPrinting; activationCode = nil; activated = true; sourceId = nil; flags = [:]
        logsSent = 0; reprints = 0
    }
}

/// Everything the terminal keeps; Codable so that it survives a restart.
public struct SimulatorState: Sendable, Hashable, Codable {
    /// SplitMix64 state; nil until the simulator seeds it from its config.
    public var rng: UInt64?
    /// The next STAN (1...999999, wraps).
    public var nextStan: Int
    /// How many batches were ever opened (for automatic names).
    public var batchCount: Int
    /// How many order codes were ever issued.
    public var orderCount: Int
    public var activeBatch: SimBatch?
    /// Only ever appended to (the state file's log holds them by position).
    public internal(set) var closedBatches: [SimBatch]
    /// Every transaction, oldest first. Appended by `append`; an existing one is changed only through `update`,
    /// which notes it for the next save (the log writes only what changed).
    public internal(set) var transactions: [SimTransaction]
    public var pending: PendingTransaction?
    /// The instant (100-ns ticks) of the latest transaction: transaction dates never go back.
    public var lastInstant: Int64?
    /// Printing settings and activation (the sample apps' administrative actions).
    public var setup: SimSetup

    // Lookup indices into `transactions` (latest wins); derived, so not saved but rebuilt on load.
    var byStan: [Int: Int]
    var byShortOrderCode: [Int: Int]
    /// How many transactions `byStan` and `byShortOrderCode` cover.
    var indexed: Int
    var byClientTransactionId: [String: Int]
    /// Every transaction by its card number, oldest first (also brought up to date by `catchUpIndices`): a refund
    /// with no key lists "the last 3 transactions made with the presented card" without reading the whole history.
    var byCard: [String: [Int]]
    /// Where this state stands against its state file (StateLog.swift); not part of the state.
    var log = LogMark()

    public init() {
        rng = nil; nextStan = 1; batchCount = 0; orderCount = 0; activeBatch = nil; closedBatches = []
        transactions = []; pending = nil; lastInstant = nil; setup = SimSetup()
        byStan = [:]; byShortOrderCode = [:]; indexed = 0; byClientTransactionId = [:]; byCard = [:]
    }

    /// The lookups start again from the transactions (a replay changed their keys).
    mutating func rebuildIndices() {
        byStan = [:]; byShortOrderCode = [:]; indexed = 0; byClientTransactionId = [:]; byCard = [:]
        for i in transactions.indices { indexClientTransactionId(i) }
    }

    /// A sale's or pre-auth's client transaction id finds it (the newest with that id).
    private mutating func indexClientTransactionId(_ i: Int) {
        let t = transactions[i]
        if let c = t.clientTransactionId, t.kind == .sale || t.kind == .preAuth { byClientTransactionId[c] = i }
    }

    enum CodingKeys: String, CodingKey {
        case rng, nextStan, batchCount, orderCount, activeBatch, closedBatches, transactions, pending, lastInstant, setup
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        rng = try c.decodeIfPresent(UInt64.self, forKey: .rng)
        nextStan = try c.decode(Int.self, forKey: .nextStan)
        batchCount = try c.decode(Int.self, forKey: .batchCount)
        orderCount = try c.decode(Int.self, forKey: .orderCount)
        activeBatch = try c.decodeIfPresent(SimBatch.self, forKey: .activeBatch)
        closedBatches = try c.decode([SimBatch].self, forKey: .closedBatches)
        pending = try c.decodeIfPresent(PendingTransaction.self, forKey: .pending)
        lastInstant = try c.decodeIfPresent(Int64.self, forKey: .lastInstant)
        setup = try c.decodeIfPresent(SimSetup.self, forKey: .setup) ?? SimSetup()
        for t in try c.decode([SimTransaction].self, forKey: .transactions) { append(t) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(rng, forKey: .rng)
        try c.encode(nextStan, forKey: .nextStan)
        try c.encode(batchCount, forKey: .batchCount)
        try c.encode(orderCount, forKey: .orderCount)
        try c.encodeIfPresent(activeBatch, forKey: .activeBatch)
        try c.encode(closedBatches, forKey: .closedBatches)
        try c.encode(transactions, forKey: .transactions)
        try c.encodeIfPresent(pending, forKey: .pending)
        try c.encodeIfPresent(lastInstant, forKey: .lastInstant)
        try c.encode(setup, forKey: .setup)
    }

    /// Equal when what the terminal keeps is equal (the lookup indices are derived and left out).
    public static func == (a: SimulatorState, b: SimulatorState) -> Bool {
        a.rng == b.rng && a.nextStan == b.nextStan && a.batchCount == b.batchCount && a.orderCount == b.orderCount
            && a.activeBatch == b.activeBatch && a.closedBatches == b.closedBatches && a.pending == b.pending
            && a.lastInstant == b.lastInstant && a.transactions == b.transactions && a.setup == b.setup
    }

    public func hash(into h: inout Hasher) {
        h.combine(rng); h.combine(nextStan); h.combine(batchCount); h.combine(orderCount); h.combine(activeBatch)
        h.combine(closedBatches); h.combine(pending); h.combine(lastInstant); h.combine(transactions); h.combine(setup)
    }

    /// The latest transaction with this client transaction id.
    public func transaction(clientTransactionId id: String) -> SimTransaction? {
        byClientTransactionId[id].map { transactions[$0] }
    }

    /// The latest transaction with this STAN.
    mutating func index(stan: String) -> Int? {
        catchUpIndices()
        return SimulatorState.number(stan, digits: 6).flatMap { byStan[$0] }
    }

    /// The transaction with this short order code (its order code's first 10 digits).
    mutating func index(shortOrderCode: String) -> Int? {
        catchUpIndices()
        return SimulatorState.number(shortOrderCode, digits: 10).flatMap { byShortOrderCode[$0] }
    }

    /// The STAN and order code indices are brought up to date when a lookup needs them
    /// (sales far outnumber refunds and captures).
    private mutating func catchUpIndices() {
        while indexed < transactions.count {
            let t = transactions[indexed]
            if let stan = SimulatorState.number(t.referenceNumber, digits: 6) { byStan[stan] = indexed }
            if let short = SimulatorState.number(t.shortOrderCode, digits: 10) { byShortOrderCode[short] = indexed }
            byCard[t.accountNumber, default: []].append(indexed)
            indexed += 1
        }
    }

    /// The transactions made with this card number, oldest first.
    mutating func indices(card: String) -> [Int] {
        catchUpIndices()
        return byCard[card] ?? []
    }

    /// The transaction with this order code.
    mutating func index(orderCode: String) -> Int? {
        guard orderCode.utf8.count > 10, let i = index(shortOrderCode: String(orderCode.prefix(10))),
              transactions[i].orderCode == orderCode else { return nil }
        return i
    }

    /// The value of a string of exactly `digits` decimal digits.
    static func number(_ s: String, digits: Int) -> Int? {
        guard s.utf8.count == digits else { return nil }
        var v = 0
        for b in s.utf8 {
            guard b >= 48 && b <= 57 else { return nil }
            v = v * 10 + Int(b - 48)
        }
        return v
    }

    /// Changes an existing transaction and notes it, so that the next save writes it again.
    mutating func update(_ i: Int, _ body: (inout SimTransaction) -> Void) {
        body(&transactions[i])
        if i < log.savedTransactions { log.changed.insert(i) }
    }

    mutating func append(_ t: SimTransaction) {
        transactions.append(t)
        indexClientTransactionId(transactions.count - 1)
    }
}

/// One answer of the simulator: the callback URL and the tag of the request it answers.
public struct SimulatorOutput: Sendable, Hashable {
    public var url: String
    /// The tag given with the request this answers (the file-drop id), if any.
    public var tag: String?
    public init(url: String, tag: String?) { self.url = url; self.tag = tag }
}

/// The messages the simulator answers with. Codes the pages and real terminals show:
/// -4, -12, -51, -55, -57. The others are this project's (see the README).
public enum SimMessage {
    public static let success = "Transaction successful."
    public static let batchOpened = "Batch opened"
    public static let batchClosed = "Batch closed"
    public static let detailsFetched = "Transaction Details Fetched"
    /// overview-sale-cancel.txt:131 (the decline style `page`).
    public static let declinedByHost = "Transaction declined by host."
    /// abort.txt:71 (the abort style `page`).
    public static let pageAborted = "aborted"
    public static let pageNothingToAbort = "nothing to abort"
    public static let printingSettings = "Printing settings"
    public static let printingSettingsSaved = "Printing settings saved"
    public static let logsSent = "Logs sent"
    public static let activationCode = "Activation code"
    public static let activated = "POS activated"
    public static let reprinted = "Receipt printed"
    public static let activationFailed = "(-48) ACTIVATION_FAILED"
    public static let userCancel = "(-4) USER_CANCEL"
    public static let declined = "(-12) TRANSACTION_DECLINED_BY_SERVER"
    public static let inProgress = "(-20) TRANSACTION_IN_PROGRESS"
    public static let notFound = "(-30) TRANSACTION_NOT_FOUND"
    public static let invalidRequest = "(-40) INVALID_REQUEST"
    public static let invalidAmount = "(-41) INVALID_AMOUNT"
    public static let invalidDateRange = "(-42) INVALID_DATE_RANGE"
    public static let exceedsRemaining = "(-43) AMOUNT_EXCEEDS_REMAINING"
    public static let notRefundable = "(-44) NOT_REFUNDABLE"
    public static let alreadyCaptured = "(-45) ALREADY_CAPTURED"
    public static let notCapturable = "(-46) NOT_CAPTURABLE"
    public static let batchNotFound = "(-47) BATCH_NOT_FOUND"
    public static let insufficientFunds = "(-51) INSUFFICIENT_FUNDS"
    public static let nothingToAbort = "(-55) NOTHING_TO_ABORT"
    public static let aborted = "(-57) ABORTED"
}

/// SplitMix64: small, fast, and the same on every platform. The simulator draws from it; the
/// benchmarks and tests use it for their seeded data too.
public struct SplitMix64: Sendable, Hashable {
    public var state: UInt64
    public init(state: UInt64) { self.state = state }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    public mutating func below(_ n: UInt64) -> UInt64 { next() % n }
    /// A whole number in 0..<n.
    public mutating func int(_ n: Int) -> Int { Int(below(UInt64(n))) }
}
