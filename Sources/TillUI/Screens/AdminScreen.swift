import TillProtocol
import TillModel

/// The admin screen's memory: what the terminal last said, and what is being changed.
public struct AdminState: Sendable, Hashable {
    /// The row with the cursor (`AdminScreen.rows`).
    public var row = 0
    /// The printing settings as the terminal last reported them (nil until asked).
    public var terminalPrinting: PrintingSettings?
    /// The printing settings as shown, and as Save sends them.
    public var printing = PrintingSettings()
    /// The code the terminal last gave (`getActivationCode`).
    public var activationCode: String?
    /// The activation flags to send (absent: not sent).
    public var flags: [String: Bool] = [:]
    public init() {}

    /// A printing switch as shown, on ↔ off (unknown: on).
    mutating func toggle(switch i: Int) {
        let path = PrintingSettings.switches[i].path
        printing[keyPath: path] = !(printing[keyPath: path] ?? false)
    }

    /// The name on the receipt: the next kind.
    mutating func nextDescriptionType() {
        let all = BusinessDescriptionType.allCases
        let now = printing.businessDescriptionType
        printing.businessDescriptionType = now.map { all[((all.firstIndex(of: $0) ?? 0) + 1) % all.count] } ?? all[0]
    }

    /// An activation flag: not sent → on → off → not sent.
    mutating func cycle(flag name: String) {
        switch flags[name] {
        case nil: flags[name] = true
        case true?: flags[name] = false
        case false?: flags[name] = nil
        }
    }
}

/// One row of the admin screen.
enum AdminRow: Hashable {
    case getPrinting, printingSwitch(Int), descriptionType, setPrinting, sendLogs, getCode, field(FieldID), flag(String), activate
}

/// The terminal's settings, for the shop owner (behind a confirmation): printing settings (get, toggle,
/// save), logs to the vendor's support, activation code and activation. One row per thing; ↑/↓ choose,
/// Enter (or Space) does or toggles; typed text goes into the activation fields. The API key, the
/// secret and the PIN are drawn as •, and cleared once sent.
enum AdminScreen: ScreenComponent {
    static let switchLabels = ["Customer receipt", "Merchant receipt", "Print receipts", "Logo (merchant)", "VAT (merchant)",
                               "Barcode", "Address", "Business descr."]

    static let screen = Screen.admin
    static let title = "Terminal settings"
    static let key = KeyAction.admin
    static func frameTitle(_ state: AppState) -> String { "Terminal settings (shop owner)" }
    /// Opened behind a confirmation, for the shop owner: no tab (its key is in the help).
    static let hasTab = false
    static func enter(_ state: inout AppState, from: Screen) -> [Command] {
        syncFocus(&state)
        return []
    }

    static var blankForm: Form {
        var f = Form([
            Field(.activationCode, "Activation code", .text, placeholder: "from Get code", maxLength: 32),
            Field(.sourceID, "Source id", .text, placeholder: "optional", maxLength: 64),
            Field(.pinCode, "PIN", .digits, placeholder: "4-8 digits", maxLength: 8, secret: true),
            Field(.apikey, "API key", .text, placeholder: "or the code", maxLength: 256, secret: true),
            Field(.apiSecret, "API secret", .text, placeholder: "with the key", maxLength: 256, secret: true),
        ])
        f.focus = -1
        return f
    }

    static var rows: [AdminRow] {
        [.getPrinting] + PrintingSettings.switches.indices.map { AdminRow.printingSwitch($0) } + [.descriptionType, .setPrinting, .sendLogs, .getCode]
            + ([.activationCode, .sourceID, .pinCode, .apikey, .apiSecret] as [FieldID]).map { AdminRow.field($0) }
            + ActivationRequest.flagNames.map { AdminRow.flag($0) } + [.activate]
    }

    /// The form's focus follows the cursor: on a field row typing goes there, elsewhere nowhere.
    static func syncFocus(_ state: inout AppState) {
        let rows = rows
        state.admin.row = max(0, min(state.admin.row, rows.count - 1))
        if case .field(let id) = rows[state.admin.row] { state.form.focus = state.form.index(of: id) ?? -1 } else { state.form.focus = -1 }
    }

    static func update(_ state: inout AppState, _ action: KeyAction) -> [Command] {
        let n = rows.count
        switch action {
        case .next, .down: state.admin.row = (state.admin.row + 1) % n
        case .previous, .up: state.admin.row = (state.admin.row + n - 1) % n
        case .pageDown: state.admin.row = min(n - 1, state.admin.row + Layout(state.size).journalRows)
        case .pageUp: state.admin.row = max(0, state.admin.row - Layout(state.size).journalRows)
        default: return []
        }
        syncFocus(&state)
        return []
    }

    /// The shop owner types secrets that may hold the menu key.
    static let menuKeyIsTyped = true

    /// A character on a row that is not a field: Space toggles (as Enter does).
    static func char(_ state: inout AppState, _ ch: Character) -> [Command]? {
        guard ch == " ", state.form.focused == nil else { return nil }
        switch rows[state.admin.row] {
        case .printingSwitch, .descriptionType, .flag: return submit(&state)
        default: return nil
        }
    }

    static func submit(_ state: inout AppState) -> [Command] {
        syncFocus(&state)
        switch rows[state.admin.row] {
        case .getPrinting: return send(&state, .getPrintingSettings)
        case .printingSwitch(let i):
            state.admin.toggle(switch: i)
            return []
        case .descriptionType:
            state.admin.nextDescriptionType()
            return []
        case .setPrinting:
            let r = Request.setPrintingSettings(state.admin.printing)
            if let e = TerminalRequest(caller: validationCaller, request: r).validationErrors().first {
                setNotice(&state, "Not sent: " + e.message, error: true); return []
            }
            return send(&state, r)
        case .sendLogs: return send(&state, .sendLogs)
        case .getCode: return send(&state, .getActivationCode)
        case .field:
            state.admin.row += 1
            syncFocus(&state)
            return []
        case .flag(let name):
            state.admin.cycle(flag: name)
            return []
        case .activate:
            return activate(&state)
        }
    }

