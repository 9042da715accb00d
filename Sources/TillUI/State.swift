import TillProtocol
import TillModel

/// The screens, each one key away from anywhere.
public enum Screen: String, CaseIterable, Sendable, Hashable {
    case sale, preAuth, capture, refund, batch, journal, unresolved
    /// The terminal's settings (printing, logs, activation): for the shop owner, behind a confirmation, no tab.
    case admin
    // Its title, key, form and the rest: its component (`Screen.component`, Screens/).
}

/// What a field accepts as the cashier types.
public enum FieldKind: Sendable, Hashable {
    case money, tip, integer, digits, text, date

    public func accepts(_ c: Character) -> Bool {
        switch self {
        case .money: return c.isASCII && (c.isNumber || c == "." || c == ",")
        case .tip: return c.isASCII && (c.isNumber || c == "." || c == "," || c == "%")
        case .integer, .digits: return c.isASCII && c.isNumber
        case .date: return c.isASCII && (c.isNumber || "-:T+. ".contains(c))
        case .text: return !(c.unicodeScalars.first.map { $0.value < 0x20 || $0.value == 0x7F } ?? true)
        }
    }
}

/// Which field of a form: the protocol field it feeds (its raw value), so a validation error lands on it. Typed, so a
/// misspelt field is a compile error, never a field nobody reads.
public enum FieldID: String, Sendable, Hashable, CaseIterable {
    case amount, tipAmount, preferredInstallments, clientTransactionId
    case referenceNumber, orderCode, shortOrderCode, txnDateFrom, txnDateTo
    case batchName, batchId
    case filter
    case activationCode, sourceID, pinCode, apikey, apiSecret
}

/// One input field. Its `id` is the protocol field it feeds, so validation errors land on it.
public struct Field: Sendable, Hashable {
    public var id: FieldID
    public var label: String
    public var kind: FieldKind
    public var text: String
    public var placeholder: String
    public var maxLength: Int
    /// A secret (PIN, API key, API secret): never drawn in clear, one • per character typed.
    public var secret: Bool
    /// The text is selected: the next key typed here replaces it (Backspace deletes it), as in a text input whose
    /// old value is highlighted. Set when a form is kept from before (`Form.keep`); the field editor owns it.
    public var selected = false
    public init(_ id: FieldID, _ label: String, _ kind: FieldKind, placeholder: String = "", maxLength: Int = 20, text: String = "",
                secret: Bool = false) {
        self.id = id; self.label = label; self.kind = kind; self.placeholder = placeholder; self.maxLength = maxLength; self.text = text
        self.secret = secret
    }
}

/// A screen's fields, which one has the focus, and what is wrong with them.
public struct Form: Sendable, Hashable {
    public var fields: [Field]
    public var focus: Int = 0
    /// Messages by field id.
    public var errors: [FieldID: String] = [:]
    /// A problem not tied to one field.
    public var message: String?
    /// Fields whose error came from a refused keystroke (a `-`, a letter, one character too many):
    /// the text on screen is not what the cashier typed, so the error stays, and blocks Enter,
    /// until the cashier corrects the field (Backspace or clear). Typing on does not lift it.
    public var refused: Set<FieldID> = []
    /// Where the form stands in the cashier's work (`FormLife`): what typing does to it, and what a result does.
    public var life: FormLife = .fresh
    public init(_ fields: [Field]) { self.fields = fields }

    /// Whether any field holds text.
    public var hasText: Bool { fields.contains { !$0.text.isEmpty } }
    /// Whether a field's text is selected (typing there replaces it).
    public var hasSelection: Bool { fields.contains { $0.selected && !$0.text.isEmpty } }

    /// The form is left from before (the cashier went to another screen, cancelled a box, or a box did something
    /// else): every field with text (and no error to correct) is selected, so typing replaces it and a new amount
    /// never appends to an old one; Enter still sends what is shown. A form with no text is simply fresh.
    public mutating func keep() {
        guard hasText else { life = .fresh; return }
        life = .kept
        for i in fields.indices where !fields[i].text.isEmpty && errors[fields[i].id] == nil && !refused.contains(fields[i].id) {
            fields[i].selected = true
        }
    }

    public subscript(id: FieldID) -> String {
        get { fields.first { $0.id == id }?.text ?? "" }
        set { if let i = fields.firstIndex(where: { $0.id == id }) { fields[i].text = newValue } }
    }
    public var focused: Field? { fields.indices.contains(focus) ? fields[focus] : nil }
    public func index(of id: FieldID) -> Int? { fields.firstIndex { $0.id == id } }

