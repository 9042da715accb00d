import TillProtocol
import TillModel

/// Capture and refund: find the original payment (STAN, order code, short order code, dates), an
/// amount (blank: in full); a refund asks first.
enum FinderScreen: ScreenComponent {
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
        let origin = state.finderOrigin[state.screen].flatMap { e in
            e.response?.referenceNumber == finder.referenceNumber && finder.referenceNumber != nil ? e : nil
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
            let total = (e.response?.amount ?? e.amount).map { a in (e.response?.tipAmount ?? e.tipAmount).map { a + $0 } ?? a }
            lines.append("\(Format.actionName(e.action)) of \(Format.money(total, state.currency)) at "
                         + Format.hoursMinutesOfDay(e.createdAtMs, offsetMinutes: state.tzOffsetMinutes) + ",")
            if let card = Format.card(e.response) { lines.append("card " + card + ",") }
        }
        if let s = finder.shortOrderCode { lines.append("short order code \(s)") }
        else if let o = finder.orderCode { lines.append("order code \(o)") }
        else if let r = finder.referenceNumber { lines.append("STAN \(r)") }
        return lines
    }
}

/// F5 (refund) or F4 (capture) on a journal row: the finder is filled with the row's STAN (amount blank:
/// in full) and the row is kept for the confirmation. Only an approved sale is refunded from its row,
/// only an approved pre-auth captured.
func startFromJournalRow(_ state: inout AppState, _ screen: Screen) {
    let list = state.visibleJournal
    guard let e = state.journal.detail ?? (list.indices.contains(state.journal.selected) ? list[state.journal.selected] : nil) else { return }
    let wanted: Action = screen == .refund ? .sale : .preAuth
    guard e.action == wanted, e.state == .approved, let stan = e.response?.referenceNumber else {
        setNotice(&state, screen == .refund ? "Only an approved sale can be refunded from its row: pick one, or type its STAN."
                                            : "Only an approved pre-auth can be captured from its row: pick one, or type its STAN.", error: true)
        return
    }
    var f = Form.blank(screen)
    f["referenceNumber"] = stan
    f.focus = f.index(of: "amount") ?? 0
    state.forms[screen] = f
    state.finderOrigin[screen] = e
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
