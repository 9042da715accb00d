import Foundation
import Logging
import PostgresNIO
import Synchronization
import TillIO
#if canImport(Glibc)
import Glibc
#endif

/// Where the store is and who logs in. A unix socket folder or a loopback address is spoken to without TLS (nothing
/// crosses a network); any other host only over TLS with full verification (the certificate chains to a trusted
/// authority, `caFile` or the system's, and names the host), so a password never crosses a network in the clear or to
/// a server that is not the store.
public struct StoreAddress: Sendable, Hashable {
    /// A folder holding the server's unix socket (starts with `/`), or a loopback host (`localhost`, `127.x.x.x`, `::1`).
    public var host: String
    public var port: Int
    public var database: String
    public var user: String
    /// A file only its owner can read (0600 or stricter) holding the password; nil: none (peer or trust authentication).
    public var passwordFile: String?
    /// The certificate authorities (PEM) that may sign the store's certificate; nil: the system's.
    public var caFile: String?
    /// TLS with full verification on loopback too (a tunnel's end on this machine, or a test of TLS itself).
    public var tlsOnLoopback: Bool
    /// How long logging in, or a statement, may wait for the store's answer before the connection is given up: a
    /// network gone without a word sends no reset, and a service must not wait on it for ever.
    public var timeout: Duration = .seconds(60)

