import Foundation
import Logging
import PostgresNIO
#if canImport(Glibc)
import Glibc
#endif

/// Where the store is and who logs in. Only a unix socket folder or a loopback address: TLS with full verification is
/// not built yet, and a password never crosses a network in the clear.
public struct StoreAddress: Sendable, Hashable {
    /// A folder holding the server's unix socket (starts with `/`), or a loopback host (`localhost`, `127.x.x.x`, `::1`).
    public var host: String
    public var port: Int
    public var database: String
    public var user: String
    /// A file only its owner can read (0600 or stricter) holding the password; nil: none (peer or trust authentication).
    public var passwordFile: String?

    public init(host: String, port: Int = 5432, database: String, user: String, passwordFile: String? = nil) {
        self.host = host; self.port = port; self.database = database; self.user = user; self.passwordFile = passwordFile
    }

    public var isUnixSocket: Bool { host.hasPrefix("/") }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.split(separator: ".").first == "127"
            && host.split(separator: ".").count == 4 && host.split(separator: ".").allSatisfy { UInt8($0) != nil }
    }

    func configuration() throws -> PostgresConnection.Configuration {
        let password = try passwordFile.map(StoreAddress.readPassword)
        if isUnixSocket {
            return .init(unixSocketPath: host + "/.s.PGSQL.\(port)", username: user, password: password, database: database)
        }
        guard StoreAddress.isLoopback(host) else {
            throw StoreError("the store at \(host) is not on this machine: till-sync talks to a store over a unix socket or loopback only (TLS is not built yet)")
        }
        return .init(host: host, port: port, username: user, password: password, database: database, tls: .disable)
    }

    /// The password, from a regular file of this user's that no one else can read or write (0600 or stricter).
    public static func readPassword(_ path: String) throws -> String {
        var st = stat()
        guard lstat(path, &st) == 0 else { throw StoreError("cannot read the password file \(path): \(String(cString: strerror(errno)))") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw StoreError("the password file \(path) is not a regular file") }
        guard st.st_uid == geteuid() else { throw StoreError("the password file \(path) belongs to another user; it must be this user's own") }
        guard (st.st_mode & 0o077) == 0 else {
            throw StoreError(String(format: "the password file %@ can be read by others (mode %o); make it 0600: chmod 600 %@", path, Int(st.st_mode & 0o777), path))
        }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw StoreError("cannot read the password file \(path)")
        }
        let password = text.trimmingCharacters(in: .newlines)
        guard !password.isEmpty else { throw StoreError("the password file \(path) is empty") }
        return password
    }
}

/// A refusal or failure, worded for the person running till-sync.
public struct StoreError: Error, Sendable, CustomStringConvertible, Equatable {
    public var message: String
    /// The server's SQLSTATE when the store said it.
    public var sqlState: String?
    /// The network or the server, not a refusal: worth trying again later.
    public var transient: Bool
    public init(_ message: String, sqlState: String? = nil, transient: Bool = false) {
        self.message = message; self.sqlState = sqlState; self.transient = transient
    }
    public var description: String { message }
}

/// One connection to the store.
public final class StoreConnection: Sendable {
    let connection: PostgresConnection
    let logger: Logger

    public static func connect(_ address: StoreAddress) async throws -> StoreConnection {
        var logger = Logger(label: "till-sync")
        // Our own messages say what went wrong; the driver's would repeat them in its words.
        logger.logLevel = .critical
        let config = try address.configuration()
        do {
            return StoreConnection(try await PostgresConnection.connect(configuration: config, id: 1, logger: logger), logger: logger)
        } catch {
            throw StoreConnection.explain(error, doing: "connect to the store as \(address.user) at \(address.host) port \(address.port)")
        }
    }

    init(_ c: PostgresConnection, logger: Logger) { connection = c; self.logger = logger }

    public func close() async { try? await connection.close() }

    /// Runs a script of statements (migrations, DDL), one after the other; the first that fails ends it.
    func execute(_ sql: String) async throws {
        for statement in SQLScript.statements(sql) {
            do {
                for try await _ in try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) {}
            } catch { throw StoreConnection.explain(error, doing: "run SQL on the store") }
        }
    }

    @discardableResult
    func query(_ q: PostgresQuery) async throws -> [PostgresRow] {
        do {
            var rows: [PostgresRow] = []
            for try await row in try await connection.query(q, logger: logger) { rows.append(row) }
            return rows
        } catch { throw StoreConnection.explain(error, doing: "query the store") }
    }

    /// The server's own words (and SQLSTATE) when it refused; the connection's failure otherwise.
    static func explain(_ error: any Error, doing what: String) -> StoreError {
        if let e = error as? StoreError { return e }
        if let p = error as? PSQLError {
            if let message = p.serverInfo?[.message] {
                let state = p.serverInfo?[.sqlState]
                var text = message
                if let hint = p.serverInfo?[.hint] { text += " (\(hint))" }
                if state == "28P01" { text = "wrong password: \(message)" }
                // 08: connection exceptions; 57P: the server shutting down; 53: out of resources; 40: serialization.
                let transient = state.map { s in ["08", "57P", "53", "40"].contains { s.hasPrefix($0) } } ?? true
                return StoreError("cannot \(what): \(text)", sqlState: state, transient: transient)
            }
            return StoreError("cannot \(what): \(p.code)" + (p.underlying.map { " (\($0))" } ?? ""), transient: true)
        }
        return StoreError("cannot \(what): \(error)", transient: true)
    }
}
