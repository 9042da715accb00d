import Foundation
import GRDB
import PostgresNIO
import Testing
@testable import TillCore
import TillModel
import TillProtocol
@testable import TillStore

extension TestStore {
    /// A back-office login (a member of `till_backoffice`) over loopback with its password.
    func office() async throws -> StoreAddress {
        let role = "office_\(suffix)"
        let file = dir + "/office.password"
        if !FileManager.default.fileExists(atPath: file) {
            _ = FileManager.default.createFile(atPath: file, contents: Data("office-\(suffix)".utf8), attributes: [.posixPermissions: 0o600])
            _ = try await adminRows(PostgresQuery(unsafeSQL: "CREATE ROLE \(role) LOGIN PASSWORD 'office-\(suffix)' IN ROLE till_backoffice"))
        }
        return StoreAddress(host: "127.0.0.1", port: admin.port, database: database, user: role, passwordFile: file)
    }
}

/// Every report row a back-office report gives, by its key joined with `/`.
func officeReport(_ address: StoreAddress, by: [BackOffice.Dimension], _ filter: BackOffice.Filter = .init()) async throws -> [String: Report] {
    var out: [String: Report] = [:]
    try await BackOffice(address: address).report(by: by, filter: filter) { row in
        #expect(out[row.key.joined(separator: "/")] == nil, "a group written twice: \(row.key)")
        out[row.key.joined(separator: "/")] = row.report
    }
    return out
}

/// What a till's own reports say, summed over every shift of its journal (`till report` per batch).
func tillReports(_ j: Journal) throws -> [String: Report] {
    let keys = try j.database.read { try String.fetchAll($0, sql: "SELECT DISTINCT batchKey FROM batch_summary") }
    var out: [String: Report] = [:]
    for k in keys {
        let buckets = try j.reportBuckets(batchId: k.isEmpty ? nil : k)
        // A batch of batch commands only moves no money: a report row is a group with money in it.
        guard buckets.contains(where: \.action.movesMoney) else { continue }
        out[k] = Report(kind: .running, batch: nil, generatedAtMs: 0, buckets: buckets)
    }
    return out
}

/// The figures a report row carries, as `BackOffice.reportColumns` names them, in cents and counts.
func figures(_ r: Report) -> [String: Int] {
    Dictionary(uniqueKeysWithValues: zip(BackOffice.reportColumns.map(\.name), BackOffice.reportCells(r).map { cell -> Int in
        switch cell {
        case .count(let n), .money(let n): return n
        case .text: return -1
        }
    }))
}

func sum(_ many: [[String: Int]]) -> [String: Int] {
    many.reduce(into: [:]) { acc, f in for (k, v) in f { acc[k, default: 0] += v } }
}

func firstString(_ j: Journal, _ sql: String) throws -> String? { try j.database.read { try String.fetchOne($0, sql: sql) } }

/// Writes two events straight into a journal's outbox, as something other than till might: one not JSON, one of an
/// action no build knows.
func injectBadEvents(_ path: String) throws {
    // Chained as till's own events are (`OutboxChain`): what the store parks is the payloads, not a broken chain.
    var config = Configuration()
    config.prepareDatabase { $0.add(function: OutboxChain.function) }
    let raw = try DatabaseQueue(path: path, configuration: config)
    try raw.write { db in
        try db.execute(sql: "INSERT INTO outbox (kind, entityKey, payload, atMs) VALUES ('entry', '900', 'not json {', 0)")
        try db.execute(sql: """
            INSERT INTO outbox (kind, entityKey, payload, atMs) VALUES ('entry', '901',
              '{"id":901,"requestId":"r","action":"teleport","state":"approved","amountCents":100,"createdAtMs":0,"updatedAtMs":0}', 0)
            """)
    }
    try raw.close()
}

let day = Int64(86_400_000)
/// 2026-03-10 23:30 UTC: 00:30 on the 11th in Berlin, 19:30 on the 10th in New York.
let lateEvening = Int64(1_773_185_400_000)

extension StoreServerTests {
@Suite struct BackOfficeTests {
    @Test func theReportPerShopDayAndShiftEqualsTheTillsOwnReportsToTheCent() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        try await StoreAdmin(address: s.admin).addShop(id: "s2", name: "Broadway", timeZone: "America/New_York")
        let a = try await s.addTill("A"), b = try await s.addTill("B"), c = try await s.addTill("C", shop: "s2")
        let ja = try Journal(path: a.journalPath), jb = try Journal(path: b.journalPath, tipStyle: .included), jc = try Journal(path: c.journalPath)
        try shift(ja, name: "a-morning", at: lateEvening - 3_600_000, sales: [(1_250, 150), (3_999, nil)], close: true)
        try shift(jb, name: "b-morning", at: lateEvening - 7_200_000, sales: [(2_200, 200)], close: false)
        try shift(jc, name: "c-evening", at: lateEvening, sales: [(10_000, 1_000), (505, 5)], close: true)
        // The same instant, a different local day in each shop.
        try ja.insertSettled([(.sale, .approved, 1_000, 0, "a-night", lateEvening)])
        try jc.insertSettled([(.sale, .approved, 2_000, 0, "c-evening", lateEvening + 1)])
        for t in [a, b, c] { _ = try await Sync(journalPath: t.journalPath, address: t.address).pushOnce() }
        let office = try await s.office()

