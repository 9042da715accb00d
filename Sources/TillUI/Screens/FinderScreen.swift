import TillProtocol
import TillModel

/// The memory of the Capture screen, and of the Refund screen (each has its own).
public struct FinderState: Sendable, Hashable {
    /// The journal row the capture or refund was started from (F4 / F5 on the journal): the confirmation names that
    /// payment (amount, card, time) while the STAN typed is still its STAN.
    public var origin: JournalEntry?
    /// The key typed that the journal is being asked about (`Command.findPayment`): its answer opens the box.
    public var lookingUp: TransactionFinder?
    public init() {}
}

/// Capture and refund: find the original payment (STAN, order code, short order code, dates), an
/// amount (blank: in full); a refund asks first. One component (`FinderScreen`) runs both; each declares its own name,
/// key and title.
protocol FinderComponent: ScreenComponent {}

extension FinderComponent {
    static var blankForm: Form {
        Form([
            Field(.referenceNumber, "STAN", .digits, placeholder: "6 digits", maxLength: 6),
            Field(.orderCode, "Order code", .digits, placeholder: "10-20 digits", maxLength: 20),
            Field(.shortOrderCode, "Short code", .digits, placeholder: "10 digits", maxLength: 10),
            Field(.txnDateFrom, "From date", .date, placeholder: "YYYY-MM-DD", maxLength: 32),
            Field(.txnDateTo, "To date", .date, placeholder: "YYYY-MM-DD", maxLength: 32),
            Field(.amount, "Amount", .money, placeholder: "blank: full"),
        ])
    }
    // Enter here moves money, and not as a sale does: said loudly.
    static var loudTitle: Bool { true }
    static var holdsTyping: Bool { true }
    static var leavesAfterVerdict: Bool { true }
    static func settled(_ state: inout AppState, _ outcome: ActionOutcome) -> [Command] { keepFormUnlessApproved(&state, outcome) }
    static func update(_ state: inout AppState, _ action: KeyAction) -> [Command] { formAction(&state, action) }
    static func submit(_ state: inout AppState) -> [Command] { FinderScreen.submit(&state, lookedUp: nil) }
    static func render(_ state: AppState, _ r: Rect, _ buf: inout ScreenBuffer) { formScreen(state, r, &buf) }
}

enum CaptureScreen: FinderComponent {
    static let screen = Screen.capture
    static let title = "Capture"
    static let key = KeyAction.capture
    static func frameTitle(_ state: AppState) -> String { "CAPTURE: Enter charges a pre-auth" }
    static let menuPageLine: (key: Character, label: String)? = ("3", "Capture a pre-auth")
    static func arriving(_ state: inout AppState, from: Screen) {
        guard from != .journal, state.forms[screen]?.hasText != true, let (e, stan) = preAuthJustMade(state) else { return }
        // Right after a pre-auth its capture is what Capture means (as F7 F4 on its row): the box still names it and asks.
        fill(&state, screen, from: e, stan: stan)
        setNotice(&state, "The pre-auth just made, STAN \(stan): type the amount, or Enter for all.")
    }

    /// The pre-auth whose verdict the pane shows, approved, before anything else was typed: what F4 captures.
    static func preAuthJustMade(_ state: AppState) -> (JournalEntry, String)? {
        guard let r = state.result, !r.recovered, !state.resultIsStale, case .answered(let e) = r.outcome,
              e.action == .preAuth, e.state == .approved, let stan = e.response?.referenceNumber, !stan.isEmpty else { return nil }
        return (e, stan)
    }
}

enum RefundScreen: FinderComponent {
    static let screen = Screen.refund
    static let title = "Refund"
    static let key = KeyAction.refund
    static func frameTitle(_ state: AppState) -> String { "REFUND: Enter gives money BACK" }
    static let submitHint = "refund (asks first)"
    static let menuPageLine: (key: Character, label: String)? = ("4", "Refund")
}

