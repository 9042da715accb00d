import ArgumentParser
import TillModel
import TillProtocol

/// `till url abort`; `till abort` sends one whatever is in flight and reads its own answer (`AbortCommand`).
struct AbortOptions: FieldlessActionCommandLine {
    static let request = Request.abort
    static let help = ActionHelp("abort", url: "Ask the terminal app to abort the transaction in progress.",
                                 abstract: "Ask the terminal to abort the transaction it is running.")
    static var headlessCommand: any ParsableCommand.Type { AbortCommand.self }
    init() {}
}
