import Foundation
import Synchronization
import TillIO
import TillProtocol
#if canImport(Glibc)
import Glibc
#endif

/// Why the file drop cannot start: the folder is not this user's alone, or cannot be made.
public struct FileDropError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The file-drop transport (see README, "Transports"; the contract is stated there exactly as built here):
/// - the drop folder and its subfolders must be this user's alone (owner only, no group or other write): else
///   `start` refuses, naming the folder and the `chmod 700` that fixes it;
/// - till writes each request as `DIR/requests/<id>.url` (one line, atomically: hidden temp file, fsync, rename);
/// - the peer **claims** a request by `rename()` of `requests/<id>.url` into `DIR/claimed/` before reading it;
///   till **withdraws** a request by unlinking `requests/<id>.url`: one of the two renames/unlinks wins, so
///   "withdrawn: never sent" and "claimed: the peer has it" are decided without a race;
/// - the peer answers with `DIR/responses/<name>.url` (one line, written the same way; `<name>` is the request's id);
/// - till picks answers up through inotify (no polling), plus a scan at start for answers that arrived while it was
///   down; it reads only regular files (never opens a FIFO, a device, a link), without blocking;
/// - an answer is journaled, then moved to `DIR/archive/`; one that cannot be read or decoded, or is not a regular
///   file, is moved to `DIR/rejected/` with the reason beside it in `<name>.reason`.
public final class FileDropTransport: Transport, @unchecked Sendable {
    public let directory: String
    public var description: String { "file:" + directory }
    var requestsDir: String { directory + "/requests" }
    var responsesDir: String { directory + "/responses" }
    var archiveDir: String { directory + "/archive" }
    var rejectedDir: String { directory + "/rejected" }
    var claimedDir: String { directory + "/claimed" }
    /// The subfolders, in the order they are made and checked.
    var subfolders: [String] { [requestsDir, responsesDir, archiveDir, rejectedDir, claimedDir] }

    /// The largest answer file read (a callback URL is far smaller).
    static let answerLimit = 64 * 1024

    private struct State {
        var sink: (@Sendable (TransportEvent) -> Void)?
        /// Names handed to the controller and not yet archived or rejected (so a rescan does not deliver them twice).
        var delivered: Set<String> = []
        /// Names that could not be moved out of `responses/` (reported once; left alone until the next start, which
        /// reads them again).
        var stuck: Set<String> = []
        /// Request ids this run wrote and has not seen withdrawn or answered.
        var sent: Set<String> = []
        /// The task that watches `responses/`: `stop()` cancels it, which ends its wait at once, and waits for it.
        var watching: Task<Void, Never>?
    }
    private let state = Mutex(State())

    public init(directory: String) {
        var d = directory
        while d.count > 1 && d.hasSuffix("/") { d.removeLast() }
        self.directory = d
    }

    /// Makes the folders that are missing (`0700`) and checks that each is a real folder, this user's alone.
    /// `archive/` or `rejected/` taken by something that is not a folder (and not a link) does not stop till: answers
    /// are still journaled, and stay in `responses/` until it is fixed; that is returned as a warning to report.
    func prepareFolders() throws(FileDropError) -> [String] {
        var warnings: [String] = []
        if !Path.exists(directory) {
            do { try Path.makeDirectories(directory, mode: 0o700) } catch {
                throw FileDropError("The drop folder \(directory) cannot be made: \(error).")
            }
        }
        // The drop folder itself may be a link (to /srv/…); checked before anything is made inside it.
        if let p = PrivateFolder.problem(directory, allowLink: true) { throw FileDropError(p) }
        for d in subfolders {
            var st = stat()
            if lstat(d, &st) != 0 && errno == ENOENT && mkdir(d, 0o700) != 0 && errno != EEXIST {
                throw FileDropError("The folder \(d) cannot be made: \(String(cString: strerror(errno))).")
            }
            if d == archiveDir || d == rejectedDir, lstat(d, &st) == 0,
               !FileKind.isDirectory(st.st_mode), st.st_mode & S_IFMT != S_IFLNK {
                warnings.append("\(d) is \(FileKind.describe(st.st_mode)), not a folder: answers are journaled but stay in "
                                + "responses/ until it is fixed (move it away and run: mkdir -m 700 \(d)).")
                continue
            }
            if let p = PrivateFolder.problem(d, allowLink: false) { throw FileDropError(p) }
        }
        return warnings
    }

