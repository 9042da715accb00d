import ArgumentParser

/// The full-screen cashier UI (issue #5). Not built yet.
struct UICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ui", abstract: "Start the full-screen cashier UI.")
    func run() async throws {
        print("The full-screen UI is not built yet; see `till --help` for the headless commands.")
        throw ExitCode(2)
    }
}