        // Per shift: each row is the till's own report of that shift, every figure.
        let shifts = try await officeReport(office, by: [.shift])
        var expected: [String: [String: Int]] = [:]
        for (till, j) in [("A", ja), ("B", jb), ("C", jc)] {
            for (k, r) in try tillReports(j) { expected["\(till)/\(k)"] = figures(r) }
        }
        #expect(shifts.mapValues(figures) == expected)
        #expect(shifts.keys.sorted() == ["A/a-morning", "A/a-night", "B/b-morning", "C/c-evening"])
        // By hand: C's evening is 100.00 + 10.00 tip + 5.05 + 0.05 tip + 20.00 + 40.00 (capture) − 2.50 (refund).
        #expect(shifts["C/c-evening"]?.netCents == 10_000 + 1_000 + 505 + 5 + 2_000 + 4_000 - 250)
        #expect(shifts["C/c-evening"]?.unknown.count == 1 && shifts["C/c-evening"]?.declined.count == 1)

        // Per shop and local day: 23:30 UTC is the 11th in Berlin and the 10th in New York.
        let days = try await officeReport(office, by: [.shop, .day])
        #expect(days.keys.sorted() == ["s1/2026-03-10", "s1/2026-03-11", "s2/2026-03-10"])
        #expect(days["s1/2026-03-11"]?.netCents == 1_000)
        #expect(days["s2/2026-03-10"]?.netCents == (try tillReports(jc)).values.map(\.netCents).reduce(0, +))
        let eleventh = try await officeReport(office, by: [.till], .init(fromDay: "2026-03-11", toDay: "2026-03-11"))
        #expect(eleventh.mapValues(\.netCents) == ["A": 1_000])
        let onlyS2 = try await officeReport(office, by: [.till], .init(shop: "s2"))
        #expect(onlyS2.keys.sorted() == ["C"])

        // The grand total is the sum of every till's every report.
        let total = try await BackOffice(address: office).report(by: [.till], filter: .init()) { _ in }
        #expect(figures(total) == sum(try [ja, jb, jc].flatMap { try tillReports($0).values.map(figures) }))
    }