/// What Capture and Refund do, each on its own form and its own `FinderState`.
enum FinderScreen {
    /// Where a finder screen's own state is kept; nil for the other screens.
    static func stateKey(_ screen: Screen) -> WritableKeyPath<AppState, FinderState>? {
        switch screen {
        case .capture: return \.capture
        case .refund: return \.refund
        default: return nil
        }
    }

    /// The journal answered about the key typed: the box opens, naming what it found, if the cashier is still there
    /// with that key (a late answer about another key is dropped).
    static func found(_ state: inout AppState, _ screen: Screen, _ finder: TransactionFinder, _ entries: [JournalEntry]) -> [Command] {
        guard let key = stateKey(screen), state[keyPath: key].lookingUp == finder else { return [] }
        state[keyPath: key].lookingUp = nil
        guard state.screen == screen, state.overlay == nil else { return [] }
        state.notice = nil
        return submit(&state, lookedUp: (finder, entries))
    }

    static func submit(_ state: inout AppState, lookedUp: (TransactionFinder, [JournalEntry])?) -> [Command] {
        guard var reader = FormReader(&state) else { return [] }
        var form: Form { get { reader.form } set { reader.form = newValue } }
        func opt(_ id: FieldID) -> String? { reader.opt(id) }
        func validate(_ r: Request) -> Bool { reader.validate(r) }
        func focusFirstError() { reader.focusFirstError() }
        defer { state.form = reader.form }
        // The one reading of a refund's or capture's typed text, the command line's too.
        let capture = state.screen == .capture
        let offset = state.tzOffsetMinutes
        let draft = capture
            ? RequestDraft.capture(amount: opt(.amount), reference: opt(.referenceNumber), orderCode: opt(.orderCode),
                                   shortOrderCode: opt(.shortOrderCode), from: opt(.txnDateFrom), to: opt(.txnDateTo),
                                   offsetMinutes: { _ in offset })
            : RequestDraft.refund(amount: opt(.amount), reference: opt(.referenceNumber), orderCode: opt(.orderCode),
                                  shortOrderCode: opt(.shortOrderCode), from: opt(.txnDateFrom), to: opt(.txnDateTo),
                                  offsetMinutes: { _ in offset })
        for e in draft.errors { if let id = FieldID(rawValue: e.field) { form.errors[id] = e.message } else { form.message = e.message } }
        if !draft.errors.isEmpty { focusFirstError(); return [] }
        let r = draft.request
        guard let found = r.finding else { return [] }
        let finder = found.finder, amountOpt = found.amount
        if !capture, !finder.hasKey {
            form.errors[.referenceNumber] = "Say which payment to refund: its STAN, order code or short order code."
            form.focus = 0
            return []
        }
        guard validate(r) else { return [] }
        state.form = form
        // What the journal knows of the payment the key names: the journal row the refund started from while its key is
        // the one the terminal goes by (a short code typed after F5 names another payment), else what the journal
        // answered about the key typed; asked first when it has not answered yet.
        let rowOrigin = stateKey(state.screen).flatMap { state[keyPath: $0].origin }.flatMap { e in
            finder.key?.names(e.response) == true ? e : nil
        }
        let known: Known
        if let key = finder.key {
            // Asked each time, the row's payment too: what was refunded or captured of it since the journal screen
            // was loaded is in the box.
            guard let (asked, entries) = lookedUp, asked == finder else {
                if let k = stateKey(state.screen) { state[keyPath: k].lookingUp = finder }
                setNotice(&state, "Looking the payment up in the journal…")
                return [.findPayment(screen: state.screen, finder: finder)]
            }
            if let rowOrigin {
                known = Known(payment: entries.first { $0.id == rowOrigin.id } ?? rowOrigin, entries: entries)
            } else {
                let payment = RefundLinks.payment(named: key, in: entries, capture: capture)
                known = Known(payment: payment, entries: entries, unknownKey: payment == nil)
            }
        } else {
            known = Known(payment: nil, entries: [])
        }
        if capture {
            var lines = ["\(amountOpt.map { "Capture " + Format.money($0, state.currency) } ?? "Capture the FULL amount") of the pre-auth"]
            lines += originLines(known, finder, state, amount: amountOpt, capture: true)
            lines.append("The card is charged; what is not captured is released.")
            state.overlay = .confirm(Confirmation(title: "Capture?", lines: lines,
                                                  choices: [ConfirmChoice(key: "y", label: "capture", action: sending(r, warned: known, capture: true))]))
            return []
        }
        // A refund with no amount gives back what is left: the full amount only while nothing went back yet.
        let left: Money? = known.payment.flatMap { e in
            RefundLinks(known.entries).refunded[e.id].flatMap { back in Format.total(e).map { Money(cents: max(0, $0.cents - back.cents)) } }
        }
        let first = amountOpt.map { "Refund " + Format.money($0, state.currency) + " of the payment" }
            ?? left.map { $0.cents > 0 ? "Refund what is left, \(Format.money($0, state.currency)), of the payment" : "Refund the rest of the payment" }
            ?? "Refund the FULL amount of the payment"
        var lines = [first]
        if amountOpt == nil, left?.cents == 0 {
            lines.append("⚠ ALREADY REFUNDED IN FULL: the terminal will refuse it.")
        }
        lines += originLines(known, finder, state, amount: amountOpt, capture: false)
        lines.append("Money goes back to the cardholder's card;")
        lines.append("this cannot be undone.")
        state.overlay = .confirm(Confirmation(title: "Refund?", lines: lines,
                                              choices: [ConfirmChoice(key: "y", label: "refund", action: sending(r, warned: known, capture: false))]))
        return []
    }

