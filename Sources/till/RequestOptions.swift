import ArgumentParser
import Foundation
import TillIO
import TillModel
import TillProtocol

// Reusable option groups for every command that builds a request: `till url …` (issue #2) and the
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
        let request = TerminalRequest(caller: caller, request: d.request)
        let all = d.errors + request.validationErrors().filter { !d.unreadable.contains($0.field) }
        if !all.isEmpty { throw ValidationFailure(errors: all) }
        return request
    }

    /// The valid request with its caller; otherwise every problem on standard error, and exit 2.
    func terminalRequestOrExit(caller: Caller) -> TerminalRequest {
        do { return try terminalRequest(caller: caller) } catch { exitWithValidationErrors(error) }
    }
}

// MARK: - Reading typed text

/// Reads typed text into typed values, collecting problems instead of stopping at the first.
struct TypedTextReader {
    var errors: [TillProtocol.ValidationError] = []
    var unreadable: Set<String> = []

    /// An amount as a cashier types it (`12`, `12.5`, `12,50`); nil when absent or unreadable.
    mutating func money(_ text: String?, field: String, label: String) -> Money? {
        guard let text else { return nil }
        do { return try Money.parse(text) } catch {
            errors.append(TillProtocol.ValidationError(field: field, message: "\(label): \(error)"))
            unreadable.insert(field)
            return nil
        }
    }

    /// A whole number (installments).
    mutating func int(_ text: String?, field: String, label: String) -> Int? {
        guard let text else { return nil }
        let t = text.trimmingWhitespace()
        guard !t.isEmpty, t.utf8.count <= 9, t.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let n = Int(t) else {
            errors.append(TillProtocol.ValidationError(field: field, message: "\(label): '\(text)' is not a whole number, like 3."))
            unreadable.insert(field)
            return nil
        }
        return n
    }

    /// `true` or `false` (also `yes`/`no`, `1`/`0`, any case).
    mutating func bool(_ text: String?, field: String, label: String) -> Bool? {
        guard let text else { return nil }
        switch text.trimmingWhitespace().lowercased() {
        case "true", "yes", "1", "on": return true
        case "false", "no", "0", "off": return false
        default:
            errors.append(TillProtocol.ValidationError(field: field, message: "\(label): '\(text)' is not true or false."))
            unreadable.insert(field)
            return nil
        }
    }

    /// A payment method by its protocol name, in any case.
    mutating func paymentMethod(_ text: String?) -> PaymentMethod? {
        guard let text else { return nil }
        guard let m = PaymentMethod(typed: text) else {
            errors.append(TillProtocol.ValidationError(field: "paymentMethod",
                message: "Payment method: '\(text)' is not one of \(PaymentMethod.names)."))
            unreadable.insert("paymentMethod")
            return nil
        }
        return m
    }

    /// A search date as typed (capture-preauth.txt:28): a full ISO 8601 date, a date alone or a time
    /// without offset (the till's zone), sent in full. Text that is none of these is kept for validation.
    func requestDate(_ text: String?, endOfDay: Bool) -> String? {
        guard let text else { return nil }
        return TerminalDate.requestDate(text, endOfDay: endOfDay, offsetMinutes: tillZoneOffsetMinutes) ?? text
    }

    mutating func missing(_ field: String, _ message: String) {
        errors.append(TillProtocol.ValidationError(field: field, message: message))
        unreadable.insert(field)
    }
}

/// The till's zone offset (minutes) at an instant (seconds since 1970): `TZ`, else the system's.
@Sendable func tillZoneOffsetMinutes(_ seconds: Int64) -> Int {
    TimeZone.current.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds))) / 60
}

/// A value for a `true|false` option (help text).
private let boolValueName = "true|false"

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
        let envKey = environment[CallerOptions.merchantKeyEnvironmentVariable].flatMap { $0.isEmpty ? nil : $0 }
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

// MARK: - Sale

/// `--amount 12.00 --tip 2.00 --installments 3 --client-transaction-id X`, the show_* screens,
/// the ISV partner fields and `--no-protocol`.
struct SaleOptions: RequestOptionGroup {
    @Option(parsing: .unconditional, help: ArgumentHelp("The amount, as typed: 12, 12.5, 12.50 or 12,50.", valueName: "amount"))
    var amount: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The tip, added on top of the amount; at most the amount.", valueName: "amount"))
    var tip: String?

    @Option(name: .customLong("tip-style"),
            help: ArgumentHelp("How the terminal reads the tip: on-top (it is added to the amount) or included (the amount sent holds it). Default: the config's tip, else on-top.",
                               valueName: "style"))
    var tipStyle: TipStyle?

