import Foundation

/// A database of its own on the store's server for a measure (`till-sync bench`, `till-sync fleet`), and a private
/// folder for its tills' journals and password files. Both go at the end, whatever happened, with the tills' roles
/// (roles are the server's, not the database's): the measure names them `role(kind, database, suffix)`.
enum ScratchDatabase {
    /// Runs `body` with the scratch database's address (the administrator's, on that database) and the folder.
    static func with<T>(_ admin: StoreAddress, kind: String, _ body: (_ scratch: StoreAddress, _ dir: String) async throws -> T) async throws -> T {
        let name = "till_\(kind)_" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        var server = admin
        server.database = "postgres"
        try await StoreAdmin(address: server).with { try await $0.execute("CREATE DATABASE \(name)") }
        var template = Array((NSTemporaryDirectory() + "/till-\(kind)-XXXXXX").utf8CString)
        let dir = String(cString: template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }!)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var scratch = admin
        scratch.database = name
        do {
            let result = try await body(scratch, dir)
            try await drop(server, name, kind: kind)
            return result
        } catch {
            try? await drop(server, name, kind: kind)
            throw error
        }
    }

    /// A till's role in the scratch database `database`: dropped with it.
    static func role(_ kind: String, _ database: String, _ suffix: String) -> String { "\(kind)_\(database)_\(suffix)" }

    static func drop(_ server: StoreAddress, _ name: String, kind: String) async throws {
        try await StoreAdmin(address: server).with { store in
            // A pooler may still hold connections of the tills to it: FORCE ends them.
            try await store.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            let roles = try await store.query("SELECT rolname::text FROM pg_roles WHERE rolname LIKE \(kind + "\\_" + name + "\\_%")").map { try $0.decode(String.self) }
            for chunk in stride(from: 0, to: roles.count, by: 200) {
                try await store.execute("DROP ROLE " + roles[chunk..<min(roles.count, chunk + 200)].joined(separator: ", "))
            }
        }
    }
}
