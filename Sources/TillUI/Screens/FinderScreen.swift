import TillProtocol
import TillModel

/// The memory of the Capture screen, and of the Refund screen (each has its own).
public struct FinderState: Sendable, Hashable {
    /// The journal row the capture or refund was started from (F4 / F5 on the journal): the confirmation names that
    /// payment (amount, card, time) while the STAN typed is still its STAN.
    public var origin: JournalEntry?
    public init() {}
}

/// Capture and refund: find the original payment (STAN, order code, short order code, dates), an
/// amount (blank: in full); a refund asks first.
enum FinderScreen: ScreenComponent {
    /// Where a finder screen's own state is kept; nil for the other screens.
    static func stateKey(_ screen: Screen) -> WritableKeyPath<AppState, FinderState>? {
        switch screen {
        case .capture: return \.capture
        case .refund: return \.refund
        default: return nil
        }
    }

    static func update(_ state: inout AppState, _ action: KeyAction) -> [Command] { formAction(&state, action) }

    static func submit(_ state: inout AppState) -> [Command] {
        guard var reader = FormReader(&state) else { return [] }
        var form: Form { get { reader.form } set { reader.form = newValue } }
        func opt(_ id: String) -> String? { reader.opt(id) }
        func money(_ id: String, required: Bool) -> Money?? { reader.money(id, required: required) }
        func validate(_ r: Request) -> Bool { reader.validate(r) }
        func focusFirstError() { reader.focusFirstError() }
        defer { state.form = reader.form }
        guard let amountOpt = money("amount", required: false) else { focusFirstError(); return [] }
        let finder = TransactionFinder(referenceNumber: opt("referenceNumber"), orderCode: opt("orderCode"),
                                       shortOrderCode: opt("shortOrderCode"),
                                       txnDateFrom: opt("txnDateFrom").map { expandDate($0, endOfDay: false, offset: state.tzOffsetMinutes) },
                                       txnDateTo: opt("txnDateTo").map { expandDate($0, endOfDay: true, offset: state.tzOffsetMinutes) })
        // The row the refund started from is named only if the key the terminal goes by (short code, else order code,
        // else STAN) is that row's: found by attack, a short code typed after F5 refunded another payment while the
        // box named the row's.
        let origin = stateKey(state.screen).flatMap { state[keyPath: $0].origin }.flatMap { e in
            finder.key?.names(e.response) == true ? e : nil
        }
        if state.screen == .capture {
            let r = Request.capturePreAuth(CaptureRequest(amount: amountOpt, finder: finder))
            guard validate(r) else { return [] }
            state.form = form
            var lines = ["\(amountOpt.map { "Capture " + Format.money($0, state.currency) } ?? "Capture the FULL amount") of the pre-auth"]
            lines += originLines(origin, finder, state)
            lines.append("The card is charged; what is not captured is released.")
            state.overlay = .confirm(Confirmation(title: "Capture?", lines: lines,
                                                  choices: [ConfirmChoice(key: "y", label: "capture", action: .send(r))]))
            return []
        }
        if !finder.hasKey {
            form.errors["referenceNumber"] = "Say which payment to refund: its STAN, order code or short order code."
            form.focus = 0
            return []
        }
        let r = Request.cancel(CancelRequest(amount: amountOpt, finder: finder))
        guard validate(r) else { return [] }
        state.form = form
        var lines = ["\(amountOpt.map { "Refund " + Format.money($0, state.currency) } ?? "Refund the FULL amount") of the payment"]
        lines += originLines(origin, finder, state)
        lines.append("Money goes back to the cardholder's card;")
        lines.append("this cannot be undone.")
        state.overlay = .confirm(Confirmation(title: "Refund?", lines: lines,
                                              choices: [ConfirmChoice(key: "y", label: "refund", action: .send(r))]))
        return []
    }

    static func render(_ state: AppState, _ r: Rect, _ buf: inout ScreenBuffer) { formScreen(state, r, &buf) }

    /// What the confirmation says about the original payment: from its journal row when the refund or capture
    /// started there (amount, card, time), else the key typed.
    static func originLines(_ origin: JournalEntry?, _ finder: TransactionFinder, _ state: AppState) -> [String] {
        var lines: [String] = []
        if let e = origin {
            let total = Format.total(e)
            lines.append("\(Format.actionName(e.action)) of \(Format.money(total, state.currency)) at "
                         + Format.hoursMinutesOfDay(e.createdAtMs, offsetMinutes: state.tzOffsetMinutes) + ",")
            if let card = Format.card(e.response) { lines.append("card " + card + ",") }
            // What went back already (the journal's refund links): "in full" is what remains, not the total.
            let links = state.journal.links
            if let back = links.refunded[e.id] {
                let left = total.map { " (\(Format.money(Money(cents: max(0, $0.cents - back.cents)), state.currency)) left)" } ?? ""
                lines.append("\(Format.money(back, state.currency)) already refunded\(left)"
                             + (links.unknownAmount.contains(e.id) ? ", and a refund of unknown amount," : ","))
            } else if links.unknownAmount.contains(e.id) {
                lines.append("already refunded, amount unknown: check the terminal,")
            }
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

/// Expands a typed date (`2026-11-22`, `2026-11-22 14:30`) to the ISO 8601 form the terminal takes.
public func expandDate(_ t: String, endOfDay: Bool, offset: Int) -> String {
    let s = t.trimmingWhitespace()
    let u = Array(s.utf8)
    func isDay(_ u: [UInt8]) -> Bool {
        u.count == 10 && u[4] == 0x2D && u[7] == 0x2D && u.enumerated().allSatisfy { $0.offset == 4 || $0.offset == 7 || ($0.element >= 48 && $0.element <= 57) }
    }
    if isDay(u) { return s + (endOfDay ? "T23:59:59.999" : "T00:00:00.000") + Format.offset(offset) }
    if u.count == 16, isDay(Array(u[0..<10])), u[10] == 0x20 || u[10] == 0x54 {
        return String(s.prefix(10)) + "T" + String(s.suffix(5)) + (endOfDay ? ":59.999" : ":00.000") + Format.offset(offset)
    }
    return s
}