    @Option(parsing: .unconditional, help: ArgumentHelp("Pay in N installments. 1 is none (withInstallments=false, as the vendor's code); 0, or more than the terminal allows (36), makes the terminal ask the cardholder.",
                               valueName: "N"))
    var installments: String?

    @Option(help: ArgumentHelp("How the customer pays: \(PaymentMethod.names) (default: the terminal's, card present; MOTO for phone orders).",
                               valueName: "method"))
    var paymentMethod: String?

    @Option(help: ArgumentHelp("Your reference for the transaction (at most 64 characters).", valueName: "id"))
    var clientTransactionId: String?

    @Option(help: ArgumentHelp("Show the receipt screen before returning.", valueName: boolValueName))
    var showReceipt: String?

    @Option(help: ArgumentHelp("Show the rating screen before returning.", valueName: boolValueName))
    var showRating: String?

    @Option(help: ArgumentHelp("Show the transaction result screen before returning.", valueName: boolValueName))
    var showTransactionResult: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("ISV partners: the ISV's fee, as typed.", valueName: "amount"))
    var isvAmount: String?
    @Option(help: ArgumentHelp("ISV partners: the ISV client id (needs --isv-amount and --isv-client-secret).", valueName: "id"))
    var isvClientId: String?
    @Option(help: ArgumentHelp("ISV partners: the ISV client secret.", valueName: "secret"))
    var isvClientSecret: String?
    @Option(help: ArgumentHelp("ISV partners: the ISV source code.", valueName: "code"))
    var isvSourceCode: String?
    @Option(help: ArgumentHelp("ISV partners: the merchant id, to switch merchants.", valueName: "id"))
    var isvMerchantId: String?
    @Option(help: ArgumentHelp("ISV partners: the merchant source code.", valueName: "code"))
    var isvMerchantSourceCode: String?
    @Option(help: ArgumentHelp("ISV partners: the transaction description for the customer.", valueName: "text"))
    var isvCustomerTrns: String?
    @Option(help: ArgumentHelp("ISV partners: the ISV's own transaction reference.", valueName: "id"))
    var isvClientTransactionId: String?
    @Option(help: ArgumentHelp("ISV partners, switching merchants: the merchant's currency, ISO 4217 (978 or EUR).", valueName: "code"))
    var isvCurrencyCode: String?

    @Flag(help: "Leave out protocol=int_default (the pages say to always send it).")
    var noProtocol = false

    init() {}

    /// `till url sale`: the tip read as `--tip-style` says (it reads no config), else on top.
    func draft() -> RequestDraft { draft(tipStyle: tipStyle ?? .onTop) }

    /// `till url sale`: built and checked with the same tip style (`--tip-style`, else on top).
    func terminalRequest(caller: Caller) throws(ValidationFailure) -> TerminalRequest {
        try terminalRequest(caller: caller, tipStyle: tipStyle ?? .onTop)
    }

    /// The sale with its caller, for a terminal that reads the tip as `tipStyle` says (config `tip`):
    /// the amount sent and the rules follow it. Throws every problem at once.
    func terminalRequest(caller: Caller, tipStyle: TipStyle) throws(ValidationFailure) -> TerminalRequest {
        let d = draft(tipStyle: tipStyle)
        let all = d.problems(caller: caller, tipStyle: tipStyle)
        if !all.isEmpty { throw ValidationFailure(errors: all) }
        return TerminalRequest(caller: caller, request: d.request)
    }

    /// The sale; `tipStyle` (config `tip`) says whether the amount sent includes the tip.
    func draft(tipStyle: TipStyle) -> RequestDraft {
        // Amount, tip (an amount or 10%), installments and reference: the one reading the cashier's screen uses too.
        var d = RequestDraft.sale(amount: amount, tip: tip, installments: installments, reference: clientTransactionId,
                                  tipStyle: tipStyle, protocolName: noProtocol ? nil : RequestDraft.defaultProtocol,
                                  missingAmount: "The amount is missing: give --amount, like --amount 12.50.")
        guard case .sale(var sale) = d.request else { return d }
        var r = TypedTextReader()
        sale.paymentMethod = r.paymentMethod(paymentMethod)
        sale.showReceipt = r.bool(showReceipt, field: "show_receipt", label: "Show receipt")
        sale.showRating = r.bool(showRating, field: "show_rating", label: "Show rating")
        sale.showTransactionResult = r.bool(showTransactionResult, field: "show_transaction_result", label: "Show transaction result")
        let isvAmount = r.money(isvAmount, field: "ISV_amount", label: "ISV amount")
        var isv = ISVFields(amount: isvAmount, clientId: isvClientId, clientSecret: isvClientSecret,
                            sourceCode: isvSourceCode, merchantId: isvMerchantId, merchantSourceCode: isvMerchantSourceCode,
                            customerTrns: isvCustomerTrns, clientTransactionId: isvClientTransactionId,
                            currencyCode: isvCurrencyCode)
        // An ISV amount typed but unreadable still counts as given (no "needs the ISV amount" on top).
        if r.unreadable.contains("ISV_amount") { isv.amount = Money(cents: 1) }
        sale.isv = isv != ISVFields() ? isv : nil
        d.request = .sale(sale)
        d.errors += r.errors
        d.unreadable.formUnion(r.unreadable)
        return d
    }
}

