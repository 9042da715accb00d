import Foundation
import TillIO
#if canImport(Glibc)
import Glibc
#endif

/// The file-drop transport (see README, "transports"):
/// - till writes each request as `DIR/requests/<id>.url` (one line, atomically: hidden temp file, fsync, rename);
///   the peer deletes the request files it took;
/// - the peer answers with `DIR/responses/<name>.url` (one line, written the same way; `<name>` is the request's id);
/// - till picks answers up through inotify (no polling), plus a scan at start for answers that arrived while it was down;
/// - an answer is journaled, then moved to `DIR/archive/`; one that cannot be read or decoded is moved to
///   `DIR/rejected/` with the reason beside it in `<name>.reason`.
public final class FileDropTransport: Transport, @unchecked Sendable {
    public let directory: String
    public var description: String { "file:" + directory }
    var requestsDir: String { directory + "/requests" }
    var responsesDir: String { directory + "/responses" }
    var archiveDir: String { directory + "/archive" }
    var rejectedDir: String { directory + "/rejected" }

    private struct State {
        var sink: (@Sendable (TransportEvent) -> Void)?
        /// Names handed to the controller and not yet archived or rejected (so a rescan does not deliver them twice).
        var delivered: Set<String> = []
        var stopping = false
        var running = false
    }
    private let state = Locked(State())
    private let finished = DispatchSemaphore(value: 0)

    public init(directory: String) {
        var d = directory
        while d.count > 1 && d.hasSuffix("/") { d.removeLast() }
        self.directory = d
    }

    public func start(sink: @escaping @Sendable (TransportEvent) -> Void) async throws -> [IncomingAnswer] {
        for d in [directory, requestsDir, responsesDir, archiveDir, rejectedDir] where !Path.exists(d) {
            try Path.makeDirectories(d, mode: 0o700)
        }
        let watcher = try DirectoryWatcher(directory: responsesDir)
        state.withLock { $0.sink = sink; $0.running = true }
        // The watcher is on before the scan, so nothing that lands in between is missed (the set drops doubles).
        var backlog: [IncomingAnswer] = []
        for name in Path.list(responsesDir) where !name.hasPrefix(".") {
            if let a = take(name) { backlog.append(a) }
        }
        let box = UncheckedBox(watcher)
        let t = Thread { [weak self] in
            guard let self else { return }
            self.watchLoop(box.value)
        }
        t.name = "till-file-drop"
        t.start()
        return backlog
    }

    /// Reads one answer file, or rejects it for a reason that is about the file itself.
    private func take(_ name: String) -> IncomingAnswer? {
        let fresh = state.withLock { s -> Bool in
            if s.delivered.contains(name) { return false }
            s.delivered.insert(name)
            return true
        }
        guard fresh else { return nil }
        let path = responsesDir + "/" + name
        guard name.hasSuffix(".url") else {
            rejectNow(name, reason: "The file's name does not end in .url, so it is not an answer.")
            return nil
        }
        var st = stat()
        if stat(path, &st) == 0 && st.st_size > 64 * 1024 {
            rejectNow(name, reason: "The file is \(st.st_size) bytes: too large to be a callback URL.")
            return nil
        }
        guard let raw = AtomicFile.read(path, limit: 64 * 1024) else {
            // Gone already (someone else took it) or unreadable.
            if Path.exists(path) { rejectNow(name, reason: "The file cannot be read.") }
            else { _ = state.withLock { $0.delivered.remove(name) } }
            return nil
        }
        let lines = raw.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if lines.isEmpty { rejectNow(name, reason: "The file is empty."); return nil }
        if lines.count > 1 { rejectNow(name, reason: "The file holds \(lines.count) lines; an answer is one line holding one callback URL."); return nil }
        return IncomingAnswer(text: lines[0], receipt: name, requestIdHint: String(name.dropLast(4)))
    }

    private func watchLoop(_ watcher: DirectoryWatcher) {
        defer { finished.signal() }
        while true {
            let (stopping, sink) = state.withLock { ($0.stopping, $0.sink) }
            if stopping { return }
            let names = watcher.wait(timeoutMs: 250)
            for name in names {
                if let a = take(name) { sink?(.answer(a)) }
            }
        }
    }

    private func rejectNow(_ name: String, reason: String) {
        let target = uniqueName(in: rejectedDir, name)
        do {
            try AtomicFile.write(reason + "\n", to: rejectedDir + "/" + target + ".reason")
            try AtomicFile.move(responsesDir + "/" + name, to: rejectedDir + "/" + target)
        } catch {
            let sink = state.withLock { $0.sink }
            sink?(.problem("Could not move the rejected answer \(name) to rejected/: \(error)"))
        }
        let sink = state.withLock { s -> (@Sendable (TransportEvent) -> Void)? in
            s.delivered.remove(name)
            return s.sink
        }
        sink?(.rejected(file: name, reason: reason))
    }

    private func uniqueName(in dir: String, _ name: String) -> String {
        if !Path.exists(dir + "/" + name) { return name }
        var n = 1
        while Path.exists(dir + "/" + name + ".\(n)") { n += 1 }
        return name + ".\(n)"
    }

    public func send(id: String, url: String) async throws(TransportError) {
        do {
            try AtomicFile.write(url + "\n", to: requestsDir + "/" + id + ".url")
        } catch {
            throw .notSent("Could not write the request to \(requestsDir): \(error)")
        }
    }

    public func acknowledge(_ answer: IncomingAnswer) async {
        guard let name = answer.receipt else { return }
        do {
            try AtomicFile.move(responsesDir + "/" + name, to: archiveDir + "/" + uniqueName(in: archiveDir, name))
        } catch {
            let sink = state.withLock { $0.sink }
            sink?(.problem("Could not archive the answer \(name): \(error)"))
        }
        _ = state.withLock { $0.delivered.remove(name) }
    }

    public func reject(_ answer: IncomingAnswer, reason: String) async {
        guard let name = answer.receipt else { return }
        let target = uniqueName(in: rejectedDir, name)
        do {
            try AtomicFile.write(reason + "\n", to: rejectedDir + "/" + target + ".reason")
            try AtomicFile.move(responsesDir + "/" + name, to: rejectedDir + "/" + target)
        } catch {
            let sink = state.withLock { $0.sink }
            sink?(.problem("Could not move the rejected answer \(name) to rejected/: \(error)"))
        }
        _ = state.withLock { $0.delivered.remove(name) }
    }

    /// Withdraws `requests/<id>.url` if the peer has not taken it: then it certainly never saw the request.
    public func gaveUp(on id: String) async -> Bool {
        let path = requestsDir + "/" + id + ".url"
        guard unlink(path) == 0 else { return false }
        AtomicFile.syncDirectory(requestsDir)
        return true
    }

    public func stop() async {
        let wasRunning = state.withLock { s -> Bool in
            let r = s.running
            s.stopping = true; s.running = false; s.sink = nil
            return r
        }
        if wasRunning {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async { self.finished.wait(); c.resume() }
            }
        }
    }
}

struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
