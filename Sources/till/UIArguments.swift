import ArgumentParser

/// What the cashier's screen was asked to start with, as plain values: from ArgumentParser's `UICommand`, or read
/// directly from the command line by `init?(quick:)`.
struct UIArguments: Sendable {
    var global = GlobalValues()
    var theme: String?
    var keymap: String?
    var noColor = false
}

extension UIArguments {
    /// The usual ways a till starts (`till`, `till ui`, `till --journal PATH --theme NAME …`), read without
    /// ArgumentParser: its first use, parsing every command's options, took about 1.6 ms of the 8.7 from `main` to the
    /// first frame (BENCHMARKS.md, Start-up), the largest single step after opening the journal.
    ///
    /// Only the UI's own options are read, each at most once, as `--name value` or `--name=value`; numbers are
    /// converted by the same `init(argument:)` ArgumentParser uses. For anything else (help, a subcommand, an
    /// unknown or repeated option, a missing value, a value that starts with `-` or is not a number where one is
    /// due) this gives nil, and ArgumentParser reads the line as always, its errors and help included. A test
    /// holds this reading to ArgumentParser's on random command lines and on every option `UICommand` lists.
    init?(quick arguments: some Collection<String>) {
        var rest = arguments[...]
        if rest.first == "ui" { rest = rest.dropFirst() }
        var seen: Set<String> = []
        while let word = rest.popFirst() {
            guard word.hasPrefix("--") else { return nil }
            var name = String(word.dropFirst(2))
            var inline: String?
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard !seen.contains(name) else { return nil }
            seen.insert(name)
            if name == "no-color" || name == "json" {
                guard inline == nil else { return nil }
                if name == "json" { global.json = true } else { noColor = true }
                continue
            }
            let value: String
            if let inline {
                guard !inline.isEmpty else { return nil }
                value = inline
            } else {
                guard let next = rest.popFirst(), !next.hasPrefix("-") else { return nil }
                value = next
            }
            switch name {
            case "theme": theme = value
            case "keymap": keymap = value
            case "transport": global.transport = value
            case "journal": global.journal = value
            case "config": global.config = value
            case "sim-state": global.simState = value
            case "sim-abort-style": global.simAbortStyle = value
            case "timeout": guard let v = Double(argument: value) else { return nil }; global.timeout = v
            case "sim-speed": guard let v = Double(argument: value) else { return nil }; global.simSpeed = v
            case "sim-seed": guard let v = UInt64(argument: value) else { return nil }; global.simSeed = v
            default: return nil
            }
        }
    }
}
