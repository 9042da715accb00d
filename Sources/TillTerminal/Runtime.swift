import Foundation
import Synchronization
import TillIO
import TillModel
import TillProtocol
import TillUI

/// Messages posted by async work (service answers, controller events) for the UI loop to pick up.
/// Posting to an empty inbox also signals its wake-up descriptor (an eventfd), so the loop, asleep in
/// `poll`, runs the moment an answer arrives rather than at its next timeout.
final class Inbox: Sendable {
    private let queue = Mutex<[Msg]>([])
    private let pipeFds = makeWakePipe() ?? (-1, -1)
    /// Readable whenever something was posted since the last `drain`.
    var wakeFd: Int32 { pipeFds.read }

    func post(_ m: Msg) {
        let wasEmpty = queue.withLock { q -> Bool in
            let e = q.isEmpty
            q.append(m)
            return e
        }
        if wasEmpty { var one: UInt8 = 1; _ = write(pipeFds.write, &one, 1) }
    }

    /// Everything posted so far; clears the wake-up first, so a post racing with the drain wakes the loop again.
    func drain() -> [Msg] {
        var bytes = (UInt64(0), UInt64(0))
        while read(pipeFds.read, &bytes, 16) > 0 {}
        return queue.withLock { q in defer { q.removeAll(keepingCapacity: true) }; return q }
    }

    deinit { close(pipeFds.read); close(pipeFds.write) }
}

/// Why the UI loop ended.
public enum RuntimeEnd: Sendable, Equatable {
    /// The cashier quit.
    case quit
    /// The terminal is gone (its server killed, the SSH link dropped): reading it gave an end or an error.
    case hangup
    /// SIGTERM or SIGHUP.
    case signal(Int32)
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
    /// Ring the terminal's bell on each verdict (config `bell`).
    public var bell: Bool = true
    /// A sale or pre-auth above this total asks first, showing the amount (config `confirm_above`; by default
    /// `defaultConfirmAbove`, so that a key held down or pressed twice, 9999999 for 99.99, is never charged at once).
    public var confirmAbove: Money? = RuntimeOptions.defaultConfirmAbove
    public static let defaultConfirmAbove = Money(cents: 100_000)
    /// How the terminal reads `tipAmount` (config `tip`): the screen builds requests and shows totals with it.
    public var tipStyle: TipStyle = .onTop
    public var amountEntry: AmountEntry = .decimal
    /// The shop's usual payment is a pre-auth (config `usual_payment`): the screen starts on Pre-auth and goes back there.
    public var preAuthIsUsual = false
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

    /// Runs until the cashier quits, the terminal hangs up or SIGTERM/SIGHUP arrives (routed to
    /// `SignalPipe` by the caller), and says which. The caller then shuts the service down: the
    /// entry in flight becomes unknown and the bridge is stopped.
    public func run() async -> RuntimeEnd {
        // The first frame is fully informed: the shift and anything unresolved are read from the
        // journal (a few rows) before it is drawn, not after the first answer arrives.
        let glance = await service.glance()
        let preload = Preload(batch: glance.batch, unresolved: glance.unresolved)
        let events = service.events()
        let eventTask = Task { [inbox] in
            for await e in events { inbox.post(.event(e)) }
        }
        let end = await withCheckedContinuation { (done: CheckedContinuation<RuntimeEnd, Never>) in
            let t = Thread { [self] in
                done.resume(returning: self.loop(preload))
            }
            t.stackSize = 4 << 20
            t.start()
        }
        eventTask.cancel()
        return end
    }

    struct Preload {
        var batch: BatchInfo
        var unresolved: [JournalEntry]
    }

    /// The state before the first frame, and the commands still to run.
    func initialState(size: Size, now: Int64, _ preload: Preload?) -> (AppState, [Command]) {
        var state = AppState(keymap: options.keymap, size: size, nowMs: now,
                             tzOffsetMinutes: Self.localOffsetMinutes(), transport: service.transportDescription)
        state.currency = options.currency
        state.decimalSeparator = options.decimalSeparator
        state.cashier = options.cashier
        state.confirmAbove = options.confirmAbove
        state.tipStyle = options.tipStyle
        state.amountEntry = options.amountEntry
        if options.preAuthIsUsual { state.homeScreen = .preAuth; state.screen = .preAuth }
        state.startupWarnings = options.warnings
        var commands = initialCommands(&state)
        if let preload {
            if let i = commands.firstIndex(of: .loadBatch) {
                commands.remove(at: i)
                commands += update(&state, .batchLoaded(preload.batch))
            }
            // Recovery still runs (it may ask the terminal); when the journal has nothing to recover
            // the first frame already says so.
            if preload.unresolved.isEmpty { commands += update(&state, .unresolvedLoaded([], recovered: true)) }
            else { state.unresolved.entries = preload.unresolved }
        }
        return (state, commands)
    }