    /// What y sends: the request, confirming the earlier refunds (captures) of unknown outcome the box warned of, so the
    /// core does not ask again what the cashier just answered.
    static func sending(_ r: Request, warned known: Known, capture: Bool) -> ConfirmAction {
        guard let finder = r.finding?.finder else { return .send(r) }
        let ids = Set(unknownAgain(known, finder, capture: capture).map(\.id))
        return ids.isEmpty ? .send(r) : .sendConfirmingUnknown(r, ids)
    }

    /// The refunds (captures) of the same payment whose outcome is not known yet: a second one could give the money
    /// back twice (charge the pre-auth twice).
    static func unknownAgain(_ known: Known, _ finder: TransactionFinder, capture: Bool) -> [JournalEntry] {
        let again: Action = capture ? .capturePreAuth : .cancel
        return known.entries.filter { u in
            u.action == again && u.mayHaveMovedMoney && RefundLinks.mayBeSameMoney(u, as: finder, payment: known.payment)
        }.sorted { $0.id < $1.id }
    }

    /// Whether `e` is a payment a refund (a capture) can be of: an approved sale or capture (`RefundLinks.isRefundable`),
    /// an approved pre-auth. A journal row and a typed key find it by the same rule.
    static func canBeOriginal(_ e: JournalEntry, capture: Bool) -> Bool { RefundLinks.canBeOriginal(e, capture: capture) }

    /// What the journal knows about the payment a refund or capture names.
    struct Known {
        /// The approved sale, capture or pre-auth the key names; nil when the journal knows none (or was not asked).
        var payment: JournalEntry?
        /// The journal rows it was found among (for what was already refunded or captured of it).
        var entries: [JournalEntry]
        /// The journal was asked about the key and knows no such payment.
        var unknownKey = false
    }

