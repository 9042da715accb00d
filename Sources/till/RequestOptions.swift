import ArgumentParser
import Foundation
import TillIO
import TillModel
import TillProtocol

// Reusable option groups for every command that builds a request: `till url …` and the
// headless payment commands (`till sale`, `till refund`, …). Use them with `@OptionGroup`:
//
//     struct SaleCommand: AsyncParsableCommand {
//         @OptionGroup var caller: CallerOptions
//         @OptionGroup var sale: SaleOptions
//         func run() async throws {
//             // The valid request, or every problem on standard error and exit 2:
//             let request = sale.terminalRequestOrExit(caller: caller.caller())
//             …
//         }
//     }
//
// Every value arrives as text, as the cashier typed it: amounts go through `Money.parse`, numbers and
// true/false are read here, so that a typo becomes a readable `ValidationError` (exit 2), never a
// parser error. `request()` returns the typed `Request`; `terminalRequest(caller:)` adds the caller
// and every rule of `TerminalRequest.validationErrors()`, so all the problems are listed at once.

// MARK: - The contract

/// Anything that drafts a request from typed text: the option groups below and the
/// refund/capture views of `FinderOptions`.
protocol RequestDraftSource {
    /// The request and the problems found while reading the typed text (bad amounts, bad numbers,
    /// a missing amount). `unreadable` names the protocol fields whose text could not be read:
    /// the draft carries a stand-in for them, so rule errors about those fields are left out.
    func draft() -> RequestDraft
    /// The request with its caller, checked against every rule (a requirement, so that an action that reads more than
    /// its draft, such as a sale's tip style, is checked its own way when reached through a generic command).
    func terminalRequest(caller: Caller) throws(ValidationFailure) -> TerminalRequest
}

/// An option group that builds one typed request.
protocol RequestOptionGroup: ParsableArguments, RequestDraftSource {}

// `RequestDraft` (a request read from typed text, with what could not be read) is TillModel's:
// the cashier's screen reads its fields through the same functions (`RequestDraft.sale`, `.preAuth`).

extension RequestDraftSource {
    /// The typed request. Throws every problem with the typed text (not the request's rules:
    /// see `terminalRequest(caller:)`).
    func request() throws(ValidationFailure) -> Request {
        let d = draft()
        if !d.errors.isEmpty { throw ValidationFailure(errors: d.errors) }
        return d.request
    }

    /// The request with its caller, checked against every rule. Throws all the problems at once:
    /// unreadable text first, then each rule the request breaks.
    func terminalRequest(caller: Caller) throws(ValidationFailure) -> TerminalRequest {
        let d = draft()
        let all = d.problems(caller: caller)
        if !all.isEmpty { throw ValidationFailure(errors: all) }
        return TerminalRequest(caller: caller, request: d.request)
    }

    /// The valid request with its caller; otherwise every problem on standard error, and exit 2.
    func terminalRequestOrExit(caller: Caller) -> TerminalRequest {
        do { return try terminalRequest(caller: caller) } catch { exitWithValidationErrors(error) }
    }
}

extension RequestDraft {
    /// The draft with the problems a reader of the command line's own options found (the show_* flags, the payment
    /// method, …) added to its own.
    mutating func absorb(_ r: TypedText) {
        errors += r.errors
        unreadable.formUnion(r.unreadable)
    }
}

/// The till's zone offset (minutes) at an instant (seconds since 1970): `TZ`, else the system's.
@Sendable func tillZoneOffsetMinutes(_ seconds: Int64) -> Int {
    TimeZone.current.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds))) / 60
}

/// A value for a `true|false` option (help text).
let boolValueName = "true|false"

// MARK: - Caller

