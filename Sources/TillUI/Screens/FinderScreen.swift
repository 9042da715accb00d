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
        if state.screen == .capture {
            let r = Request.capturePreAuth(CaptureRequest(amount: amountOpt, finder: finder))
            guard validate(r) else { return [] }
            state.form = form
            return send(&state, r)
        }
        if !finder.hasKey {
            form.errors["referenceNumber"] = "Say which payment to refund: its STAN, order code or short order code."
            form.focus = 0
            return []
        }
        let r = Request.cancel(CancelRequest(amount: amountOpt, finder: finder))
        guard validate(r) else { return [] }
        state.form = form
        var lines = ["\(amountOpt.map { "Refund " + Format.money($0, state.currency) } ?? "Refund the FULL amount") of the payment with"]
        if let s = finder.shortOrderCode { lines.append("short order code \(s)") }
        else if let o = finder.orderCode { lines.append("order code \(o)") }
        else if let r = finder.referenceNumber { lines.append("STAN \(r)") }
        lines.append("Money goes back to the cardholder's card;")
        lines.append("this cannot be undone.")
        state.overlay = .confirm(Confirmation(title: "Refund?", lines: lines,
                                              choices: [ConfirmChoice(key: "y", label: "refund", action: .send(r))]))
        return []
    }

    static func render(_ state: AppState, _ r: Rect, _ buf: inout ScreenBuffer) { formScreen(state, r, &buf) }
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
