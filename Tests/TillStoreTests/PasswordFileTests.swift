import Foundation
import Testing
import TillIO
@testable import TillStore

/// The store's password file: read only when it is this user's own regular file that no one else can read, judged
/// on what was opened (no PostgreSQL needed).
@Suite struct PasswordFileTests {
    static func folder() throws -> String {
        let dir = NSTemporaryDirectory() + "till-password-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        return dir
    }

    @Test func onlyThisUsersPrivateRegularFileIsRead() throws {
        let dir = try Self.folder(); defer { try? FileManager.default.removeItem(atPath: dir) }
        let good = dir + "/good.password"
        try AtomicFile.write("s3cret\n", to: good, mode: 0o600)
        #expect(try StoreAddress.readPassword(good) == "s3cret")

        func refusal(_ path: String) -> String {
            do { _ = try StoreAddress.readPassword(path); return "read" } catch { return "\(error)" }
        }
        let loose = dir + "/loose.password"
        try AtomicFile.write("s3cret\n", to: loose, mode: 0o644)
        #expect(refusal(loose).contains("can be read by others (mode 644); make it 0600: chmod 600"), "\(refusal(loose))")
        #expect(symlink(good, dir + "/link.password") == 0)
        #expect(refusal(dir + "/link.password").contains("is a symbolic link, not a regular file"), "\(refusal(dir + "/link.password"))")
        #expect(mkfifo(dir + "/fifo.password", 0o600) == 0)
        #expect(refusal(dir + "/fifo.password").contains("not a regular file"))   // and it returns: a FIFO is never opened
        #expect(refusal(dir + "/none.password").contains("there is no such file"))
        // Another user's file, 0600 (made where the tests can: as root), reached by a hard link in this user's
        // folder: refused.
        if geteuid() == 0 {
            let theirs = dir + "/theirs"
            try AtomicFile.write("not-yours\n", to: theirs, mode: 0o600)
            #expect(chown(theirs, 65_534, 65_534) == 0)
            #expect(link(theirs, dir + "/hard.password") == 0)
            #expect(refusal(dir + "/hard.password").contains("belongs to another user"))
        }
    }

    /// The check sees the file that is then read, and a refusal there reads nothing.
    @Test func theCheckSeesWhatWasOpened() throws {
        let dir = try Self.folder(); defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/f"
        try AtomicFile.write("abc", to: path, mode: 0o600)
        var st = stat()
        #expect(lstat(path, &st) == 0)
        var seen: ino_t = 0
        #expect(AtomicFile.readRegular(path, limit: 100, checkOpened: { seen = $0.st_ino }) == .text("abc"))
        #expect(seen == st.st_ino)
        struct No: Error {}
        #expect(throws: No.self) { _ = try AtomicFile.readRegular(path, limit: 100, checkOpened: { _ in throw No() }) }
    }
}
