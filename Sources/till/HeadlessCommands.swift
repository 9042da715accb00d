import ArgumentParser
import Dispatch
import Foundation
import TillCore
import TillIO
import TillModel
import TillProtocol

/// `till sale`, `till refund`, … `till journal`, `till report`/`till export`.
let headlessCommands: [any ParsableCommand.Type] = transactionCommandLines.map { $0.headlessCommand } + [
    JournalCommand.self, ResolveCommand.self, RecoverCommand.self, ReportCommand.self, ExportCommand.self, BatchListCommand.self,
    CheckCommand.self,
]

let headlessExitCodesHelp = "Exit status: 0 approved/success, 1 declined/failed/aborted, 2 invalid input, 3 transport error, timeout or unknown outcome."

/// Journals, sends, waits and prints one request; Ctrl-C once sends an abort, twice stops waiting (outcome unknown).
/// `tipStyle`: the command's `--tip-style`, over the config's `tip`.
func runHeadlessTransaction(_ global: GlobalOptions, _ callerOptions: CallerOptions, confirming: Set<Int64> = [], tipStyle: TipStyle? = nil,
                    _ build: (Caller, TillConfig) throws(ValidationFailure) -> TerminalRequest) async -> Never {
    var settings = global.settings()
    if let tipStyle { settings.tip = tipStyle }
    let caller = callerOptions.caller(config: settings)
    let request = exitOnValidationFailure { () throws(ValidationFailure) -> TerminalRequest in try build(caller, settings) }
    let controller = await global.controller(caller: caller, settings: settings)
    signal(SIGINT, SIG_IGN)
    let interrupts = Locked(0)
    let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
    source.setEventHandler {
        let n = interrupts.withLock { v -> Int in v += 1; return v }
        if n == 1 {
            printToStandardError("till: sending an abort (Ctrl-C again to stop waiting; the outcome is then unknown)…")
            Task {
                let r = await controller.abort()
                printToStandardError("till: abort: \(abortResultText(r))")
            }
        } else {
            Termination.begin()
            Task {
                await Termination.shutdown(controller)
                Termination.waitForShutdowns()
                printToStandardError("till: stopped waiting; the outcome is unknown (see `till journal`).")
                exit(3)
            }
        }
    }
    source.resume()
    var outcome = await controller.perform(request.request, confirmingUnknown: confirming)
    if case .answered(let e) = outcome, e.action.movesMoney, AnswerRules.settledWithoutItsOwnAnswer(e) {
        outcome = await ownAnswer(of: e, from: controller, within: ownAnswerWaitSeconds) ?? outcome
    }
    source.cancel()
    await Termination.shutdown(controller)
    await HeadlessNotices.drained()
    // The journal's last word: an answer read while the transport stopped (the sale's own approval after the abort's
    // "aborted", a late answer to an unknown outcome) may have settled the entry again.
    switch outcome {
    case .answered(let e), .unknown(let e):
        if let now = try? controller.journal.entry(id: e.id), now.state != e.state {
            outcome = now.state.awaitsTerminal ? .unknown(now) : .answered(now)
        }
    default: break
    }
    // The terminal's own word, then another about the same payment (its decline, then its approval): not certain.
    var contradicted: JournalEntry?
    if case .answered(let e) = outcome, e.action.movesMoney { contradicted = await controller.answersContradicting(e).last }
    if CheckCommand.closesShift(outcome) { CheckCommand.startInBackground(journal: controller.journal.path) }
    Termination.exit(printOutcome(outcome, json: global.json, tipStyle: settings.resolvedTip, contradictedBy: contradicted))
}

/// How long a payment settled by something weaker than its own answer (an abort's "aborted", an answer naming no
/// payment) waits on for its own before the command ends and stops the bridge: the terminal may have charged the
/// card before the abort, and says so in the sale's own answer, in either order (protocol README).
let ownAnswerWaitSeconds: UInt64 = 5

/// The entry once its own answer replaced what settled it, if that comes within `seconds`; nil otherwise.
func ownAnswer(of e: JournalEntry, from controller: TillController, within seconds: UInt64) async -> ActionOutcome? {
    let events = controller.events()
    // It may have come already, between the settling and this subscription.
    if let now = await controller.entry(id: e.id), !AnswerRules.settledWithoutItsOwnAnswer(now) { return .answered(now) }
    printToStandardError("till: \(e.state.rawValue) by another answer than the payment's own; waiting up to \(seconds) s for its own…")
    return await withTaskGroup(of: ActionOutcome?.self) { group in
        group.addTask {
            for await event in events { if case .changed(let c) = event, c.id == e.id { return .answered(c) } }
            return nil
        }
        group.addTask { try? await Task.sleep(nanoseconds: seconds * 1_000_000_000); return nil }
        let first = await group.next() ?? nil
        group.cancelAll()
        if first != nil { return first }
        // The last look: it may have been journaled as the wait ended.
        if let now = await controller.entry(id: e.id), !AnswerRules.settledWithoutItsOwnAnswer(now) { return .answered(now) }
        return nil
    }
}