    public func start(sink: @escaping @Sendable (TransportEvent) -> Void) async throws -> [IncomingAnswer] {
        let warnings = try prepareFolders()
        let watcher = try DirectoryWatcher(directory: responsesDir)
        state.withLock { $0.sink = sink }
        for w in warnings { sink(.problem(w)) }
        // The watcher is on before the scan, so nothing that lands in between is missed (the set drops doubles).
        var backlog: [IncomingAnswer] = []
        // What is not whole yet (a file without its newline, closed a moment ago) is left to the rescan.
        for name in Path.list(responsesDir) where !name.hasPrefix(".") && looksWhole(name) {
            if let a = take(name) { backlog.append(a) }
        }
        let batches = watcher.eventBatches(thread: "till-file-drop", idleMs: 250)
        let watching = Task.detached { [weak self] in _ = await self?.watch(batches) }
        state.withLock { $0.watching = watching }
        return backlog
    }

    /// Reads one answer file, or rejects it for a reason that is about the file itself.
    private func take(_ name: String) -> IncomingAnswer? {
        let fresh = state.withLock { s -> Bool in
            if s.delivered.contains(name) || s.stuck.contains(name) { return false }
            s.delivered.insert(name)
            return true
        }
        guard fresh else { return nil }
        let path = responsesDir + "/" + name
        guard name.hasSuffix(".url") else {
            rejectNow(name, reason: "The file's name does not end in .url, so it is not an answer.")
            return nil
        }
        switch AtomicFile.readRegular(path, limit: FileDropTransport.answerLimit) {
        case .gone:
            // Someone else took it.
            _ = state.withLock { $0.delivered.remove(name) }
            return nil
        case .notRegular(let what):
            rejectNow(name, reason: "It is \(what), not a regular file: till reads answers only from regular files "
                      + "in responses/ (it never opens a FIFO or a device, and never follows a link out of the folder).")
            return nil
        case .tooLarge(let size):
            rejectNow(name, reason: "The file is \(size) bytes: too large to be a callback URL (at most 64 KiB).")
            return nil
        case .unreadable(let code):
            rejectNow(name, reason: "The file cannot be read: \(String(cString: strerror(code))).")
            return nil
        case .text(let raw):
            let lines = raw.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
                .map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
            if lines.isEmpty { rejectNow(name, reason: "The file is empty."); return nil }
            if lines.count > 1 {
                rejectNow(name, reason: "The file holds \(lines.count) lines; an answer is one line holding one callback URL.")
                return nil
            }
            return IncomingAnswer(text: lines[0], receipt: name, requestIdHint: String(name.dropLast(4)))
        }
    }

    /// How often `responses/` is listed besides the events: a file can arrive with no event telling it is whole (a
    /// name made by `link()` for a file written elsewhere, finished through its other name), and an event can be
    /// lost (the queue's overflow is reported, but a safety net costs one listing every two seconds).
    static let rescanMs: Int64 = 2_000
    /// A file that does not end in a newline is taken once it has not changed for this long (its writer is done).
    static let settledMs: Int64 = 5_000

    /// Whether a regular file in `responses/` that was not renamed in looks whole: ending in a newline (an answer is
    /// one line), or unchanged for `settledMs` and open for writing nowhere. A close alone does not say it: a writer
    /// that closed after `amount=5` of `amount=5000` and opened the file again to write the rest had 0.05 taken (and
    /// the rest never read). An empty file is whole by the same rule (then rejected as empty). Not a regular file: true
    /// (it is rejected at once; nothing more is coming). Never blocks (`lstat`, then a non-blocking open).
    private func looksWhole(_ name: String) -> Bool {
        let path = responsesDir + "/" + name
        var st = stat()
        guard lstat(path, &st) == 0 else { return false }
        guard FileKind.isRegular(st.st_mode) else { return true }
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var last: UInt8 = 0
        guard fstat(fd, &st) == 0, FileKind.isRegular(st.st_mode) else { return false }
        if st.st_size > 0, pread(fd, &last, 1, off_t(st.st_size - 1)) == 1, last == UInt8(ascii: "\n") { return true }
        let ageMs = WallClock.nowMs() - (Int64(st.st_mtim.tv_sec) * 1000 + Int64(st.st_mtim.tv_nsec) / 1_000_000)
        return ageMs >= FileDropTransport.settledMs && !Self.openForWriting(fd)
    }

