import TillProtocol
import TillModel

func screenTitle(_ s: AppState) -> String {
    switch s.screen {
    // What Enter sends, said loudly where it is not a sale: the next customer's amount typed there is no sale.
    case .sale: return "Sale: Enter charges the card"
    case .preAuth: return "PRE-AUTH: Enter HOLDS money, no sale"
    case .capture: return "CAPTURE: Enter charges a pre-auth"
    case .refund: return "REFUND: Enter gives money BACK"
    case .batch: return "Batch (shift)"
    case .journal:
        if let d = s.journal.detail { return "Journal #\(d.id)" }
        return "Journal: " + (s.journal.allBatches ? "all batches" : "current batch")
    case .unresolved: return "Unresolved transactions"
    case .admin: return "Terminal settings (shop owner)"
    }
}

func tabBar(_ s: AppState, _ buf: inout ScreenBuffer) {
    let w = buf.size.width
    buf.fill(Rect(x: 0, y: 0, width: w, height: 1), role: .tab)
    let wide = w >= 100
    var x = 0
    if wide { x += buf.put(" till ", x: x, y: 0, role: .title, attrs: .bold) }
    // The admin screen has no tab: it is opened behind a confirmation (its key is in the help).
    for screen in Screen.allCases where screen != .admin {
        let label = (wide ? " " : "") + s.keymap.hint(screen.action) + " " + screen.title + (wide ? " " : "")
        let role: Role = screen == s.screen ? .tabActive : .tab
        if x + label.count > w { break }
        x += buf.put(label, x: x, y: 0, role: role, attrs: screen == s.screen ? .bold : [])
        x += 1
    }
    let help = s.keymap.hint(.help) + " Help "
    if s.isTraining {
        // Whatever the width: a demo never passes for money.
        let t = " TRAINING: no money moves "
        let short = " TRAINING "
        let label = x + t.count <= w ? t : short
        if x + label.count <= w { buf.put(label, x: w - label.count, y: 0, role: .statusAlert, attrs: [.bold, .reverse]) }
    } else if wide, x + help.count <= w { buf.put(help, x: w - help.count, y: 0, role: .tab) }
}