    @Test func csvAndJSONNeverCarryAFormulaOrARawControlCharacter() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let evil = "=HYPERLINK(\"http://x\")", escape = "\u{1B}[31mred\u{7}"
        try await StoreAdmin(address: s.admin).addShop(id: evil, name: "x", timeZone: "UTC")
        let a = try await s.addTill("+1", shop: evil), b = try await s.addTill(escape, shop: evil)
        for t in [a, b] {
            let j = try Journal(path: t.journalPath)
            try j.insertSettled([(.sale, .approved, 1_000, 0, "@cmd", 1_000), (.cancel, .approved, 250, 0, "@cmd", 2_000)])
            _ = try await Sync(journalPath: t.journalPath, address: t.address).pushOnce()
        }
        let office = try await s.office()
        func output(_ format: OutputFormat) async throws -> String {
            var text = ""
            let w = TableWriter(format, columns: [Column("shop", 10), Column("till", 10), Column("shift", 8)] + BackOffice.reportColumns,
                                sink: .collecting { text += $0 })
            w.start()
            let total = try await BackOffice(address: office).report(by: [.shop, .till, .shift], filter: .init()) { row in
                w.row(row.key.map { Cell.text($0) } + BackOffice.reportCells(row.report))
            }
            w.total([.text("total"), .text(""), .text("")] + BackOffice.reportCells(total))
            w.finish()
            return text
        }
        let csv = try await output(.csv)
        let lines = csv.split(separator: "\r\n").map(String.init)
        #expect(lines.count == 3)
        // Every cell a spreadsheet would run starts with ', quoted; a negative amount stays a number.
        #expect(lines.contains { $0.hasPrefix("\"'=HYPERLINK(\"\"http://x\"\")\",\"'+1\",\"'@cmd\",1,10.00,0.00,0.00,2.50,7.50,") })
        #expect(lines.contains { $0.contains("\\u{1B}[31mred\\u{7}") })
        for out in [csv, try await output(.text), try await output(.json)] {
            #expect(!out.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n" && $0 != "\r") || $0.value == 0x7F }, "\(out)")
        }
        let json = try await output(.json)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(rows.count == 2 && Set(rows.compactMap { $0["till"] as? String }) == ["+1", escape])
        #expect(rows.allSatisfy { ($0["net"] as? NSNumber)?.doubleValue == 7.5 })
        let text = try await output(.text)
        #expect(text.contains("total") && text.contains("15.00"))
    }

    @Test func findAPaymentFromAnyTill() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A"), b = try await s.addTill("B")
        let ja = try Journal(path: a.journalPath), jb = try Journal(path: b.journalPath, tipStyle: .included)
        try shift(ja, name: "a1", at: lateEvening, sales: [(1_250, 150)], close: true)
        try shift(jb, name: "b1", at: lateEvening + 5_000, sales: [(1_250, 150), (3_000, nil)], close: false)
        for t in [a, b] { _ = try await Sync(journalPath: t.journalPath, address: t.address).pushOnce() }
        let office = try await s.office()
        func find(_ search: BackOffice.Search, _ filter: BackOffice.Filter = .init()) async throws -> [[Cell]] {
            var rows: [[Cell]] = []
            try await BackOffice(address: office).find(search, filter: filter) { rows.append($0) }
            return rows
        }
        let col = Dictionary(uniqueKeysWithValues: BackOffice.findColumns.enumerated().map { ($1.name, $0) })
        // 12.50 sold on both tills: A's card paid 14.00 (the tip on top), B's 12.50 (its amount holds the tip).
        let both = try await find(.init(amountCents: 1_250))
        #expect(both.map { $0[col["till"]!] } == [.text("A"), .text("B")])
        #expect(both.map { $0[col["paid"]!] } == [.money(1_400), .money(1_250)])
        // By the terminal's transaction id and by STAN: exactly that one.
        let tx = try #require(try firstString(jb, "SELECT transactionId FROM entry WHERE amountCents = 3000"))
        let one = try await find(.init(transactionId: tx))
        #expect(one.count == 1 && one.first?[col["till"]!] == .text("B") && one.first?[col["amount"]!] == .money(3_000))
        let stan = try #require(try firstString(ja, "SELECT stan FROM entry WHERE amountCents = 1250"))
        let byStan = try await find(.init(stan: stan), .init(till: "A"))
        #expect(byStan.count == 1 && byStan.first?[col["stan"]!] == .text(stan))
        // A day in the shop's time zone (Berlin: 00:30 on the 11th).
        let entries = try ja.count() + jb.count()
        #expect(try await find(.init(), .init(fromDay: "2026-03-11", toDay: "2026-03-11")).count == entries)
        #expect(try await find(.init(), .init(fromDay: "2026-03-10", toDay: "2026-03-10")).isEmpty)
        await #expect(throws: StoreError.self) { try await find(.init()) }
    }

    @Test func reconcileListsMismatchesStoppedTillsUnresolvedAndParkedEvents() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A"), b = try await s.addTill("B")
        _ = try await s.addTill("Q")  // never pushes
        let ja = try Journal(path: a.journalPath), jb = try Journal(path: b.journalPath)
        try shift(ja, name: "a1", at: 1_000, sales: [(1_250, 150)], close: true)
        try shift(ja, name: "a2", at: 100_000, sales: [(999, nil)], close: true)
        try shift(jb, name: "b1", at: 1_000, sales: [(500, nil)], close: false)
        // Two events the store cannot take, between good ones: one not JSON, one of an action it does not know.
        try injectBadEvents(b.journalPath)
        try jb.insertSettled([(.sale, .approved, 4_200, 0, "b1", 9_000)])
        for t in [a, b] {
            let r = try await Sync(journalPath: t.journalPath, address: t.address).pushOnce()
            #expect(r.toSend == 0)
        }
        #expect(try await count(s, "SELECT count(*) FROM till_store.quarantine WHERE till_id = 'B'") == 2)
        // The events after the bad ones were taken: the store's totals are the till's.
        #expect(try await storeNets(s, till: "B") == (try tillNets(jb)))

        let office = try await s.office()
        func reconcile(_ filter: BackOffice.Filter = .init()) async throws -> ([BackOffice.Finding], BackOffice.ReconcileSummary) {
            var found: [BackOffice.Finding] = []
            let summary = try await BackOffice(address: office).reconcile(filter: filter) { found.append($0) }
            return (found, summary)
        }
        var (found, summary) = try await reconcile()
        #expect(summary.zReports == 2 && summary.zMatching == 2 && summary.tills == 3)
        #expect(found.filter { $0.check == .zMismatch }.isEmpty)
        #expect(found.filter { $0.check == .stopped }.map(\.till) == ["Q"])
        // One unknown sale per shift, as each till's Unresolved lists it.
        let unresolved = found.filter { $0.check == .unresolved }
        #expect(unresolved.map(\.till).sorted() == ["A", "A", "B"])
        #expect(unresolved.allSatisfy { $0.tillCents == 777 })
        let parked = found.filter { $0.check == .parked }
        #expect(parked.map(\.entry) == ["900", "901"])
        #expect(parked[0].detail.contains("not a JSON object") && parked[1].detail.contains("teleport"))

        // An entry of A's first shift changed in the store by hand: its Z report and its entries no longer agree.
        _ = try await s.adminRows("UPDATE till_store.payment SET amount_cents = amount_cents + 1 WHERE till_id = 'A' AND batch_id = 'a1' AND amount_cents = 1250")
        (found, summary) = try await reconcile(.init(till: "A"))
        let mismatch = found.filter { $0.check == .zMismatch }
        #expect(summary.zMatching == 1 && mismatch.count == 1 && mismatch.first?.shift == "a1")
        #expect(mismatch.first.map { ($0.storeCents ?? 0) - ($0.tillCents ?? 0) } == 1)
        #expect(found.allSatisfy { $0.till == "A" })
    }
}
}
