import TillProtocol
import TillModel

/// The Batch screen's memory: the running (X) report it shows below the batch, refreshed after every settled request
/// (the batch itself, `AppState.batch`, is the whole till's: the status line and the payment screens use it too).
public struct BatchState: Sendable, Hashable {
    /// The current batch's report as last loaded (the last batch's Z report when none is open).
    public var runningReport: Report?
    public init() {}
}

/// The batch (shift): open one by name, close the active one (or one by name or id), the running report.
enum BatchScreen: ScreenComponent {
    static let screen = Screen.batch
    static let title = "Batch"
    static let key = KeyAction.batch
    static var blankForm: Form {
        Form([
            Field(.batchName, "New batch", .text, placeholder: "e.g. Evening", maxLength: 64),
            Field(.batchId, "Close", .text, placeholder: "active, or name / id", maxLength: 64),
        ])
    }
    static func frameTitle(_ state: AppState) -> String { "Batch (shift)" }
    static let menuPageLine: (key: Character, label: String)? = ("5", "Batch: open / close the shift")
    static func menu(_ s: AppState) -> [(String, MenuCommand)] {
        var own: [(String, MenuCommand)] = []
        let typed = (s.forms[.batch]?[.batchName] ?? "").trimmingWhitespace()
        // One shift at a time: open is offered only while none is (opening would close the active one).
        if let b = s.batch, b.isOpen { own.append(("Close the shift", .action(.closeBatch))) }
        else { own.append(("Open a shift '\(typed.isEmpty ? s.defaultShiftName : typed)'", .openShift)) }
        own.append((s.batch?.isOpen == true ? "X report, full screen" : "Last Z report, full screen", .action(.report)))
        if s.batchScreen.runningReport != nil { own.append(("Export the report (CSV)", .export)) }
        return own
    }
    static let holdsTyping = true
    static func enter(_ state: inout AppState, from: Screen) -> [Command] { [.loadBatch] }
    static func settled(_ state: inout AppState, _ outcome: ActionOutcome) -> [Command] { keepFormUnlessApproved(&state, outcome) }

    static func update(_ state: inout AppState, _ action: KeyAction) -> [Command] {
        if action == .closeBatch { return confirmClose(&state, target: .current) }
        return formAction(&state, action)
    }

    static func submit(_ state: inout AppState) -> [Command] {
        guard var reader = FormReader(&state) else { return [] }
        var form: Form { get { reader.form } set { reader.form = newValue } }
        func opt(_ id: FieldID) -> String? { reader.opt(id) }
        func validate(_ r: Request) -> Bool { reader.validate(r) }
        defer { state.form = reader.form }
        if form.fields[form.focus].id == .batchName {
            guard let name = opt(.batchName) else {
                form.errors[.batchName] = "Type a name for the new batch (e.g. the shift)."
                return []
            }
            guard validate(.batch(BatchRequest(command: .open, batchName: name))) else { return [] }
            state.form = form
            return confirmOpen(&state, name: name)
        }
        state.form = form
        return confirmClose(&state, target: BatchKey(text: opt(.batchId) ?? ""))
    }

    static func render(_ s: AppState, _ r: Rect, _ buf: inout ScreenBuffer) {
        var y = r.y + 1
        let x = r.x + 2
        let vx = x + 14
        let w = r.width - 4
        func row(_ label: String, _ value: String, role: Role = .normal) {
            guard y < r.maxY - 1 else { return }
            buf.put(label, x: x, y: y, role: .label)
            buf.put(value, x: vx, y: y, role: role, maxWidth: r.maxX - vx - 1)
            y += 1
        }
        if let b = s.batch, b.isOpen {
            buf.put("Active batch", x: x, y: y, role: .title, attrs: .bold); y += 1
            // By its name: the batch's id (a UUID) is for the back office, never a cashier's word (it is in the journal).
            row("Name", b.name ?? "(no name)", role: .amount)
            if let o = b.openedAtMs {
                row("Opened", Format.dateTime(o, offsetMinutes: s.tzOffsetMinutes))
                if let a = b.autoCloseAtMs {
                    let left = a - s.nowMs
                    row("Auto-close", left > 0 ? "in \(Format.hoursMinutes(left)) (48 h rule)" : "due now (48 h passed)",
                        role: left < 3_600_000 ? .warning : .normal)
                }
            }
        } else if s.batch == nil {
            buf.put("Asking for the batch…", x: x, y: y, role: .hint); y += 1
        } else {
            buf.put("No batch is open.", x: x, y: y, role: .warning, attrs: .bold); y += 1
            buf.put("Open one to start the shift.", x: x, y: y, role: .hint); y += 1
        }
        y += 1
        let roomy = r.height >= 26
        let form = s.form
        let fieldX = x + 14
        let fieldW = max(8, min(30, r.maxX - fieldX - 2))
        // The fields and what is wrong with them come first: the report above them (F9 shows it whole) gets the rows
        // they leave, so an error under a field is never pushed off the screen.
        let formRows = form.fields.reduce(0) { rows, f in
            rows + 1 + (form.errors[f.id].map { wrap("✗ " + $0, width: r.maxX - fieldX - 1).count } ?? 0) + (roomy ? 2 : 0)
        }
        let reportEnd = r.maxY - 2 - formRows
        if let report = s.batchScreen.runningReport, y < reportEnd - 1 {
            // The blank line after it is the report's: the fields keep their rows.
            runningReport(report, s, x: x, y: &y, maxY: reportEnd - 1, width: w, &buf)
            y += 1
        }
        for (i, f) in form.fields.enumerated() where y < r.maxY - 2 {
            drawField(f, focused: i == form.focus, error: form.errors[f.id], x: x, labelW: 14, fieldX: fieldX, fieldW: fieldW, y: y,
                      currency: s.currency, &buf)
            y += 1
            if let e = form.errors[f.id] {
                for line in wrap("✗ " + e, width: r.maxX - fieldX - 1) where y < r.maxY - 2 { buf.put(line, x: fieldX, y: y, role: .error); y += 1 }
            }
            if roomy {
                let hint = f.id == .batchName ? "Enter opens it; the active one closes" : "Enter closes it, after asking"
                if y < r.maxY - 2 { buf.put(hint, x: x + 2, y: y, role: .hint, maxWidth: w - 2); y += 1 }
                y += 1
            }
        }
        let parts = [keyPart(s, .closeBatch, "close"), keyPart(s, .report, "report"), backPart(s)].compactMap { $0 }
        buf.put(parts.joined(separator: "  "), x: x, y: r.maxY - 1, role: .hint, maxWidth: w)
    }