func abortResultText(_ r: AbortResult) -> String {
    switch r {
    case .nothingInFlight: return "nothing of this till's is in flight; no abort was sent."
    case .answered(let o, let resp):
        switch o {
        case .aborted: return "ABORTED (\(terminalSafe(resp.message ?? "")))"
        case .nothingToAbort: return "NOTHING TO ABORT (\(terminalSafe(resp.message ?? "")))"
        case .other: return "answered '\(terminalSafe(resp.message ?? resp.status.description))'; the payment's own result follows."
        }
    case .noAnswer: return "no abort answer: the transaction is past the point of no return; its own result follows."
    case .transportError(let m): return "could not be sent: \(terminalSafe(m))"
    }
}

struct BatchTillCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch", abstract: "Open or close a batch (shift) on the terminal.",
        discussion: "Examples: till batch open --name morning; till batch close\n" + headlessExitCodesHelp)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var caller: CallerOptions
    @OptionGroup var batch: BatchOptions
    @Flag(help: "Close even though some transactions still need a decision (they stay flagged in the journal).")
    var force = false

    func run() async throws {
        if batch.batchCommand == .close && !force {
            // Closing safely: a transaction whose outcome is unknown must be decided first, or the
            // Z report would be made without knowing whether that money moved.
            let journal = global.journalOnly()
            let open = (try? journal.unresolved()) ?? []
            if !open.isEmpty {
                printToStandardError("till: not closing: \(open.count) transaction(s) still need a decision (an unknown outcome or an answer "
                                     + "to review), so the Z report cannot be final:")
                for e in open { printToStandardError("  " + journalEntryLine(e)) }
                printToStandardError("Check them on the terminal and settle each with `till resolve ID --charged|--not-charged` (or `till recover`), "
                                     + "then close again; or close anyway with --force.")
                throw ExitCode(2)
            }
        }
        await runHeadlessTransaction(global, caller) { c, _ throws(ValidationFailure) in try batch.terminalRequest(caller: c) }
    }
}

