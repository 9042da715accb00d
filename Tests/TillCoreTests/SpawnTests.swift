import Foundation
import Testing
import TillIO

/// What a program till starts (a pipe bridge, `till check` in the background) gets of till's open files.
@Suite struct SpawnTests {
    /// A descriptor till inherited without close-on-exec (its caller's socket or pipe, as Foundation's `Process`
    /// leaves them) must not reach the child: a bridge that lingers after its till would hold the caller's pipe open
    /// and keep a script waiting for till's end, and a hostile bridge must get nothing of till's but its three files.
    @Test func aChildKeepsOnlyItsThreeStandardFiles() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        #expect(fcntl(ends[1], F_GETFD) & FD_CLOEXEC == 0, "the pipe is inherited unless the spawn closes it")
        let pid = try Spawn.start(["/bin/sleep", "5"]).get()
        defer { kill(pid, SIGKILL); var status: Int32 = 0; waitpid(pid, &status, 0) }
        // The child's files, once it runs sleep (its /proc entry shows the program after exec).
        var files: [String] = []
        for _ in 0..<500 {
            if (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.hasPrefix("sleep") == true {
                files = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
                break
            }
            usleep(2_000)
        }
        #expect(files.sorted() == ["0", "1", "2"], "the child holds \(files.sorted())")
    }
}
