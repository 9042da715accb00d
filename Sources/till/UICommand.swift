import ArgumentParser
import Dispatch
import Foundation
import Synchronization
import TillCore
import TillIO
import TillTerminal
import TillUI

/// The full-screen cashier UI (issue #5): `till` with no arguments.
struct UICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ui", abstract: "Start the full-screen cashier UI (the default).",
        discussion: """
        Themes and keymaps are chosen by name (shipped: themes default, high-contrast, monochrome; keymaps default, keypad) \
        or by path. Copies in $XDG_CONFIG_HOME/till/themes/ and $XDG_CONFIG_HOME/till/keymaps/ override the shipped ones. \
        NO_COLOR (or --no-color) gives a monochrome rendering.
        """)

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("Theme name or file (default: the config, else default).", valueName: "name"))
    var theme: String?

    @Option(help: ArgumentHelp("Keymap name or file (default: the config, else default).", valueName: "name"))
    var keymap: String?

    @Flag(name: .customLong("no-color"), help: "Monochrome rendering: reverse video and bold instead of colour.")
    var noColor = false

    /// What was asked, as plain values (the quick start reads the same, see `UIArguments`).
    var arguments: UIArguments {
        UIArguments(global: global.values, theme: theme, keymap: keymap, noColor: noColor)
    }

    func run() async throws { try await arguments.run() }
}

extension UIArguments {
    /// Starts the cashier's screen and runs it until the cashier quits, the terminal hangs up or a signal ends it.
    func run() async throws { try await run(started: startScreen()) }

    /// Everything up to the first frame, synchronously on the calling thread (`Till.main` calls it on the main
    /// thread, before its first `await`): each hop to another thread cost a wake-up, and the first hop of the
    /// process a thread made for it, on the way to the first frame (issue 11).
    ///
    /// The journal opens on a thread of its own meanwhile (`JournalOpening`); what the first frame shows is read
    /// first, so the frame is painted while the journal's writer is still to be set up.
    func startScreen() throws -> StartedScreen {
        guard isatty(STDIN_FILENO) != 0, isatty(STDOUT_FILENO) != 0 else {
            printToStandardError("till: the cashier UI needs a terminal; see `till --help` for the headless commands.")
            throw ExitCode(2)
        }
        // SIGTERM and SIGHUP end the UI like a hang-up: the loop notices them in its poll, then the
        // entry in flight is journaled unknown and the bridge stopped before the process ends.
        SignalPipe.install([SIGTERM, SIGHUP])
        let settings = global.settings()
        StartTrace.mark("config read")
        let offer = GlanceOffer()
        // Tests widen the window between the first frame and the loop (`TILL_TEST_SETTLE_MS`) to put events in it.
        let settleMs = Environment.process["TILL_TEST_SETTLE_MS"].flatMap { Int($0) } ?? UIArguments.frameSettleMs
        let opening = JournalOpening(path: settings.resolvedJournalPath, tipStyle: settings.resolvedTip) { glance in
            offer.give(glance)
            // The rest of the start (the journal's writer, the transport, the simulator's saved state: a few
            // milliseconds of work on one core) waits, on the journal's own thread, until the first frame is painted
            // and the terminal has had `frameSettleMs` to put it on the screen: a terminal (tmux, an emulator) needs
            // the cores for that, and on a two-core till the start's work beside it delayed the frame by 0.3 to 1.4
            // ms (BENCHMARKS.md, Start-up). Keys typed meanwhile wait in the terminal, as they do until the loop runs.
            guard glance != nil else { return }
            offer.waitUntilPainted(timeoutMs: 250)
            usleep(UInt32(settleMs) * 1000)
        }
        let env = Environment.process
        let resources = Resources(environment: env)
        let (theme, themeWarning) = resources.theme(self.theme ?? settings.theme)
        let (keymap, keymapWarning) = resources.keymap(self.keymap ?? settings.keymap)
        let warnings = [themeWarning, keymapWarning].compactMap { $0 }
        StartTrace.mark("theme and keymap")
        let mono = noColor || !(env["NO_COLOR"] ?? "").isEmpty
        let screen = Runtime.Screen(theme: theme, monochrome: mono)
        StartTrace.mark("terminal started")
        var options = RuntimeOptions(theme: theme, keymap: keymap, monochrome: mono, warnings: warnings,
                                     currency: settings.currency ?? "€", decimalSeparator: settings.decimalSeparator ?? ".")
        options.cashier = settings.cashier
        options.bell = settings.bell ?? true
        options.confirmAbove = settings.confirmAbove
        options.tipStyle = settings.resolvedTip
        options.amountEntry = settings.amountEntry ?? .decimal
        let transport = settings.resolvedTransport.description
        // Only while the journal is still being read: once its reading is here, the first frame pays the same costs.
        if !offer.isGiven { Runtime.warmUp(on: screen, options: options, transport: transport) }
        if let glance = offer.wait() {
            Runtime.paintFirst(on: screen, options: options, transport: transport, glance: glance)
            offer.painted()
        }
        return StartedScreen(settings: settings, options: options, warnings: warnings, screen: screen, opening: opening)
    }

    /// The rest: the controller (once the journal is open), then the screen's loop until it ends.
    func run(started: StartedScreen) async throws {
        let (settings, options, screen) = (started.settings, started.options, started.screen)
        let controller: TillController
        do { controller = try await TillFactory.makeController(config: settings, opening: started.opening) } catch {
            screen.end()
            printToStandardError("till: cannot start: \(error)")
            throw ExitCode(3)
        }
        StartTrace.mark("controller started (journal, transport, backlog)")
        let end = await Runtime(service: controller, options: options).run(on: screen)
        await controller.shutdown()
        switch end {
        case .quit:
            for w in started.warnings { printToStandardError("till: " + w) }
        case .hangup:
            printToStandardError("till: the terminal is gone; stopped (anything in flight is journaled as unknown).")
            SignalPipe.terminate(as: SIGHUP)
        case .signal(let sig):
            printToStandardError("till: stopped by signal \(sig) (anything in flight is journaled as unknown).")
            SignalPipe.terminate(as: sig)
        }
    }
}

/// The screen as `startScreen()` left it: the first frame painted (when the journal could be read early), the
/// journal still opening.
struct StartedScreen: Sendable {
    var settings: TillConfig
    var options: RuntimeOptions
    var warnings: [String]
    var screen: Runtime.Screen
    var opening: JournalOpening
}

/// What the first frame shows, handed from the journal's thread to the one painting, and word back that it is painted.
final class GlanceOffer: Sendable {
    private let state = Atomic<Int>(0)   // 0 nothing yet, 1 given
    private let glance = Mutex<JournalGlance?>(nil)
    private let given = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    /// Once: what was read (nil: nothing could be read early).
    func give(_ g: JournalGlance?) {
        glance.withLock { $0 = g }
        state.store(1, ordering: .releasing)
        given.signal()
    }
    var isGiven: Bool { state.load(ordering: .acquiring) == 1 }
    /// Waits for `give`, and returns what it gave.
    func wait() -> JournalGlance? {
        given.wait()
        return glance.withLock { $0 }
    }
    func painted() { done.signal() }
    func waitUntilPainted(timeoutMs: Int) { _ = done.wait(timeout: .now() + .milliseconds(timeoutMs)) }
}

extension UIArguments {
    /// How long the start's remaining work waits after the first frame is painted (see `run()`): under 1% of a
    /// person's reaction time; tmux on this machine shows a frame about 1.5 ms after it is written.
    static let frameSettleMs = 8
}
