/// Every rectangle of the screen and every page size, from the window size alone. `render` draws
/// into these rectangles and `update` pages by these sizes, so a page down moves exactly what one
/// screenful shows.
public struct Layout: Sendable, Hashable {
    public let size: Size
    /// The screen shown, where the split between it and the result pane depends on it (the journal); nil: any other.
    public let shown: Screen?

    public init(_ size: Size, screen: Screen? = nil) { self.size = size; self.shown = screen }

    /// The smallest window the layout works in (the README says the same); anything smaller gets a clear message.
    public static let minimum = Size(width: 80, height: 24)
    public var fits: Bool { size.width >= Layout.minimum.width && size.height >= Layout.minimum.height }

    /// The tab bar: the top row.
    public var tabBar: Rect { Rect(x: 0, y: 0, width: size.width, height: 1) }
    /// The result pane's width: wider on wider windows, so the verdict can be read across the counter. From 100
    /// columns 46 (the mark beside the word: `✓ APPROVED`); from 120, 66: the word in the large letters (`DECLINED`,
    /// the widest common verdict, takes 64) with the form's 52 columns beside it; from 160 nine twentieths (90 of 200).
    /// The journal, whose rows are the facts, keeps the 80 columns' pane up to 160 columns: its rows take the room
    /// (the card beside the STAN and the refund link at 120).
    var resultWidth: Int {
        if size.width >= 160 { return size.width * 9 / 20 }
        if shown == .journal || size.width < 100 { return 34 }
        return size.width >= 120 ? 66 : 46
    }
    /// The screen's frame (left), under the tab bar, above the notice and status lines.
    public var screen: Rect { Rect(x: 0, y: 1, width: size.width - resultWidth, height: size.height - 3) }
    /// Inside the screen's frame: where a screen component draws.
    public var screenBody: Rect { screen.inset(1) }
    /// The result pane's frame (right).
    public var result: Rect { Rect(x: size.width - resultWidth, y: 1, width: resultWidth, height: size.height - 3) }
    /// The notice line and the status line (the last two rows).
    public var noticeRow: Int { size.height - 2 }
    public var statusRow: Int { size.height - 1 }
    /// A full-screen overlay (report): between the tab bar and the status line.
    public var overlay: Rect { Rect(x: 0, y: 1, width: size.width, height: size.height - 2) }

    /// Journal rows shown at once (the filter and the header take two rows, the footer one).
    public var journalRows: Int { max(1, screenBody.height - 3) }
    /// Journal detail rows shown at once (the footer takes one).
    public var detailRows: Int { max(1, screenBody.height - 1) }
    /// Report lines shown at once (frame, footer and export line take four).
    public var reportPage: Int { max(1, overlay.height - 4) }
}
