import TillProtocol
import TillModel

/// What a message of the terminal means, read from its text: `(-12) TRANSACTION_DECLINED_BY_SERVER`,
/// `Transaction declined by host.`, `nothing to abort`, `Batch closed` …
///
/// Read by name first (`TRANSACTION_DECLINED_BY_SERVER`), then, when the message has no name, by its
/// code (`(-43)`), then by the plain words of the vendor's pages. A name this project does not know
/// is `.unrecognised` even when its code is known: a code reused with another name is not guessed at.
public enum TerminalMessage: Sendable, Hashable {
    case success                 // Transaction successful.
    case batchOpened             // Batch opened
    case batchClosed             // Batch closed
    case detailsFetched          // Transaction Details Fetched
    case userCancel              // (-4) USER_CANCEL
    case declinedByBank          // (-12) TRANSACTION_DECLINED_BY_SERVER, Transaction declined by host.
    case terminalBusy            // (-20) TRANSACTION_IN_PROGRESS
    case notFound                // (-30) TRANSACTION_NOT_FOUND
    case invalidRequest          // (-40) INVALID_REQUEST
    case invalidAmount           // (-41) INVALID_AMOUNT
    case invalidDateRange        // (-42) INVALID_DATE_RANGE
    case exceedsRemaining        // (-43) AMOUNT_EXCEEDS_REMAINING
    case notRefundable           // (-44) NOT_REFUNDABLE
    case alreadyCaptured         // (-45) ALREADY_CAPTURED
    case notCapturable           // (-46) NOT_CAPTURABLE
    case batchNotFound           // (-47) BATCH_NOT_FOUND
    case insufficientFunds       // (-51) INSUFFICIENT_FUNDS
    case nothingToAbort          // (-55) NOTHING_TO_ABORT, nothing to abort
    case aborted                 // (-57) ABORTED, aborted
    case resellerDeclined        // (-62) RESELLER_ORDER_DECLINED (wrong ISV credentials)
    case activationFailed        // (-48) ACTIVATION_FAILED
    case printingSettings        // Printing settings
    case printingSettingsSaved   // Printing settings saved
    case logsSent                // Logs sent
    case activationCode          // Activation code
    case posActivated            // POS activated
    case receiptPrinted          // Receipt printed
    /// No message, or one this project has no words for; its code when it had one.
    case unrecognised(code: Int?)

    /// The coded messages: code and name as the terminal (or the simulator) writes them.
    static let coded: [(TerminalMessage, Int, String)] = [
        (.userCancel, -4, "USER_CANCEL"),
        (.declinedByBank, -12, "TRANSACTION_DECLINED_BY_SERVER"),
        (.terminalBusy, -20, "TRANSACTION_IN_PROGRESS"),
        (.notFound, -30, "TRANSACTION_NOT_FOUND"),
        (.invalidRequest, -40, "INVALID_REQUEST"),
        (.invalidAmount, -41, "INVALID_AMOUNT"),
        (.invalidDateRange, -42, "INVALID_DATE_RANGE"),
        (.exceedsRemaining, -43, "AMOUNT_EXCEEDS_REMAINING"),
        (.notRefundable, -44, "NOT_REFUNDABLE"),
        (.alreadyCaptured, -45, "ALREADY_CAPTURED"),
        (.notCapturable, -46, "NOT_CAPTURABLE"),
        (.batchNotFound, -47, "BATCH_NOT_FOUND"),
        (.insufficientFunds, -51, "INSUFFICIENT_FUNDS"),
        (.nothingToAbort, -55, "NOTHING_TO_ABORT"),
        (.aborted, -57, "ABORTED"),
        (.resellerDeclined, -62, "RESELLER_ORDER_DECLINED"),
        (.activationFailed, -48, "ACTIVATION_FAILED"),
    ]

