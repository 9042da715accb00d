import ArgumentParser
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
    func run() async throws {
        guard isatty(STDIN_FILENO) != 0, isatty(STDOUT_FILENO) != 0 else {
            printToStandardError("till: the cashier UI needs a terminal; see `till --help` for the headless commands.")
            throw ExitCode(2)
        }
        // SIGTERM and SIGHUP end the UI like a hang-up: the loop notices them in its poll, then the
        // entry in flight is journaled unknown and the bridge stopped before the process ends.
        SignalPipe.install([SIGTERM, SIGHUP])
        let settings = global.settings()
        StartTrace.mark("config read")
        // The journal opens and the transport starts on the other core while this one reads the theme and
        // starts the terminal. What the first frame shows is read first, so it is painted while the journal's
        // writer is still being set up; keys wait in the terminal until the loop reads them.
        let (glances, glanced) = AsyncStream<JournalGlance?>.makeStream()
        let offered = OnceSignal()
        async let made = TillFactory.makeController(config: settings, firstGlance: {
            offered.set()
            glanced.yield($0)
            glanced.finish()
        })
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
        // Only while the journal is still being read: once its reading is here, the first frame pays the same costs.
        if !offered.isSet { Runtime.warmUp(on: screen, options: options, transport: settings.resolvedTransport.description) }
        for await glance in glances {
            if let glance {
                Runtime.paintFirst(on: screen, options: options, transport: settings.resolvedTransport.description, glance: glance)
            }
        }
        let controller: TillController
        do { controller = try await made } catch {
            screen.end()
            printToStandardError("till: cannot start: \(error)")
            throw ExitCode(3)
        }
        StartTrace.mark("controller started (journal, transport, backlog)")
        let end = await Runtime(service: controller, options: options).run(on: screen)
        await controller.shutdown()
        switch end {
        case .quit:
            for w in warnings { printToStandardError("till: " + w) }
        case .hangup:
            printToStandardError("till: the terminal is gone; stopped (anything in flight is journaled as unknown).")
            SignalPipe.terminate(as: SIGHUP)
        case .signal(let sig):
            printToStandardError("till: stopped by signal \(sig) (anything in flight is journaled as unknown).")
            SignalPipe.terminate(as: sig)
        }
    }
}

/// Set once, from any thread (the journal's offers what the first frame shows).
final class OnceSignal: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}
