import TillProtocol
import TillModel

func tabBar(_ s: AppState, _ buf: inout ScreenBuffer) {
    let w = buf.size.width
    buf.fill(Rect(x: 0, y: 0, width: w, height: 1), role: .tab)
    // Training mode is on the bar wherever it fits beside every tab (from 100 columns, whatever the keymap): the tabs
    // give up their padding and the "till" title before it goes (at 80 columns the status line says it alone).
    let short = " TRAINING "
    let screens = Screen.allCases.filter { $0.component.hasTab }
    func labels(_ padded: Bool) -> [String] {
        screens.map { (padded ? " " : "") + tabKey(s, .go($0), $0.action) + " " + $0.title + (padded ? " " : "") }
    }
    func width(_ padded: Bool) -> Int { (padded ? 6 : 0) + labels(padded).reduce(0) { $0 + $1.displayWidth + 1 } }
    let reserve = s.isTraining ? short.count : 0
    var wide = w >= 100
    if wide, width(true) + reserve > w, width(false) + reserve <= w { wide = false }
    var x = 0
    if wide { x += buf.put(" till ", x: x, y: 0, role: .title, attrs: .bold) }
    for (screen, label) in zip(screens, labels(wide)) {
        let role: Role = screen == s.screen ? .tabActive : .tab
        if x + label.count > w { break }
        x += buf.put(label, x: x, y: 0, role: role, attrs: screen == s.screen ? .bold : [])
        x += 1
    }
    let help = tabKey(s, .action(.help), .help) + " Help "
    if s.isTraining {
        // Whatever the width: a demo never passes for money.
        let t = " TRAINING: no money moves "
        let label = x + t.count <= w ? t : short
        if x + label.count <= w { buf.put(label, x: w - label.count, y: 0, role: .statusAlert, attrs: [.bold, .reverse]) }
    } else if w >= 100, x + help.count <= w { buf.put(help, x: w - help.count, y: 0, role: .tab) }
}

/// How the tab bar names the key to `command`: the action's key; for a keypad cashier (no F-keys) the keypad key the
/// keymap binds to it (`*` Sale), else its route through the menu's page of screens ("/06": the menu, 0, its digit),
/// read from the menus themselves so the bar and the menu cannot disagree.
func tabKey(_ s: AppState, _ command: MenuCommand, _ action: KeyAction) -> String {
    guard s.keymap.isKeypad else { return s.keymap.hint(action) }
    if let k = s.keymap.shownKey(for: action) { return k.description }
    guard let screens = menuRoute(s, .screens),
          let item = Menu.screensPage(s, report: nil).items.first(where: { $0.command == command }) else { return "" }
    return screens + String(item.key)
}