    /// Plain-word messages (lower case, trailing `.` dropped, spaces squeezed).
    static let worded: [String: TerminalMessage] = [
        "transaction successful": .success,
        "batch opened": .batchOpened,
        "batch closed": .batchClosed,
        "transaction details fetched": .detailsFetched,
        "transaction declined by host": .declinedByBank,
        "transaction declined by server": .declinedByBank,
        "transaction declined": .declinedByBank,
        "declined": .declinedByBank,
        "insufficient funds": .insufficientFunds,
        "nothing to abort": .nothingToAbort,
        "aborted": .aborted,
        "user cancel": .userCancel,
        "cancelled by user": .userCancel,
        "transaction in progress": .terminalBusy,
        "terminal busy": .terminalBusy,
        "transaction not found": .notFound,
        "printing settings": .printingSettings,
        "printing settings saved": .printingSettingsSaved,
        "logs sent": .logsSent,
        "activation code": .activationCode,
        "pos activated": .posActivated,
        "receipt printed": .receiptPrinted,
    ]

    /// Reads a message's text.
    public init(message: String?) {
        guard let text = message?.trimmingWhitespace(), !text.isEmpty else { self = .unrecognised(code: nil); return }
        let (code, name) = TerminalMessage.split(text)
        if let name {
            let key = name.uppercased().replacing(" ", with: "_")
            // A busy terminal by another name (`TERMINAL_BUSY`) is still busy: never read as a decline.
            self = TerminalMessage.coded.first { $0.2 == key }?.0 ?? (key.contains("BUSY") ? .terminalBusy : .unrecognised(code: code))
            return
        }
        if let code {
            self = TerminalMessage.coded.first { $0.1 == code }?.0 ?? .unrecognised(code: code)
            return
        }
        var words = text.lowercased()
        while words.hasSuffix(".") || words.hasSuffix("!") { words.removeLast() }
        words = words.split(whereSeparator: { $0 == " " || $0 == "_" || $0 == "\t" }).joined(separator: " ")
        self = TerminalMessage.worded[words] ?? (words.split(separator: " ").contains("busy") ? .terminalBusy : .unrecognised(code: nil))
    }

    /// Reads an answer's message (its decoded code and name when the decoder found them).
    public init(_ response: CallbackResponse) {
        self.init(message: response.message)
    }

    /// `(-12) NAME` → (-12, "NAME"); `(-43)` → (-43, nil); anything else → (nil, nil).
    static func split(_ text: String) -> (Int?, String?) {
        guard text.hasPrefix("("), let close = text.firstIndex(of: ")") else { return (nil, nil) }
        let inside = text[text.index(after: text.startIndex)..<close].trimmingWhitespace()
        guard let code = Int(inside) else { return (nil, nil) }
        let rest = text[text.index(after: close)...].trimmingWhitespace()
        return (code, rest.isEmpty ? nil : rest)
    }
}

/// What the result pane says about an outcome, in a cashier's words.
public struct Verdict: Sendable, Hashable {
    /// Colour (and monochrome emphasis) through the theme: `.approved`, `.declined`, `.aborted`, `.unknown`.
    public var role: Role
    /// ✓ approved, ✗ not done, ? check the terminal: the reading that does not depend on colour.
    public var mark: Character
    /// The word drawn big (`APPROVED`, `DECLINED`, `UNKNOWN` …): at most 32 columns in `BigText.small`.
    public var word: String
    /// The line under it (`SALE APPROVED`, `NOT CHARGED`, `CHECK THE TERMINAL` …).
    public var headline: String
    /// The money the headline is about, when the headline names it (approved money movements).
    public var amount: Money?
    /// What happened and what to do, one or two sentences.
    public var sentence: String

    public init(role: Role, mark: Character, word: String, headline: String, amount: Money? = nil, sentence: String) {
        self.role = role; self.mark = mark; self.word = word; self.headline = headline; self.amount = amount; self.sentence = sentence
    }

    /// What to try drawing big, best first, for `BigText.fit`: the mark and the word where the pane is
    /// wide (120 columns), the word alone at 80 columns, the mark alone where even that does not fit.
    public var bigCandidates: [String] { ["\(mark) \(word)", word, String(mark)] }

    /// `✓ SALE APPROVED € 22.00`: the headline with its mark and amount, for a normal line.
    public func headlineLine(currency: String = "€") -> String {
        "\(mark) " + headline + (amount.map { " " + Format.money($0, currency) } ?? "")
    }
}

