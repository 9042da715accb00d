import TillProtocol
import TillModel

/// The memory of the Sale screen, and of the Pre-auth screen (each has its own).
public struct PaymentState: Sendable, Hashable {
    /// How the customer pays (card present until the cashier picks another with one key; after each result it is
    /// card present again): what the screen shows is what the request carries.
    public var method: PaymentMethod = .cardPresent
    /// The form as it was when its payment was sent (the screen's form is fresh from then on), with its method: put
    /// back, kept, when the request was not sent after all (refused, another request in flight), unless the cashier
    /// typed the next customer's amount meanwhile.
    public var sent: Form?
    public var sentMethod: PaymentMethod = .cardPresent
    public init() {}
}

/// Sale and pre-auth: an amount (a tip, installments and a reference on Sale), read by the same
/// function as `till sale` / `till pre-auth`, so both send the identical request. One component (`PaymentScreen`) runs
/// both; each declares its own name, key, form and title.
protocol PaymentComponent: ScreenComponent {
    /// Its own memory in the state.
    static var slice: WritableKeyPath<AppState, PaymentState> { get }
}

extension PaymentComponent {
    static func render(_ state: AppState, _ r: Rect, _ buf: inout ScreenBuffer) { formScreen(state, r, &buf) }
    static func update(_ state: inout AppState, _ action: KeyAction) -> [Command] { PaymentScreen.update(&state, action) }
    static func submit(_ state: inout AppState) -> [Command] { PaymentScreen.submit(&state) }
    static var holdsTyping: Bool { true }
    static func settled(_ state: inout AppState, _ outcome: ActionOutcome) -> [Command] {
        // The form became fresh when it was sent; what is in it now is the next customer's. (A request not started or
        // declined gave the form as sent back: `notSent`.)
        if !(outcome.notStarted || outcome.declinedNothingMoved) { state[keyPath: slice].sent = nil }
        return []
    }
}

enum SaleScreen: PaymentComponent {
    static let screen = Screen.sale
    static var slice: WritableKeyPath<AppState, PaymentState> { \.sale }
    static let title = "Sale"
    static let key = KeyAction.sale
    static var blankForm: Form {
        Form([
            Field(.amount, "Amount", .money, placeholder: "12.50"),
            Field(.tipAmount, "Tip", .tip, placeholder: "amount or 10%"),
            Field(.preferredInstallments, "Installments", .integer, placeholder: "none", maxLength: 2),
            Field(.clientTransactionId, "Reference", .text, placeholder: "optional", maxLength: 64),
        ])
    }
    static func frameTitle(_ state: AppState) -> String { "Sale: Enter charges the card" }
    static let menuPageLine: (key: Character, label: String)? = ("1", "Sale")
    static func menu(_ state: AppState) -> [(String, MenuCommand)] {
        // Paid by too: a keypad cashier's only way to MOTO (a phone order) has no Alt-m.
        [("Tip 5 %", .action(.tip5)), ("Tip 10 %", .action(.tip10)), ("Tip 15 %", .action(.tip15)), ("No tip", .action(.tipNone)),
         ("Paid by: next method", .action(.paymentMethod))]
    }
    static func enter(_ state: inout AppState, from: Screen) -> [Command] {
        // F2 is a sale for the next customer: the cursor is on the amount.
        state.form.focus = state.form.index(of: .amount) ?? 0
        return []
    }
}

enum PreAuthScreen: PaymentComponent {
    static let screen = Screen.preAuth
    static var slice: WritableKeyPath<AppState, PaymentState> { \.preAuth }
    static let leavesAfterVerdict = true
    static let title = "Pre-auth"
    static let key = KeyAction.preAuth
    static var blankForm: Form {
        Form([
            Field(.amount, "Amount", .money, placeholder: "50.00"),
            Field(.clientTransactionId, "Reference", .text, placeholder: "optional", maxLength: 64),
        ])
    }
    // What Enter sends, said loudly where it is not a sale: the next customer's amount typed there is no sale.
    static func frameTitle(_ state: AppState) -> String { "PRE-AUTH: Enter HOLDS money, no sale" }
    static let menuPageLine: (key: Character, label: String)? = ("2", "Pre-auth")
    static func menu(_ state: AppState) -> [(String, MenuCommand)] { [("Paid by: next method", .action(.paymentMethod))] }
    static let loudTitle = true
    static func arriving(_ state: inout AppState, from: Screen) {
        // Back on a payment screen: the cursor is on Amount, so no key lands in a field the cashier cannot see (a form
        // kept from before then puts it on the field typed first).
        state.forms[screen]?.focus = 0
    }
}