    /// The screen's form with nothing typed, as its component declares it.
    public static func blank(_ screen: Screen) -> Form { screen.component.blankForm }
}

/// A form's lifetime: the transitions are explicit (`Form.keep`, a payment sent, a key typed) and tested.
public enum FormLife: Sendable, Hashable {
    /// Blank, or as a journal row filled it: nothing typed since.
    case fresh
    /// Being typed for the customer at the till.
    case typing
    /// Typed while a payment sent from this form was with the terminal: the next customer's, alone, in a form that
    /// became fresh the moment the request was sent. Kept as it is after the verdict.
    case nextCustomer
    /// Left from before: its text is selected (`Field.selected`), the next key replaces it.
    case kept
}

/// What a form held when the notice said it was kept.
public struct KeptText: Sendable, Hashable {
    public var screen: Screen
    public var texts: [String]
}

/// A payment found charged after its outcome was unknown.
public struct FoundCharged: Sendable, Hashable {
    public var entry: JournalEntry
    public var knownAtMs: Int64
    public init(entry: JournalEntry, knownAtMs: Int64) { self.entry = entry; self.knownAtMs = knownAtMs }
}

/// Something that needs a yes before it happens.
public enum ConfirmAction: Sendable, Hashable {
    case send(Request)
    case quit
    /// Settle an entry as found on the terminal: charged counts it, not charged never does.
    case resolve(entryId: Int64, charged: Bool, note: String)
    case goTo(Screen)
    /// Send after the cashier confirmed these earlier unknown payments (journal ids) were checked; a total above
    /// `confirm_above` still asks about the amount first.
    case sendConfirmingUnknown(Request, Set<Int64>)
    /// Send, the amount checked too (`confirm_above`), with the earlier unknown payments confirmed (may be none).
    case sendChecked(Request, Set<Int64>)
    /// Stop waiting for the terminal: the entry becomes unknown and goes to Unresolved.
    case stopWaiting
    /// Ask the terminal again about the unresolved entries.
    case askAgain
    /// Open a shift, then send the payment whose Enter found none open (`AppState.sendOnceShiftOpens`), named in
    /// the cashier's words ("Sale € 5.00").
    case openShiftThenSend(BatchRequest, payment: String)

    /// Moves money, or gives up on a payment (closing a shift settles it, unknown outcomes and all): never the answer
    /// to an Enter, nor to a number typed by habit, nor to both; the cashier picks it with its letter, or on a keypad
    /// with the keymap's confirm key (a number first where the box has more than one choice).
    public var needsDeliberateChoice: Bool {
        switch self {
        case .send(.batch(let b)): return b.command == .close
        case .send(let r): return r.action.movesMoney
        case .sendConfirmingUnknown, .sendChecked, .stopWaiting, .resolve, .openShiftThenSend: return true
        case .quit, .goTo, .askAgain: return false
        }
    }
}

public struct ConfirmChoice: Sendable, Hashable {
    public var key: Character
    public var label: String
    public var action: ConfirmAction
    public init(key: Character, label: String, action: ConfirmAction) { self.key = key; self.label = label; self.action = action }
}

/// A payment's form as it stood when a box interrupted its Enter.
public struct InterruptedPayment: Sendable, Hashable {
    public var screen: Screen
    public var texts: [String]
    public var method: PaymentMethod
    public var summary: String
}

/// What a box asks about that can stop being true while it is open (the payment it waited on was answered, the unknown
/// payment it warned of was found settled).
public enum BoxStanding: Sendable, Hashable {
    case paymentInFlight
    case unknownPayments(Set<Int64>)
    /// The resolve box of this entry: it closes once the entry is off the Unresolved list (settled meanwhile).
    case unresolvedEntry(Int64)
}