/// One line of a verdict block: its text (already centred or left as it should stand) and its look.
public struct VerdictLine: Sendable, Hashable {
    public var text: String
    public var role: Role
    public var bold: Bool
    public init(text: String, role: Role, bold: Bool) { self.text = text; self.role = role; self.bold = bold }
}

extension Verdict {
    /// The verdict as it reads best from two metres, for a pane `width` columns wide:
    /// the big word in block letters (the 6-row size where `maxBigHeight` and the width allow: 64 columns, the pane
    /// from 120; else with the mark in front where it fits: 44 columns, the pane at 100; the word alone at 32, at 80),
    /// centred, in the verdict's role; a blank line; then the headline line (`✓ SALE APPROVED € 22.00`),
    /// bold, in the verdict's role. Where no big text fits, the headline line alone. The sentence is
    /// left to the caller, wrapped to the pane under these lines.
    ///
    ///     ▄▀▄ █▀▄ █▀▄ █▀▄ █▀█ █ █ █▀▀ █▀▄
    ///     █▀█ █▀  █▀  █▀▄ █ █ █ █ █▀  █ █
    ///     ▀ ▀ ▀   ▀   ▀ ▀ ▀▀▀  ▀  ▀▀▀ ▀▀
    ///
    ///          ✓ SALE APPROVED € 22.00
    public func block(width: Int, maxBigHeight: Int = BigText.height(.small), currency: String = "€") -> [VerdictLine] {
        func centred(_ t: String) -> String { String(repeating: " ", count: max(0, (width - t.count) / 2)) + t }
        let headline = VerdictLine(text: centred(headlineLine(currency: currency)), role: role, bold: true)
        // Where the pane is tall, the word in the large letters before the mark beside it in the small ones: the word
        // is what is read from across the counter (the headline under it has the mark).
        let large = maxBigHeight >= BigText.height(.large)
            ? bigCandidates.dropLast().lazy.compactMap { BigText.lines($0, maxWidth: width, size: .large) }.first : nil
        guard let lines = large ?? BigText.fit(bigCandidates, maxWidth: width, maxHeight: maxBigHeight)?.lines else { return [headline] }
        return lines.map { VerdictLine(text: centred($0), role: role, bold: true) }
            + [VerdictLine(text: "", role: role, bold: false), headline]
    }
}

/// Every code and outcome the terminal gives, as a sentence a cashier can act on. Pure: text, answers
/// and journal entries in, strings out. The raw message stays in the journal detail; these words are
/// for the main screen and never show programmer text.
public enum CashierWording {
    /// What the terminal's message means for this action, and what to do next.
    public static func sentence(_ message: TerminalMessage, action: Action?, approved: Bool) -> String {
        switch message {
        case .success, .batchOpened, .batchClosed, .detailsFetched:
            return approved ? approvedSentence(action, message) : notApproved(code: nil, action: action)
        case .printingSettings:
            return approved ? "The terminal sent its printing settings." : notApproved(code: nil, action: action)
        case .printingSettingsSaved:
            return approved ? "The terminal saved the printing settings." : notApproved(code: nil, action: action)
        case .logsSent:
            return approved ? "The terminal sent its logs to the vendor's support." : notApproved(code: nil, action: action)
        case .activationCode:
            return approved ? "The terminal gave its activation code." : notApproved(code: nil, action: action)
        case .posActivated:
            return approved ? "The terminal is activated." : notApproved(code: nil, action: action)
        case .receiptPrinted:
            return approved ? "The terminal printed the receipt again." : notApproved(code: nil, action: action)
        case .activationFailed:
            return "The terminal could not be activated: check the activation code, the source and the PIN, then try again."
        case .userCancel:
            return "Cancelled on the terminal: no money was taken. Ask how the customer wants to pay."
        case .declinedByBank:
            // "So far": the terminal's own approval can still follow a decline (issue 33); it would turn this verdict.
            return "Declined by the card's bank: not charged so far. Ask for another card."
        case .insufficientFunds:
            return "Declined: not enough money on the card; not charged so far. Ask for another card."
        case .terminalBusy:
            return "The terminal is busy with another transaction: wait for it to finish, then try again."
        case .notFound:
            if action?.isLookUp == true {
                return "The terminal has no record of this transaction. Check the terminal's list before charging again."
            }
            return "The terminal found no such transaction: check the STAN or order code and the dates."
        case .invalidRequest:
            return "The terminal could not accept the request: nothing was done. Check the fields and try again."
        case .invalidAmount:
            return "The terminal refused the amount: nothing was charged. Check the amount and the tip."
        case .invalidDateRange:
            return "The terminal refused the dates: give a 'from' date before the 'to' date."
        case .exceedsRemaining:
            if action?.findsEarlierPayment == .toCapture { return "More than is left of the pre-authorisation: capture a smaller amount." }
            return "More than is left to refund on that sale: refund a smaller amount."
        case .notRefundable:
            return "That transaction cannot be refunded (not an approved sale): check the STAN."
        case .alreadyCaptured:
            return "That pre-authorisation was already captured: nothing more to take."
        case .notCapturable:
            return "That transaction is not an approved pre-authorisation: check the STAN."
        case .batchNotFound:
            return "The terminal knows no such batch: check the batch's name."
        case .nothingToAbort:
            return "The terminal had nothing to abort. If a payment still shows as waiting, look at the terminal for its result."
        case .aborted:
            return "Aborted on the terminal: no money was taken."
        case .resellerDeclined:
            return "The terminal refused the till's partner credentials: nothing was charged. Call whoever set up the till."
        case .unrecognised(let code):
            return approved ? approvedSentence(action, message) : notApproved(code: code, action: action)
        }
    }