/// What Sale and Pre-auth do, each on its own form and its own `PaymentState`.
enum PaymentScreen {
    /// Where a payment screen's own state is kept (its component's `slice`); nil for the other screens.
    static func stateKey(_ screen: Screen) -> WritableKeyPath<AppState, PaymentState>? {
        (screen.component as? any PaymentComponent.Type)?.slice
    }

    static func update(_ state: inout AppState, _ action: KeyAction) -> [Command] {
        switch action {
        case .tip5, .tip10, .tip15, .tipNone, .tip:
            guard state.screen == .sale else { return [] }
            let pct: String
            switch action {
            case .tip5: pct = "5%"
            case .tip10: pct = "10%"
            case .tip15: pct = "15%"
            case .tip:
                let presets = ["", "5%", "10%", "15%"]
                pct = presets[((presets.firstIndex(of: state.form[.tipAmount]) ?? 0) + 1) % presets.count]
            default: pct = ""
            }
            state.form[.tipAmount] = pct
            state.form.errors[.tipAmount] = nil
            // A preset is typed anew: no longer a selection kept from before.
            if let i = state.form.index(of: .tipAmount) { state.form.fields[i].selected = false }
            if state.form.life == .fresh || state.form.life == .kept { state.form.life = typedLife(state, state.form.life) }
            return []
        case .installments:
            guard state.screen == .sale, let i = state.form.index(of: .preferredInstallments) else { return [] }
            state.form.focus = i
            if !state.form.fields[i].text.isEmpty { state.form.fields[i].selected = true }
            return []
        case .paymentMethod:
            // One key: card present → MOTO (phone orders) → the other methods → card present.
            guard let key = stateKey(state.screen) else { return [] }
            let all = PaymentMethod.allCases
            let now = state[keyPath: key].method
            let next = all[((all.firstIndex(of: now) ?? 0) + 1) % all.count]
            state[keyPath: key].method = next
            setNotice(&state, "Paid by: " + paymentMethodName(next) + ".")
            return []
        default:
            return formAction(&state, action)
        }
    }

    /// Whether the screen holds anything of a customer's: text in a field, or a payment method other than card present.
    static func holdsInput(_ state: AppState) -> Bool {
        guard let key = stateKey(state.screen) else { return false }
        return state.form.hasText || state[keyPath: key].method != .cardPresent
    }

    /// Esc "clear": the whole form goes (amount, tip, installments, reference) and the payment method is card present
    /// again, the cursor on the amount: a fresh form, as after a payment is sent, so that nothing picked for one
    /// customer (a tip, installments, MOTO) is sent unseen with the next one's amount.
    static func clear(_ state: inout AppState) {
        guard let key = stateKey(state.screen) else { return }
        var f = Form.blank(state.screen)
        f.focus = f.index(of: .amount) ?? 0
        state.form = f
        state[keyPath: key].method = .cardPresent
        // What the notice said was about the form just cleared ("Paid by: MOTO", a refused key).
        clearNotice(&state)
    }

    /// A shift must be open to sell: one key opens it and sends the payment typed, once the shift is open
    /// (`sendOnceShiftOpens`). Opening and paying in one answer makes it a box that moves money: Enter by habit never
    /// answers it (it opened the shift alone, the next customer's amount replaced the one typed, and that sale was
    /// never sent).
    static func offerToOpenTheShift(_ state: inout AppState, _ request: Request) {
        let name = state.defaultShiftName
        let what = Format.summary(request, currency: state.currency, tipStyle: state.tipStyle)
        // A sale is named by what the card pays ("charge € 22.00"), a pre-auth by itself ("send Pre-auth € 50.00").
        let then = request.action == .preAuth ? "send " + what
            : "charge " + (Format.charged(request, state.tipStyle).map { Format.money($0, state.currency) } ?? what)
        state.overlay = .confirm(Confirmation(
            title: "No shift open",
            lines: ["Payments go into a shift (batch); none is open.", "Open the shift '\(name)' and \(then)?"],
            choices: [ConfirmChoice(key: "o", label: "open the shift and \(then)",
                                    action: .openShiftThenSend(BatchRequest(command: .open, batchName: name), payment: what))]))
    }

