import Testing
import TillModel
import TillProtocol
@testable import TillUI

/// The Batch screen's live report walks `Report.rows`: with room for it, it shows every row the table gives the panel
/// (`panelKeep`), under the full report's words, with the same count and amount, and no other.
@Suite struct ReportPanelRowsTests {
    static func report(_ states: [EntryState]) -> Report {
        let t0 = openBatch.openedAtMs!
        var buckets: [ReportBucket] = []
        for (i, action) in Action.allCases.filter(\.movesMoney).enumerated() {
            for state in states {
                buckets.append(ReportBucket(action: action, state: state, cardType: "VISA", verificationMethod: "CHIP", count: 1 + i,
                                            amountCents: 1_000 * (i + 1), tipCents: 50, tippedCount: 1, firstAtMs: t0, lastAtMs: t0))
            }
        }
        return Report(kind: .running, batch: openBatch, generatedAtMs: fixedNow, buckets: buckets)
    }

    static func panel(_ r: Report, width: Int = 60) -> [String] {
        var buf = ScreenBuffer(size: Size(width: width, height: 30))
        var y = 0
        runningReport(r, readyState(), x: 0, y: &y, maxY: 30, width: width, &buf)
        return Array(buf.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)[1..<y])
    }

    @Test(arguments: [[EntryState.approved], EntryState.allCases])
    func everyPanelRowIsShownInTheReportsWords(states: [EntryState]) {
        let r = Self.report(states)
        let f = readyState().reportFormat
        let lines = Self.panel(r)
        let rows = r.rows.filter { $0.panelKeep != nil && !($0.panelOnlyWhenNotZero && $0.value.isZero) }
        #expect(!rows.isEmpty)
        // Each row starts a line: its label, its count, then its amount (the note may wrap under it).
        let starts = lines.filter { !$0.hasPrefix("   ") }.map { $0.split(separator: " ").joined(separator: " ") }
        #expect(starts.count == rows.count, "\(lines)")
        for (line, row) in zip(starts, rows) {
            var want = row.label + (row.value.count.map { " (\($0))" } ?? "")
            if let c = row.value.cents { want += " " + (row.subtracts && c > 0 ? "-" : "") + f.money(c) }
            #expect(line.hasPrefix(want), "\(line) for \(row.key)")
        }
        // The full report (F9) has each of them under the same words.
        #expect(rows.allSatisfy { r.text(f).contains($0.label) })
    }
}
