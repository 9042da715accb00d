import ArgumentParser
import Foundation
import Synchronization
import TillIO
import TillCore
import TillModel
import TillProtocol

// Printing of controller outcomes and journal entries for the headless commands.

/// The options every headless command that talks to the terminal or the journal shares.
struct GlobalOptions: ParsableArguments {
    @Option(help: ArgumentHelp("How to reach the terminal: simulator, file:DIR or pipe:COMMAND (default: the config, else simulator).",
                               valueName: "transport"))
    var transport: String?

    @Option(help: ArgumentHelp("The journal file (default: the config, else $XDG_DATA_HOME/till/journal.sqlite).", valueName: "path"))
    var journal: String?

    @Option(help: ArgumentHelp("Seconds to wait for the terminal's answer before the outcome is unknown (default 90).",
                               valueName: "seconds"))
    var timeout: Double?

    @Option(help: ArgumentHelp("The config file (default: $XDG_CONFIG_HOME/till/config.toml).", valueName: "path"))
    var config: String?

    @Option(name: .customLong("sim-speed"), help: ArgumentHelp("Built-in simulator: delay factor, 1 real time, 0 no delays.",
                                                               valueName: "factor"))
    var simSpeed: Double?

    @Option(name: .customLong("sim-seed"), help: ArgumentHelp("Built-in simulator: seed of its random choices.", valueName: "n"))
    var simSeed: UInt64?

    @Option(name: .customLong("sim-state"), help: ArgumentHelp("Built-in simulator: its state file (default: beside the journal).",
                                                               valueName: "path"))
    var simState: String?

    @Option(name: .customLong("sim-abort-style"),
            help: ArgumentHelp("Built-in simulator: how it answers an abort: terminal (real terminals, default), page (abort.txt), sale-only.",
                               valueName: AbortStyle.names))
    var simAbortStyle: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    init() {}

    /// The flags as plain values (what `settings()` reads).
    var values: GlobalValues {
        GlobalValues(transport: transport, journal: journal, timeout: timeout, config: config, simSpeed: simSpeed,
                     simSeed: simSeed, simState: simState, simAbortStyle: simAbortStyle, json: json)
    }

    /// The config file with these flags on top; a bad config or flag exits 2 with the reason.
    func settings() -> TillConfig { values.settings() }

    /// The journal. It is not read whole first (that grows with the journal's age): SQLite reports a damaged page as it
    /// reads it, which marks the journal damaged (exit 3, loudly), and a journal marked so is refused here at its open.
    /// `till check` reads it whole. A journal that cannot be written (a read-only file, folder or medium) is opened for
    /// reading only, with a warning: these commands only read.
    func journalOnly() -> Journal {
        let s = settings()
        let path = s.resolvedJournalPath
        do {
            let j: Journal
            do { j = try Journal(path: path, tipStyle: s.resolvedTip) } catch let error
                where !(error is JournalOpenError) && !(error is JournalDamagedError) && Path.exists(path) {
                guard let r = try? Journal(path: path, tipStyle: s.resolvedTip, readOnly: true) else { throw error }
                printToStandardError("till: warning: the journal \(path) cannot be written (\(error)); it was opened for reading only.")
                j = r
            }
            return j
        } catch {
            exitUnopened(error, otherwise: "cannot open the journal \(s.resolvedJournalPath)")
        }
    }

    /// A started controller; recovery has run (unresolved entries are listed on standard error).
    /// `settings`: these flags' settings as the command amended them (a sale's `--tip-style`), else `settings()`.
    func controller(caller: Caller, recover: Bool = true, settings given: TillConfig? = nil) async -> TillController {
        let s = given ?? settings()
        Termination.install()
        let c: TillController
        do { c = try await TillFactory.makeController(config: s, caller: caller, beforeStart: HeadlessNotices.follow) } catch {
            exitUnopened(error, damagedAlso: " Nothing was sent.", otherwise: "cannot start (\(s.resolvedTransport))")
        }
        Termination.watch(c)
        if recover {
            let left = await c.recover()
            let report = await c.lastRecovery
            // What recovery learned is said, not only what it could not learn.
            for e in report.settled where !e.state.awaitsTerminal { printToStandardError("till: recovered: " + recoveredText(e)) }
            if report.skipped {
                printToStandardError("till: another till on this journal is waiting for the terminal; recovery is left for later.")
            } else if !left.isEmpty {
                printToStandardError("till: \(left.count) earlier transaction(s) with an unknown outcome or to review; check the terminal, then `till resolve ID --charged|--not-charged`:")
                for e in left { printToStandardError("  " + journalEntryLine(e)) }
            }
        }
        return c
    }

