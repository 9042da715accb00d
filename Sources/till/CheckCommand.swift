import ArgumentParser
import Dispatch
import Foundation
import TillCore
import TillIO
import TillModel
import TillProtocol

// `till check`: the whole journal file read and checked, where its cost is expected (a person asks, or a shift closed).

struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the whole journal: every page and index, and the report summary against the entries.",
        discussion: """
            Reads the whole file, so it takes longer the older the journal is (about a minute for a million entries, measured on 2 cores); a \
            progress line says how far it is. Till runs it by itself, in the background, when a shift closes. Other \
            commands do not read the whole file first: SQLite reports a damaged page when a command reads it, and the \
            journal is then marked damaged (a file beside it, JOURNAL.damaged) and refused by every command until \
            `till check` finds it whole again (after the last backup is restored, or the file repaired).
            Exit status: 0 whole, 2 no journal there, 3 damaged or unreadable.
            """)
    @OptionGroup var global: GlobalOptions
    @Flag(help: "No progress line and no summary, only the exit status (how till runs it when a shift closes).") var quiet = false

    func run() async throws {
        let settings = global.settings()
        let path = settings.resolvedJournalPath
        if quiet {
            // Run at shift close beside the cashier's till: it must outlive a closed window and yield to the till.
            signal(SIGHUP, SIG_IGN)
            setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        }
        let journal: Journal
        do { journal = try Journal(path: path, tipStyle: settings.resolvedTip, readOnly: true, checking: true) } catch let error as JournalOpenError {
            if !quiet { printToStandardError("till: \(error)") }
            throw ExitCode(2)
        } catch {
            if !quiet { printToStandardError("till: JOURNAL ERROR: cannot read the journal \(path): \(error)") }
            throw ExitCode(3)
        }
        let megabytes = Double(Self.fileSize(path) + Self.fileSize(path + "-wal")) / 1e6
        let progress = quiet ? nil : CheckProgress(megabytes: megabytes)
        let started = WallClock.monotonicNs()
        let outcome: Result<Void, any Error> = Result { try journal.checkWhole() }
        progress?.stop()
        journal.close()
        let seconds = Double(WallClock.monotonicNs() - started) / 1e9
        switch outcome {
        case .success:
            if !quiet { out("The journal \(path) is whole (" + String(format: "%.0f MB checked in %.1f s", megabytes, seconds) + ").") }
        case .failure(let error as JournalDamagedError):
            if !quiet { printToStandardError("till: JOURNAL ERROR: \(error)") }
            throw ExitCode(3)
        case .failure(let error):
            if !quiet { printToStandardError("till: JOURNAL ERROR: the check could not read the journal \(path): \(error)") }
            throw ExitCode(3)
        }
    }

    static func fileSize(_ path: String) -> Int64 {
        var st = stat()
        return lstat(path, &st) == 0 ? Int64(st.st_size) : 0
    }

    /// Starts `till check --quiet` on the journal, in a process of its own (its own process group: a Ctrl-C or a closed
    /// window of the till that started it does not stop it), and returns at once: the shift's close is said on screen
    /// without waiting for a check that reads the whole file. What it finds is the journal's damage mark, which every
    /// later command sees at its open.
    static func startInBackground(journal: String) {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, buf.count)
        guard n > 0 else { return }
        let exe = String(decoding: buf.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let argv = [exe, "check", "--quiet", "--journal", journal]
        guard case .success(let pid) = Spawn.start(argv, newGroup: true) else { return }
        // Reaped when it ends, so that a till left running leaves no zombie behind.
        let child = pid
        DispatchQueue.global(qos: .utility).async {
            var status: Int32 = 0
            while waitpid(child, &status, 0) == -1 && errno == EINTR {}
        }
    }

    /// Whether an outcome is a shift closed by the terminal: the moment for the check.
    static func closesShift(_ outcome: ActionOutcome) -> Bool {
        guard case .answered(let e) = outcome else { return false }
        return e.state == .approved && BatchAction.closes(e.action, answer: e.response)
    }
}

/// The check's progress on standard error while it reads: how long so far and how much this process has read (the
/// journal's pages, some of them more than once: SQLite reads each index's pages again for every row it checks).
/// On a terminal one line is rewritten twice a second; elsewhere a line is written every 10 seconds.
final class CheckProgress: @unchecked Sendable {
    private let timer: DispatchSourceTimer
    private let tty = isatty(STDERR_FILENO) != 0

    init(megabytes: Double) {
        let start = WallClock.monotonicNs()
        let readAtStart = CheckProgress.bytesRead()
        timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        let tty = self.tty
        printToStandardError(String(format: "till: checking the whole journal (%.0f MB)…", megabytes))
        timer.schedule(deadline: .now() + (tty ? 0.5 : 10), repeating: tty ? 0.5 : 10)
        timer.setEventHandler {
            let seconds = Double(WallClock.monotonicNs() - start) / 1e9
            let read = Double(CheckProgress.bytesRead() - readAtStart) / 1e6
            let line = String(format: "till: checking: %.0f s, %.0f MB read (the file is %.0f MB)", seconds, read, megabytes)
            StandardError.write(tty ? "\r" + line + "\u{1B}[K" : line + "\n")
        }
        timer.resume()
    }

    func stop() {
        timer.cancel()
        if tty { StandardError.write("\r\u{1B}[K") }
    }

    /// Bytes this process read through system calls so far (`rchar` of /proc/self/io).
    static func bytesRead() -> Int64 {
        let io = AtomicFile.read("/proc/self/io") ?? ""
        for line in io.split(separator: "\n") where line.hasPrefix("rchar:") {
            return Int64(line.dropFirst(6).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return 0
    }
}
