import Foundation
import TillModel
import TillProtocol

/// How a back-office command writes its rows.
public enum OutputFormat: String, Sendable, CaseIterable {
    case text, csv, json
}

/// A column of a back-office table: its name (the CSV header and the JSON key), its width in text, and how its
/// values read in JSON.
public struct Column: Sendable, Hashable {
    public enum Kind: Sendable, Hashable { case text, count, money }
    public var name: String
    public var width: Int
    public var kind: Kind
    public init(_ name: String, _ width: Int, _ kind: Kind = .text) { self.name = name; self.width = width; self.kind = kind }
}

/// A cell: text, a count, or an amount in cents (written `12.50` in every format).
public enum Cell: Sendable, Hashable {
    case text(String)
    case count(Int)
    case money(Int)

    var plain: String {
        switch self {
        case .text(let s): return s
        case .count(let n): return String(n)
        case .money(let c): return Money(cents: c).formatted()
        }
    }
}

/// Writes rows as they come, in constant memory: text in fixed columns (a value wider than its column pushes the rest
/// right, never cut: an amount is never shortened), RFC 4180 CSV through TillModel's `CSV.field` (a cell a spreadsheet
/// would run as a formula gets a leading `'`; control and bidi characters escaped), or one JSON array whose objects
/// are written one by one. No format prints a raw control character: text goes through `SafeText.terminal`, JSON
/// escapes every character `SafeText` finds unsafe as `\uXXXX`.
public final class TableWriter {
    public let format: OutputFormat
    public let columns: [Column]
    let sink: Sink
    var rows = 0

    public init(_ format: OutputFormat, columns: [Column], sink: Sink) {
        self.format = format; self.columns = columns; self.sink = sink
    }

    /// The header (text, CSV) or the array's opening (JSON).
    public func start() {
        switch format {
        case .text:
            sink.write(line(columns.map { ($0, $0.name) }))
            sink.write(line(columns.map { ($0, String(repeating: "-", count: $0.width)) }))
        case .csv: sink.write(columns.map { CSV.field($0.name) }.joined(separator: ",") + "\r\n")
        case .json: sink.write("[")
        }
    }

    public func row(_ cells: [Cell]) {
        precondition(cells.count == columns.count, "a row of \(cells.count) cells for \(columns.count) columns")
        switch format {
        case .text: sink.write(line(zip(columns, cells.map(\.plain)).map { ($0, $1) }))
        case .csv: sink.write(cells.map { CSV.field($0.plain) }.joined(separator: ",") + "\r\n")
        case .json:
            var o = rows == 0 ? "\n  {" : ",\n  {"
            for (i, (c, v)) in zip(columns, cells).enumerated() {
                if i > 0 { o += ", " }
                JSONValue.quote(c.name, into: &o)
                o += ": "
                switch v {
                case .text(let s): JSONValue.quote(s, into: &o)
                case .count(let n): o += String(n)
                case .money(let cents): o += Money(cents: cents).formatted()
                }
            }
            sink.write(o + "}")
        }
        rows += 1
    }

    /// The total under a text table (CSV and JSON leave it out: a spreadsheet's own sum of a column would count it twice).
    public func total(_ cells: [Cell]) {
        guard format == .text else { return }
        sink.write(line(columns.map { ($0, String(repeating: "=", count: $0.width)) }))
        sink.write(line(zip(columns, cells.map(\.plain)).map { ($0, $1) }))
    }

    /// A line outside the table (text only: a total, a note); CSV and JSON carry only rows.
    public func note(_ text: String) {
        if format == .text { sink.write(SafeText.terminal(text) + "\n") }
    }

    public func finish() {
        if format == .json { sink.write(rows == 0 ? "]\n" : "\n]\n") }
        sink.flush()
    }

    func line(_ cells: [(Column, String)]) -> String { TableWriter.cells(cells) + "\n" }

    /// Cells side by side in their columns' widths: text to the left, counts and amounts to the right, two spaces
    /// between; the last text cell is not padded. Escaped for a terminal.
    static func cells(_ cells: [(Column, String)]) -> String {
        var out = ""
        for (i, (c, raw)) in cells.enumerated() {
            let v = SafeText.terminal(raw)
            let pad = String(repeating: " ", count: max(0, c.width - v.count))
            let last = i == cells.count - 1
            out += c.kind == .text ? v + (last ? "" : pad) : pad + v
            if !last { out += "  " }
        }
        return out
    }

}

/// Where a writer's text goes: standard output in 64 KiB writes, or a closure (tests).
public final class Sink {
    let handle: FileHandle?
    let collect: ((String) -> Void)?
    var buffer: [UInt8] = []

    public static func standardOutput() -> Sink { Sink(handle: .standardOutput, collect: nil) }
    public static func collecting(_ f: @escaping (String) -> Void) -> Sink { Sink(handle: nil, collect: f) }

    init(handle: FileHandle?, collect: ((String) -> Void)?) {
        self.handle = handle; self.collect = collect
        buffer.reserveCapacity(1 << 16)
    }

    func write(_ s: String) {
        if let collect { collect(s); return }
        buffer.append(contentsOf: s.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    public func flush() {
        guard let handle, !buffer.isEmpty else { return }
        handle.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }
}