    /// Milliseconds until the next frame the clock needs (`AppState.tickPeriodMs`), on the period's boundary.
    static func msUntilNextTick(_ state: AppState, now: Int64) -> Int32 {
        let period = state.tickPeriodMs
        return Int32(period - now % period) + 1
    }

    func loop(_ preload: Preload?) -> RuntimeEnd {
        let backend = NcursesBackend(theme: options.theme, monochrome: options.monochrome)
        defer { backend.end() }
        // After ncurses started: its SIGWINCH handler is kept and called; the pipe wakes the loop.
        SignalPipe.install([SIGWINCH])
        var (state, first) = initialState(size: backend.size(), now: Self.nowMs(), preload)
        var buf = ScreenBuffer(size: state.size)
        render(state, into: &buf)
        backend.paint(buf)
        // Only now the first commands (recovery, the clock): their work would share the two cores with the
        // first frame; what they learn is drawn in the next.
        perform(first)
        first = []
        var lastTick = state.nowMs / state.tickPeriodMs
        var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: inbox.wakeFd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: SignalPipe.readFd, events: Int16(POLLIN), revents: 0)]
        var msgs: [Msg] = []
        var rungFor = state.verdicts
        while !state.quit {
            for i in fds.indices { fds[i].revents = 0 }
            let r = poll(&fds, nfds_t(fds.count), Self.msUntilNextTick(state, now: Self.nowMs()))
            if r < 0 && errno != EINTR { return .hangup }
            msgs.removeAll(keepingCapacity: true)
            if fds[2].revents != 0 {
                for sig in SignalPipe.take() where sig == SIGTERM || sig == SIGHUP { return .signal(sig) }
                // SIGWINCH: ncurses' handler noted it; the next read gives KEY_RESIZE.
                readKeys(backend, into: &msgs)
            }
            let tty = fds[0].revents
            if tty & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { return .hangup }
            if tty & Int16(POLLIN) != 0 {
                // Readable with nothing to read is the end of the terminal, never "no key".
                var available: Int32 = 0
                if ioctl(STDIN_FILENO, UInt(FIONREAD), &available) != 0 || available <= 0 { return .hangup }
                readKeys(backend, into: &msgs)
            }
            if fds[1].revents != 0 { msgs += inbox.drain() }
            let now = Self.nowMs()
            // A tick when a period's boundary has passed (a change of period, a payment starting or ending, counts
            // as one: harmless, one more frame).
            let tick = now / state.tickPeriodMs
            if tick != lastTick { msgs.append(.tick(nowMs: now)) } else { state.nowMs = now }
            lastTick = tick
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
        return .quit
    }

    /// Every key ncurses has (read until it has none: its own buffer included, so nothing waits for the next poll).
    private func readKeys(_ backend: NcursesBackend, into msgs: inout [Msg]) {
        while let ev = backend.read() {
            switch ev {
            case .key(let k): msgs.append(.key(k))
            case .resize(let s): msgs.append(.resize(s))
            case .ignored: continue
            }
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
        case .findPayment(let screen, let finder):
            Task.detached {
                // The entries about the payment its key names (indexed), not the whole journal: a refund box costs the
                // same on a till's millionth entry as on its first.
                let entries = if let key = finder.key { await service.entries(about: key) } else { [JournalEntry]() }
                inbox.post(.paymentsFound(screen: screen, finder: finder, entries: entries))
            }
        case .loadBatch:
            Task.detached { inbox.post(.batchLoaded(await service.batch())) }
        case .recover:
            Task.detached { inbox.post(.unresolvedLoaded(await service.recover(), recovered: true)) }
        case .loadUnresolved:
            Task.detached { inbox.post(.unresolvedLoaded(await service.unresolved(), recovered: false)) }
        case .loadStoreSync:
            Task.detached { inbox.post(.storeSyncLoaded(await service.storeSync())) }
        case .performConfirmed(let r, let summary, let ids):
            Task.detached { inbox.post(.performed(await service.perform(r, confirmingUnknown: ids), summary: summary)) }
        case .resolve(let id, let charged, let note):
            Task.detached {
                do { try await service.resolve(entryId: id, charged: charged, note: note); inbox.post(.resolved(entryId: id, charged: charged, error: nil)) }
                catch { inbox.post(.resolved(entryId: id, charged: charged, error: "\(error)")) }
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