    /// Says why the journal (or the controller on it) did not open, and exits: 2 for a journal that cannot be used
    /// (`JournalOpenError`, a reason the user can act on), 3 for a damaged journal or anything else.
    /// `damagedAlso`: said after a damaged journal's reason; `otherwise`: what failed, before any other error.
    private func exitUnopened(_ error: Error, damagedAlso: String = "", otherwise: String) -> Never {
        switch error {
        case let error as JournalDamagedError:
            printToStandardError("till: JOURNAL ERROR: \(error)" + damagedAlso)
            Foundation.exit(3)
        case let error as JournalOpenError:
            printToStandardError("till: \(error)")
            Foundation.exit(2)
        default:
            printToStandardError("till: \(otherwise): \(error)")
            Foundation.exit(3)
        }
    }
}

/// What the controller learns that no outcome prints, said on standard error as it comes: an answer that could not be
/// read (the file drop keeps it in `rejected/`; a bridge's line is gone), one that matched nothing and was journaled for
/// review, a late answer that settled or changed an entry.
enum HeadlessNotices {
    private static let following = Mutex<Task<Void, Never>?>(nil)

    static func follow(_ c: TillController) {
        let events = c.events()
        following.withLock { $0 = Task {
            for await e in events {
                switch e {
                case .rejectedAnswer(let file, let reason):
                    printToStandardError("till: an answer from the terminal could not be read (\(terminalSafe(file))): \(terminalSafe(reason))")
                case .unmatchedAnswer(_, let note): printToStandardError("till: " + terminalSafe(note))
                default: break
                }
            }
        } }
    }

    /// Waits until everything the controller said is printed (its events end when it is shut down).
    static func drained() async { await following.withLock { $0 }?.value }
}

/// `GlobalOptions` as plain values: what the UI's quick start (`UIArguments(quick:)`) reads without ArgumentParser,
/// and what both turn into settings the same way.
struct GlobalValues: Sendable {
    var transport: String?
    var journal: String?
    var timeout: Double?
    var config: String?
    var simSpeed: Double?
    var simSeed: UInt64?
    var simState: String?
    var simAbortStyle: String?
    var json = false

    /// The config file with these flags on top; a bad config or flag exits 2 with the reason.
    func settings() -> TillConfig {
        let file: TillConfig
        do { file = try TillConfig.load(path: config) } catch {
            printToStandardError("till: \(error.message)")
            Foundation.exit(2)
        }
        var o = TillConfig()
        if let transport {
            do { o.transport = try TransportSpec(parsing: transport) } catch {
                printToStandardError("till: \(error.message)")
                Foundation.exit(2)
            }
        }
        for w in file.warnings { printToStandardError("till: warning: " + w) }
        if let journal, journal.trimmingWhitespace().isEmpty {
            printToStandardError("till: --journal is empty: give the journal's file path (or leave the flag out for the default).")
            Foundation.exit(2)
        }
        if let timeout {
            guard timeout >= TillConfig.minimumTimeoutSeconds, timeout <= 3600, timeout.isFinite else {
                printToStandardError("till: --timeout must be from \(TillConfig.minimumTimeoutSeconds) to 3600 seconds.")
                Foundation.exit(2)
            }
            o.timeoutSeconds = timeout
        }
        if let simSpeed {
            guard simSpeed >= 0, simSpeed <= TillConfig.maximumSimSpeed else {
                printToStandardError("till: --sim-speed must be from 0 (no delays) to \(Int(TillConfig.maximumSimSpeed)) (delays 1000 times real time); nothing was sent.")
                Foundation.exit(2)
            }
            o.simSpeed = simSpeed
        }
        o.journalPath = journal
        o.simSeed = simSeed
        o.simStatePath = simState
        if let simAbortStyle {
            guard let style = AbortStyle(rawValue: simAbortStyle.lowercased()) else {
                printToStandardError("till: --sim-abort-style must be one of \(AbortStyle.names) (got '\(terminalSafe(simAbortStyle))').")
                Foundation.exit(2)
            }
            o.simAbortStyle = style
        }
        return file.overridden(by: o)
    }
}

extension CallerOptions {
    /// The caller: flags, then $TILL_MERCHANT_KEY, then the config file, then the defaults.
    func caller(config: TillConfig) -> Caller {
        caller(fallback: PartialCaller(callback: config.callback, merchantKey: config.merchantKey, appId: config.appId))
    }
}

