import TillProtocol
import TillModel

func helpOverlay(_ s: AppState, _ buf: inout ScreenBuffer) {
    let actions = KeyAction.allCases.filter { !s.keymap.keys(for: $0).isEmpty }
    let cols = buf.size.width >= 100 ? 2 : (buf.size.height - 6 >= actions.count ? 1 : 2)
    let perCol = (actions.count + cols - 1) / cols
    let keyW = 17, labelW = 19
    let colW = keyW + labelW + 1
    var width = min(buf.size.width - 2, cols * colW + 3)
    // Within a few columns of the screen's width the box takes all of it: the screen's own frames left beside it
    // read as a doubled border ("┌┌", "┘─┐").
    if buf.size.width - width < 4 { width = buf.size.width }
    let height = min(buf.size.height - 2, perCol + 4)
    let r = Rect(x: (buf.size.width - width) / 2, y: (buf.size.height - height) / 2, width: width, height: height)
    buf.fill(r, role: .normal)
    buf.box(r, title: "Keys (\(s.keymap.name) keymap)")
    for (i, a) in actions.enumerated() {
        let col = i / perCol, row = i % perCol
        let x = r.x + 2 + col * colW
        let y = r.y + 1 + row
        guard y < r.maxY - 2 else { continue }
        let keys = s.keymap.keys(for: a).map(\.description).joined(separator: " ")
        buf.put(keys, x: x, y: y, role: .helpKey, attrs: .bold, maxWidth: keyW - 1)
        buf.put(a.label, x: x + keyW, y: y, role: .helpText, maxWidth: labelW)
    }
    buf.put("Typing goes into the highlighted field. Any key closes this.", x: r.x + 2, y: r.maxY - 2, role: .hint, maxWidth: r.width - 4)
}
