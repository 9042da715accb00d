import TillProtocol
import TillModel

/// What a line of the function menu does.
public enum MenuCommand: Sendable, Hashable {
    /// As if the action's key was pressed here (a tip preset, refund from this journal row, the report …).
    case action(KeyAction)
    /// To a screen, as it is (from the journal too: Refund there is the empty form, not this row's refund).
    case go(Screen)
    /// Batch: open a shift with the name typed, else the one-key default name (`AppState.defaultShiftName`); asks first.
    case openShift
    /// Export the report: the one under the menu, or the Batch screen's.
    case export
    /// Unresolved: ask the terminal again.
    case askAgain
    /// Close the report under the menu.
    case closeReport
    /// The page of screens, the report and help, each on the same digit everywhere (`Menu.screensPage`).
    case screens
}

/// One numbered line of the menu.
public struct MenuItem: Sendable, Hashable {
    /// The digit that picks it: 1…9, then 0.
    public var key: Character
    public var label: String
    public var command: MenuCommand
    public init(key: Character, label: String, command: MenuCommand) { self.key = key; self.label = label; self.command = command }
}

/// The numbered function menu: everything a cashier may do here on a single digit, so a shift runs on a
/// numeric keypad alone. The current screen's own functions come first, then the other screens. A digit picks; the
/// menu key again, `-`, Backspace or Esc close it; every other key is ignored: no key pressed while it is open
/// reaches a field.
public struct Menu: Sendable, Hashable {
    public var title: String
    public var items: [MenuItem]
    /// A report shown full screen under the menu: it is back when the menu closes without leaving it.
    public var report: ReportPanel?
    public init(title: String, items: [MenuItem], report: ReportPanel? = nil) { self.title = title; self.items = items; self.report = report }

    /// At most ten lines: one per digit.
    static let digits: [Character] = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0"]

    /// The screens page, the same on every screen: each screen on its F-key's number less one (F2 Sale is 1 … F8
    /// Unresolved is 7), then the report and help. A keypad cashier learns one number per screen; they never move.
    /// Each screen says its line (`ScreenComponent.menuPageLine`).
    static let screens: [(Character, Screen, String)] = Screen.allCases.compactMap { screen in
        screen.component.menuPageLine.map { ($0.key, screen, $0.label) }
    }

    /// The menu for the state as it is now (over the report shown full screen, if one is): this screen's functions
    /// on 1, 2 …, and on 0 always the page of screens.
    static func build(_ s: AppState) -> Menu {
        var own: [(String, MenuCommand)] = []
        var report: ReportPanel?
        if case .report(let p)? = s.overlay {
            report = p
            own = [("Export the report (CSV)", .export), ("Close the report", .closeReport)]
        } else {
            own = s.screen.component.menu(s)
        }
        // A payment with the terminal: abort it (where Esc would) or stop waiting (asks), before anything else.
        var waiting: [(String, MenuCommand)] = []
        if let p = s.pending, report == nil {
            if s.escAborts && !p.abortRequested { waiting.append(("Abort the payment", .action(.cancel))) }
            waiting.append(("Stop waiting (asks first)", .action(.stopWaiting)))
        }
        var items = zip(digits.prefix(9), waiting + own).map { MenuItem(key: $0, label: $1.0, command: $1.1) }
        items.append(MenuItem(key: "0", label: "Screens, report, help…", command: .screens))
        let title = report.map { _ in "Menu: report" } ?? "Menu: " + s.screen.title
        return Menu(title: title, items: items, report: report)
    }

    /// The page of screens: the same digits on every screen (the one shown now marked "here"), then the report and help.
    static func screensPage(_ s: AppState, report: ReportPanel?) -> Menu {
        var items = screens.map { key, screen, label in
            MenuItem(key: key, label: label + (screen == s.screen && report == nil ? " (here)" : ""), command: .go(screen))
        }
        items.append(MenuItem(key: "8", label: "Shift report (X/Z)", command: .action(.report)))
        items.append(MenuItem(key: "9", label: "Help: all keys", command: .action(.help)))
        return Menu(title: "Menu: screens", items: items, report: report)
    }
}

/// Opens the menu over what is shown.
func openMenu(_ state: inout AppState) -> [Command] {
    state.overlay = .menu(Menu.build(state))
    return []
}

