import Foundation
import Testing
@testable import TillCore
import TillIO
import TillProtocol
#if canImport(Glibc)
import Glibc
#endif

/// Issue 33, item 11: the journal is guarded like the config and the drop folder: whoever can replace it (its folder
/// writable by others, the file another user's) could swap or forge the books, and an export never writes onto it.
@Suite(.serialized) struct JournalGuardTests {
    @Test func aJournalInAFolderOthersCanWriteIsRefused() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let shared = dir.path + "/shared"
        try Path.makeDirectories(shared, mode: 0o700)
        chmod(shared, 0o777)
        #expect(throws: (any Error).self) { _ = try Journal(path: shared + "/journal.sqlite") }
        #expect(!Path.exists(shared + "/journal.sqlite"))
        let r = try await runTillCapturing(["journal", "--journal", shared + "/journal.sqlite"])
        #expect(r.status != 0 && r.errors.contains("writable by every user") && r.errors.contains("chmod 700"), "\(r.errors)")
        chmod(shared, 0o770)   // the group's write is refused too
        let g = try await runTillCapturing(["sale", "--amount", "1", "--sim-speed", "0", "--journal", shared + "/journal.sqlite"])
        #expect(g.status != 0 && g.errors.contains("writable by"), "\(g.errors)")
        #expect(!Path.exists(shared + "/journal.sqlite"))
        chmod(shared, 0o700)
        _ = try Journal(path: shared + "/journal.sqlite")   // this user's alone: used
    }

    @Test func aJournalFileOfAnotherUserIsRefused() async throws {
        guard geteuid() == 0 else { return }   // only root can give a file away
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.path + "/journal.sqlite"
        #expect(try await runTill(["batch", "open", "--name", "x", "--sim-speed", "0", "--journal", path]).status == 0)
        #expect(chown(path, 65534, 65534) == 0)
        let r = try await runTillCapturing(["journal", "--journal", path])
        #expect(r.status != 0 && r.errors.contains("belongs to another user"), "\(r.errors)")
    }

    @Test func anExportNeverWritesOntoTheJournalOrItsSideFiles() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.path + "/journal.sqlite"
        let common = ["--journal", path, "--sim-speed", "0"]
        #expect(try await runTill(["batch", "open", "--name", "x"] + common).status == 0)
        #expect(try await runTill(["sale", "--amount", "12"] + common).status == 0)
        #expect(link(path, dir.path + "/other-name.sqlite") == 0)
        for target in [path, dir.path + "/./journal.sqlite", dir.path + "/other-name.sqlite", path + "-wal", path + "-shm", path + ".lock"] {
            let r = try await runTillCapturing(["export", "--output", target] + common)
            #expect(r.status != 0 && r.errors.contains("journal"), "\(target): \(r.errors)")
            let after = try await runTill(["journal", "--json"] + common)
            #expect(after.status == 0 && after.output.contains("\"approved\""), "\(target) overwrote the journal")
        }
        let ok = try await runTillCapturing(["export", "--output", dir.path + "/shift.csv"] + common)
        #expect(ok.status == 0 && (AtomicFile.read(dir.path + "/shift.csv") ?? "").contains("approved"))
    }
}
