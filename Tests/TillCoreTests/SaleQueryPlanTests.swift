import Foundation
import GRDB
import Synchronization
import Testing
@testable import TillCore
import TillIO
import TillProtocol
import TillSimulator
import TillSimulatorTransport

/// Every statement a sale runs on the journal, and every statement of the triggers it fires, is held to an index: a
/// full scan of a table (or of a whole index) costs more the older the journal is, and a sale must cost the same on a
/// till's first day and after a million entries. The statements are the ones SQLite reports running (its trace) while
/// a controller starts, recovers and takes sales (approved, declined, with a tip), so a new query on that path is
/// covered without being listed here.
@Suite struct SaleQueryPlanTests {
    final class Seen: Sendable {
        private let statements = Mutex<Set<String>>([])
        func add(_ sql: String) { statements.withLock { _ = $0.insert(sql) } }
        var all: Set<String> { statements.withLock { $0 } }
    }

    /// EXPLAIN QUERY PLAN's lines for `sql`, its parameters bound to NULL (the plan does not depend on them).
    static func plan(_ db: Database, _ sql: String) throws -> [String] {
        // The journal's statements hold no `?` but their parameters.
        let nulls = StatementArguments(Array(repeating: nil as String?, count: sql.filter { $0 == "?" }.count))
        return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: nulls).map { $0["detail"] }
    }

    /// A trigger's statements, `NEW.x` and `OLD.x` made parameters.
    static func triggerStatements(_ sql: String) -> [String] {
        guard let begin = sql.range(of: " BEGIN"), let end = sql.range(of: "END", options: .backwards) else { return [] }
        let body = String(sql[begin.upperBound..<end.lowerBound])
            .replacingOccurrences(of: #"\b(NEW|OLD)\.[A-Za-z_]+"#, with: "?", options: .regularExpression)
        return body.split(separator: ";").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    /// The plan lines that read a whole table or index.
    static func scans(_ lines: [String]) -> [String] {
        lines.filter { $0.hasPrefix("SCAN ") && $0 != "SCAN CONSTANT ROW" }
    }

    @Test func everyStatementOfASaleAndItsTriggersUsesAnIndex() async throws {
        let dir = TempDir("till-plan"); defer { dir.cleanup() }
        let plans = try await Self.tracedPlans(dir) { c in
            for amount in [1_000, 666, 1_250] {
                let outcome = await c.perform(sale(amount, tip: amount == 1_250 ? 100 : nil))
                #expect(outcome.journalEntry != nil, "\(outcome)")
            }
        }
        for p in plans {
            #expect(Self.scans(p.plan).isEmpty, "\(p.trigger.map { "trigger \($0), at every sale" } ?? "a sale") runs a full scan: \(p.sql)\n  plan: \(p.plan)")
        }
        #expect(plans.count > 20, "only \(plans.count) statements explained")
    }

    /// A refund and a capture, and what the controller reads before them (what is left of the payment, the refunds of
    /// unknown outcome of the same money): read from the entries about that payment, never the whole journal (they
    /// read every entry, and a refund took seconds on a journal of a million).
    @Test func everyStatementOfARefundAndACaptureUsesAnIndex() async throws {
        let dir = TempDir("till-plan"); defer { dir.cleanup() }
        let plans = try await Self.tracedPlans(dir) { c in
            let paid = await c.perform(sale(2_000, tip: nil))
            let stan = try #require(paid.journalEntry?.response?.referenceNumber)
            let order = try #require(paid.journalEntry?.response?.orderCode)
            // By STAN, then by order code: two keys of one sale.
            let first = await c.perform(.cancel(FinderRequest(amount: Money(cents: 500), finder: TransactionFinder(referenceNumber: stan))))
            #expect(first.journalEntry?.state == .approved, "\(first)")
            let second = await c.perform(.cancel(FinderRequest(amount: Money(cents: 500), finder: TransactionFinder(orderCode: order))))
            #expect(second.journalEntry?.state == .approved, "\(second)")
            // What is left is 10.00: a refund of 10.01 by STAN is refused, nothing sent.
            guard case .invalid(let why) = await c.perform(.cancel(FinderRequest(amount: Money(cents: 1_001), finder: TransactionFinder(referenceNumber: stan)))) else {
                Issue.record("a refund of more than is left was not refused"); return
            }
            #expect(why.first?.message.contains("10.00 is left") == true, "\(why)")
            let held = await c.perform(.preAuth(PreAuthRequest(amount: Money(cents: 3_000))))
            let preStan = try #require(held.journalEntry?.response?.referenceNumber)
            let captured = await c.perform(.capturePreAuth(FinderRequest(amount: Money(cents: 3_000), finder: TransactionFinder(referenceNumber: preStan))))
            #expect(captured.journalEntry?.state == .approved, "\(captured)")
        }
        for p in plans where p.trigger == nil {
            #expect(Self.scans(p.plan).isEmpty, "a refund or capture runs a full scan: \(p.sql)\n  plan: \(p.plan)")
        }
    }

    /// What SQLite ran (and the plan of each statement, and of each statement of the triggers it fired) while `work`
    /// ran on a controller over a journal that has seen a few shifts first.
    static func tracedPlans(_ dir: TempDir, _ work: (TillController) async throws -> Void) async throws
        -> [(sql: String, plan: [String], trigger: String?)] {
        // A journal that has seen a few shifts and sales first: what is traced is a sale on a journal with a history.
        let first = try await simulatorController(dir)
        for _ in 0..<3 {
            _ = await first.perform(.batch(BatchRequest(command: .open, batchName: "shift")))
            for amount in [1_000, 666, 1_250] { _ = await first.perform(sale(amount, tip: amount == 1_250 ? 100 : nil)) }
            _ = await first.perform(.batch(BatchRequest(command: .close)))
        }
        _ = await first.perform(.batch(BatchRequest(command: .open, batchName: "traced")))
        await first.shutdown()

        let seen = Seen()
        let journal = try Journal(path: dir.path + "/journal.sqlite")
        try await journal.database.writeWithoutTransaction { db in
            db.trace(options: .statement) { event in
                if case .statement(let s) = event { seen.add(s.sql) }
            }
        }
        let c = TillController(transport: SimulatorTransport(config: SimulatorConfig(speed: 0), statePath: dir.path + "/simulator-state.json"), journal: journal, caller: testCaller, timeoutMs: 60_000)
        try await c.start()
        _ = await c.recover()
        try await work(c)
        await c.shutdown()

        let statements = seen.all
        let triggers = Set(statements.compactMap { s -> String? in
            guard s.hasPrefix("-- TRIGGER ") else { return nil }
            return String(s.dropFirst("-- TRIGGER ".count)).trimmingCharacters(in: .whitespaces)
        })
        #expect(triggers.contains("entry_summary_update") && triggers.contains("outbox_entry_insert"), "\(triggers.sorted())")
        // The outbox's chain function, as the journal's own connection has it: a statement that fires its trigger is
        // explained only where the trigger's function exists.
        var checkConfig = Configuration()
        checkConfig.prepareDatabase { $0.add(function: OutboxChain.function) }
        let check = try DatabaseQueue(path: dir.path + "/journal.sqlite", configuration: checkConfig)
        defer { try? check.close() }
        // (what ran, its plan, the trigger it belongs to or nil) for every statement the sale ran and its triggers hold.
        return try await check.read { db -> [(sql: String, plan: [String], trigger: String?)] in
            var out: [(sql: String, plan: [String], trigger: String?)] = []
            // What reads or writes rows (not BEGIN, COMMIT, PRAGMA, nor the trace's lines that name a trigger).
            let rowStatements = statements.filter { s in
                ["SELECT", "INSERT", "UPDATE", "DELETE", "WITH", "REPLACE"].contains { s.uppercased().hasPrefix($0) }
            }
            for s in rowStatements.sorted() {
                out.append((s, try Self.plan(db, s), nil))
            }
            for name in triggers.sorted() {
                let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", arguments: [name]) ?? ""
                for s in Self.triggerStatements(sql) { out.append((s, try Self.plan(db, s), name)) }
            }
            return out
        }
    }
}
