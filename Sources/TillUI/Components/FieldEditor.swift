import TillProtocol
import TillModel

func refusal(_ f: Field, _ ch: Character) -> String {
    // A secret's keystroke is never echoed, not even a refused one.
    let shown = !f.secret && ch.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) ? "'\(ch)'" : "That character"
    let fix = " Backspace to correct."
    switch f.kind {
    case .money where ch == "-": return "\(shown) refused: an amount has no minus sign (a refund is \(f.label == "Amount" ? "F5" : "its own screen"))." + fix
    case .money: return "\(shown) refused: digits only, with one . or , for cents." + fix
    case .tip: return "\(shown) refused: digits (with . or ,) or a percentage like 10%." + fix
    case .integer, .digits: return "\(shown) refused: digits only." + fix
    case .date: return "\(shown) refused: a date like 2026-11-22." + fix
    case .text: return "\(shown) is not allowed here." + fix
    }
}

/// A keystroke the field cannot take: the field is marked (blocks Enter) and the cashier is told.
func refuse(_ state: inout AppState, _ field: Field, _ message: String) {
    state.form.errors[field.id] = message
    state.form.refused.insert(field.id)
    if let i = state.form.index(of: field.id) { state.form.fields[i].selected = false }
    setNotice(&state, field.label + ": " + message, error: true)
}

/// Cents entry: the field shows the amount its digits make, the last two the cents (`1250` reads `12.50`).
func centsText(_ digits: String) -> String {
    let d = String(digits.drop(while: { $0 == "0" }))
    guard !d.isEmpty else { return "" }
    let padded = String(repeating: "0", count: max(0, 3 - d.count)) + d
    return padded.dropLast(2) + "." + padded.suffix(2)
}

/// Whether the focused field is an amount that reads digits in cents here: every amount, and the tip unless it is a
/// percentage (`500` is a 5.00 tip, `10%` ten per cent).
func entersCents(_ state: AppState, _ field: Field) -> Bool {
    state.amountEntry == .cents && (field.kind == .money || (field.kind == .tip && !field.text.contains("%")))
}

func type(_ state: inout AppState, _ ch: Character) {
    guard let field = state.form.focused else { return }
    let cents = entersCents(state, field)
    if cents, field.kind == .tip, ch == "%" {
        // The digits typed so far were a percentage: `1`, `0`, `%` is 10%, not 0.10.
        _ = eraseSelection(&state)
        var f = state.form
        f.life = typedLife(state, f.life)
        f.fields[f.focus].text = String(f.fields[f.focus].text.filter(\.isNumber).drop(while: { $0 == "0" })) + "%"
        f.errors[field.id] = nil; f.refused.remove(field.id); f.message = nil
        state.form = f
        return
    }
    if cents, !(ch.isASCII && ch.isNumber) {
        let why = ch == "." || ch == "," ? "'\(ch)' not needed, amounts are typed in cents (1250 is 12.50)."
            : "digits only, in cents (1250 is 12.50)."
        setNotice(&state, field.label + " ¢: " + why, error: true)
        return
    }
    // Selected text (kept from before) is replaced by what is typed, never appended to.
    _ = eraseSelection(&state)
    var f = state.form
    if cents {
        f.life = typedLife(state, f.life)
        let digits = f.fields[f.focus].text.filter(\.isNumber) + String(ch)
        guard digits.drop(while: { $0 == "0" }).count <= 9 else {
            state.form = f
            refuse(&state, field, "At most 9 digits: '\(ch)' refused. Backspace to correct.")
            return
        }
        f.fields[f.focus].text = centsText(digits)
        f.errors[field.id] = nil; f.refused.remove(field.id); f.message = nil
        state.form = f
        if state.noticeIsError { state.notice = nil }
        return
    }
    f.life = typedLife(state, f.life)
    if f.fields[f.focus].text.count >= field.maxLength {
        state.form = f
        refuse(&state, field, "At most \(field.maxLength) characters: " + (field.secret ? "that one" : "'\(ch)'") + " refused. Backspace to correct.")
        return
    }
    f.fields[f.focus].text.append(ch)
    // A refused character still in the field keeps its error; any other error goes once the field is edited.
    if !f.fields[f.focus].text.contains(where: { !field.kind.accepts($0) }) { f.errors[field.id] = nil; f.refused.remove(field.id) }
    f.message = nil
    state.form = f
    if state.form.refused.isEmpty, state.noticeIsError { state.notice = nil }
    if state.screen == .journal { state.journal.selected = 0; state.journal.top = 0 }
}