    /// The sentence for an answer.
    public static func sentence(for response: CallbackResponse) -> String {
        sentence(TerminalMessage(response), action: response.action, approved: response.isApproved)
    }

    /// The sentence for a message text alone (`approved` when the answer's status was success).
    public static func sentence(forMessage message: String?, action: Action? = nil, approved: Bool = false) -> String {
        sentence(TerminalMessage(message: message), action: action, approved: approved)
    }

    static func approvedSentence(_ action: Action?, _ message: TerminalMessage) -> String {
        guard let action else { return "The terminal approved it." }
        if action == .batch, message == .batchOpened { return "The terminal opened the batch." }
        if action == .batch, message == .batchClosed { return "The terminal closed the batch." }
        return action.words.approved
    }

    static func notApproved(code: Int?, action: Action?) -> String {
        let coded = code.map { " (code \($0))" } ?? ""
        // What moves no money is not "approved" or "charged": it was done or not.
        if let action, !action.movesMoney { return "The terminal did not do it\(coded). The terminal's screen says why." }
        return "The terminal did not approve it\(coded): nothing was charged. The terminal's screen says why."
    }

    // MARK: - Verdicts

    /// What the result pane shows for an outcome of `perform`.
    /// `tzOffsetMinutes` is for the times it names (an earlier unknown sale's "at 10:31").
    public static func verdict(for outcome: ActionOutcome, currency: String = "€", tzOffsetMinutes: Int = 0, tipStyle: TipStyle) -> Verdict {
        switch outcome {
        case .answered(let e), .unknown(let e): return verdict(for: e, currency: currency, tipStyle: tipStyle)
        case .transportError(let e, let why) where e?.state == .unknown:
            return Verdict(role: .unknown, mark: "?", word: "UNKNOWN", headline: "CHECK THE TERMINAL",
                           sentence: "The link to the terminal failed after sending: " + lowerFirst(why) + " Check the terminal before charging again.")
        case .transportError(_, let why):
            return Verdict(role: .aborted, mark: "✗", word: "NOT SENT", headline: "NOT SENT — NOT CHARGED",
                           sentence: "The terminal could not be reached, nothing was charged: " + lowerFirst(why) + " Try again.")
        case .invalid(let errors):
            return Verdict(role: .declined, mark: "✗", word: "NOT SENT", headline: "NOT SENT",
                           sentence: errors.map(\.message).joined(separator: " "))
        case .busy:
            return Verdict(role: .aborted, mark: "✗", word: "BUSY", headline: "TERMINAL BUSY — NOT SENT",
                           sentence: "Another request is still waiting for the terminal: nothing was sent. Wait for its result, then try again.")
        case .otherTillBusy:
            return Verdict(role: .aborted, mark: "✗", word: "BUSY", headline: "TERMINAL BUSY — NOT SENT",
                           sentence: "Another till on this journal is waiting for the terminal: nothing was sent. Wait for it, then try again.")
        case .needsConfirmation(let unknown):
            let named = unknown.prefix(3).map { e -> String in
                return Format.money(Format.total(e) ?? .zero, currency) + " at " + Format.hoursMinutesOfDay(e.createdAtMs, offsetMinutes: tzOffsetMinutes)
            }
            let list = named.isEmpty ? "An earlier sale" : named.joined(separator: ", ") + (unknown.count > 3 ? " and \(unknown.count - 3) more" : "")
            return Verdict(role: .unknown, mark: "?", word: "CHECK", headline: "CHECK THE TERMINAL FIRST",
                           sentence: list + " may have been charged: check the terminal before charging again.")
        case .journalFailed(let e, let why):
            return Verdict(role: .unknown, mark: "?", word: "UNKNOWN", headline: "CHECK THE TERMINAL",
                           sentence: why + (e == nil ? "" : " Check the terminal for what it did."))
        }
    }