/// What start-up recovery found about one entry, in a cashier's words: "sale 13.13 (entry 2) WAS CHARGED".
func recoveredText(_ e: JournalEntry) -> String {
    // What the card paid (a tip on top counted), as the terminal would show it.
    let paid = e.charged?.description
    let what = ([e.action.rawValue] + [paid].compactMap { $0 }).joined(separator: " ") + " (entry \(e.id))"
    switch e.state {
    case .approved: return what + " WAS \(e.action.reportRole.moneyVerb.uppercased()) (the terminal's record)."
    case .declined, .aborted: return what + " was NOT \(e.action.reportRole.moneyVerb) (the terminal's record)."
    case .resolved: return what + " was never sent" + (e.note.map { ": " + terminalSafe($0) } ?? ".")
    case .review: return what + " needs review" + (e.note.map { ": " + terminalSafe($0) } ?? ".")
    default: return what + " is still unknown" + (e.note.map { ": " + terminalSafe($0) } ?? ".")
    }
}

/// `#12  2026-11-22 01:52:03  sale  12.00 + 2.00  approved  STAN 000001  note`; with the tip included in the amount
/// (config `tip = "included"`), `22.00 incl. tip 2.00`.
func journalEntryLine(_ e: JournalEntry) -> String {
    var parts = ["#\(e.id)", journalTimeText(e.createdAtMs), e.action.rawValue]
    if let a = e.amount {
        if let t = e.tipAmount, t.cents > 0 { parts.append(e.tipStyle == .included ? "\(a) incl. tip \(t)" : "\(a) + \(t)") }
        else { parts.append(a.description) }
    }
    parts.append(e.stateWords)
    if let r = e.response {
        if let s = r.referenceNumber { parts.append("STAN \(s)") }
        if let m = r.message, !r.isApproved { parts.append(terminalSafe(m)) }
        if let b = r.batchName { parts.append("batch \(terminalSafe(b))") }
    }
    if let n = e.note { parts.append("— " + terminalSafe(n)) }
    return parts.joined(separator: "  ")
}

func journalTimeText(_ ms: Int64) -> String {
    TerminalDate.format(instant: ms * 10_000, offsetMinutes: 0).prefix(19).replacingOccurrences(of: "T", with: " ")
}

func journalEntryJSON(_ e: JournalEntry) -> JSONValue {
    var o: [(String, JSONValue)] = [
        ("id", .int(Int(e.id))), ("requestId", .string(e.requestId)), ("action", .string(e.action.rawValue)),
        ("state", .string(e.state.rawValue)),
    ]
    o.append(("clientTransactionId", e.clientTransactionId.map(JSONValue.string) ?? .null))
    o.append(("amountCents", e.amount.map { .int($0.cents) } ?? .null))
    o.append(("tipAmountCents", e.tipAmount.map { .int($0.cents) } ?? .null))
    o.append(("createdAtMs", .int(Int(e.createdAtMs))))
    o.append(("updatedAtMs", .int(Int(e.updatedAtMs))))
    o.append(("batchId", e.batchId.map(JSONValue.string) ?? .null))
    o.append(("batchName", e.batchName.map(JSONValue.string) ?? .null))
    o.append(("note", e.note.map(JSONValue.string) ?? .null))
    o.append(("requestURL", .string(e.requestURL)))
    o.append(("response", e.response.map { redactedForDisplay($0).json } ?? .null))
    return .object(o)
}

