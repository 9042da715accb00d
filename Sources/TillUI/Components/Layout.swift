/// Every rectangle of the screen and every page size, from the window size alone. `render` draws
/// into these rectangles and `update` pages by these sizes, so a page down moves exactly what one
/// screenful shows.
public struct Layout: Sendable, Hashable {
    public let size: Size

    public init(_ size: Size) { self.size = size }

    /// The smallest window the layout works in (the README says the same); anything smaller gets a clear message.
    public static let minimum = Size(width: 80, height: 24)
    public var fits: Bool { size.width >= Layout.minimum.width && size.height >= Layout.minimum.height }

    /// The tab bar: the top row.
    public var tabBar: Rect { Rect(x: 0, y: 0, width: size.width, height: 1) }
    /// The result pane's width: wider on wider windows; from 160 columns nine twentieths (90 of 200), so the verdict
    /// can be read across the counter there.
    var resultWidth: Int { size.width >= 160 ? size.width * 9 / 20 : (size.width >= 120 ? 46 : (size.width >= 100 ? 40 : 34)) }
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