    /// What the result pane (or a recovery result) shows for a journal entry in its current state.
    public static func verdict(for e: JournalEntry, currency: String = "€", tipStyle: TipStyle) -> Verdict {
        let resp = e.response
        let amount = resp?.amount ?? e.amount
        let total = Format.total(e)
        switch e.state {
        case .approved:
            let said = sentence(resp.map { TerminalMessage($0) } ?? .success, action: e.action, approved: true)
            let words = e.action.words
            switch e.action {
            case .abort: return Verdict(role: .aborted, mark: "✗", word: words.doneWord, headline: words.doneHeadline, sentence: said)
            case .batch:
                let closed = resp?.command == "close" || resp.map { TerminalMessage($0) } == .batchClosed
                return Verdict(role: .approved, mark: "✓", word: words.doneWord, headline: closed ? "BATCH CLOSED" : "BATCH OPENED", sentence: said)
            case .sale, .preAuth, .cancel, .capturePreAuth, .transactionDetails, .reprintTransaction, .getPrintingSettings,
                 .setPrintingSettings, .sendLogs, .getActivationCode, .activatePos:
                // A sale shows what the card paid (a tip on top included); the other money actions the amount answered.
                let shown = e.action.reportRole == .sale ? total : e.action.movesMoney ? amount : nil
                return Verdict(role: .approved, mark: "✓", word: words.doneWord, headline: words.doneHeadline, amount: shown, sentence: said)
            }
        // Declined, or settled as not charged because the terminal was busy (a `.resolved` of another kind is below).
        case .resolved where resp.map(AnswerRules.terminalWasBusy) == true, .declined:
            let message = resp.map { TerminalMessage($0) } ?? .unrecognised(code: nil)
            let said = sentence(message, action: e.action, approved: false)
            // Busy by the journal's own rule (`AnswerRules`), which settled the entry: the two never disagree.
            if e.terminalWasBusy {
                // The terminal never started it (the journal settles it as not charged): not a decline (a cashier
                // reading DECLINED asks for another card).
                let money = e.action.movesMoney, verb = e.action.reportRole.moneyVerb
                // What to do next: the terminal is held by a transaction of its own (started on it, or by another
                // till): finished or cancelled there, the same request goes again (the form kept it).
                return Verdict(role: .aborted, mark: "✗", word: "BUSY", headline: money ? "TERMINAL BUSY — NOT " + verb.uppercased() : "TERMINAL BUSY — NOT DONE",
                               sentence: "The terminal is busy with another transaction: " + (money ? "nothing was \(verb). " : "nothing was done. ")
                                + "Look at the terminal: let that one finish (or cancel it there), then press Enter to send this again; "
                                + "it is kept.")
            }
            let word = message == .userCancel ? "NOT PAID" : e.action.words.declinedWord
            let headline: String
            switch e.action {
            case .abort: headline = message == .nothingToAbort ? "NOTHING TO ABORT" : "NOT ABORTED"
            case .batch: headline = resp?.command == "close" ? "BATCH NOT CLOSED" : "BATCH NOT OPENED"
            case .sale, .preAuth, .cancel, .capturePreAuth, .transactionDetails, .reprintTransaction, .getPrintingSettings,
                 .setPrintingSettings, .sendLogs, .getActivationCode, .activatePos:
                headline = e.action.words.notDoneHeadline
            }
            return Verdict(role: .declined, mark: "✗", word: word, headline: headline, sentence: said)
        case .aborted:
            let moneyAction = e.action.movesMoney
            // What to do next, in one sentence: nothing moved, so a new try is a new request. The pane shows it on every
            // screen (on Refund, "type the amount and press Enter" would refund): it names the screen to do it on.
            let next = e.action.startsPayment ? " To take the payment now, type it again on \(e.action.screen.title) and press Enter."
                : moneyAction ? " Nothing is left open: send it again if it is still wanted." : ""
            return Verdict(role: .aborted, mark: "✗", word: "ABORTED", headline: "ABORTED",
                           sentence: (moneyAction ? "Aborted on the terminal: no money was taken." : "Aborted on the terminal.") + next)
        case .pending, .sent, .unknown:
            return Verdict(role: .unknown, mark: "?", word: "UNKNOWN", headline: "CHECK THE TERMINAL",
                           sentence: unknownSentence(e, total: total, currency: currency))
        case .resolved:
            let not = e.action.movesMoney ? "not " + e.action.reportRole.moneyVerb : "not done"
            return Verdict(role: .dim, mark: "✗", word: "SETTLED", headline: not.uppercased(),
                           sentence: "Settled as \(not) after the outcome was unknown" + (e.note.map { ": " + Format.noteWords($0) } ?? "."))
        case .review:
            // The journal's note says why (another amount, an answer that named no payment, a field given twice …).
            return Verdict(role: .unknown, mark: "?", word: "REVIEW", headline: "NEEDS REVIEW",
                           sentence: (e.note.map { Format.noteWords($0) + " " } ?? "The terminal's answer does not match what was asked. ")
                            + "Settle it on the Unresolved screen once checked.")
        case .duplicate:
            return Verdict(role: .dim, mark: "✓", word: "RECORDED", headline: "ALREADY RECORDED",
                           sentence: "The terminal repeated an answer already recorded: nothing new was charged.")
        }
    }