    static func activate(_ state: inout AppState) -> [Command] {
        guard var reader = FormReader(&state) else { return [] }
        let r = RequestDraft.activation(activationCode: reader.opt(.activationCode), apiKey: reader.opt(.apikey),
                                        apiSecret: reader.opt(.apiSecret), sourceId: reader.opt(.sourceID), pinCode: reader.opt(.pinCode),
                                        flags: state.admin.flags).request
        let ok = reader.validate(r)
        state.form = reader.form
        guard ok else {
            let first = state.form.fields.first { state.form.errors[$0.id] != nil }
            if let first, let i = rows.firstIndex(of: .field(first.id)) { state.admin.row = i }
            syncFocus(&state)
            setNotice(&state, "Not sent: " + (first.flatMap { state.form.errors[$0.id] } ?? state.form.message ?? "check the fields."), error: true)
            return []
        }
        let cmds = send(&state, r)
        if !cmds.isEmpty {
            // The secrets leave the screen's memory once handed over.
            for id: FieldID in [.pinCode, .apikey, .apiSecret] { state.form[id] = "" }
        }
        return cmds
    }

    static func answered(_ state: inout AppState, _ e: JournalEntry) {
        guard e.state == .approved, let resp = e.response else { return }
        switch e.action {
        case .getPrintingSettings, .setPrintingSettings:
            var p = PrintingSettings()
            for (name, path) in PrintingSettings.switches {
                switch resp[name]?.lowercased() {
                case "true"?: p[keyPath: path] = true
                case "false"?: p[keyPath: path] = false
                default: break
                }
            }
            p.businessDescriptionType = resp[PrintingSettings.typeField].flatMap(BusinessDescriptionType.init(rawValue:))
            state.admin.terminalPrinting = p
            state.admin.printing = p
        case .getActivationCode:
            if let code = resp["activationCode"], !code.isEmpty {
                state.admin.activationCode = code
                state.forms[.admin]?[.activationCode] = code
            }
        case .sale, .preAuth, .cancel, .abort, .batch, .capturePreAuth, .transactionDetails, .reprintTransaction, .sendLogs,
             .activatePos:
            break   // nothing of the terminal's settings to show
        }
    }

    static func onOff(_ v: Bool?) -> String { v.map { $0 ? "on" : "off" } ?? "?" }

    static func render(_ s: AppState, _ r: Rect, _ buf: inout ScreenBuffer) {
        let rows = rows
        let x = r.x + 1
        let w = r.width - 2
        let labelW = 18
        let vx = x + 2 + labelW
        // The list does not fit at 80×24: "more above / more below" marks say there is more than in sight.
        let window = ScrollWindow(total: rows.count, room: max(1, r.height - 1), keeping: s.admin.row)
        window.drawMarks(x: x + 2, top: r.y, width: w - 2, &buf)
        for (i, row) in rows.enumerated() where window.range.contains(i) {
            let y = window.row(of: i, top: r.y)
            let sel = i == s.admin.row
            let mark = sel ? "▸ " : "  "
            var label = "", value = "", valueRole = Role.normal
            switch row {
            case .getPrinting: label = "Get the printing settings"
            case .printingSwitch(let k):
                label = switchLabels[k]
                let v = s.admin.printing[keyPath: PrintingSettings.switches[k].path]
                value = onOff(v)
                if let t = s.admin.terminalPrinting, t[keyPath: PrintingSettings.switches[k].path] != v { value += " (changed)"; valueRole = .warning }
            case .descriptionType:
                label = "Name on receipt"
                value = s.admin.printing.businessDescriptionType?.rawValue ?? "?"
            case .setPrinting: label = "Save the printing settings"
            case .sendLogs: label = "Send logs to support"
            case .getCode:
                // The code the terminal gives lands in the Activation code field below.
                label = "Get an activation code"
            case .field(let id):
                if let f = s.form.fields.first(where: { $0.id == id }) {
                    buf.put(mark, x: x, y: y, role: .helpKey)
                    drawField(f, focused: sel, error: s.form.errors[id], x: x + 2, labelW: labelW, fieldX: vx, fieldW: min(24, r.maxX - vx - 1),
                              y: y, currency: s.currency, &buf)
                }
                continue
            case .flag(let name):
                label = name
                value = s.admin.flags[name].map { $0 ? "on" : "off" } ?? "not sent"
                if s.admin.flags[name] == nil { valueRole = .dim }
            case .activate: label = "Activate the terminal"
            }
            let button = value.isEmpty && { if case .field = row { return false }; return true }()
            buf.put(mark, x: x, y: y, role: .helpKey)
            buf.put(label, x: x + 2, y: y, role: sel ? .selection : (button ? .helpKey : .label), attrs: sel ? .bold : [],
                    maxWidth: button ? w - 2 : labelW)
            if !value.isEmpty { buf.put(value, x: vx, y: y, role: valueRole, maxWidth: r.maxX - vx - 1) }
        }
        let hint = "\(s.keymap.hint(.up))/\(s.keymap.hint(.down)) choose  \(s.keymap.hint(.submit)) do/toggle  \(s.keymap.hint(.cancel)) " + escWord(s)
        buf.put(hint, x: x, y: r.maxY - 1, role: .hint, maxWidth: w)
    }
}
