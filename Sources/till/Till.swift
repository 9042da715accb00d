import ArgumentParser
import Foundation
import TillIO

/// `till` with no arguments starts the cashier's full-screen UI; every action also has a headless command.
@main
struct Till: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "till",
        abstract: "Take card payments through a card-terminal app, from a Linux till.",
        discussion: "Run with no arguments for the full-screen cashier UI (on the built-in simulator by default).",
        version: TillVersion.string,
        subcommands: tillSubcommands,
        defaultSubcommand: UICommand.self
    )

    /// Like ArgumentParser's own `main`, except that a usage error (unknown flag, bad value, missing
    /// argument) exits 2 like every other invalid input, instead of 64.
    static func main() async {
        // A parent may start till from a thread that blocks signals (libdispatch's worker threads
        // block SIGTERM, SIGINT, …) and the mask is inherited: then `kill` could not stop till.
        var none = sigset_t()
        sigemptyset(&none)
        sigprocmask(SIG_SETMASK, &none, nil)
        do {
            // The cashier's screen with its usual options starts without ArgumentParser (see `UIArguments`).
            if let ui = UIArguments(quick: CommandLine.arguments.dropFirst()) {
                try await ui.run()
                return
            }
            var command = try parseAsRoot()
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                printToStandardError(fullMessage(for: error))
                Foundation.exit(2)
            }
            // ArgumentParser's messages echo the arguments: printed with their control characters shown.
            if code != .success {
                let message = fullMessage(for: error)
                if !message.isEmpty { printToStandardError(message) }
                Foundation.exit(code.rawValue)
            }
            exit(withError: error)
        }
    }
}

/// Every subcommand; each area of the program adds its commands in its own file.
let tillSubcommands: [any ParsableCommand.Type] =
    [UICommand.self] + protocolCommands + simulatorCommands + headlessCommands + adminCommands
