import ArgumentParser
import TillCore
import TillModel
import TillProtocol

// One action's command line, declared once (`ActionCommandLine`: its options, name and help), gives both
// `till url <name>` (print the request URL) and `till <name>` (send it and wait for the answer) through the two
// generic commands below. An action's CLI is its file under `Actions/` plus its line in `transactionCommandLines` or `setUpCommandLines`.

/// What an action adds to the command line: `till url <name>` and `till <name>`.
protocol ActionCommands: Sendable {
    static var urlCommand: any ParsableCommand.Type { get }
    static var headlessCommand: any ParsableCommand.Type { get }
}

/// An action's command-line help: its name, the title of its options, and the help of `till url <name>` and
/// `till <name>`.
struct ActionHelp: Sendable {
    var commandName: String
    /// The title of its options in `till url <name> --help` ("Reprint"); empty when it has none.
    var title = ""
    /// `till url <name>`'s one line of help (it names the wire action), its longer help and other names.
    var url: String
    var urlDiscussion = ""
    var urlAliases: [String] = []
    /// `till <name>`'s one line of help, what follows it (an example, the exit codes), and other names.
    var abstract: String
    var discussion = adminExitCodesHelp
    var aliases: [String] = []

    init(_ commandName: String, title: String = "", url: String, urlDiscussion: String = "", urlAliases: [String] = [],
         abstract: String, discussion: String = adminExitCodesHelp, aliases: [String] = []) {
        self.commandName = commandName; self.title = title; self.url = url; self.urlDiscussion = urlDiscussion
        self.urlAliases = urlAliases; self.abstract = abstract; self.discussion = discussion; self.aliases = aliases
    }
}

/// An action's options and help: what `till url <name>` and `till <name>` are made of.
protocol ActionCommandLine: RequestOptionGroup, ActionCommands {
    static var help: ActionHelp { get }
    /// The request `till <name>` sends: the typed one, unless the action reads the settings too (a sale's tip style).
    func headlessRequest(caller: Caller, settings: TillConfig) throws(ValidationFailure) -> TerminalRequest
    /// A tip style given on the command line (`--tip-style`): it overrides the config's `tip` for the whole command,
    /// the request and the journal's reading of its entry alike.
    var tipStyleGiven: TipStyle? { get }
}

extension ActionCommandLine {
    func headlessRequest(caller: Caller, settings: TillConfig) throws(ValidationFailure) -> TerminalRequest {
        try terminalRequest(caller: caller)
    }
    var tipStyleGiven: TipStyle? { nil }
    /// `till url <name>`.
    static var urlCommand: any ParsableCommand.Type { URLActionCommand<Self>.self }
    /// `till <name>`.
    static var headlessCommand: any ParsableCommand.Type { HeadlessActionCommand<Self>.self }
}

/// `till url <name>`: the request URL, or every problem (exit 2).
struct URLActionCommand<Options: ActionCommandLine>: ParsableCommand {
    static var configuration: CommandConfiguration {
        let h = Options.help
        return CommandConfiguration(commandName: h.commandName, abstract: h.url, discussion: h.urlDiscussion, aliases: h.urlAliases)
    }
    @OptionGroup(title: Options.help.title) var options: Options
    @OptionGroup(title: "Caller") var caller: CallerOptions
    @OptionGroup var output: URLOutputOptions
    func run() throws { output.emit(options.terminalRequestOrExit(caller: caller.caller())) }
}

/// `till <name>`: journals, sends, waits and prints the answer (`runHeadlessTransaction`).
struct HeadlessActionCommand<Options: ActionCommandLine>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        let h = Options.help
        return CommandConfiguration(commandName: h.commandName, abstract: h.abstract, discussion: h.discussion, aliases: h.aliases)
    }
    @OptionGroup var global: GlobalOptions
    @OptionGroup var caller: CallerOptions
    @OptionGroup var options: Options
    func run() async throws {
        await runHeadlessTransaction(global, caller, tipStyle: options.tipStyleGiven) { c, settings throws(ValidationFailure) in
            try options.headlessRequest(caller: c, settings: settings)
        }
    }
}

/// A payment, refund or capture (`till sale`, `till pre-auth`, `till refund`, `till capture`): as
/// `HeadlessActionCommand`, and it may confirm earlier unknown outcomes (`--confirm-unknown`).
protocol PaymentCommandLine: ActionCommandLine {}

extension PaymentCommandLine {
    static var headlessCommand: any ParsableCommand.Type { HeadlessPaymentCommand<Self>.self }
}

struct HeadlessPaymentCommand<Options: PaymentCommandLine>: AsyncParsableCommand {
    static var configuration: CommandConfiguration { HeadlessActionCommand<Options>.configuration }
    @OptionGroup var global: GlobalOptions
    @OptionGroup var caller: CallerOptions
    @OptionGroup var options: Options
    @OptionGroup var retry: RetryOptions
    func run() async throws {
        await runHeadlessTransaction(global, caller, confirming: retry.ids, tipStyle: options.tipStyleGiven) { c, settings throws(ValidationFailure) in
            try options.headlessRequest(caller: c, settings: settings)
        }
    }
}

/// An action with no fields of its own (`sendLogs`, `getActivationCode`, `getPrintingSettings`).
protocol FieldlessActionCommandLine: ActionCommandLine {
    static var request: Request { get }
}

extension FieldlessActionCommandLine {
    func draft() -> RequestDraft { RequestDraft(request: Self.request) }
}

// MARK: - The registration

/// The actions whose command line is declared in one place, under `till url` and `till` alike, in help's order:
/// the transactions, then the terminal's own set-up (which `till --help` lists after the journal's commands).
let transactionCommandLines: [any ActionCommands.Type] = [
    SaleOptions.self, PreAuthOptions.self, RefundOptions.self, CaptureOptions.self, AbortOptions.self, BatchOptions.self,
    DetailsOptions.self,
]
let setUpCommandLines: [any ActionCommands.Type] = [
    ReprintOptions.self, PrintingSettingsCommands.self, SendLogsOptions.self, ActivationCodeOptions.self, ActivationOptions.self,
]

/// `till url <action>`, every action.
let urlActionCommands: [any ParsableCommand.Type] = (transactionCommandLines + setUpCommandLines).map { $0.urlCommand }

/// `till reprint`, `till printing-settings`, … (Till.swift lists them last).
let adminCommands: [any ParsableCommand.Type] = setUpCommandLines.map { $0.headlessCommand }

let adminExitCodesHelp = "Exit status: 0 done, 1 refused by the terminal, 2 invalid input, 3 transport error, timeout or unknown outcome."
