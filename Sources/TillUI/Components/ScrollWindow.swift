/// A list taller than its room: which of its lines are shown, and a "more above" / "more below" mark
/// on the line before and after them, so nobody takes the part in sight for the whole. Update (paging,
/// clamping a scroll) and render ask the same window, so a page moves exactly what one screenful shows.
struct ScrollWindow: Sendable, Hashable {
    /// The first line shown.
    let first: Int
    /// How many lines are shown.
    let shown: Int
    /// Whether the list does not fit (and marks say so).
    let scrolls: Bool
    let total: Int

    var moreAbove: Bool { first > 0 }
    var moreBelow: Bool { first + shown < total }
    var range: Range<Int> { first..<(first + shown) }

    static let above = "▲ more above"
    static let below = "▼ more below"

    /// `total` lines in `room` rows, shown from `first` (clamped so the last page is full). A mark takes
    /// a row only where there is something to mark: none on the first page's top, none on the last's foot.
    init(total: Int, room: Int, first wanted: Int) {
        self.total = max(0, total)
        let room = max(2, room)
        guard total > room else { first = 0; shown = max(0, total); scrolls = false; return }
        scrolls = true
        let lastFirst = total - (room - 1)
        if wanted <= 0 { first = 0; shown = room - 1 }
        else if wanted >= lastFirst { first = lastFirst; shown = room - 1 }
        else { first = wanted; shown = max(1, room - 2) }
    }

    /// `total` lines in `room` rows, scrolled just enough that line `keep` (a cursor) is in sight.
    init(total: Int, room: Int, keeping keep: Int) {
        self.init(total: total, room: room, first: keep < room - 1 ? 0 : keep - room + 3)
    }

    /// The row the shown line `line` is drawn on, the list starting at row `top`.
    func row(of line: Int, top: Int) -> Int { top + (moreAbove ? 1 : 0) + line - first }

    /// Draws the marks for a list starting at row `top`: "▲ more above" on its first row, "▼ more below"
    /// after the last line shown.
    func drawMarks(x: Int, top: Int, width: Int, _ buf: inout ScreenBuffer) {
        guard scrolls else { return }
        if moreAbove { buf.put(ScrollWindow.above, x: x, y: top, role: .hint, maxWidth: width) }
        if moreBelow { buf.put(ScrollWindow.below, x: x, y: top + (moreAbove ? 1 : 0) + shown, role: .hint, maxWidth: width) }
    }
}