    /// The payment the no-shift box interrupted, as it stands now: sent once the shift is open only while it is
    /// still exactly this.
    static func interrupted(_ state: AppState, named summary: String) -> InterruptedPayment? {
        guard stateKey(state.screen) != nil, state.form.hasText else { return nil }
        return InterruptedPayment(screen: state.screen, texts: state.form.fields.map(\.text),
                                  method: state.paymentMethod(state.screen), summary: summary)
    }

    /// The shift the no-shift box opened is open (or did not open): the payment it interrupted is sent now if the
    /// form still holds it as it was, and the cashier is told otherwise; nothing is ever sent that was not on the screen.
    static func shiftOpened(_ state: inout AppState, _ p: InterruptedPayment, opened: Bool) -> [Command] {
        guard opened else {
            // After what the answer's own notice said (the shift's refusal, a busy terminal), if anything.
            let said = state.notice.map { $0 + " " } ?? "The shift did not open. "
            setNotice(&state, said + "\(p.summary) was not charged: Enter tries again.", error: true)
            return []
        }
        guard state.screen == p.screen, state.overlay == nil, state.pending == nil else {
            setNotice(&state, "Shift opened. \(p.summary) was not sent: Enter sends what is typed.")
            return []
        }
        guard interrupted(state, named: p.summary) == p else {
            setNotice(&state, "Shift opened. \(p.summary) was not sent: the form changed. Enter sends what it shows now.")
            return []
        }
        return submit(&state)
    }

    static func submit(_ state: inout AppState) -> [Command] {
        if let p = state.pending, !state.form.hasText {
            // Enter again by habit while the terminal works: nothing typed is nothing to check or send.
            sayWaitForFlight(&state, p)
            return []
        }
        guard var reader = FormReader(&state) else { return [] }
        var form: Form { get { reader.form } set { reader.form = newValue } }
        func focusFirstError() { reader.focusFirstError() }
        // The form read goes back to the screen here, before anything is sent (sending makes the form fresh).
        // The same reading of typed text as `till sale` / `till pre-auth`: the identical request.
        let draft = state.screen == .sale
            ? RequestDraft.sale(amount: form[.amount], tip: form[.tipAmount], installments: form[.preferredInstallments],
                                reference: form[.clientTransactionId], tipStyle: state.tipStyle)
            : RequestDraft.preAuth(amount: form[.amount], reference: form[.clientTransactionId])
        let problems = draft.problems(caller: validationCaller, tipStyle: state.tipStyle)
        for e in problems {
            if let id = FieldID(rawValue: e.field), let i = form.index(of: id) {
                // Shown beside its field: the "Amount: " the CLI puts first is said by the field's label.
                let label = form.fields[i].label + ": "
                let m = e.message.hasPrefix(label) ? String(e.message.dropFirst(label.count)) : e.message
                if form.errors[id] == nil { form.errors[id] = m }
            } else if form.message == nil { form.message = e.message }
        }
        guard problems.isEmpty else { focusFirstError(); state.form = form; return [] }
        state.form = form
        // What the screen shows ("Paid by") is what the request carries.
        let request = withPaymentMethod(draft.request, state.paymentMethod(state.screen))
        if let b = state.batch, !b.isOpen, state.pending == nil {
            offerToOpenTheShift(&state, request)
            return []
        }
        let charged = Format.charged(request, state.tipStyle)
        if let a = state.unresolved.entries.first(where: { state.unresolved.asking[$0.id] != nil && $0.action == request.action
                                                           && Format.total($0) == charged }) {
            // The terminal has not been asked about that payment yet (it may still be running it): a new one of the
            // same amount waits for the answer.
            let what = "\(Format.entrySummary(a, currency: state.currency)) at \(Format.hoursMinutesOfDay(a.createdAtMs, offsetMinutes: state.tzOffsetMinutes))"
            setNotice(&state, "Not sent: asking the terminal about \(what) first.", error: true)
            giveBack(&state, state.screen, state.form)
            return []
        }
        let unknown = state.unresolved.entries.filter(\.mayHaveCharged)
        if let u = unknown.last {
            // Never silently charged twice: the cashier checks the terminal first, then says so.
            let what = "\(Format.money(Format.total(u), state.currency)) at \(Format.hoursMinutesOfDay(u.createdAtMs, offsetMinutes: state.tzOffsetMinutes))"
            let n = unknown.count
            var lines = ["\(what) may have been charged: check the terminal before charging again."]
            if n > 1 { lines.append("(\(n) payments have an unknown outcome: see \(state.keymap.hint(.unresolved)) Unresolved.)") }
            lines.append("Charge \(Format.summary(request, currency: state.currency, tipStyle: state.tipStyle)) now?")
            clearNotice(&state)   // what it said ("Cancelled: …" of this very box before) is not about the box now open
            var box = Confirmation(
                title: "Earlier payment UNKNOWN",
                lines: lines,
                choices: [ConfirmChoice(key: "y", label: "charge anyway", action: .sendConfirmingUnknown(request, Set(unknown.map(\.id)))),
                          ConfirmChoice(key: "u", label: "go to Unresolved", action: .goTo(.unresolved))],
                enterPicksFirst: false)
            box.standsWhile = .unknownPayments(Set(unknown.map(\.id)))
            state.overlay = .confirm(box)
            return []
        }
        let window = AppState.chargedAgainWindowMs
        if let c = state.foundCharged.last(where: { $0.entry.action == request.action && state.nowMs - $0.knownAtMs <= window
                                                   && Format.total($0.entry) == charged }) {
            // The same amount as a payment just found charged: most likely the same customer; ask, naming it.
            let money = Format.money(charged, state.currency)
            state.overlay = .confirm(Confirmation(
                title: "Charged already?",
                lines: ["\(money) was charged at \(Format.hoursMinutesOfDay(c.entry.createdAtMs, offsetMinutes: state.tzOffsetMinutes))"
                        + " (found after its outcome was unknown).",
                        "Charge \(money) again?"],
                choices: [ConfirmChoice(key: "y", label: "charge \(money) again", action: .sendConfirmingUnknown(request, []))]))
            return []
        }
        return sendAskingAbove(&state, request)
    }
}

