import ArgumentParser

/// `till sale`, `till refund`, … `till journal` (issue #4), `till report`/`till export` (issue #6).
let headlessCommands: [any ParsableCommand.Type] = []