    /// Asks before opening a batch (shift) with this name; the active one, if any, is closed first.
    static func confirmOpen(_ state: inout AppState, name: String) -> [Command] {
        let r = Request.batch(BatchRequest(command: .open, batchName: name))
        if let e = TerminalRequest(caller: validationCaller, request: r).validationErrors().first {
            state.forms[.batch]?.errors[.batchName] = e.message
            setNotice(&state, e.message, error: true)
            return []
        }
        var lines = ["Open a new batch named '\(name)'."]
        guard let b = state.batch, b.isOpen else {
            state.overlay = .confirm(Confirmation(title: "Open batch?", lines: lines,
                                                  choices: [ConfirmChoice(key: "y", label: "open", action: .send(r))]))
            return []
        }
        // Opening closes the active shift: asked as closing it is (not while a payment is in flight, unknown outcomes
        // said, answered with y).
        if let p = state.pending {
            setFlightNotice(&state, "Wait: \(p.summary) is in flight; open the new batch once it is settled.", error: true)
            return []
        }
        lines.append("The active batch \(b.name.map { "'\($0)'" } ?? "") is closed first (its Z report kept).")
        if !state.unresolved.entries.isEmpty {
            let n = state.unresolved.entries.count
            lines.insert(contentsOf: ["⚠ \(n) transaction\(n == 1 ? " has" : "s have") an UNKNOWN outcome.",
                                      "  The Z report cannot say if that money moved.", "  Check the terminal first (\(state.keymap.hint(.unresolved)) Unresolved).", ""], at: 0)
        }
        state.overlay = .confirm(Confirmation(title: "Open batch?", lines: lines,
                                              choices: [ConfirmChoice(key: "y", label: "close the active one, open '\(name)'", action: .send(r))],
                                              enterPicksFirst: false))
        return []
    }

    /// Asks before closing the batch the cashier typed in Close (read as `till report --batch` reads it, `BatchKey`):
    /// nothing, `current` or `last` is the active batch; a UUID is closed by id, any other text by name.
    static func confirmClose(_ state: inout AppState, target: BatchKey) -> [Command] {
        let r: BatchRequest
        var lines: [String]
        switch target {
        case .current, .last:
            guard let b = state.batch, b.isOpen else {
                state.form.errors[.batchId] = "No batch is open; type the name or id of the batch to close."
                return []
            }
            r = BatchRequest(command: .close)
            lines = ["Close the active batch \(b.name.map { "'\($0)'" } ?? "(no name)")" + (b.openedAtMs.map { ", opened " + Format.dateTime($0, offsetMinutes: state.tzOffsetMinutes) } ?? "") + "."]
        case .id(let target), .idOrName(let target):
            if UUIDText.isValid(target) {
                r = BatchRequest(command: .close, batchId: target)
                lines = ["Close the batch with id", target + "."]
            } else {
                r = BatchRequest(command: .close, batchName: target)
                lines = ["Close the batch named '\(target)'."]
            }
        }
        let errs = TerminalRequest(caller: validationCaller, request: .batch(r)).validationErrors()
        if let e = errs.first { state.form.errors[.batchId] = e.message; return [] }
        // With an unknown outcome the shift's payments are not all settled: that one stays on Unresolved.
        lines.append((state.unresolved.entries.isEmpty ? "Its payments are settled" : "Its other payments are settled") + "; new payments go to")
        lines.append("the next batch you open.")
        if let p = state.pending {
            state.overlay = nil
            setFlightNotice(&state, "Wait: \(p.summary) is in flight; close the batch once it is settled.", error: true)
            return []
        }
        if !state.unresolved.entries.isEmpty {
            let n = state.unresolved.entries.count
            lines.insert("⚠ \(n) transaction\(n == 1 ? " has" : "s have") an UNKNOWN outcome.", at: 0)
            lines.insert("  The Z report cannot say if that money moved.", at: 1)
            lines.insert("  Check the terminal first (\(state.keymap.hint(.unresolved)) Unresolved).", at: 2)
            lines.insert("", at: 3)
            state.overlay = .confirm(Confirmation(title: "Close batch with unknown outcomes?", lines: lines,
                                                  choices: [ConfirmChoice(key: "y", label: "close anyway", action: .send(.batch(r))),
                                                            ConfirmChoice(key: "u", label: "go to Unresolved", action: .goTo(.unresolved))]))
            return []
        }
        // Never Enter alone: Ctrl-k works from every screen, and the Enter meant for the sale typed there must not end the
        // shift in the middle of service.
        state.overlay = .confirm(Confirmation(title: "Close batch?", lines: lines.filter { !$0.isEmpty },
                                              choices: [ConfirmChoice(key: "y", label: "close it", action: .send(.batch(r)))],
                                              enterPicksFirst: false))
        return []
    }
}