/// What typing makes of a form: on the screen whose payment is with the terminal, the next customer's amount (the
/// form became fresh when the request was sent); else the customer at the till's.
func typedLife(_ state: AppState, _ life: FormLife) -> FormLife {
    if let p = state.pending, p.own, p.screen == state.screen, state.screen.takesPayment { return .nextCustomer }
    return life == .nextCustomer ? .nextCustomer : .typing
}

/// Selects nothing any more in the focused field (Backspace on selected text deletes all of it, as a text input does).
func eraseSelection(_ state: inout AppState) -> Bool {
    guard let f = state.form.focused, f.selected else { return false }
    state.form.fields[state.form.focus].selected = false
    state.form.fields[state.form.focus].text = ""
    // The notice that named the kept text ("Amount € 25 kept, selected …") is no longer true.
    if state.notice?.contains("kept, selected: typing replaces it") == true { state.notice = nil }
    return true
}

/// The cashier corrected a field (Backspace, clear): its error goes once no refused character is left in it.
func corrected(_ state: inout AppState, _ id: FieldID) {
    guard let i = state.form.index(of: id) else { return }
    let f = state.form.fields[i]
    state.form.message = nil
    state.form.fields[i].selected = false
    guard !f.text.contains(where: { !f.kind.accepts($0) }) else { return }
    state.form.errors[id] = nil
    state.form.refused.remove(id)
    if state.form.refused.isEmpty, state.noticeIsError { state.notice = nil }
}

func formAction(_ state: inout AppState, _ action: KeyAction) -> [Command] {
    let n = state.form.fields.count
    switch action {
    case .next, .down:
        if n > 0 { state.form.focus = (state.form.focus + 1) % n }
        return []
    case .previous, .up:
        if n > 0 { state.form.focus = (state.form.focus + n - 1) % n }
        return []
    case .submit:
        return state.screen.component.submit(&state)
    default:
        return []
    }
}