public struct Confirmation: Sendable, Hashable {
    public var title: String
    public var lines: [String]
    /// Esc picks none.
    public var choices: [ConfirmChoice]
    /// Whether Enter picks the first choice. Off where every choice matters (charged / not charged,
    /// charging again after an unknown outcome): only the choice's own key does it.
    public var enterPicksFirst: Bool
    /// The choice Enter picks now (an index in `choices`): a digit selects choice N (the keypad's way to answer),
    /// then Enter picks it. At first the first choice where Enter picks it, else none: where every choice
    /// matters one Enter never does anything, it takes a digit and then Enter (or the choice's letter).
    public var selected: Int?
    /// Keys pressed since the box opened or since an Enter that picked nothing: only a number pressed first selects,
    /// so an amount typed by habit ("15", "1.50", then Enter) never answers the box.
    public var keysPressed = 0
    /// What the box asks about, when it holds only as long as that does: it closes by itself once no longer true.
    public var standsWhile: BoxStanding?
    /// A box with a choice that moves money (or abandons a payment) never lets Enter pick first, whatever the caller
    /// asked: a refund, a capture or a charge is a deliberate key, never a reflex.
    public init(title: String, lines: [String], choices: [ConfirmChoice], enterPicksFirst: Bool = true) {
        let enterPicksFirst = enterPicksFirst && !choices.contains { $0.action.needsDeliberateChoice }
        self.title = title; self.lines = lines; self.choices = choices; self.enterPicksFirst = enterPicksFirst
        self.selected = enterPicksFirst && !choices.isEmpty ? 0 : nil
    }
    /// What Enter picks before any number is pressed.
    public var defaultSelection: Int? { enterPicksFirst && !choices.isEmpty ? 0 : nil }
    /// A box whose answer moves money or gives a payment up (all those where Enter does not pick first): neither Enter
    /// nor a number ever answers it, only a choice's letter or the keymap's confirm key.
    public var isDeliberate: Bool { !enterPicksFirst }
}

public enum Overlay: Sendable, Hashable {
    case help
    case confirm(Confirmation)
    /// A shift report, full screen and scrollable (the Z report right after a close).
    case report(ReportPanel)
    /// The numbered function menu (Components/Menu.swift).
    case menu(Menu)
}

/// A report shown full screen.
public struct ReportPanel: Sendable, Hashable {
    public var report: Report
    /// First line shown.
    public var scroll: Int = 0
    /// The files of the last export, once written.
    public var exported: [String] = []
    public init(report: Report) { self.report = report }
    /// The batch the report is about, as the service looks it up.
    public var batchKey: BatchKey { report.batchId.map(BatchKey.id) ?? .last }
}

/// The request waiting for the terminal, as the UI shows it.
public struct Pending: Sendable, Hashable {
    public var summary: String
    public var action: Action
    public var startedAtMs: Int64
    public var deadlineMs: Int64?
    public var abortRequested: Bool
    /// The terminal answered the abort "aborted" and till asks it whether the card was charged all the same.
    public var askingAfterAbort = false
    /// The journal entry, once the controller reported it in flight.
    public var entryId: Int64?
    /// Sent from this screen (a `.performed` follows), as opposed to seen in flight (recovery's look-ups).
    public var own: Bool
    /// The money it moves, as sent (a sale's with its tip on top): drawn large where the pane has the room.
    public var amount: Money?
    public init(summary: String, action: Action, startedAtMs: Int64, deadlineMs: Int64? = nil, abortRequested: Bool = false,
                entryId: Int64? = nil, own: Bool = true) {
        self.summary = summary; self.action = action; self.startedAtMs = startedAtMs; self.deadlineMs = deadlineMs; self.abortRequested = abortRequested
        self.entryId = entryId; self.own = own
    }
}

extension Pending {
    /// The screen the request was sent from: Esc aborts it there, and only there.
    public var screen: Screen { action.screen }
}

/// The last outcome, shown in the result pane until the next one.
public struct ResultInfo: Sendable, Hashable {
    public var summary: String
    public var outcome: ActionOutcome
    public var atMs: Int64
    /// Settled by recovery (at start, or later by asking the terminal again), or by its own answer arriving late: not
    /// by a request sent from this screen.
    public var recovered: Bool
    /// For a recovered result: found by the recovery at start, else when it was found (`foundAtMs`).
    public var foundAtStart: Bool
    public var foundAtMs: Int64?
    /// An approval of the same kind that matched nothing came after this verdict said nothing moved (in words): the
    /// money may have moved after all, and the pane says to check the terminal instead.
    public var approvalAfter: String?
    public init(summary: String, outcome: ActionOutcome, atMs: Int64, recovered: Bool = false, foundAtStart: Bool = false,
                foundAtMs: Int64? = nil) {
        self.summary = summary; self.outcome = outcome; self.atMs = atMs; self.recovered = recovered
        self.foundAtStart = foundAtStart; self.foundAtMs = foundAtMs
    }
}

public enum Connection: Sendable, Hashable {
    case ready
    case problem(String)
}

