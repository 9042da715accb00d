import Foundation
import PostgresNIO

/// What the store's administrator does (as a role that may create roles and own the schema): make and migrate the
/// schema, add shops and tills with their roles, adopt a till's new journal.
public struct StoreAdmin: Sendable {
    public var address: StoreAddress
    public init(address: StoreAddress) { self.address = address }

    /// Creates or migrates the schema: each version not yet applied, in order, in a transaction of its own, under an
    /// advisory lock (two at once: the second waits, then finds the version done or fails without a change). Returns
    /// the versions applied now.
    @discardableResult
    public func initStore() async throws -> [Int] {
        try await with { store in
            try await store.execute("""
                BEGIN; SELECT pg_advisory_xact_lock(7411001);
                CREATE SCHEMA IF NOT EXISTS till_store;
                CREATE TABLE IF NOT EXISTS till_store.schema_version (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
                COMMIT;
                """)
            let done = Set(try await store.query("SELECT version FROM till_store.schema_version").map { try $0.decode(Int.self) })
            var applied: [Int] = []
            for (version, sql) in StoreSchema.migrations where !done.contains(version) {
                try await store.execute("""
                    BEGIN; SELECT pg_advisory_xact_lock(7411001);
                    \(sql);
                    INSERT INTO till_store.schema_version (version) VALUES (\(version));
                    COMMIT;
                    """)
                applied.append(version)
            }
            try await store.execute("BEGIN; SELECT pg_advisory_xact_lock(7411001);\n\(StoreSchema.always);\nCOMMIT;")
            return applied
        }
    }

    /// A shop's new time zone moves its entries' local days: its report summaries are summed again in the same
    /// transaction, which holds the pushes off meanwhile (see `StoreSchema.pushRows`).
    public func addShop(id: String, name: String, timeZone: String = "UTC") async throws {
        try await with { store in
            try await store.execute("BEGIN")
            do {
                try await store.execute("LOCK TABLE till_store.report_summary IN SHARE ROW EXCLUSIVE MODE")
                let before = try await store.query("SELECT time_zone FROM till_store.shop WHERE id = \(id)").first?.decode(String.self)
                try await store.query("INSERT INTO till_store.shop (id, name, time_zone) VALUES (\(id), \(name), \(timeZone)) ON CONFLICT (id) DO UPDATE SET name = excluded.name, time_zone = excluded.time_zone")
                if let before, before != timeZone { try await store.query("SELECT till_store.summarise_shop(\(id))") }
                try await store.execute("COMMIT")
            } catch {
                try? await store.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// Adds a till of a shop and its login role (a member of `till_pusher`: it may only push its own rows), with the
    /// password from a 0600 file.
    public func addTill(id: String, shop: String, role: String, passwordFile: String) async throws {
        guard role.range(of: "^[a-z_][a-z0-9_]{0,62}$", options: .regularExpression) != nil else {
            throw StoreError("a till's role name is lower-case letters, digits and _ (not \(role))")
        }
        let password = try StoreAddress.readPassword(passwordFile)
        let literal = "'" + password.replacingOccurrences(of: "'", with: "''") + "'"
        try await with { store in
            try await store.execute("""
                BEGIN;
                DO $$ BEGIN
                  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '\(role)') THEN CREATE ROLE \(role) LOGIN; END IF;
                END $$;
                ALTER ROLE \(role) LOGIN INHERIT PASSWORD \(literal);
                GRANT till_pusher TO \(role);
                COMMIT;
                """)
            try await store.query("INSERT INTO till_store.till (id, shop_id, role_name) VALUES (\(id), \(shop), \(role))")
        }
    }

    /// Makes a till's refused journal its active one; the one active until now is retired (its events stay).
    public func adoptJournal(till: String, journal: String) async throws {
        try await with { store in
            try await store.execute("BEGIN")
            do {
                let rows = try await store.query("SELECT 1 FROM till_store.journal WHERE till_id = \(till) AND journal_id = \(journal)")
                guard !rows.isEmpty else { throw StoreError("till \(till) has never pushed journal \(journal)") }
                try await store.query("UPDATE till_store.journal SET status = 'retired' WHERE till_id = \(till) AND status = 'active'")
                try await store.query("UPDATE till_store.journal SET status = 'active' WHERE till_id = \(till) AND journal_id = \(journal)")
                try await store.execute("COMMIT")
            } catch {
                try? await store.execute("ROLLBACK")
                throw error
            }
        }
    }

    @discardableResult
    func with<T: Sendable>(_ body: (StoreConnection) async throws -> T) async throws -> T {
        try await StoreConnection.using(address, body)
    }
}
