import ArgumentParser
import TillModel
import TillProtocol

/// `open|close`, `--name`, `--id` (close only, a UUID).
struct BatchOptions: ActionCommandLine {
    static let help = ActionHelp("batch", title: "Batch", url: "Open or close a batch (a shift): open|close, --name, --id (close only).",
                                 abstract: "Open or close a batch (shift) on the terminal.")
    /// `till batch` checks the journal before a close (`BatchTillCommand`).
    static var headlessCommand: any ParsableCommand.Type { BatchTillCommand.self }

    @Argument(help: ArgumentHelp("open or close.", valueName: "open|close"))
    var command: String

    @Option(help: ArgumentHelp("The batch name (open: name the new batch; close: close the batch of that name).",
                               valueName: "name"))
    var name: String?

    @Option(help: ArgumentHelp("Close only: the UUID of the batch to close.", valueName: "uuid"))
    var id: String?

    init() {}

    /// The command as typed (spaces around it and its case ignored); nil for any other word. The request and the
    /// "unknown outcomes first" check before a close both read it here, so they agree on what is a close.
    var batchCommand: BatchCommand? { BatchCommand(rawValue: command.trimmingWhitespace().lowercased()) }

    func draft() -> RequestDraft {
        var r = TypedText()
        let c = batchCommand
        if c == nil { r.fail("command", "The batch command must be open or close (got '\(command)').") }
        // Unknown command: read as close, so that --id is still checked as a UUID (and not refused as open-only).
        let b = BatchRequest(command: c ?? .close, batchName: name, batchId: id)
        return RequestDraft(request: .batch(b), errors: r.errors, unreadable: r.unreadable)
    }
}
