import ArgumentParser

/// `till simulate` (issue #3).
let simulatorCommands: [any ParsableCommand.Type] = []
