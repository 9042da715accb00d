import ArgumentParser
import TillProtocol

/// `till url` and `till decode` (issue #2).
let protocolCommands: [any ParsableCommand.Type] = []
