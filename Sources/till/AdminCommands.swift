import ArgumentParser
import Foundation
import TillProtocol

// The vendor's sample apps' administrative actions (issue 12), as `till url …` and as headless commands:
// reprint, printing settings, send logs, activation code, activate.

/// `till url reprint|printing-settings|send-logs|activation-code|activate`.
let urlAdminCommands: [any ParsableCommand.Type] = [
    URLReprintCommand.self, URLPrintingSettingsCommand.self, URLSendLogsCommand.self, URLActivationCodeCommand.self,
    URLActivateCommand.self,
]

/// `till reprint`, `till printing-settings`, `till send-logs`, `till activation-code`, `till activate`.
let adminCommands: [any ParsableCommand.Type] = [
    ReprintCommand.self, PrintingSettingsCommand.self, SendLogsCommand.self, ActivationCodeCommand.self, ActivateCommand.self,
]

let adminExitCodesHelp = "Exit status: 0 done, 1 refused by the terminal, 2 invalid input, 3 transport error, timeout or unknown outcome."

// MARK: - till url …

struct URLReprintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reprint", abstract: "Reprint a receipt (action=reprintTransaction) by --order-code, or --latest.")
    @OptionGroup(title: "Reprint") var reprint: ReprintOptions
    @OptionGroup(title: "Caller") var caller: CallerOptions
    @OptionGroup var output: URLOutputOptions
    func run() throws { output.emit(reprint.terminalRequestOrExit(caller: caller.caller())) }
}

struct URLPrintingSettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "printing-settings", abstract: "Read (get: getPrintingSettings) or change (set: set_printing_settings) the terminal's printing settings.",
        subcommands: [URLPrintingSettingsGetCommand.self, URLPrintingSettingsSetCommand.self])
}

struct URLPrintingSettingsGetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "get", abstract: "action=getPrintingSettings")
    @OptionGroup(title: "Caller") var caller: CallerOptions
    @OptionGroup var output: URLOutputOptions
    func run() throws { output.emit(PlainRequestSource(request: .getPrintingSettings).terminalRequestOrExit(caller: caller.caller())) }
}

struct URLPrintingSettingsSetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "action=set_printing_settings with the settings given (the others are left as they are).")
    @OptionGroup(title: "Printing settings") var settings: PrintingSettingsOptions
    @OptionGroup(title: "Caller") var caller: CallerOptions
    @OptionGroup var output: URLOutputOptions
    func run() throws { output.emit(settings.terminalRequestOrExit(caller: caller.caller())) }
}

struct URLSendLogsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "send-logs", abstract: "Have the terminal app send its logs to the vendor's support (action=sendLogs).")
    @OptionGroup(title: "Caller") var caller: CallerOptions
    @OptionGroup var output: URLOutputOptions
    func run() throws { output.emit(PlainRequestSource(request: .sendLogs).terminalRequestOrExit(caller: caller.caller())) }
}

struct URLActivationCodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activation-code", abstract: "Ask the terminal app for an activation code (action=getActivationCode; no merchantKey, as the sample).")
    @OptionGroup(title: "Caller") var caller: CallerOptions
    @OptionGroup var output: URLOutputOptions
    func run() throws { output.emit(PlainRequestSource(request: .getActivationCode).terminalRequestOrExit(caller: caller.caller())) }
}

struct URLActivateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activate",
        abstract: "Activate the terminal app (action=activatePos; no merchantKey, as the sample): --activation-code or --api-key/--api-secret, --source-id, --pin-code, flags.")
    @OptionGroup(title: "Activation") var activation: ActivationOptions
    @OptionGroup(title: "Caller") var caller: CallerOptions
    @OptionGroup var output: URLOutputOptions
    func run() throws { output.emit(activation.terminalRequestOrExit(caller: caller.caller())) }
}

// MARK: - Headless commands

struct ReprintCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reprint", abstract: "Print a transaction's receipt again on the terminal.",
        discussion: "Example: till reprint --order-code 1091166300000136\n" + adminExitCodesHelp)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var caller: CallerOptions
    @OptionGroup var reprint: ReprintOptions
    func run() async throws { await runHeadlessTransaction(global, caller) { c throws(ValidationFailure) in try reprint.terminalRequest(caller: c) } }
}

struct PrintingSettingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "printing-settings", abstract: "Read or change the terminal's printing settings.",
        subcommands: [PrintingSettingsGetCommand.self, PrintingSettingsSetCommand.self])
}

struct PrintingSettingsGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get", abstract: "Show the terminal's printing settings.", discussion: adminExitCodesHelp)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var caller: CallerOptions
    func run() async throws {
        await runHeadlessTransaction(global, caller) { c throws(ValidationFailure) in
            try PlainRequestSource(request: .getPrintingSettings).terminalRequest(caller: c)
        }
    }
}

struct PrintingSettingsSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Change the terminal's printing settings (only those given).",
        discussion: "Example: till printing-settings set --customer-receipt false --logo true\n" + adminExitCodesHelp)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var caller: CallerOptions
    @OptionGroup var settings: PrintingSettingsOptions
    func run() async throws { await runHeadlessTransaction(global, caller) { c throws(ValidationFailure) in try settings.terminalRequest(caller: c) } }
}

struct SendLogsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send-logs", abstract: "Have the terminal app send its logs to the vendor's support.", discussion: adminExitCodesHelp)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var caller: CallerOptions
    func run() async throws {
        await runHeadlessTransaction(global, caller) { c throws(ValidationFailure) in try PlainRequestSource(request: .sendLogs).terminalRequest(caller: c) }
    }
}

struct ActivationCodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activation-code", abstract: "Ask the terminal app for an activation code.",
        discussion: "Then: till activate --activation-code CODE --source-id ID --pin-code PIN\n" + adminExitCodesHelp)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var caller: CallerOptions
    func run() async throws {
        await runHeadlessTransaction(global, caller) { c throws(ValidationFailure) in
            try PlainRequestSource(request: .getActivationCode).terminalRequest(caller: c)
        }
    }
}

struct ActivateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activate", abstract: "Activate the terminal app, by activation code or API key and secret.",
        discussion: "Example: till activate --activation-code 12345678 --source-id Default --pin-code 1234\n"
            + "The API key and secret and the PIN are secrets: never printed, never journaled.\n" + adminExitCodesHelp)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var caller: CallerOptions
    @OptionGroup var activation: ActivationOptions
    func run() async throws { await runHeadlessTransaction(global, caller) { c throws(ValidationFailure) in try activation.terminalRequest(caller: c) } }
}