struct AbortCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "abort", abstract: "Ask the terminal to abort the transaction it is running.",
        discussion: """
            Sends an abort even though this process has nothing in flight (a `till sale` waiting in another \
            terminal window is better aborted with Ctrl-C there, so that its own journal entry is settled at once).
            Exit status: 0 aborted, 1 nothing to abort, 3 no abort answer or transport error.
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var caller: CallerOptions
    func run() async throws {
        let settings = global.settings()
        let controller = await global.controller(caller: caller.caller(config: settings), recover: false)
        let r = await controller.abort(force: true)
        await controller.shutdown()
        await HeadlessNotices.drained()
        if global.json {
            var o: [(String, JSONValue)] = []
            switch r {
            case .answered(let outcome, let resp): o = [("outcome", .string(outcome.rawValue)), ("response", coreResponseJSONValue(resp))]
            case .noAnswer: o = [("outcome", .string("noAnswer"))]
            case .nothingInFlight: o = [("outcome", .string("nothingInFlight"))]
            case .transportError(let m): o = [("outcome", .string("transportError")), ("message", .string(m))]
            }
            outJSON(JSONValue.object(o))
        } else if case .answered(_, let resp) = r {
            out(responseText(resp, tipStyle: global.settings().resolvedTip))
        } else {
            out("Abort: " + abortResultText(r))
        }
        switch r {
        case .answered(.aborted, _): throw ExitCode(0)
        case .answered: throw ExitCode(1)
        default: throw ExitCode(3)
        }
    }
}

func coreResponseJSONValue(_ r: CallbackResponse) -> JSONValue { redactedForDisplay(r).json }

struct JournalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal", abstract: "List the journal, or show one entry.",
        subcommands: [JournalListCommand.self, JournalShowCommand.self],
        defaultSubcommand: JournalListCommand.self)
}

struct JournalListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List journal entries, newest first.",
        discussion: "Examples: till journal; till journal --current-batch; till journal --search 000123 --limit 20")
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Only the current batch.") var currentBatch = false
    @Option(help: ArgumentHelp("Only this batch (its id).", valueName: "id")) var batch: String?
    @Option(help: ArgumentHelp("Match STAN, order code, client transaction id, card type, amount or message.", valueName: "text"))
    var search: String?
    @Option(help: "At most this many entries, or all.") var limit: EntryLimit = EntryLimit(50)
    @Flag(help: "Only entries that need attention (pending, sent, unknown).") var unresolved = false

    func run() async throws {
        let journal = global.journalOnly()
        let scope: JournalFilter.Scope = batch.map { .batch($0) } ?? (currentBatch ? .currentBatch : .all)
        let current = try journal.batch()
        if !global.json, current.isOpen { out("Current batch: \(current.name ?? "?") (\(current.id ?? "?"))") }
        // Each entry is written as it is read: a listing of the whole journal holds one entry at a time.
        var count = 0
        var array = StreamedJSONArray()
        func show(_ e: JournalEntry) {
            if global.json { Output.shared.verbatim(array.element(journalEntryJSON(e))) } else { out(journalEntryLine(e)) }
            count += 1
        }
        if unresolved {
            for e in try journal.unresolved().suffix(limit.count).reversed() { show(e) }
        } else {
            try journal.forEachEntry(JournalFilter(scope: scope, text: search, limit: limit.count), currentBatchId: current.id, show)
        }
        if global.json { Output.shared.verbatim(array.end + "\n") }
        else if count == 0 { out("No entries.") }
    }
}

/// How many entries a listing shows: a number, or `all`.
struct EntryLimit: ExpressibleByArgument, Sendable {
    var count: Int
    init(_ count: Int) { self.count = count }
    init?(argument: String) {
        if argument == "all" { count = Int(Int32.max); return }
        guard let n = Int(argument), n >= 0 else { return nil }
        count = n
    }
    var defaultValueDescription: String { count == Int(Int32.max) ? "all" : String(count) }
}

struct JournalShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one journal entry in full.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The entry's number (as `till journal` lists it, without #).") var id: Int64

    func run() async throws {
        let journal = global.journalOnly()
        guard let e = try journal.entry(id: id) else {
            printToStandardError("till: no journal entry \(id).")
            throw ExitCode(2)
        }
        if global.json { outJSON(journalEntryJSON(e)); return }
        out(journalEntryLine(e))
        out("  request id   \(e.requestId)")
        out("  request      \(terminalSafe(e.requestURL))")
        if let b = e.batchName ?? e.batchId { out("  batch        \(terminalSafe(b))") }
        out("  created      \(journalTimeText(e.createdAtMs)) UTC, updated \(journalTimeText(e.updatedAtMs)) UTC")
        if let n = e.note { out("  note         \(terminalSafe(n))") }
        if let r = e.response {
            out("")
            out(responseText(r, tipStyle: global.settings().resolvedTip))
        }
    }
}

/// `--confirm-unknown ID`: the cashier checked an earlier payment (or refund, capture of the same payment) whose
/// outcome is unknown and sends again anyway.
struct RetryOptions: ParsableArguments {
    @Option(name: .customLong("confirm-unknown"),
            help: ArgumentHelp("An earlier payment with an unknown outcome (journal id) that you checked on the terminal; "
                               + "needed before charging again while one is unknown, or refunding (capturing) a payment again "
                               + "while an earlier refund (capture) of it is. Repeat for several.", valueName: "id"))
    var confirmUnknown: [Int64] = []
    var ids: Set<Int64> { Set(confirmUnknown) }
}

struct ResolveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve", abstract: "Settle an entry whose outcome was unknown (or needs review) as you found it on the terminal (never re-sends).",
        discussion: "Examples: till resolve 42 --charged --note \"terminal shows it approved, receipt 000123\"; "
            + "till resolve 43 --not-charged. A payment needs --charged (it counts in the totals) or --not-charged (it never does).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The entry's number.") var id: Int64
    @Flag(name: .customLong("charged"), help: "The terminal shows it went through: count it.") var charged = false
    @Flag(name: .customLong("not-charged"), help: "The terminal shows it did not go through: never count it.") var notCharged = false
    @Option(help: "How it was settled, in your words.") var note: String?
    @Option(help: ArgumentHelp("With --charged, the amount the terminal shows, for a payment whose answer stated none (a full refund or capture).",
                               valueName: "amount")) var amount: String?
    @Option(help: ArgumentHelp("With --charged, the tip the terminal shows (0 if none), for a sale whose answer stated none where one was asked.",
                               valueName: "amount")) var tip: String?
    @Option(name: .customLong("override-limit"),
            help: ArgumentHelp("With --charged, why a figure beyond what the terminal could have taken (what was asked with its tip, the "
                               + "pre-auth, what is left of the payment) is right; journaled in the note.", valueName: "why"))
    var overrideLimit: String?

    func run() async throws {
        let journal = global.journalOnly()
        guard let e = try journal.entry(id: id) else { printToStandardError("till: no journal entry \(id)."); throw ExitCode(2) }
        guard e.state.personMaySettle else {
            printToStandardError("till: entry \(id) is \(e.state.rawValue): nothing to resolve.")
            throw ExitCode(1)
        }
        if charged && notCharged { printToStandardError("till: say --charged or --not-charged, not both."); throw ExitCode(2) }
        let text = (note ?? "").trimmingWhitespace()
        let isPayment = e.action.movesMoney
        // The sender lock while it settles: a till waiting on this entry keeps it, and none starts sending meanwhile.
        let lock = SenderLock(journalPath: journal.path)
        let held = (try? lock.acquire()) != nil
        defer { if held { lock.release() } }
        do {
            if !held { try TillController.refuseInProgress(e) }
            if charged || notCharged {
                let how = charged ? "Marked charged" : "Marked not charged"
                func given(_ text: String?, _ option: String) throws -> Money? {
                    guard let text else { return nil }
                    guard charged else { printToStandardError("till: \(option) goes with --charged."); throw ExitCode(2) }
                    do { return try Money.parse(text) } catch {
                        printToStandardError("till: \(option): \(error)"); throw ExitCode(2)
                    }
                }
                try journal.resolve(id, charged: charged, note: text.isEmpty ? how + "." : how + ": " + text,
                                    amount: try given(amount, "--amount"), tip: try given(tip, "--tip"), beyondBecause: overrideLimit)
            } else if isPayment {
                printToStandardError("till: entry \(id) is a \(e.action.rawValue): say what the terminal shows, --charged (it counts) or --not-charged (it never does).")
                throw ExitCode(2)
            } else {
                guard !text.isEmpty else { printToStandardError("till: say how it was settled (--note …)."); throw ExitCode(2) }
                if !(try journal.transition(id, to: .resolved, note: text, from: EntryState.settledByAPerson)) {
                    printToStandardError("till: entry \(id) was settled meanwhile; nothing changed."); throw ExitCode(1)
                }
            }
        } catch let error as ResolveError {
            printToStandardError("till: " + error.message); throw ExitCode(1)
        }
        if let e = try journal.entry(id: id) { if global.json { outJSON(journalEntryJSON(e)) } else { out(journalEntryLine(e)) } }
    }
}

struct RecoverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Settle what an earlier run left open: ask the terminal about each pending/sent/unknown entry.",
        discussion: "Exit status: 0 nothing left unresolved (or only what another till is waiting on), 3 some outcomes are still unknown (listed).")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var caller: CallerOptions

    func run() async throws {
        let settings = global.settings()
        let controller = await global.controller(caller: caller.caller(config: settings), recover: false)
        let left = await controller.recover()
        // What recovery (or an answer read meanwhile) settled is said, as the other commands say it: "nothing left"
        // alone after a charge was found hid that charge from the person who ran it.
        let settled = await controller.lastRecovery.settled.filter { !$0.state.awaitsTerminal }
        // What another till is waiting on is its own to settle: listed apart, never as an outcome to resolve.
        let elsewhere = await controller.anotherTillIsSending() ? left.filter(\.state.isWithItsSender) : []
        let open = left.filter { e in !elsewhere.contains { $0.id == e.id } }
        await controller.shutdown()
        await HeadlessNotices.drained()
        if global.json {
            outJSON(JSONValue.array(left.map(journalEntryJSON)))
        } else {
            for e in settled { out("Recovered: " + recoveredText(e)) }
            if !elsewhere.isEmpty {
                out("\(elsewhere.count) in progress on another till, which is waiting for the terminal's answer and settles it:")
                for e in elsewhere { out(journalEntryLine(e)) }
            }
            if open.isEmpty {
                out("Nothing left unresolved.")
            } else {
                out("\(open.count) outcome(s) unknown or to review: check the terminal, then `till resolve ID --charged|--not-charged`:")
                for e in open { out(journalEntryLine(e)) }
            }
        }
        throw ExitCode(open.isEmpty ? 0 : 3)
    }
}