// MARK: - Pre-authorisation

/// `--amount`, `--client-transaction-id`, the show_* screens and `--no-protocol`.
struct PreAuthOptions: RequestOptionGroup {
    @Option(parsing: .unconditional, help: ArgumentHelp("The amount to reserve, as typed: 12, 12.5, 12.50 or 12,50.", valueName: "amount"))
    var amount: String?

    @Option(help: ArgumentHelp("Your reference for the transaction (at most 64 characters).", valueName: "id"))
    var clientTransactionId: String?

    @Option(help: ArgumentHelp("How the customer pays: \(PaymentMethod.names) (default: the terminal's, card present).",
                               valueName: "method"))
    var paymentMethod: String?

    @Option(help: ArgumentHelp("Show the receipt screen before returning.", valueName: boolValueName))
    var showReceipt: String?

    @Option(help: ArgumentHelp("Show the rating screen before returning.", valueName: boolValueName))
    var showRating: String?

    @Option(help: ArgumentHelp("Show the transaction result screen before returning.", valueName: boolValueName))
    var showTransactionResult: String?

    @Flag(help: "Leave out protocol=int_default (the pages say to always send it).")
    var noProtocol = false

    init() {}

    func draft() -> RequestDraft {
        var d = RequestDraft.preAuth(amount: amount, reference: clientTransactionId,
                                     protocolName: noProtocol ? nil : RequestDraft.defaultProtocol,
                                     missingAmount: "The amount is missing: give --amount, like --amount 12.50.")
        guard case .preAuth(var p) = d.request else { return d }
        var r = TypedTextReader()
        p.paymentMethod = r.paymentMethod(paymentMethod)
        p.showReceipt = r.bool(showReceipt, field: "show_receipt", label: "Show receipt")
        p.showRating = r.bool(showRating, field: "show_rating", label: "Show rating")
        p.showTransactionResult = r.bool(showTransactionResult, field: "show_transaction_result", label: "Show transaction result")
        d.request = .preAuth(p)
        d.errors += r.errors
        d.unreadable.formUnion(r.unreadable)
        return d
    }
}

// MARK: - Refund / cancel and capture

/// How refund (cancel) and capture find the original transaction: `--amount` (absent: the full
/// amount), `--reference` (STAN), `--order-code`, `--short-order-code`, `--from`, `--to`, and the
/// show_* screens.
struct FinderOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("The amount, as typed (absent: the full amount).", valueName: "amount"))
    var amount: String?

    @Option(help: ArgumentHelp("The STAN (referenceNumber) of the original transaction: six digits.", valueName: "stan"))
    var reference: String?

    @Option(help: ArgumentHelp("The order code of the original transaction (10 to 20 digits).", valueName: "code"))
    var orderCode: String?

    @Option(help: ArgumentHelp("The short order code (ten digits; same terminal only).", valueName: "code"))
    var shortOrderCode: String?

    @Option(help: ArgumentHelp("Search from this date: ISO 8601 (2021-03-29T00:00:00.000+03:00), a day (2021-03-29: from its start) or a time without offset (the till's zone).", valueName: "date"))
    var from: String?

    @Option(help: ArgumentHelp("Search until this date (needs --from; absent: until now); a day alone means until its end.", valueName: "date"))
    var to: String?

    @Option(help: ArgumentHelp("Show the receipt screen before returning.", valueName: boolValueName))
    var showReceipt: String?

    @Option(help: ArgumentHelp("Show the transaction result screen before returning.", valueName: boolValueName))
    var showTransactionResult: String?

    @Flag(help: "Capture only: leave out protocol=int_default (capture-preauth.txt lists it; a refund never sends it).")
    var noProtocol = false

    init() {}

    /// The show_* options, read from typed text (the rest is `RequestDraft.refund` / `.capture`'s, as the screen's).
    func readShows() -> (showReceipt: Bool?, showResult: Bool?, reader: TypedTextReader) {
        var r = TypedTextReader()
        let receipt = r.bool(showReceipt, field: "show_receipt", label: "Show receipt")
        let result = r.bool(showTransactionResult, field: "show_transaction_result", label: "Show transaction result")
        return (receipt, result, r)
    }

    /// A draft and the show_* options' problems together.
    static func merged(_ d: RequestDraft, _ r: TypedTextReader) -> RequestDraft {
        RequestDraft(request: d.request, errors: d.errors + r.errors, unreadable: d.unreadable.union(r.unreadable))
    }

    /// As a refund (`action=cancel`).
    var refund: RefundOptionsView { RefundOptionsView(options: self) }
    /// As a capture of a pre-authorisation (`action=capture_pre_auth`).
    var capture: CaptureOptionsView { CaptureOptionsView(options: self) }

    /// The refund (cancel) request; throws problems with the typed text.
    func cancelRequest() throws(ValidationFailure) -> Request { try refund.request() }
    /// The capture request; throws problems with the typed text.
    func captureRequest() throws(ValidationFailure) -> Request { try capture.request() }
}