/// Everything the UI knows. `update` is the only thing that changes it; `view` draws it.
public struct AppState: Sendable, Hashable {
    public var screen: Screen = .sale
    public var forms: [Screen: Form]
    public var keymap: Keymap
    public var size: Size
    public var nowMs: Int64
    /// The till's local UTC offset, for showing times and reading dates.
    public var tzOffsetMinutes: Int
    public var currency: String = "€"
    public var decimalSeparator: String = "."
    public var transport: String
    public var batch: BatchInfo?
    public var connection: Connection = .ready
    public var pending: Pending?
    /// The request last handed to the service (to send again once the cashier confirmed what it asked about).
    public var lastRequest: Request?
    public var result: ResultInfo?
    public var overlay: Overlay?
    /// A short message in the status area (what just happened, what was refused).
    public var notice: String?
    public var noticeIsError = false
    /// The notice is about the request with the terminal ("Wait: … in flight", "Abort requested…"): true only while
    /// it is in flight, so it goes when the flight ends (`endFlight`).
    public var noticeEndsWithFlight = false
    /// The notice says what a form kept ("STAN 1, Amount € 50 kept"): it holds only while that screen's form holds that
    /// text, and goes the moment a key changes it or the screen changes (`update`).
    public var noticeAboutKept: KeptText?
    /// Counts the notices said: a notice said before the screen changed speaks of the screen left (`update`).
    public var noticeSerial = 0
    /// Keys pressed while the window was too small to show anything: none is acted on blind; the cashier is told how
    /// many were not taken, there and once the window is back.
    public var keysNotTaken = 0
    public var quit = false
    /// Problems loading theme or keymap files, shown once at start.
    public var startupWarnings: [String] = []

    public init(keymap: Keymap = .standard, size: Size = Size(width: 80, height: 24), nowMs: Int64 = 0,
                tzOffsetMinutes: Int = 0, transport: String = "simulator") {
        self.keymap = keymap; self.size = size; self.nowMs = nowMs; self.tzOffsetMinutes = tzOffsetMinutes; self.transport = transport
        var forms: [Screen: Form] = [:]
        for s in Screen.allCases { forms[s] = Form.blank(s) }
        self.forms = forms
    }

    // Each screen's own state, declared in the screen's file (a screen = a file + its registration). Its form is in
    // `forms`, where the field editor finds every screen's.
    public var sale = PaymentState()
    public var preAuth = PaymentState()
    public var capture = FinderState()
    public var refund = FinderState()
    public var batchScreen = BatchState()
    public var journal = JournalState()
    public var unresolved = UnresolvedState()
    /// The admin screen: what the terminal last said about its settings, and what is being changed.
    public var admin = AdminState()

    /// Payments whose outcome was unknown and that have since been found CHARGED (recovery, "ask again", or the
    /// cashier's "charged"), with when that became known: a new sale or pre-auth of the same amount within
    /// `chargedAgainWindowMs` asks first, naming it.
    public var foundCharged: [FoundCharged] = []
    /// The payment the no-shift box interrupted, sent once the shift it opens is open: as it was typed then, or not at
    /// all (the cashier changed it meanwhile, or went elsewhere), so a sale never goes unsent because the box came.
    public var sendOnceShiftOpens: InterruptedPayment?
    public static let chargedAgainWindowMs: Int64 = 10 * 60_000

    /// How many verdicts have been shown: the runtime rings the bell when it grows (if the bell is on).
    public var verdicts = 0

    /// How the customer pays on Sale or Pre-auth (`PaymentState.method`): what the screen shows is what the request carries.
    public func paymentMethod(_ screen: Screen) -> PaymentMethod { PaymentScreen.stateKey(screen).map { self[keyPath: $0].method } ?? .cardPresent }

    /// The cashier's name (config `cashier`): the default name of a shift opened from the Sale screen.
    public var cashier: String?

    /// How the terminal reads `tipAmount` (config `tip`): the request the screen builds and every total it shows
    /// read it, as `till sale` and the reports do.
    public var tipStyle: TipStyle = .onTop
    /// How the amount fields read digits (config `amount_entry`): in cents, each digit shifts in from the right.
    public var amountEntry: AmountEntry = .decimal
    /// The central store's cell of the status line (nil: no store), and when it was last read.
    public var storeSync: StoreSync?
    var storeSyncReadAtMs: Int64 = 0

    /// How often the screen needs a frame when nothing else happens: ten a second while a payment is in flight (the
    /// spinner, its elapsed time and time-out), one a second while the till asks the terminal again about a payment
    /// it could not settle, else one a minute for the status line's clock, which shows hours and minutes: an idle
    /// till is not woken every second for a figure nobody at a counter reads.
    public var tickPeriodMs: Int64 {
        pending != nil ? 100 : !unresolved.asking.isEmpty ? 1_000 : unresolved.waitingOnAnotherTill ? 5_000 : 60_000
    }