    /// What the confirmation says about the original payment: from the journal (amount, card, time, what was already
    /// refunded or captured of it, a warning when the amount is more than is left or the pre-auth was captured), or
    /// plainly that the journal does not know the key; then the key typed.
    static func originLines(_ known: Known, _ finder: TransactionFinder, _ state: AppState, amount: Money?, capture: Bool) -> [String] {
        var lines: [String] = []
        if let e = known.payment {
            let total = Format.total(e)
            lines.append("\(Format.actionName(e.action)) of \(Format.money(total, state.currency)) at "
                         + Format.hoursMinutesOfDay(e.createdAtMs, offsetMinutes: state.tzOffsetMinutes) + ",")
            if let card = Format.card(e.response) { lines.append("card " + card + ",") }
            let links = RefundLinks(known.entries)
            // What goes beyond what is left: the rule the core refuses with (`RefundLinks.beyond`), warned of here first.
            let beyond = RefundLinks.beyond(e, entries: known.entries, amount: amount, capture: capture)
            if capture {
                // A pre-auth is captured once: an approved capture the journal's links give it (as the journal shows).
                if case .alreadyCaptured(let c)? = beyond {
                    lines.append("⚠ ALREADY CAPTURED (\(Format.money(Format.total(c), state.currency)) at "
                                 + Format.hoursMinutesOfDay(c.createdAtMs, offsetMinutes: state.tzOffsetMinutes) + "): a second capture")
                    lines.append("is refused by the terminal, or charges twice.")
                } else if case .moreThanThePreAuth(let asked, let pre)? = beyond {
                    lines.append("⚠ MORE THAN THE PRE-AUTH: \(Format.money(asked, state.currency)) > \(Format.money(pre, state.currency)).")
                }
            } else {
                // What went back already (the journal's refund links): "in full" is what remains, not the total.
                if let back = links.refunded[e.id] {
                    let left = total.map { Money(cents: max(0, $0.cents - back.cents)) }
                    lines.append("\(Format.money(back, state.currency)) already refunded"
                                 + (left.map { " (\(Format.money($0, state.currency)) left)" } ?? "")
                                 + (links.unknownAmount.contains(e.id) ? ", and a refund of unknown amount," : ","))
                    if case .moreThanIsLeft(let asked?, let left, _)? = beyond {
                        lines.append("⚠ MORE THAN IS LEFT: \(Format.money(asked, state.currency)) > \(Format.money(left, state.currency)).")
                    } else if case .moreThanIsLeft(nil, _, _)? = beyond {
                        lines.append("⚠ NOTHING IS LEFT TO REFUND: the terminal refuses it, or gives back twice.")
                    }
                } else if links.unknownAmount.contains(e.id) {
                    lines.append("already refunded, amount unknown: check the terminal,")
                } else if case .moreThanThePayment(let asked, let paid)? = beyond {
                    lines.append("⚠ MORE THAN THE PAYMENT: \(Format.money(asked, state.currency)) > \(Format.money(paid, state.currency)).")
                }
            }
        } else if known.unknownKey {
            lines.append("The journal knows no \(capture ? "pre-auth" : "payment") with this key: check it on the receipt")
            lines.append("(the terminal looks it up itself).")
        }
        // A refund (capture) of the same payment whose outcome is not known yet may have been made: a second one could
        // give the money back twice (charge the pre-auth twice).
        if let u = unknownAgain(known, finder, capture: capture).last {
            let what = (u.amount.map { Format.money($0, state.currency) } ?? "in full") + " at "
                + Format.hoursMinutesOfDay(u.createdAtMs, offsetMinutes: state.tzOffsetMinutes)
            lines.append("⚠ A \(capture ? "capture" : "refund") of it (\(what)) has an UNKNOWN outcome:")
            lines.append("check the terminal before \(capture ? "capturing" : "refunding") again.")
        }
        switch finder.key {
        case .shortOrderCode(let s)?: lines.append("short order code \(s)")
        case .orderCode(let o)?: lines.append("order code \(o)")
        case .referenceNumber(let r)?: lines.append("STAN \(r)")
        case nil: break
        }
        return lines
    }
}