    public init(host: String, port: Int = 5432, database: String, user: String, passwordFile: String? = nil,
                caFile: String? = nil, tlsOnLoopback: Bool = false) {
        self.host = host; self.port = port; self.database = database; self.user = user; self.passwordFile = passwordFile
        self.caFile = caFile; self.tlsOnLoopback = tlsOnLoopback
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
        if StoreAddress.isLoopback(host) && !tlsOnLoopback {
            return .init(host: host, port: port, username: user, password: password, database: database, tls: .disable)
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        tls.minimumTLSVersion = .tlsv12
        if let caFile {
            guard FileManager.default.isReadableFile(atPath: caFile) else {
                throw StoreError("cannot read the store's certificate authority file \(caFile)")
            }
            tls.trustRoots = .file(caFile)
        }
        let context: NIOSSLContext
        do { context = try NIOSSLContext(configuration: tls) } catch {
            throw StoreError("cannot use the certificate authority file \(caFile ?? "(the system's)"): \(error)")
        }
        return .init(host: host, port: port, username: user, password: password, database: database, tls: .require(context))
    }

    /// The password, from a regular file of this user's that no one else can read or write (0600 or stricter).
    public static func readPassword(_ path: String) throws -> String {
        // Never following a link, and the owner and mode checked on what was opened: a file swapped after a look
        // at the path (for a link to someone else's secret, a FIFO, a file another user can read) is refused, not read.
        let text: String
        let read = try AtomicFile.readRegular(path, limit: 4096) { st in
            guard st.st_uid == geteuid() else { throw StoreError("the password file \(path) belongs to another user; it must be this user's own") }
            guard (st.st_mode & 0o077) == 0 else {
                throw StoreError(String(format: "the password file %@ can be read by others (mode %o); make it 0600: chmod 600 %@", path, Int(st.st_mode & 0o777), path))
            }
        }
        switch read {
        case .text(let t): text = t
        case .notRegular(let what): throw StoreError("the password file \(path) is \(what), not a regular file")
        case .tooLarge: throw StoreError("the password file \(path) is larger than a password (4 KiB)")
        case .gone: throw StoreError("cannot read the password file \(path): there is no such file")
        case .unreadable(let e): throw StoreError("cannot read the password file \(path): \(String(cString: strerror(e)))")
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
    /// A connection for `body` alone: closed when it returns or throws.
    static func using<T: Sendable>(_ address: StoreAddress, _ body: (StoreConnection) async throws -> T) async throws -> T {
        let store = try await StoreConnection.connect(address)
        do {
            let r = try await body(store)
            await store.close()
            return r
        } catch {
            await store.close()
            throw error
        }
    }

    let connection: PostgresConnection
    let logger: Logger

    public static func connect(_ address: StoreAddress) async throws -> StoreConnection {
        var logger = Logger(label: "till-sync")
        // Our own messages say what went wrong; the driver's would repeat them in its words.
        logger.logLevel = .critical
        let config = try address.configuration()
        let log = logger
        do {
            let c = try await withDeadline(address.timeout, what: "log in to the store") {
                try await PostgresConnection.connect(configuration: config, id: 1, logger: log)
            }
            return StoreConnection(c, logger: logger, timeout: address.timeout)
        } catch {
            throw StoreConnection.explain(error, doing: "connect to the store as \(address.user) at \(address.host) port \(address.port)")
        }
    }

    let timeout: Duration

    init(_ c: PostgresConnection, logger: Logger, timeout: Duration) { connection = c; self.logger = logger; self.timeout = timeout }

    /// How long closing may take.
    static let closeTimeout = Duration.seconds(5)

    /// Closes the connection, waiting at most `closeTimeout`: a connection the store dropped mid-answer was seen to
    /// leave close() waiting for ever, which held a finished `push --once` alive.
    public func close() async {
        let c = connection
        _ = try? await StoreConnection.withDeadline(StoreConnection.closeTimeout, what: "close the connection") { try? await c.close() }
    }

    /// The body's result, or a transient StoreError when it has not finished by the deadline (it is left to end on its
    /// own: the connection it waits on is closed by the caller's error path).
    static func withDeadline<T: Sendable>(_ limit: Duration, what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let once = Once<Result<T, any Error>>()
        return try await withCheckedThrowingContinuation { continuation in
            once.set { continuation.resume(with: $0) }
            let timer = Task {
                try await Task.sleep(for: limit)
                once.fire(.failure(StoreError("cannot \(what): the store did not answer within \(limit.components.seconds) s", transient: true)))
            }
            Task {
                do { once.fire(.success(try await body())) } catch { once.fire(.failure(error)) }
                timer.cancel()
            }
        }
    }

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
        let (c, logger) = (connection, logger)
        do {
            return try await StoreConnection.withDeadline(timeout, what: "query the store") {
                var rows: [PostgresRow] = []
                for try await row in try await c.query(q, logger: logger) { rows.append(row) }
                return rows
            }
        } catch { throw StoreConnection.explain(error, doing: "query the store") }
    }

    /// Runs a query and hands each row to `body` as it comes off the wire: the driver asks the server for more only as
    /// rows are taken, so a result of millions of rows holds a few of them in memory at a time.
    func forEachRow(_ q: PostgresQuery, _ body: (PostgresRow) async throws -> Void) async throws {
        let (c, logger) = (connection, logger)
        let rows: PostgresRowSequence
        // Until the store answers, as long as any statement may take (`timeout`); the rows then come as they are read.
        do { rows = try await StoreConnection.withDeadline(timeout, what: "query the store") { try await c.query(q, logger: logger) } }
        catch { throw StoreConnection.explain(error, doing: "query the store") }
        var iterator = rows.makeAsyncIterator()
        while true {
            let row: PostgresRow?
            do { row = try await iterator.next() } catch { throw StoreConnection.explain(error, doing: "read the store's answer") }
            guard let row else { return }
            try await body(row)
        }
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
                // More tills at work at once than the server takes connections: a person must know it is the store's
                // size, not this till (the sync tries again on its back-off meanwhile).
                if state == "53300" {
                    text = "the store takes no more connections (\(message)): more tills are connected at once than its max_connections allows; its administrator raises it or puts a pooler (PgBouncer) in front of it, see docs/store.md"
                }
                // 08: connection exceptions; 57P: the server shutting down; 53: out of resources; 40: serialization.
                let transient = state.map { s in ["08", "57P", "53", "40"].contains { s.hasPrefix($0) } } ?? true
                return StoreError("cannot \(what): \(text)", sqlState: state, transient: transient)
            }
            if p.code == .sslUnsupported {
                return StoreError("cannot \(what): the store does not speak TLS, and till-sync sends no password over a network without it", transient: false)
            }
            if let u = p.underlying, u is NIOSSLError || u is BoringSSLError || "\(type(of: u))".contains("SSL") {
                return StoreError("cannot \(what): the store's certificate was not accepted (\(u)); check --ca-file, and that --host is the name the certificate was made for", transient: false)
            }
            // The driver's own words name its types; a person needs what to check.
            let underlying = p.underlying.map { "\($0)" } ?? ""
            if underlying.contains("Connection refused") {
                return StoreError("cannot \(what): nothing answers there (connection refused): is the store running, and are --host and --port right?", transient: true)
            }
            if underlying.contains("UnknownHost") {
                return StoreError("cannot \(what): no such host (the name does not resolve): check --host", transient: true)
            }
            return StoreError("cannot \(what): \(p.code)" + (p.underlying.map { " (\($0))" } ?? ""), transient: true)
        }
        if error is NIOSSLError || error is BoringSSLError {
            return StoreError("cannot \(what): the store's certificate was not accepted (\(error)); check --ca-file, and that --host is the name the certificate was made for", transient: false)
        }
        return StoreError("cannot \(what): \(error)", transient: true)
    }
}

/// Resumes a continuation once, with whichever result comes first.
final class Once<T: Sendable>: Sendable {
    private struct State {
        var resume: (@Sendable (T) -> Void)?
        /// A result that came before `set`.
        var early: T?
        var done = false
    }
    private let state = Mutex(State())

    func set(_ f: @escaping @Sendable (T) -> Void) {
        let early: T? = state.withLock { s in
            if let early = s.early, !s.done { s.done = true; return early }
            s.resume = f
            return nil
        }
        if let early { f(early) }
    }

    func fire(_ value: T) {
        let f: (@Sendable (T) -> Void)? = state.withLock { s in
            guard !s.done else { return nil }
            guard let f = s.resume else { s.early = s.early ?? value; return nil }
            s.done = true
            s.resume = nil
            return f
        }
        f?(value)
    }
}
