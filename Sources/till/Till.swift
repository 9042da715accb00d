import ArgumentParser

/// `till` with no arguments starts the cashier's full-screen UI; every action also has a headless command.
@main
struct Till: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "till",
        abstract: "Take card payments through a card-terminal app, from a Linux till.",
        discussion: "Run with no arguments for the full-screen cashier UI (on the built-in simulator by default).",
        subcommands: tillSubcommands,
        defaultSubcommand: UICommand.self
    )
}

/// Every subcommand; each area of the program adds its commands in its own file.
let tillSubcommands: [any ParsableCommand.Type] =
    [UICommand.self] + protocolCommands + simulatorCommands + headlessCommands
