/// Block letters for the verdict, readable across the counter.
///
/// One pixel font, 3 pixels wide for most glyphs (5 for `M`, `W`, `✓`, `✗`; 4 for `N`, `€`; 1 for
/// `.`, `,`, `:`, `!`), 5 pixels high plus a descender row used only by `,`. It is drawn in two sizes:
/// - `.small`: 3 rows tall. Two pixel rows per cell with `█ ▀ ▄`, one column per pixel, so a pixel is
///   about square in a terminal cell (about twice as tall as wide). `APPROVED` is 31 columns wide and
///   fits the result pane at 80×24 (32 columns inside its frame).
/// - `.large`: 6 rows tall. One pixel row per cell, two columns per pixel (`██`): the same shapes twice
///   the size, for a wide pane.
///
/// Glyphs are separated by one blank pixel column; a space is two pixel columns (four with its gaps).
/// Lower-case letters are drawn as capitals. Only the characters in `supported` are drawn: any other
/// character makes `lines` return nil, so the caller falls back to plain text rather than draw a glyph
/// that could be misread (a `?` box in a verdict would read as "unknown").
///
/// Every line returned has the same width (`width(_:size:)`), in single-width characters only (block
/// elements and spaces), so a caller can centre the block by its first line's `count`.
public enum BigText {
    public enum Size: Sendable, Hashable, CaseIterable {
        /// 3 rows tall, one column per pixel.
        case small
        /// 6 rows tall, two columns per pixel.
        case large
    }

    /// Rows a block of text takes.
    public static func height(_ size: Size = .small) -> Int {
        switch size {
        case .small: return (pixelRows + 1) / 2
        case .large: return pixelRows
        }
    }

    /// Columns `text` takes, or nil when a character has no glyph (or the text is empty).
    public static func width(_ text: String, size: Size = .small) -> Int? {
        guard let glyphs = glyphs(text) else { return nil }
        let pixels = glyphs.reduce(0) { $0 + $1.width } + glyphs.count - 1
        return size == .small ? pixels : pixels * 2
    }

    /// The rows of `text` in block letters, `height(size)` of them, each exactly `width(text, size:)`
    /// columns; nil when the text is empty, has a character without a glyph, or is wider than `maxWidth`.
    public static func lines(_ text: String, maxWidth: Int, size: Size = .small) -> [String]? {
        guard let glyphs = glyphs(text), let w = width(text, size: size), w <= maxWidth else { return nil }
        // The pixel rows of the whole text, glyphs side by side with one blank column between them.
        var pixels = [[Bool]](repeating: [], count: pixelRows)
        for (i, g) in glyphs.enumerated() {
            for r in 0..<pixelRows {
                if i > 0 { pixels[r].append(false) }
                pixels[r].append(contentsOf: g.rows[r])
            }
        }
        switch size {
        case .small:
            return stride(from: 0, to: pixelRows, by: 2).map { r in
                String(pixels[r].indices.map { c -> Character in
                    let top = pixels[r][c], bottom = r + 1 < pixelRows && pixels[r + 1][c]
                    return top ? (bottom ? "█" : "▀") : (bottom ? "▄" : " ")
                })
            }
        case .large:
            return pixels.map { row in String(row.flatMap { $0 ? ["█", "█"] : [" ", " "] as [Character] }) }
        }
    }

    /// The first candidate that fits `maxWidth` × `maxHeight`, each tried large, then small: the order of
    /// the candidates wins over the size (a word beats a bare mark twice as big).
    /// Candidates are best first (e.g. `["✓ APPROVED", "APPROVED", "✓"]`); nil when none fits.
    public static func fit(_ candidates: [String], maxWidth: Int, maxHeight: Int) -> (text: String, size: Size, lines: [String])? {
        for c in candidates {
            for size in [Size.large, .small] where height(size) <= maxHeight {
                if let l = lines(c, maxWidth: maxWidth, size: size) { return (c, size, l) }
            }
        }
        return nil
    }

    /// Whether `c` has a glyph (lower-case letters count: they are drawn as capitals).
    public static func supports(_ c: Character) -> Bool { glyph(c) != nil }

    /// Every character with a glyph of its own.
    public static var supported: [Character] { font.keys.sorted() }

    // MARK: - The font

    struct Glyph: Sendable {
        var rows: [[Bool]]
        var width: Int { rows[0].count }
    }

    /// Pixel rows of every glyph: 5 rows of the letter, then the descender row.
    static let pixelRows = 6

    static func glyph(_ c: Character) -> Glyph? {
        if let g = font[c] { return g }
        let upper = Character(String(c).uppercased())
        return upper == c ? nil : font[upper]
    }