/// Who is asking and where the answer goes: the first fields of every request URL.
/// All optional, so a config file can fill in what the command line leaves out.
struct CallerOptions: ParsableArguments {
    static let defaultCallback = "interapp-callback"
    /// A clearly fake key, used when neither a flag, the environment nor a config gives one.
    /// (The pages call merchantKey deprecated: "you may pass any value", but it must not be empty.)
    static let demoMerchantKey = "DEMO-MERCHANT-KEY"
    static let defaultAppId = "com.example.till"
    static let merchantKeyEnvironmentVariable = "TILL_MERCHANT_KEY"

    @Option(help: ArgumentHelp("The scheme (or URI) the terminal app answers to.", valueName: "scheme"))
    var callback: String?

    @Option(help: ArgumentHelp("The merchant key (default: $TILL_MERCHANT_KEY, else \(CallerOptions.demoMerchantKey)).",
                               valueName: "key"))
    var merchantKey: String?

    @Option(help: ArgumentHelp("The client app id sent to the terminal app (default: \(CallerOptions.defaultAppId)).",
                               valueName: "id"))
    var appId: String?

    init() {}

    /// The caller. Precedence for each field: the flag, then the environment (`TILL_MERCHANT_KEY`,
    /// merchant key only), then `fallback` (e.g. from a config file), then the defaults above.
    func caller(fallback: PartialCaller = PartialCaller(),
                environment: Environment = .process) -> Caller {
        let envKey = environment.nonEmpty(CallerOptions.merchantKeyEnvironmentVariable)
        return Caller(callback: callback ?? fallback.callback ?? CallerOptions.defaultCallback,
                      merchantKey: merchantKey ?? envKey ?? fallback.merchantKey ?? CallerOptions.demoMerchantKey,
                      appId: appId ?? fallback.appId ?? CallerOptions.defaultAppId)
    }
}

/// Caller fields from somewhere other than the command line (a config file); nil = not given.
struct PartialCaller: Sendable, Hashable {
    var callback: String?
    var merchantKey: String?
    var appId: String?
    init(callback: String? = nil, merchantKey: String? = nil, appId: String? = nil) {
        self.callback = callback; self.merchantKey = merchantKey; self.appId = appId
    }
}

// MARK: - Reporting problems

/// The text printed for a validation failure: a heading and one problem a line.
func validationErrorText(_ failure: ValidationFailure, heading: String = "The request is not valid:") -> String {
    var lines = [heading]
    for e in failure.errors { lines.append("  - \(e.message) [\(e.field)]") }
    return lines.joined(separator: "\n")
}

/// Writes a line (or several) to standard error.
func printToStandardError(_ text: String) {
    let shown = visibleLines(text)
    StandardError.write(shown.hasSuffix("\n") ? shown : shown + "\n")
}

/// Text with every control character shown (`\u{1B}`) instead of acting, line breaks kept: error messages echo what
/// was typed, and an escape sequence typed into an argument must not reach the terminal as one.
func visibleLines(_ text: String) -> String {
    if SafeText.isSafe(text.replacingOccurrences(of: "\n", with: "")) { return text }
    return text.split(separator: "\n", omittingEmptySubsequences: false).map { SafeText.terminal(String($0)) }.joined(separator: "\n")
}

/// Prints every problem to standard error, one a line, and exits with status 2.
func exitWithValidationErrors(_ failure: ValidationFailure, heading: String = "The request is not valid:") -> Never {
    printToStandardError(validationErrorText(failure, heading: heading))
    exit(2)
}

/// Runs `build`; on a validation failure prints every problem to standard error and exits 2.
/// (Swift needs the closure's typed throws spelled out.)
///
///     let request = exitOnValidationFailure { () throws(ValidationFailure) in try TerminalRequest(caller: c, request: .abort).validated() }
func exitOnValidationFailure<T>(_ build: () throws(ValidationFailure) -> T) -> T {
    do { return try build() } catch { exitWithValidationErrors(error) }
}

/// `--tip-style on-top|included`, the config's `tip` values.
extension TipStyle: ExpressibleByArgument {}