func formScreen(_ s: AppState, _ r: Rect, _ buf: inout ScreenBuffer) {
    let form = s.form
    var y = r.y + 1
    let labelW = 14
    let fieldX = r.x + 2 + labelW
    let fieldW = max(8, min(26, r.width - labelW - 12))
    let textW = r.width - 4
    if s.screen == .capture || s.screen == .refund {
        let what = s.screen == .capture ? "pre-authorisation" : "payment"
        for l in wrap("Find the \(what) by STAN, order code or short order code (dates optional).", width: textW) {
            buf.put(l, x: r.x + 2, y: y, role: .hint, maxWidth: textW); y += 1
        }
        y += 1
    }
    for (i, f) in form.fields.enumerated() {
        if y >= r.maxY - 2 { break }
        var shown = f
        // Said where it is typed: 1250 reads 12.50 here.
        if entersCents(s, f) {
            shown.label = f.label + " ¢"
            shown.placeholder = f.kind == .tip ? "cents or 10%" : "in cents: 1250 = 12.50"
        }
        drawField(shown, focused: i == form.focus, error: form.errors[f.id], x: r.x + 2, labelW: labelW, fieldX: fieldX, fieldW: fieldW,
                  y: y, currency: s.currency, &buf)
        // What a field adds, to the right of it.
        if f.id == .tipAmount, s.screen == .sale, let extra = tipNote(form, s.currency) {
            buf.put(extra, x: fieldX + fieldW + 1, y: y, role: .amount, maxWidth: r.maxX - fieldX - fieldW - 1)
        }
        y += 1
        if let e = form.errors[f.id] {
            for line in wrap("✗ " + e, width: r.maxX - fieldX - 1) where y < r.maxY - 2 {
                buf.put(line, x: fieldX, y: y, role: .error, maxWidth: r.maxX - fieldX); y += 1
            }
        }
        if f.id == .preferredInstallments, s.screen == .sale, let note = installmentsNotice(form), y < r.maxY - 2 {
            for line in wrap("ⓘ " + note, width: r.maxX - r.x - 3) where y < r.maxY - 2 {
                buf.put(line, x: r.x + 2, y: y, role: .warning, maxWidth: r.maxX - r.x - 3); y += 1
            }
        }
        if f.id == .tipAmount, s.screen == .sale, y < r.maxY - 2 {
            // One key in turn where the keymap binds one (the default's Ctrl-t), else each preset's own key or menu route.
            let presets = s.keymap.keys(for: .tip).isEmpty
                ? [KeyAction.tip5, .tip10, .tip15, .tipNone].map { menuRouteHint($0, s) + " " + ($0 == .tipNone ? "none" : $0.label.replacingOccurrences(" %", "%").replacingOccurrences("Tip ", "")) }
                : [s.keymap.hint(.tip) + " 5% › 10% › 15% › none"]
            let text = presets.joined(separator: "  ")
            let px = text.count <= r.maxX - fieldX - 1 ? fieldX : r.x + 2
            buf.put(text.count <= r.maxX - px - 1 ? text : presets.joined(separator: " "), x: px, y: y, role: .hint, maxWidth: r.maxX - px - 1)
            y += 1
        }
        y += (r.height >= 24 ? 1 : 0)
    }
    if let m = form.message, y < r.maxY - 1 {
        y += 1
        for line in wrap("✗ " + m, width: textW) where y < r.maxY - 1 { buf.put(line, x: r.x + 2, y: y, role: .error); y += 1 }
    }
    if s.screen.takesPayment, y < r.maxY - 2 {
        // How the customer pays: shown as it is sent (one key changes it).
        y += 1
        let m = s.paymentMethod(s.screen)
        buf.put("Paid by", x: r.x + 2, y: y, role: .label)
        let used = buf.put(paymentMethodName(m), x: fieldX + 1, y: y, role: m == .cardPresent ? .normal : .warning, attrs: .bold,
                           maxWidth: r.maxX - fieldX - 2)
        // The key that changes it: for a keypad cashier the menu's route (`/1` on Pre-auth), none where the keypad has
        // no way (never "Alt-m", a key a keypad does not have).
        let key: String? = s.keymap.isKeypad
            ? (Menu.build(s).items.first { $0.command == .action(.paymentMethod) }).map { "\(s.keymap.hint(.menu))\($0.key)" }
            : s.keymap.hint(.paymentMethod)
        let hint = key.map { "  " + $0 + " change" } ?? ""
        if !hint.isEmpty, fieldX + 1 + used + hint.count < r.maxX { buf.put(hint, x: fieldX + 1 + used, y: y, role: .hint) }
        y += 1
    }
    if s.screen == .sale, let total = saleTotal(form), y < r.maxY - 2 {
        y += 1
        buf.put("Total to pay", x: r.x + 2, y: y, role: .label)
        buf.put(Format.money(total, s.currency), x: fieldX + 1, y: y, role: .amount, attrs: .bold)
        y += 1
    }
    let submit = "\(s.keymap.hint(.submit)) " + s.screen.component.submitHint
    let hint = hintLine([submit, keyPart(s, .next, "next field"), backPart(s)].compactMap { $0 }, width: textW)
    buf.put(hint, x: r.x + 2, y: r.maxY - 1, role: .hint, maxWidth: textW)
}

func drawField(_ f: Field, focused: Bool, error: String?, x: Int, labelW: Int, fieldX: Int, fieldW: Int, y: Int, currency: String,
               _ buf: inout ScreenBuffer) {
    buf.put(f.label, x: x, y: y, role: error != nil ? .error : .label, attrs: focused ? .bold : [], maxWidth: labelW - 1)
    let role: Role = error != nil ? .fieldError : (focused ? .fieldFocused : .field)
    buf.fill(Rect(x: fieldX, y: y, width: fieldW, height: 1), role: role)
    var text = f.secret ? String(repeating: "•", count: f.text.count) : f.text
    // Selected text (typing replaces it) is drawn as a selection, in reverse where there is no colour.
    var textRole = f.selected && !f.text.isEmpty ? .selection : role
    if text.isEmpty && !focused { text = f.placeholder; textRole = role == .field ? .dim : role }
    let prefix = (f.kind == .money && !(f.text.isEmpty && !focused)) ? currency + " " : ""
    var shown = prefix + text
    let room = fieldW - 2
    if shown.count > room { shown = "…" + String(shown.suffix(room - 1)) }
    let used = buf.put(shown, x: fieldX + 1, y: y, role: textRole, maxWidth: room)
    if focused { buf.put("_", x: fieldX + 1 + used, y: y, role: role, attrs: .bold) }
    if error != nil { buf.put("!", x: fieldX + fieldW - 1, y: y, role: role, attrs: .bold) }
}

