import GRDB
import TillProtocol

// What is left of a payment (its refunds, its capture) is read from the entries about that payment alone: the payments
// whose answer carries the key a refund or capture names, and the refunds and captures that name it. Each refund and
// capture keeps the key it named (`finderKey`), and the payments' keys are indexed, so that a refund, a capture and a
// person's settling of one cost the same on a journal of a million entries as on a new one (they read every entry).
extension Journal {
    /// The key as the journal keeps it: its kind and its value.
    static func finderKeyText(_ key: FinderKey?) -> String? {
        switch key {
        case .shortOrderCode(let s)?: return "s:" + s
        case .orderCode(let o)?: return "o:" + o
        case .referenceNumber(let n)?: return "r:" + n
        case nil: return nil
        }
    }

    /// The key a refund or capture request names (nil for any other request, or one that names none).
    static func finderKey(of request: Request) -> String? {
        request.finding.flatMap { finderKeyText($0.finder.key) }
    }

    static func registerFinderKeyMigration(_ m: inout DatabaseMigrator) {
        m.registerMigration("v13-finder-keys") { db in
            try db.execute(sql: """
                ALTER TABLE entry ADD COLUMN finderKey TEXT;
                CREATE INDEX entry_finder ON entry(finderKey) WHERE finderKey IS NOT NULL;
                CREATE INDEX entry_stan ON entry(stan) WHERE stan IS NOT NULL;
                CREATE INDEX entry_order_code ON entry(orderCode) WHERE orderCode IS NOT NULL;
                CREATE INDEX entry_short_order_code ON entry(shortOrderCode) WHERE shortOrderCode IS NOT NULL;
                """)
            try backfillFinderKeys(db)
        }
    }

    /// The refunds and captures journaled before the key was kept: their key, read from their request.
    static func backfillFinderKeys(_ db: Database) throws {
        for row in try Row.fetchAll(db, sql: "SELECT id, action, requestURL FROM entry WHERE action IN ('cancel', 'capturePreAuth')") {
            let id: Int64 = row["id"], action: String = row["action"], url: String = row["requestURL"]
            let e = JournalEntry(id: id, requestId: "", action: Action(rawValue: action) ?? .cancel, clientTransactionId: nil, amount: nil,
                                 tipAmount: nil, requestURL: url, state: .pending, createdAtMs: 0, updatedAtMs: 0)
            guard let key = finderKeyText(RefundLinks.finder(of: e).key) else { continue }
            try db.execute(sql: "UPDATE entry SET finderKey = ? WHERE id = ?", arguments: [key, id])
        }
    }

    /// The entries about the payment `key` names: the payments whose answer carries it; the refunds and captures that
    /// name any key of theirs (a refund by order code and one by STAN of one sale); and the refunds and captures that
    /// named no key and may have moved money (either may be any payment's). Indexed reads, whatever the journal's age;
    /// `RefundLinks` over them says what is left of the payment, as over the whole journal.
    public func entries(about key: FinderKey) throws -> [JournalEntry] {
        let column: String
        let value: String
        switch key {
        case .shortOrderCode(let s): (column, value) = ("shortOrderCode", s)
        case .orderCode(let o): (column, value) = ("orderCode", o)
        case .referenceNumber(let n): (column, value) = ("stan", n)
        }
        return try reading { db in
            let payments = try Row.fetchAll(db, sql: "SELECT \(Journal.columns) FROM entry WHERE \(column) = ?", arguments: [value])
                .map(Journal.entry(from:))
            var keys: Set<String> = [Journal.finderKeyText(key)].compactMap { $0 }.reduce(into: []) { $0.insert($1) }
            for p in payments {
                if let n = p.response?.referenceNumber, !n.isEmpty { keys.insert("r:" + n) }
                if let o = p.response?.orderCode, !o.isEmpty { keys.insert("o:" + o) }
                if let s = p.response?.shortOrderCode, !s.isEmpty { keys.insert("s:" + s) }
            }
            let sorted = keys.sorted()
            let naming = try Row.fetchAll(db, sql: """
                SELECT \(Journal.columns) FROM entry WHERE finderKey IN (\(sorted.map { _ in "?" }.joined(separator: ",")))
                UNION SELECT \(Journal.columns) FROM entry WHERE state IN ('pending', 'sent', 'unknown', 'review')
                  AND action IN ('cancel', 'capturePreAuth') AND finderKey IS NULL
                """, arguments: StatementArguments(sorted)).map(Journal.entry(from:))
            var seen = Set<Int64>()
            return (payments + naming).filter { seen.insert($0.id).inserted }.sorted { $0.id < $1.id }
        }
    }
}
