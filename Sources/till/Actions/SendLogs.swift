import ArgumentParser
import TillModel
import TillProtocol

/// `till send-logs`: no options.
struct SendLogsOptions: FieldlessActionCommandLine {
    static let request = Request.sendLogs
    static let commandName = "send-logs"
    static let urlAbstract = "Have the terminal app send its logs to the vendor's support (action=sendLogs)."
    static let abstract = "Have the terminal app send its logs to the vendor's support."
    init() {}
}
