import Foundation
import Testing
import TillModel
import TillProtocol

/// The report is one table of rows (`Report.rows`) that every format walks: these fail when a format forgets a row or
/// writes it under other words or figures than the table's.
@Suite struct ReportRowsTests {
    /// A report in which every row holds something: an entry of every action that moves money in every state, a card
    /// type and a method, an answer waiting for a batch.
    static let full: Report = {
        var buckets: [ReportBucket] = []
        for (i, action) in Action.allCases.filter(\.movesMoney).enumerated() {
            for (j, state) in EntryState.allCases.enumerated() {
                buckets.append(ReportBucket(action: action, state: state, cardType: "VISA", verificationMethod: "CHIP",
                                            count: 1 + j % 3, amountCents: 1_000 * (i + 1) + 10 * j, tipCents: 50, tippedCount: 1,
                                            firstAtMs: 1_795_000_000_000, lastAtMs: 1_795_000_600_000))
            }
        }
        var r = Report(kind: .closing, batch: BatchInfo(id: "B-1", name: "Morning", openedAtMs: 1_795_000_000_000, isOpen: false),
                       closedAtMs: 1_795_003_600_000, generatedAtMs: 1_795_003_600_000, buckets: buckets)
        r.waitingForABatch = Tally(count: 1, cents: 700)
        return r
    }()

    @Test func everyRowHoldsSomethingAndHasItsOwnKey() {
        let rows = Self.full.rows
        #expect(rows.allSatisfy { !$0.value.isZero || $0.key == "preAuthsAwaitingCapture" }, "\(rows.filter(\.value.isZero).map(\.key))")
        for section in Report.Row.Section.allCases {
            let keys = rows.filter { $0.section == section }.map(\.key)
            #expect(!keys.isEmpty, "no row in \(section)")
            #expect(Set(keys).count == keys.count, "a key twice in \(section): \(keys)")
        }
        #expect(Set(rows.map(\.label)).count == rows.count)
    }

    /// The text report: each row once, as a line of its label (indented under a heading), its count and its amount.
    @Test func theTextHasEveryRow() {
        let f = ReportFormat()
        let figures = Self.full.reportLines(f).filter { [.row, .total, .warning].contains($0.kind) }
        let rows = Self.full.rows.filter { $0.isShown(onScreen: true) }
        #expect(figures.count == rows.count, "\(figures.map(\.text))")
        for (line, row) in zip(figures, rows) {
            let words = line.text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            var want = row.label
            if let n = row.value.count { want += " \(n)" }
            if let c = row.value.cents { want += " " + (row.subtracts && c > 0 ? "-" : "") + f.money(c) }
            #expect(words.hasPrefix(want), "\(line.text) for \(row.key)")
            #expect(line.kind == (row.isTotal ? .total : row.needsAPerson ? .warning : .row), "\(line.text)")
        }
    }

    /// The CSV: each row once, in the table's order, as section, label (the same words in lower case), count, amount.
    @Test func theCSVHasEveryRow() {
        let f = ReportFormat(currencySymbol: "EUR")
        let lines = Self.full.csv(f).components(separatedBy: "\r\n").filter { !$0.isEmpty }.dropFirst()
            .filter { !$0.hasPrefix("batch,") }
        let rows = Self.full.rows.filter { $0.isShown(onScreen: false) }
        #expect(lines.count == rows.count, "\(lines)")
        for (line, row) in zip(lines, rows) {
            let amount = row.value.cents.map { Money(cents: row.subtracts ? -$0 : $0).formatted() } ?? ""
            let want = CSV.line([row.section.rawValue, row.csvLabel, row.value.count.map(String.init) ?? "", amount,
                                 row.value.cents == nil ? "" : "EUR"])
            #expect(line + "\r\n" == want)
            #expect(row.csvLabel.lowercased() == row.label.lowercased())
        }
    }

    /// The JSON: each row under its key (a breakdown's under its group), with its count and cents.
    @Test func theJSONHasEveryRow() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(Self.full.json.text().utf8)) as? [String: Any])
        var seen = 0
        for row in Self.full.rows where row.isShown(onScreen: false) {
            let holder = try #require(row.section.jsonGroup.map { object[$0] as? [String: Any] } ?? object, "\(row.section)")
            let value = holder[row.key]
            switch row.value {
            case .tally(let t):
                let o = try #require(value as? [String: Any], "\(row.key)")
                #expect(o["count"] as? Int == t.count && o["cents"] as? Int == t.cents, "\(row.key)")
            case .count(let n), .cents(let n): #expect(value as? Int == n, "\(row.key)")
            }
            seen += 1
        }
        let batchKeys = ["kind", "batchId", "batchName", "openedAtMs", "closedAtMs", "closedHow", "generatedAtMs", "firstAtMs", "lastAtMs"]
        let groups = Report.Row.Section.allCases.compactMap(\.jsonGroup)
        let grouped = groups.reduce(0) { $0 + ((object[$1] as? [String: Any])?.count ?? 0) }
        #expect(object.count - batchKeys.count - groups.count + grouped == seen, "\(object.keys.sorted())")
    }

    /// A row the cashier reads only when it holds something is still in the machine formats when it is zero (their
    /// columns stay put); one shown only when not zero is in none.
    @Test func zeroRowsAreLeftOutOnlyWhereTheTableSays() {
        let empty = Report(kind: .running, batch: nil, generatedAtMs: 0, buckets: [])
        let text = empty.text(ReportFormat()), csv = empty.csv(ReportFormat())
        for row in empty.rows {
            #expect(text.contains(row.label) == row.isShown(onScreen: true), "\(row.key) on screen")
            #expect(csv.contains(CSV.field(row.csvLabel)) == row.isShown(onScreen: false), "\(row.key) in the CSV")
        }
    }
}