    /// Whether some process holds the file open for writing: Linux grants a read lease only when none does. Where
    /// leases are not to be had (another filesystem, leases switched off), false: the age alone decides, as before.
    static func openForWriting(_ fd: Int32) -> Bool {
        let setLease: Int32 = 1024   // F_SETLEASE, Linux's (glibc declares it only under _GNU_SOURCE, so Swift sees none)
        if fcntl(fd, setLease, Int32(F_RDLCK)) == 0 { _ = fcntl(fd, setLease, Int32(F_UNLCK)); return false }
        return errno == EAGAIN || errno == EBUSY
    }

    /// Takes what lands in `responses/` until the task is cancelled: each batch of events as it comes, and a listing
    /// every `rescanMs` (an idle batch, empty, comes every 250 ms).
    private func watch(_ batches: AsyncMapSequence<DescriptorReader, [DirectoryWatcher.Event]>) async {
        var lastScan = WallClock.nowMs()
        for await events in batches {
            let sink = self.sink
            for event in events {
                switch event.kind {
                case .renamedIn:
                    if let a = take(event.name) { sink?(.answer(a)) }
                case .complete:
                    // Closed after writing: whole if it ends in its newline; else the rescan takes it once it has been
                    // closed and unchanged for `settledMs` (its writer may open it again to write the rest).
                    if looksWhole(event.name), let a = take(event.name) { sink?(.answer(a)) }
                case .created:
                    // A regular file made in place is still being written, and its close brings it; but a name made
                    // by `link()` or `mknod` gets no other event: taken now if it is whole (or not a regular file),
                    // else by the close or by the rescan below.
                    if looksWhole(event.name), let a = take(event.name) { sink?(.answer(a)) }
                case .modified:
                    break  // not asked for
                case .overflow:
                    for name in Path.list(responsesDir) where !name.hasPrefix(".") && looksWhole(name) {
                        if let a = take(name) { sink?(.answer(a)) }
                    }
                }
            }
            let now = WallClock.nowMs()
            if now - lastScan >= FileDropTransport.rescanMs {
                lastScan = now
                let known = state.withLock { $0.delivered.union($0.stuck) }
                for name in Path.list(responsesDir) where !name.hasPrefix(".") && !known.contains(name) && looksWhole(name) {
                    if let a = take(name) { sink?(.answer(a)) }
                }
            }
        }
    }

    private var sink: (@Sendable (TransportEvent) -> Void)? { state.withLock { $0.sink } }

    /// Moves `responses/<name>` into `folder`, under a name not taken there. Nil when it was moved; else the error.
    /// Either way the answer is no longer being delivered; one that could not be moved (and is not gone) is stuck:
    /// skipped until the next start.
    private func moveOut(_ name: String, to folder: String) -> (target: String, error: FileError?) {
        let target = uniqueName(in: folder, name)
        var failure: FileError?
        do {
            try AtomicFile.move(responsesDir + "/" + name, to: folder + "/" + target)
        } catch let e as FileError {
            failure = e
        } catch {
            failure = FileError(path: responsesDir + "/" + name, operation: "move", code: EIO)
        }
        state.withLock { s in
            s.delivered.remove(name)
            if let failure, failure.code != ENOENT { s.stuck.insert(name) }
        }
        return (target, failure)
    }

    /// Sets `responses/<name>` aside in `rejected/` with `<name>.reason`; one that cannot be moved is reported once
    /// and skipped until the next start.
    private func setAside(_ name: String, reason: String) {
        let (target, error) = moveOut(name, to: rejectedDir)
        if let error {
            if error.code != ENOENT {
                sink?(.problem("The file \(name) in \(responsesDir) is not an answer (\(reason)) and could not be moved to "
                               + "rejected/ (\(error)); till skips it until its next start. Remove it by hand."))
            }
            return
        }
        do { try AtomicFile.write(reason + "\n", to: rejectedDir + "/" + target + ".reason") } catch {
            sink?(.problem("Could not write rejected/\(target).reason: \(error)"))
        }
    }

    private func rejectNow(_ name: String, reason: String) {
        setAside(name, reason: reason)
        sink?(.rejected(file: name, reason: reason))
    }