/// Prints an outcome and returns the exit status (0 approved, 1 declined/aborted, 2 invalid, 3 unknown/transport).
/// `contradictedBy`: an answer journaled for review that says something else about the same payment; the outcome is
/// then headed CHECK THE TERMINAL and the exit status is 3, whatever the entry holds.
func printOutcome(_ outcome: ActionOutcome, json: Bool, tipStyle: TipStyle, contradictedBy other: JournalEntry? = nil) -> Int32 {
    if let other, case .answered(let e) = outcome {
        if json {
            outJSON(JSONValue.object([("outcome", .string("review")), ("entry", journalEntryJSON(e)), ("contradictedBy", journalEntryJSON(other))]))
        } else {
            out("CHECK THE TERMINAL · \(e.action.words.answerLabel): the terminal answered this payment twice, differently "
                + "(journal entries \(e.id) and \(other.id)); check it before charging again")
            out("The terminal's first answer:")
            if let r = e.response { out(responseText(r, tipStyle: tipStyle)) }
            out("")
            out("Journal entry \(e.id): \(e.state.rawValue); entry \(other.id): review — " + terminalSafe(other.note ?? ""))
        }
        return 3
    }
    if case .answered(let e) = outcome, e.state == .approved, e.note?.contains(AnswerRules.overturnedNote) == true {
        // Approved after till had it as not charged (declined, aborted): counted, and said loudly, exit 3, so that
        // neither a cashier nor a script charges the customer again on the first word.
        if json {
            outJSON(JSONValue.object([("outcome", .string("approvedAfterNotCharged")), ("entry", journalEntryJSON(e))]))
        } else {
            out("CHECK THE TERMINAL · \(e.action.words.answerLabel): APPROVED after the terminal had said it was not; it is counted as charged")
            if let r = e.response { out(responseText(r, tipStyle: tipStyle)) }
            out("")
            out("Journal entry \(e.id): \(e.stateWords) — \(terminalSafe(e.note ?? ""))")
        }
        return 3
    }
    switch outcome {
    case .invalid(let errors):
        printToStandardError(validationErrorText(ValidationFailure(errors: errors)))
    case .busy(let f):
        let text = "BUSY: journal entry \(f.entry.id) (\(f.entry.action.rawValue)) is still waiting for the terminal; nothing was sent."
        if json { outJSON(JSONValue.object([("outcome", .string("busy")), ("inFlight", journalEntryJSON(f.entry))])) }
        else { printToStandardError(text) }
    case .answered(let e):
        if json {
            outJSON(JSONValue.object([("outcome", .string(e.state.rawValue)), ("entry", journalEntryJSON(e))]))
        } else {
            // An approval that does not count as it stands: the journal's verdict comes first, then what the terminal said.
            let label = e.action.words.answerLabel
            switch e.state {
            case .review: out("CHECK THE TERMINAL · \(label): not counted until a person settles it"); out("The terminal's answer:")
            case .duplicate: out("ALREADY RECORDED · \(label): nothing new was charged"); out("The terminal's answer:")
            default: break
            }
            if let r = e.response { out(responseText(r, tipStyle: tipStyle)) }
            out("")
            out("Journal entry \(e.id): \(e.stateWords)" + (e.note.map { " — \(terminalSafe($0))" } ?? ""))
            if (e.state == .declined || e.state == .aborted), AnswerRules.abortNeedsALookUp(e) {
                out("Not charged so far: an approval the terminal sends for this payment later still settles it (till then says CHECK THE TERMINAL).")
            }
        }
    case .unknown(let e):
        if json {
            outJSON(JSONValue.object([("outcome", .string("unknown")), ("entry", journalEntryJSON(e))]))
        } else {
            out("OUTCOME UNKNOWN · \(e.action.rawValue)")
            out("  " + terminalSafe(e.note ?? "No answer: check the terminal."))
            if let c = e.clientTransactionId { out("  Your reference  \(c)") }
            out("")
            out("Journal entry \(e.id): \(e.state.rawValue). Check the terminal, then: till resolve \(e.id) --charged|--not-charged")
        }
    case .otherTillBusy(let message):
        if json { outJSON(JSONValue.object([("outcome", .string("busy")), ("message", .string(message))])) }
        else { printToStandardError("BUSY: " + terminalSafe(message)) }
    case .needsConfirmation(let list):
        if json {
            outJSON(JSONValue.object([("outcome", .string("needsConfirmation")), ("unknown", .array(list.map(journalEntryJSON)))]))
        } else {
            // In the words of what they did with the money: charged, refunded, captured.
            let verb = list.first?.action.reportRole.moneyVerb ?? "charged"
            let what = list.first.map { $0.action.startsPayment ? "payment(s)" : $0.action.words.name + "(s) of the same payment" } ?? "payment(s)"
            printToStandardError("NOT SENT: earlier \(what) with an unknown outcome may have been \(verb):")
            for e in list { printToStandardError("  " + journalEntryLine(e)) }
            let ids = list.map { String($0.id) }
            printToStandardError("Check the terminal first. Settle each with `till resolve ID --charged|--not-charged`, or send again anyway with "
                                 + ids.map { "--confirm-unknown \($0)" }.joined(separator: " ") + ".")
        }
    case .journalFailed(let e, let message):
        if json {
            outJSON(JSONValue.object([("outcome", .string("journalError")), ("message", .string(message)),
                                    ("entry", e.map(journalEntryJSON) ?? .null)]))
        } else {
            printToStandardError("JOURNAL ERROR: \(terminalSafe(message))")
            if let e { printToStandardError("Journal entry \(e.id) (\(e.action.rawValue)) as last journaled: \(e.state.rawValue)") }
        }
    case .transportError(let e, let message):
        if json {
            outJSON(JSONValue.object([("outcome", .string("transportError")), ("message", .string(message)),
                                    ("entry", e.map(journalEntryJSON) ?? .null)]))
        } else {
            printToStandardError("TRANSPORT ERROR: \(terminalSafe(message))")
            if let e { printToStandardError("Journal entry \(e.id): \(e.state.rawValue)" + (e.note.map { " — \(terminalSafe($0))" } ?? "")) }
        }
    }
    return outcome.exitCode
}
