import ArgumentParser

/// What the cashier's screen was asked to start with, as plain values (from ArgumentParser's `UICommand`).
struct UIArguments: Sendable {
    var global = GlobalValues()
    var theme: String?
    var keymap: String?
    var noColor = false
}