/// How a payment method reads on the screen.
public func paymentMethodName(_ m: PaymentMethod) -> String {
    switch m {
    case .cardPresent: return "Card present"
    case .moto: return "MOTO (phone/mail order)"
    case .qrDefault: return "QR code"
    case .payconiq: return "Payconiq"
    case .aliPay: return "AliPay"
    case .paypal: return "PayPal"
    case .klarna: return "Klarna"
    }
}

/// The request with the method the screen shows. Card present is sent as no `paymentMethod`: the
/// protocol's meaning of an absent one (Requests.swift), and the URL `till sale` sends without
/// `--payment-method`; every other method is sent by name.
func withPaymentMethod(_ r: Request, _ m: PaymentMethod) -> Request {
    let sent: PaymentMethod? = m == .cardPresent ? nil : m
    switch r {
    case .sale(var s): s.paymentMethod = sent; return .sale(s)
    case .preAuth(var p): p.paymentMethod = sent; return .preAuth(p)
    case .cancel, .abort, .batch, .capturePreAuth, .transactionDetails, .reprint, .getPrintingSettings, .setPrintingSettings,
         .sendLogs, .getActivationCode, .activatePos:
        return r   // no payment method
    }
}

/// The notice under Installments when the terminal will ask the cardholder for the number (0, or
/// above the maximum: sale.txt:28 "0 or above the maximum allowed: the user will be prompted").
/// Read by the same function that builds the request, so the notice and the request agree.
func installmentsNotice(_ form: Form) -> String? {
    guard !form[.preferredInstallments].trimmingWhitespace().isEmpty,
          case .sale(let s) = RequestDraft.sale(amount: form[.amount], installments: form[.preferredInstallments]).request,
          s.terminalWillAskForInstallments else { return nil }
    return s.preferredInstallments == 0 ? "0: the terminal will ask the cardholder how many."
        : "Above \(Limits.installmentsWithoutPrompt): the terminal will ask the cardholder how many."
}

public struct FieldMessage: Error, Sendable { public var message: String }

/// A tip as typed, read as every request reads it (`RequestDraft.tip`).
public func tipValue(_ text: String, amount: Money) -> Result<Money, FieldMessage> {
    RequestDraft.tip(text, of: amount).mapError { FieldMessage(message: $0.message) }
}

func tipNote(_ form: Form, _ currency: String) -> String? {
    let t = form[.tipAmount].trimmingWhitespace()
    guard t.hasSuffix("%"), let amount = try? Money.parse(form[.amount]) else { return nil }
    guard case .success(let tip) = tipValue(t, amount: amount) else { return nil }
    return "= " + tip.formatted()
}

func saleTotal(_ form: Form) -> Money? {
    guard let amount = try? Money.parse(form[.amount]), amount.cents > 0 else { return nil }
    let t = form[.tipAmount].trimmingWhitespace()
    if t.isEmpty { return amount }
    guard case .success(let tip) = tipValue(t, amount: amount) else { return nil }
    return amount + tip
}
