import ArgumentParser
import Foundation
import TillCore
import TillIO
import TillTerminal
import TillUI

/// The full-screen cashier UI: `till` with no arguments.
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
    /// Runs the cashier's screen until the cashier quits, the terminal hangs up or a signal ends it: the settings,
    /// the journal and the transport (the controller), then the screen's loop, which paints the first frame.
    func run() async throws {
        guard isatty(STDIN_FILENO) != 0, isatty(STDOUT_FILENO) != 0 else {
            printToStandardError("till: the cashier UI needs a terminal; see `till --help` for the headless commands.")
            throw ExitCode(2)
        }
        // SIGTERM and SIGHUP end the UI like a hang-up: the loop notices them in its poll, then the
        // entry in flight is journaled unknown and the bridge stopped before the process ends.
        SignalPipe.install([SIGTERM, SIGHUP])
        let settings = global.settings()
        let env = Environment.process
        let resources = Resources(environment: env)
        let (theme, themeWarning) = resources.theme(self.theme ?? settings.theme)
        let (keymap, keymapWarning) = resources.keymap(self.keymap ?? settings.keymap)
        let warnings = [themeWarning, keymapWarning].compactMap { $0 }
        let mono = noColor || !(env["NO_COLOR"] ?? "").isEmpty
        var options = RuntimeOptions(theme: theme, keymap: keymap, monochrome: mono, warnings: warnings,
                                     currency: settings.currency ?? "€", decimalSeparator: settings.decimalSeparator ?? ".")
        options.cashier = settings.cashier
        options.bell = settings.bell ?? true
        if let above = settings.confirmAbove { options.confirmAbove = above }
        options.tipStyle = settings.resolvedTip
        options.amountEntry = settings.amountEntry ?? .decimal
        options.preAuthIsUsual = settings.preAuthIsUsual ?? false
        let controller: TillController
        do { controller = try await TillFactory.makeController(config: settings, start: false) } catch {
            printToStandardError("till: cannot start: \(error)")
            throw ExitCode(3)
        }
        // A shift closed on the screen has the whole journal checked in the background (`till check`).
        let closes = controller.events()
        let journalPath = controller.journal.path
        let checks = Task.detached {
            for await e in closes {
                if case .settled(let o) = e, CheckCommand.closesShift(o) { CheckCommand.startInBackground(journal: journalPath) }
            }
        }
        let end = await Runtime(service: controller, options: options).run()
        checks.cancel()
        await controller.shutdown()
        switch end {
        case .quit:
            for w in warnings { printToStandardError("till: " + w) }
        case .hangup:
            printToStandardError("till: the terminal is gone; stopped (anything in flight is journaled as unknown).")
            SignalPipe.terminate(as: SIGHUP, cleanUp: Journal.closeAll)
        case .signal(let sig):
            printToStandardError("till: stopped by signal \(sig) (anything in flight is journaled as unknown).")
            SignalPipe.terminate(as: sig, cleanUp: Journal.closeAll)
        }
    }
}
