import Foundation
import PostgresNIO
import Testing
@testable import TillCore
@testable import TillStore

/// Runs a program to its end and expects it to succeed.
func runOK(_ argv: [String], dir: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let r = try Spawned(argv, dir: dir).wait()
    #expect(r.status == 0, "\(argv.joined(separator: " ")): \(r.err)", sourceLocation: sourceLocation)
}

extension StoreServerTests {
@Suite struct TLSTests {
    /// The test server made to speak TLS with a certificate of a test authority: till-sync with that authority
    /// connects and pushes; with another authority it is refused, and says the certificate was not accepted.
    @Test func tlsWithFullVerificationTakesTheRightCertificateOnlyAndSaysWhy() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        // A folder the server (run as postgres when the tests run as root) can read.
        let certs = s.dir + "-certs"
        try FileManager.default.createDirectory(atPath: certs, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: certs) }
        let ssl = "/usr/bin/env"
        try runOK([ssl, "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", certs + "/ca.key", "-out", certs + "/ca.pem",
                   "-days", "2", "-subj", "/CN=till test authority"], dir: s.dir)
        try runOK([ssl, "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", certs + "/other.key", "-out", certs + "/other.pem",
                   "-days", "2", "-subj", "/CN=another authority"], dir: s.dir)
        try runOK([ssl, "openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", certs + "/server.key", "-out", certs + "/server.csr",
                   "-subj", "/CN=localhost"], dir: s.dir)
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n".write(toFile: certs + "/ext.cnf", atomically: true, encoding: .utf8)
        try runOK([ssl, "openssl", "x509", "-req", "-in", certs + "/server.csr", "-CA", certs + "/ca.pem", "-CAkey", certs + "/ca.key",
                   "-CAcreateserial", "-out", certs + "/server.crt", "-days", "2", "-extfile", certs + "/ext.cnf"], dir: s.dir)
        chmod(certs + "/server.key", 0o600)
        if geteuid() == 0, let pw = getpwnam("postgres") {
            chown(certs + "/server.key", pw.pointee.pw_uid, pw.pointee.pw_gid)
            chown(certs + "/server.crt", pw.pointee.pw_uid, pw.pointee.pw_gid)
        }
        _ = try await s.adminRows(PostgresQuery(unsafeSQL: "ALTER SYSTEM SET ssl_cert_file = '\(certs)/server.crt'"))
        _ = try await s.adminRows(PostgresQuery(unsafeSQL: "ALTER SYSTEM SET ssl_key_file = '\(certs)/server.key'"))
        _ = try await s.adminRows("ALTER SYSTEM SET ssl = on")
        _ = try await s.adminRows("SELECT pg_reload_conf()")
        func reset() async throws {
            try await StoreAdmin(address: s.admin).with {
                try await $0.execute("ALTER SYSTEM RESET ssl; ALTER SYSTEM RESET ssl_cert_file; ALTER SYSTEM RESET ssl_key_file; SELECT pg_reload_conf()")
            }
        }
        do { try await checks() } catch { try? await reset(); throw error }
        try await reset()

        func checks() async throws {
        // The reload is asynchronous: until the server says ssl is on.
        let deadline = ContinuousClock.now + .seconds(20)
        var on = false
        while !on, ContinuousClock.now < deadline {
            on = try await s.adminRows("SHOW ssl").first?.decode(String.self) == "on"
            if !on { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(on)

        let a = try await s.addTill("A")
        let j = try Journal(path: a.journalPath)
        try shift(j, name: "m", at: 1_000, sales: [(1_250, 150)], close: true)
        var address = a.address
        address.host = "localhost"
        address.tlsOnLoopback = true
        address.caFile = certs + "/ca.pem"
        let r = try await Sync(journalPath: a.journalPath, address: address).pushOnce()
        let last = try j.outboxLastSeq()
        #expect(r.toSend == 0 && r.pushed == last)
        // The server saw this session over TLS.
        let encrypted = try await StoreConnection.connect(address)
        let rows = try await encrypted.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        #expect(try rows.first?.decode(Bool.self) == true)
        await encrypted.close()

        // Another authority's certificate is not the store's: refused before a password is sent, and said.
        address.caFile = certs + "/other.pem"
        let message = await expectRefused(nil) { _ = try await StoreConnection.connect(address) }
        #expect(message.contains("certificate was not accepted") && message.contains("--ca-file"), "\(message)")
        }
    }
}
}