/// `FinderOptions` read as a refund. Not parsed itself: get it from `finderOptions.refund`.
struct RefundOptionsView: RequestDraftSource {
    var options: FinderOptions
    func draft() -> RequestDraft {
        let o = options, x = options.readShows()
        return FinderOptions.merged(RequestDraft.refund(amount: o.amount, reference: o.reference, orderCode: o.orderCode,
                                                        shortOrderCode: o.shortOrderCode, from: o.from, to: o.to,
                                                        showReceipt: x.showReceipt, showResult: x.showResult,
                                                        offsetMinutes: tillZoneOffsetMinutes), x.reader)
    }
}

/// `FinderOptions` read as a capture. Not parsed itself: get it from `finderOptions.capture`.
struct CaptureOptionsView: RequestDraftSource {
    var options: FinderOptions
    func draft() -> RequestDraft {
        let o = options, x = options.readShows()
        // capture-preauth.txt:36 lists `protocol` (int_default), as for a sale.
        return FinderOptions.merged(RequestDraft.capture(amount: o.amount, reference: o.reference, orderCode: o.orderCode,
                                                         shortOrderCode: o.shortOrderCode, from: o.from, to: o.to,
                                                         showReceipt: x.showReceipt, showResult: x.showResult,
                                                         protocolName: o.noProtocol ? nil : RequestDraft.defaultProtocol,
                                                         offsetMinutes: tillZoneOffsetMinutes), x.reader)
    }
}

// MARK: - Batch

/// `open|close`, `--name`, `--id` (close only, a UUID).
struct BatchOptions: RequestOptionGroup {
    @Argument(help: ArgumentHelp("open or close.", valueName: "open|close"))
    var command: String

    @Option(help: ArgumentHelp("The batch name (open: name the new batch; close: close the batch of that name).",
                               valueName: "name"))
    var name: String?

    @Option(help: ArgumentHelp("Close only: the UUID of the batch to close.", valueName: "uuid"))
    var id: String?

    init() {}

    /// The command as typed (spaces around it and its case ignored); nil for any other word. The request and the
    /// "unknown outcomes first" check before a close both read it here, so they agree on what is a close.
    var batchCommand: BatchCommand? { BatchCommand(rawValue: command.trimmingWhitespace().lowercased()) }

    func draft() -> RequestDraft {
        var r = TypedTextReader()
        let c = batchCommand
        if c == nil { r.missing("command", "The batch command must be open or close (got '\(command)').") }
        // Unknown command: read as close, so that --id is still checked as a UUID (and not refused as open-only).
        let b = BatchRequest(command: c ?? .close, batchName: name, batchId: id)
        return RequestDraft(request: .batch(b), errors: r.errors, unreadable: r.unreadable)
    }
}

// MARK: - Transaction details

/// `--client-transaction-id`: which transaction to fetch the details of.
struct DetailsOptions: RequestOptionGroup {
    @Option(help: ArgumentHelp("The client transaction id of the transaction to look up.", valueName: "id"))
    var clientTransactionId: String?

    @Option(help: ArgumentHelp("The terminal the transaction was made on (sourceTerminalId).", valueName: "id"))
    var sourceTerminalId: String?

    init() {}

    func draft() -> RequestDraft {
        var r = TypedTextReader()
        if clientTransactionId == nil {
            r.missing("clientTransactionId", "The client transaction id is missing: give --client-transaction-id.")
        }
        return RequestDraft(request: .transactionDetails(DetailsRequest(clientTransactionId: clientTransactionId ?? "?",
                                                                        sourceTerminalId: sourceTerminalId)),
                            errors: r.errors, unreadable: r.unreadable)
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