    /// What to do about a payment whose outcome is unknown, once its reason is said.
    static func unknownAdvice(_ e: JournalEntry) -> String {
        switch e.action.reportRole {
        case .sale, .preAuth, .capture: return "Do not charge it again before checking; then mark it on the Unresolved screen."
        case .refund: return "Do not refund it again before checking; then mark it on the Unresolved screen."
        case .none: return "Mark it on the Unresolved screen once checked."
        }
    }

    static func unknownSentence(_ e: JournalEntry, total: Money?, currency: String) -> String {
        switch e.action.reportRole {
        case .sale, .preAuth, .capture:
            let what = total.map { Format.money($0, currency) + " may have been charged" } ?? "The card may have been charged"
            return "No answer from the terminal: \(what). Check the terminal before charging again, then mark it on the Unresolved screen."
        case .refund:
            let what = total.map { Format.money($0, currency) + " may have been refunded" } ?? "The refund may have been made"
            return "No answer from the terminal: \(what). Check the terminal before refunding again."
        case .none:
            return "No answer from the terminal: check the terminal's screen."
        }
    }

    /// What became of a payment found settled, in the notice's words: "WAS CHARGED", "was NOT reserved" …
    static func foundWords(_ e: JournalEntry) -> String {
        e.state == .approved ? "WAS " + e.action.reportRole.moneyVerb.uppercased() : "was NOT " + e.action.reportRole.moneyVerb
    }

    static func lowerFirst(_ s: String) -> String {
        guard let f = s.first else { return s }
        return f.lowercased() + s.dropFirst()
    }
}

