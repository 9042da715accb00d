import ArgumentParser
import TillModel
import TillProtocol

/// `till send-logs`: no options.
struct SendLogsOptions: FieldlessActionCommandLine {
    static let request = Request.sendLogs
    static let help = ActionHelp(
        "send-logs", url: "Have the terminal app send its logs to the vendor's support (action=sendLogs).",
        abstract: "Have the terminal app send its logs to the vendor's support.")
    init() {}
}