/// A key while the menu is open. Nothing here types into a field.
func handleMenuKey(_ state: inout AppState, _ menu: Menu, _ key: Key) -> [Command] {
    let action = state.keymap.action(for: key)
    if case .char(let c) = key, let item = menu.items.first(where: { $0.key == c }) {
        state.overlay = menu.report.map(Overlay.report)
        return runMenuCommand(&state, item.command, menu)
    }
    if action == .menu || action == .cancel || action == .erase || key == .esc || key == .backspace || key == .char("-") {
        state.overlay = menu.report.map(Overlay.report)
        return []
    }
    let last = menu.items.last.map { String($0.key) } ?? "1"
    setNotice(&state, "Press a number (1–\(last)) to choose, or \(state.keymap.hint(.menu)) to close the menu.")
    return []
}

func runMenuCommand(_ state: inout AppState, _ command: MenuCommand, _ menu: Menu) -> [Command] {
    switch command {
    case .action(let a):
        if a.isGlobal {
            if menu.report != nil { state.overlay = nil }
            return globalAction(&state, a)
        }
        return screenAction(&state, a, key: .enter)
    case .go(let screen):
        if menu.report != nil { state.overlay = nil }
        return go(&state, screen)
    case .openShift:
        let typed = (state.forms[.batch]?[.batchName] ?? "").trimmingWhitespace()
        return BatchScreen.confirmOpen(&state, name: typed.isEmpty ? state.defaultShiftName : typed)
    case .export:
        guard let r = menu.report?.report ?? state.batchScreen.runningReport else {
            setNotice(&state, "No report to export yet.", error: true)
            return []
        }
        setNotice(&state, "Exporting…")
        return [.exportReport(batch: ReportPanel(report: r).batchKey, format: state.reportFormat)]
    case .askAgain:
        return UnresolvedScreen.askAgain(&state)
    case .closeReport:
        state.overlay = nil
        return []
    case .screens:
        state.overlay = .menu(Menu.screensPage(state, report: menu.report))
        return []
    }
}

/// The menu, centred: a digit, the function, and its own key in this keymap where it has one.
func menuOverlay(_ m: Menu, _ s: AppState, _ buf: inout ScreenBuffer) {
    if let p = m.report { reportOverlay(p, s, &buf) }
    let keyW = 10
    let labelW = max(24, m.items.map(\.label.displayWidth).max() ?? 24)
    let width = min(buf.size.width - 4, 4 + 4 + labelW + 2 + keyW + 2)
    let height = min(buf.size.height - 2, m.items.count + 4)
    let r = Rect(x: (buf.size.width - width) / 2, y: max(1, (buf.size.height - height) / 2), width: width, height: height)
    buf.fill(r, role: .normal)
    buf.box(r, title: m.title, role: .title, titleRole: .title)
    var y = r.y + 1
    for item in m.items where y < r.maxY - 2 {
        buf.put(String(item.key), x: r.x + 3, y: y, role: .helpKey, attrs: .bold)
        buf.put(item.label, x: r.x + 6, y: y, role: .helpText, maxWidth: labelW)
        // The function's own key in this keymap, where it does the same thing here (F5 on the journal refunds the row).
        var own: Key?
        // A keypad cashier is shown only the keys a keypad has (`*` for Sale), never an F-key or Alt-letter.
        if case .action(let a) = item.command { own = s.keymap.shownKey(for: a) }
        if case .go(let screen) = item.command, !(s.screen == .journal && (screen == .refund || screen == .capture)) {
            own = s.keymap.shownKey(for: screen.action)
        }
        if let own { buf.put(own.description, x: r.maxX - 2 - keyW, y: y, role: .hint, maxWidth: keyW) }
        y += 1
    }
    let close = s.keymap.keys(for: .menu).first.map { $0.description + " " } ?? ""
    // A keypad cashier has no Esc: only the keys a keypad has are named.
    let closers = s.keymap.isKeypad ? "\(close.isEmpty ? "" : close.trimmingWhitespace() + " or ")- closes."
        : "\(close.isEmpty ? "" : close.trimmingWhitespace() + ", ")- or Esc closes."
    buf.put("A number chooses; " + closers, x: r.x + 3, y: r.maxY - 2,
            role: .hint, maxWidth: r.width - 6)
}