/// Reads a screen's form when Enter is pressed: nothing while a keystroke is refused (what is on
/// screen is not what the cashier typed), old errors cleared, new ones put on their fields.
struct FormReader {
    var form: Form

    init?(_ state: inout AppState) {
        // What was shown is what is sent: a field showing an error (a refused key, a rule its text broke) blocks
        // sending until the cashier corrects it. A blank field's error (nothing given where something was due, as
        // "say which payment: its STAN, order code or short code") does not: another field may answer it, and the
        // checks below say it again if not.
        if let i = state.form.fields.firstIndex(where: {
            (state.form.errors[$0.id] != nil && !$0.text.trimmingWhitespace().isEmpty) || state.form.refused.contains($0.id)
        }) {
            let f = state.form.fields[i]
            state.form.focus = i
            setNotice(&state, "Not sent: correct \(f.label) first (\(state.form.errors[f.id] ?? "a key was refused")).", error: true)
            return nil
        }
        form = state.form
        form.errors = [:]
        form.message = nil
    }

    /// The field's text, nil when blank.
    func opt(_ id: FieldID) -> String? {
        let t = form[id].trimmingWhitespace()
        return t.isEmpty ? nil : t
    }

    /// The request's rule errors on their fields (or the form's message); true when there are none.
    mutating func validate(_ r: Request) -> Bool {
        let errs = TerminalRequest(caller: validationCaller, request: r).validationErrors()
        for e in errs {
            if let id = FieldID(rawValue: e.field), form.index(of: id) != nil { if form.errors[id] == nil { form.errors[id] = e.message } }
            else if form.message == nil { form.message = e.message }
        }
        focusFirstError()
        return errs.isEmpty
    }

    mutating func focusFirstError() {
        if let first = form.fields.firstIndex(where: { form.errors[$0.id] != nil }) { form.focus = first }
    }
}

/// What Esc does on this screen right now, for its footer.
func escWord(_ s: AppState) -> String {
    if s.escAborts { return "abort" }
    if PaymentScreen.holdsInput(s) { return "clear" }
    if let f = s.form.focused, !f.text.isEmpty, s.screen.component.escClearsField { return "clear" }
    return s.screen == .sale ? "clear" : "back"
}

/// How a hint names the key for `action`: its own key; or, where the menu is on a plain key (the keypad keymap, whose
/// cashier has no Alt or F keys), the menu key and the digit that picks the action there ("/1"), read from the menu
/// itself (`Menu.build`), so the hint and the menu cannot disagree.
func menuRouteHint(_ action: KeyAction, _ s: AppState) -> String {
    guard case .char(let menuKey)? = s.keymap.keys(for: .menu).first,
          let item = Menu.build(s).items.first(where: { $0.command == .action(action) }) else { return s.keymap.hint(action) }
    return "\(menuKey)\(item.key)"
}

/// A footer's part naming the key for `action` ("Ctrl-e CSV"). A keypad cashier is named only keys a keypad has: the
/// action's keypad key, else the menu's route to it ("/2 all", read from `Menu.build`), else nothing (the part goes:
/// never Esc, Ctrl or an F-key the cashier cannot press).
func keyPart(_ s: AppState, _ action: KeyAction, _ words: String) -> String? {
    guard s.keymap.isKeypad else { return s.keymap.keys(for: action).first.map { $0.description + " " + words } }
    if let k = s.keymap.shownKey(for: action) { return k.description + " " + words }
    return menuRoute(s, .action(action)).map { $0 + " " + words }
}

/// The keys that do `command` through the menu ("/2"): the menu key and the item's digit; nil where the menu has none.
func menuRoute(_ s: AppState, _ command: MenuCommand) -> String? {
    guard case .char(let menuKey)? = s.keymap.shownKey(for: .menu),
          let item = Menu.build(s).items.first(where: { $0.command == command }) else { return nil }
    return "\(menuKey)\(item.key)"
}

/// A footer's "back" part: what Esc does here ("Esc back", "Esc clear", "Esc abort"). A keypad has no Esc: there
/// the way back is its Sale key ("* sale"), an abort the menu's route; on Sale, with nothing to go back to, none.
func backPart(_ s: AppState) -> String? {
    guard s.keymap.isKeypad else { return "\(s.keymap.hint(.cancel)) " + escWord(s) }
    if s.escAborts { return keyPart(s, .cancel, "abort") }
    guard s.screen != .sale else { return nil }
    return keyPart(s, .sale, "sale")
}