    /// A sale or pre-auth whose total is above this asks first, showing the amount (config `confirm_above`;
    /// nil: none asks).
    public var confirmAbove: Money?

    /// The shop's usual payment screen (config `usual_payment`): Sale, or Pre-auth for a hotel or a rental. After a
    /// pre-auth, capture or refund's verdict the screen goes back to it, so the next customer's amount and Enter send
    /// the usual payment, never a second hold or refund.
    public var homeScreen: Screen = .sale

    /// The name a shift opened with one key gets: the cashier's name and the date, `Ana 2026-11-23`.
    public var defaultShiftName: String {
        let day = Format.day(nowMs, offsetMinutes: tzOffsetMinutes)
        let c = cashier?.trimmingWhitespace() ?? ""
        let base = c.isEmpty ? "Shift " + day : String(c.prefix(40)) + " " + day
        // A second shift the same day is not named as the first: two Z reports of one name read as one.
        guard let last = batch?.name, last == base || last.hasPrefix(base + " (") else { return base }
        let n = last == base ? 1 : Int(last.dropFirst(base.count + 2).dropLast()) ?? 1
        return base + " (\(n + 1))"
    }

    /// The built-in simulator moves no money: the screen says TRAINING so nobody mistakes a demo for a sale.
    public var isTraining: Bool { transport == "simulator" }

    /// Whether the result shown belongs to the previous customer: the next amount is being typed.
    public var resultIsStale: Bool {
        guard result != nil, pending == nil, screen.takesPayment, let f = forms[screen] else { return false }
        // An amount kept, selected, from the verdict shown (a decline's, to try another card) is still its customer's.
        return !f[.amount].isEmpty && !(f.life == .kept && f.hasSelection)
    }

    /// Whether Esc aborts here: a payment this screen sent is in flight.
    public var escAborts: Bool { pending.map { $0.own && $0.screen == screen } ?? false }

    public var form: Form {
        get { forms[screen] ?? Form.blank(screen) }
        set { forms[screen] = newValue }
    }

    /// How reports write money and times here.
    public var reportFormat: ReportFormat {
        ReportFormat(currencySymbol: currency, decimalSeparator: decimalSeparator, utcOffsetMinutes: tzOffsetMinutes)
    }
}

/// What the outside world tells the UI.
public enum Msg: Sendable, Hashable {
    case key(Key)
    case tick(nowMs: Int64)
    /// What the central store holds of this journal (nil: no sync has run).
    case storeSyncLoaded(StoreSync?)
    case resize(Size)
    case event(ControllerEvent)
    case performed(ActionOutcome, summary: String)
    case aborted(AbortResult)
    case journalLoaded([JournalEntry])
    case batchLoaded(BatchInfo)
    case unresolvedLoaded([JournalEntry], recovered: Bool)
    case resolved(entryId: Int64, charged: Bool, error: String?)
    /// A report arrived; `show` puts it full screen.
    case reportLoaded(Report?, show: Bool)
    case exported(paths: [String], error: String?)
    /// The controller stopped waiting (the outcome follows as `.performed(.unknown)`), or could not.
    case stoppedWaiting(error: String?)
    /// The journal's payments, looked up for the refund or capture box (`Command.findPayment`) about `finder`.
    case paymentsFound(screen: Screen, finder: TransactionFinder, entries: [JournalEntry])
}

/// What the UI asks the outside world to do. Data only: the runtime performs them and answers with a `Msg`.
public enum Command: Sendable, Hashable {
    case perform(Request, summary: String)
    case abort
    case loadJournal(JournalFilter)
    case loadBatch
    case recover
    case loadUnresolved
    /// Reads what the sync last wrote beside the journal (a file, and the journal's own outbox; never the network).
    case loadStoreSync
    case resolve(entryId: Int64, charged: Bool, note: String)
    /// As `perform`, after the cashier confirmed the named unknown payments (journal ids).
    case performConfirmed(Request, summary: String, confirming: Set<Int64>)
    case loadReport(batch: BatchKey, show: Bool)
    /// Writes the batch's report and transactions as CSV, in the screen's money and time format.
    case exportReport(batch: BatchKey, format: ReportFormat)
    /// Stop waiting for the terminal: the request in flight becomes unknown (`TillService.stopWaiting`).
    case stopWaiting
    /// Looks the journal's recent payments up for the refund or capture box about a typed STAN / order code: answered
    /// with `Msg.paymentsFound`, so the box can name the payment, what was refunded or captured of it, or say that the
    /// journal does not know it.
    case findPayment(screen: Screen, finder: TransactionFinder)
    case quit
}