    /// The name itself when free; else the name with when and a random tag after it, so a peer that reuses its
    /// answers' names costs one look, not one per earlier answer of that name.
    private func uniqueName(in dir: String, _ name: String) -> String {
        if !Path.exists(dir + "/" + name) { return name }
        while true {
            let candidate = name + "." + String(WallClock.nowMs()) + "-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
            if !Path.exists(dir + "/" + candidate) { return candidate }
        }
    }

    /// A request id becomes a file name: it must be one plain name.
    private static func isPlainName(_ id: String) -> Bool {
        !id.isEmpty && !id.hasPrefix(".") && !id.contains("/") && !id.utf8.contains(0) && id.utf8.count <= 200
    }

    public func send(id: String, url: String) async throws(TransportError) {
        guard FileDropTransport.isPlainName(id) else { throw .notSent("The request id '\(id)' cannot be a file name.") }
        do {
            try AtomicFile.write(url + "\n", to: requestsDir + "/" + id + ".url")
        } catch {
            throw .notSent("Could not write the request to \(requestsDir): \(error)")
        }
        _ = state.withLock { $0.sent.insert(id) }
    }

    /// The answer is journaled: moves it to `archive/`. A failure is reported loudly; the file stays in
    /// `responses/`, is not taken again in this run, and is delivered again at the next start (where the controller
    /// recognises it as already journaled and only archives it). Also clears a request the peer answered without
    /// claiming it (its file still in `requests/`), so it can never run again.
    public func leave(_ answer: IncomingAnswer) async {
        guard let name = answer.receipt else { return }
        _ = state.withLock { $0.delivered.remove(name) }
    }

    public func acknowledge(_ answer: IncomingAnswer) async {
        if let id = answer.requestIdHint, state.withLock({ $0.sent.contains(id) }) {
            let path = requestsDir + "/" + id + ".url"
            if unlink(path) == 0 {
                AtomicFile.syncDirectory(requestsDir)
                sink?(.problem("The terminal app answered request \(id) without claiming it (its file was still in "
                               + "requests/); till removed it so it cannot run again. The app must claim a request by "
                               + "renaming it into claimed/ before reading it."))
            }
            _ = state.withLock { $0.sent.remove(id) }
        }
        guard let name = answer.receipt else { return }
        let (_, error) = moveOut(name, to: archiveDir)
        if let error {
            if error.code == ENOENT {
                sink?(.problem("The answer \(name) is journaled, but it was removed from responses/ before till could archive it."))
            } else {
                sink?(.problem("The answer \(name) is journaled, but it could not be moved to archive/ (\(error)). It stays in "
                               + "responses/; till reads it again at its next start and only archives it then (never a "
                               + "second sale). Check that \(archiveDir) is a folder till can write to."))
            }
        }
    }

    public func reject(_ answer: IncomingAnswer, reason: String) async {
        guard let name = answer.receipt else { return }
        setAside(name, reason: reason)
    }

    /// Withdraws `requests/<id>.url` by unlinking it. Success: the peer never claimed it and never will.
    /// `ENOENT`: the peer claimed it (renamed it into `claimed/`): the outcome is unknown. Any other error leaves the
    /// file where it is and is reported: the peer may still take it, so that is not "never sent" either.
    public func withdrawIfUnclaimed(id: String) async -> Bool {
        guard FileDropTransport.isPlainName(id) else { return false }
        let path = requestsDir + "/" + id + ".url"
        if unlink(path) == 0 {
            AtomicFile.syncDirectory(requestsDir)
            _ = state.withLock { $0.sent.remove(id) }
            return true
        }
        let code = errno
        _ = state.withLock { $0.sent.remove(id) }
        if code != ENOENT {
            sink?(.problem("Could not withdraw the request \(path): \(String(cString: strerror(code))). The terminal app "
                           + "may still take it."))
        }
        return false
    }

    /// Till gave up waiting: withdraw the request if the peer never claimed it.
    public func gaveUp(on id: String) async -> Bool { await withdrawIfUnclaimed(id: id) }

    public func unclaimedRequestIds() async -> [String] {
        Path.list(requestsDir).filter { !$0.hasPrefix(".") && $0.hasSuffix(".url") && $0.count > 4 }.map { String($0.dropLast(4)) }
    }

    public func stop() async {
        let watching = state.withLock { s -> Task<Void, Never>? in
            s.sink = nil
            defer { s.watching = nil }
            return s.watching
        }
        watching?.cancel()
        await watching?.value
    }
}
