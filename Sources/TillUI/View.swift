import TillProtocol
import TillModel

/// The smallest window the layout works in; anything smaller gets a clear message.
public let minimumSize = Layout.minimum

/// Draws the whole screen from the state. Pure: the same state and size give the same cells.
public func view(_ state: AppState, size: Size) -> ScreenBuffer {
    var buf = ScreenBuffer(size: size)
    render(state, into: &buf)
    return buf
}

/// Draws into an existing buffer (cleared first), so a runtime can reuse one allocation per frame.
public func render(_ state: AppState, into buf: inout ScreenBuffer) {
    let size = buf.size
    for i in buf.cells.indices { buf.cells[i] = .blank }
    let layout = Layout(size, screen: state.screen)
    guard layout.fits else {
        tooSmall(size, keysNotTaken: state.keysNotTaken, into: &buf)
        return
    }
    tabBar(state, &buf)
    let component = state.screen.component
    buf.box(layout.screen, title: component.frameTitle(state), titleRole: component.loudTitle ? .warning : .title)
    component.render(state, layout.screenBody, &buf)
    resultPane(state, layout.result, &buf)
    noticeLine(state, y: layout.noticeRow, &buf)
    statusLine(state, y: layout.statusRow, &buf)
    switch state.overlay {
    case .help?: helpOverlay(state, &buf)
    case .confirm(let c)?: confirmOverlay(c, state, &buf)
    case .report(let p)?: reportOverlay(p, state, &buf)
    case .menu(let m)?: menuOverlay(m, state, &buf)
    case nil: break
    }
}

func tooSmall(_ size: Size, keysNotTaken: Int = 0, into buf: inout ScreenBuffer) {
    // What is typed now is not taken (nothing can be seen to be done): said plainly, and counted.
    var lines = ["Window too small (\(size.width)×\(size.height)).",
                 "Please enlarge the window",
                 "to at least \(minimumSize.width)×\(minimumSize.height).",
                 "Keys are not taken until then",
                 "(F10 quits)."]
    if keysNotTaken > 0 { lines.append("\(keysNotTaken) key\(keysNotTaken == 1 ? "" : "s") not taken.") }
    let top = max(0, (size.height - lines.count) / 2)
    for (i, l) in lines.enumerated() {
        let x = max(0, (size.width - l.displayWidth) / 2)
        buf.put(l, x: x, y: top + i, role: i == 0 ? .warning : .normal, attrs: i == 0 ? .bold : [])
    }
}