    static func glyphs(_ text: String) -> [Glyph]? {
        var out: [Glyph] = []
        for c in text {
            guard let g = glyph(c) else { return nil }
            out.append(g)
        }
        return out.isEmpty ? nil : out
    }

    /// `#` is a pixel; rows given are the top 5, the descender row is blank unless a sixth is given.
    static let font: [Character: Glyph] = {
        let source: [(Character, [String])] = [
            ("A", [".#.", "#.#", "###", "#.#", "#.#"]),
            ("B", ["##.", "#.#", "##.", "#.#", "##."]),
            ("C", [".##", "#..", "#..", "#..", ".##"]),
            ("D", ["##.", "#.#", "#.#", "#.#", "##."]),
            ("E", ["###", "#..", "##.", "#..", "###"]),
            ("F", ["###", "#..", "##.", "#..", "#.."]),
            ("G", [".##", "#..", "#.#", "#.#", ".##"]),
            ("H", ["#.#", "#.#", "###", "#.#", "#.#"]),
            ("I", ["###", ".#.", ".#.", ".#.", "###"]),
            ("J", ["..#", "..#", "..#", "#.#", ".#."]),
            ("K", ["#.#", "#.#", "##.", "#.#", "#.#"]),
            ("L", ["#..", "#..", "#..", "#..", "###"]),
            ("M", ["#...#", "##.##", "#.#.#", "#...#", "#...#"]),
            ("N", ["#..#", "##.#", "#.##", "#..#", "#..#"]),
            ("O", ["###", "#.#", "#.#", "#.#", "###"]),
            ("P", ["##.", "#.#", "##.", "#..", "#.."]),
            ("Q", [".#.", "#.#", "#.#", "##.", ".##"]),
            ("R", ["##.", "#.#", "##.", "#.#", "#.#"]),
            ("S", [".##", "#..", ".#.", "..#", "##."]),
            ("T", ["###", ".#.", ".#.", ".#.", ".#."]),
            ("U", ["#.#", "#.#", "#.#", "#.#", "###"]),
            ("V", ["#.#", "#.#", "#.#", "#.#", ".#."]),
            ("W", ["#...#", "#...#", "#.#.#", "##.##", "#...#"]),
            ("X", ["#.#", "#.#", ".#.", "#.#", "#.#"]),
            ("Y", ["#.#", "#.#", ".#.", ".#.", ".#."]),
            ("Z", ["###", "..#", ".#.", "#..", "###"]),
            ("0", [".#.", "#.#", "#.#", "#.#", ".#."]),
            ("1", [".#.", "##.", ".#.", ".#.", "###"]),
            ("2", ["##.", "..#", ".#.", "#..", "###"]),
            ("3", ["##.", "..#", ".#.", "..#", "##."]),
            ("4", ["#.#", "#.#", "###", "..#", "..#"]),
            ("5", ["###", "#..", "##.", "..#", "##."]),
            ("6", [".##", "#..", "###", "#.#", "###"]),
            ("7", ["###", "..#", ".#.", ".#.", ".#."]),
            ("8", ["###", "#.#", "###", "#.#", "###"]),
            ("9", ["###", "#.#", "###", "..#", "##."]),
            ("€", [".###", "#...", "###.", "#...", ".###"]),
            (".", [".", ".", ".", ".", "#"]),
            (",", [".", ".", ".", ".", "#", "#"]),
            (":", [".", "#", ".", "#", "."]),
            ("!", ["#", "#", "#", ".", "#"]),
            ("?", ["##.", "..#", ".#.", "...", ".#."]),
            ("-", ["...", "...", "###", "...", "..."]),
            ("/", ["..#", "..#", ".#.", "#..", "#.."]),
            ("%", ["#.#", "..#", ".#.", "#..", "#.#"]),
            (" ", ["..", "..", "..", "..", ".."]),
            ("✓", ["....#", "....#", "...#.", "#.#..", ".#..."]),
            ("✗", ["#...#", ".#.#.", "..#..", ".#.#.", "#...#"]),
        ]
        var font: [Character: Glyph] = [:]
        for (c, rows) in source {
            var pixels = rows.map { $0.map { $0 == "#" } }
            let w = pixels[0].count
            precondition(pixels.allSatisfy { $0.count == w } && pixels.count <= pixelRows, "BigText glyph \(c) is ragged")
            while pixels.count < pixelRows { pixels.append([Bool](repeating: false, count: w)) }
            font[c] = Glyph(rows: pixels)
        }
        return font
    }()
}
