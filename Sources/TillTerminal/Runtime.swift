import Foundation
import Synchronization
import TillIO
import TillCore
import TillProtocol
import TillUI

/// Messages posted by async work (service answers, controller events) for the UI loop to pick up.
final class Inbox: Sendable {
    private let queue = Mutex<[Msg]>([])
    func post(_ m: Msg) { queue.withLock { $0.append(m) } }
    func drain() -> [Msg] { queue.withLock { q in defer { q.removeAll(keepingCapacity: true) }; return q } }
}

/// Options for one run of the full-screen UI.
public struct RuntimeOptions: Sendable {
    public var theme: Theme
    public var keymap: Keymap
    public var monochrome: Bool
    public var warnings: [String]
    public var currency: String
    public var decimalSeparator: String
    /// The cashier's name (config `cashier`): the default name of a shift opened from the Sale screen.
    public var cashier: String? = nil
    /// Ring the terminal's bell on each verdict.
    public var bell: Bool = true
    public init(theme: Theme = .standard, keymap: Keymap = .standard, monochrome: Bool = false, warnings: [String] = [], currency: String = "€",
                decimalSeparator: String = ".") {
        self.theme = theme; self.keymap = keymap; self.monochrome = monochrome; self.warnings = warnings; self.currency = currency
        self.decimalSeparator = decimalSeparator
    }
}

/// The event loop: keys from ncurses and answers from the service become `Msg`s; `update` makes the
/// next state and commands; commands run as tasks and answer with `Msg`s; `render` + diff paint the frame.
/// The loop runs on its own thread, so waiting for the terminal never blocks keys or redraws.
public final class Runtime: Sendable {
    let service: any TillService
    let options: RuntimeOptions
    let inbox = Inbox()

    public init(service: any TillService, options: RuntimeOptions) {
        self.service = service
        self.options = options
    }

    static func nowMs() -> Int64 { WallClock.nowMs() }

    static func localOffsetMinutes() -> Int {
        // libc, not Foundation's TimeZone: that would load the ICU time-zone data (megabytes) for one number.
        var t = time(nil)
        var parts = tm()
        localtime_r(&t, &parts)
        return Int(parts.tm_gmtoff) / 60
    }

    /// Runs until the cashier quits.
    public func run() async {
        let events = service.events()
        let eventTask = Task { [inbox] in
            for await e in events { inbox.post(.event(e)) }
        }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let t = Thread { [self] in
                self.loop()
                done.resume()
            }
            t.stackSize = 4 << 20
            t.start()
        }
        eventTask.cancel()
    }

    func loop() {
        let backend = NcursesBackend(theme: options.theme, monochrome: options.monochrome)
        defer { backend.end() }
        var state = AppState(keymap: options.keymap, size: backend.size(), nowMs: Self.nowMs(),
                             tzOffsetMinutes: Self.localOffsetMinutes(), transport: service.transportDescription)
        state.currency = options.currency
        state.decimalSeparator = options.decimalSeparator
        state.cashier = options.cashier
        state.startupWarnings = options.warnings
        perform(initialCommands(&state))
        var buf = ScreenBuffer(size: state.size)
        render(state, into: &buf)
        backend.paint(buf)
        var lastSecond = state.nowMs / 1000
        var lastTenth = state.nowMs / 100
        var rungFor = state.verdicts
        while !state.quit {
            var msgs: [Msg] = []
            if let ev = backend.read() {
                switch ev {
                case .key(let k): msgs.append(.key(k))
                case .resize(let s): msgs.append(.resize(s))
                }
            }
            msgs += inbox.drain()
            let now = Self.nowMs()
            let tenth = now / 100, second = now / 1000
            // The spinner and elapsed time move every tenth of a second while in flight; the clock every second.
            if (state.pending != nil && tenth != lastTenth) || second != lastSecond {
                msgs.append(.tick(nowMs: now))
            } else {
                state.nowMs = now
            }
            lastTenth = tenth; lastSecond = second
            guard !msgs.isEmpty else { continue }
            for m in msgs {
                perform(update(&state, m))
                if state.quit { break }
            }
            if state.quit { break }
            if buf.size != state.size { buf = ScreenBuffer(size: state.size) }
            render(state, into: &buf)
            backend.paint(buf)
            // A bell on each verdict, so the cashier hears it without looking.
            if state.verdicts != rungFor { if options.bell { backend.bell() }; rungFor = state.verdicts }
        }
    }

    func perform(_ commands: [Command]) {
        for c in commands { perform(c) }
    }

    func perform(_ c: Command) {
        let service = self.service
        let inbox = self.inbox
        switch c {
        case .perform(let r, let summary):
            Task.detached { inbox.post(.performed(await service.perform(r), summary: summary)) }
        case .abort:
            Task.detached { inbox.post(.aborted(await service.abort())) }
        case .stopWaiting:
            Task.detached {
                if case .journalFailed(_, let m)? = await service.stopWaiting() { inbox.post(.stoppedWaiting(error: m)) }
                else { inbox.post(.stoppedWaiting(error: nil)) }
            }
        case .loadJournal(let f):
            Task.detached { inbox.post(.journalLoaded(await service.entries(f))) }
        case .loadBatch:
            Task.detached { inbox.post(.batchLoaded(await service.batch())) }
        case .recover:
            Task.detached { inbox.post(.unresolvedLoaded(await service.recover(), recovered: true)) }
        case .loadUnresolved:
            Task.detached { inbox.post(.unresolvedLoaded(await service.unresolved(), recovered: false)) }
        case .performConfirmed(let r, let summary, let ids):
            Task.detached { inbox.post(.performed(await service.perform(r, confirmingUnknown: ids), summary: summary)) }
        case .resolve(let id, let charged, let note):
            Task.detached {
                do { try await service.resolve(entryId: id, charged: charged, note: note); inbox.post(.resolved(entryId: id, error: nil)) }
                catch { inbox.post(.resolved(entryId: id, error: "\(error)")) }
            }
        case .loadReport(let batch, let show):
            Task.detached { inbox.post(.reportLoaded(await service.report(batch: batch), show: show)) }
        case .exportReport(let batch, let format):
            Task.detached {
                do { inbox.post(.exported(paths: try await service.exportReport(batch: batch, format: format), error: nil)) }
                catch { inbox.post(.exported(paths: [], error: "\(error)")) }
            }
        case .quit:
            break
        }
    }
}
