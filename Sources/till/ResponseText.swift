import TillCore
import TillProtocol

// The terminal's answer in words: `till decode` prints it, and so do the headless payment commands.
//
//     print(responseText(response))            // summary, every raw field, warnings
//     print(responseHeadline(response))        // "APPROVED · sale"
//     print(responseJSON(response))            // for scripts: the protocol's field names as keys

/// The one-word verdict a cashier reads first: APPROVED, DECLINED, ABORTED, NOTHING TO ABORT,
/// BATCH OPENED/CLOSED, DETAILS FETCHED, … Anything but `status=success` is never shown as approved.
func responseVerdict(_ r: CallbackResponse) -> String {
    switch r.abortOutcome {
    case .aborted?: return "ABORTED"
    case .nothingToAbort?: return "NOTHING TO ABORT"
    default: break
    }
    switch (r.action, r.status) {
    case (.abort?, .success): return "ABORT ANSWERED"
    case (.abort?, _): return "ABORT FAILED"
    case (.batch?, .success):
        switch r.command?.lowercased() {
        case "open": return "BATCH OPENED"
        case "close": return "BATCH CLOSED"
        default: return "BATCH DONE"
        }
    case (.batch?, _): return "BATCH FAILED"
    case (.transactionDetails?, .success): return "DETAILS FETCHED"
    case (.transactionDetails?, _): return "DETAILS NOT FETCHED"
    // The terminal's own set-up moves no money: never "APPROVED".
    case (let a?, .success) where a.isAdministrative: return "DONE"
    case (let a?, _) where a.isAdministrative: return "FAILED"
    case (_, .success): return "APPROVED"
    case (_, .fail): return r.messageName?.uppercased() == "USER_CANCEL" ? "CANCELLED BY THE USER" : "DECLINED"
    case (_, .other(let s)): return "NOT APPROVED (status '\(terminalSafe(s))')"
    }
}

/// What the answer is about, in words: `sale`, `refund (cancel)`, …
func responseActionLabel(_ r: CallbackResponse) -> String {
    if let a = r.action { return a.words.answerLabel }
    return r.rawAction.map { "unknown action '\(terminalSafe($0))'" } ?? "no action given"
}

/// What an answer did with the money it names: only an approved answer moved it (an answer naming no action is read
/// as a sale's).
func chargedWord(_ r: CallbackResponse) -> String {
    r.isApproved ? (r.action?.reportRole ?? .sale).moneyVerb : "not charged"
}

/// `APPROVED · sale`
func responseHeadline(_ r: CallbackResponse) -> String {
    responseVerdict(r) + " · " + responseActionLabel(r)
}

/// The answer for a person: the headline, a summary of the known fields (amounts formatted, the
/// message's code split out, the card masked), then every raw field as received (secrets redacted,
/// control characters made visible), then the decoder's warnings.
/// `tipStyle` is how the terminal reads the tip (config `tip`): on top of the amount, or included in it.
func responseText(_ r: CallbackResponse, tipStyle: TipStyle) -> String {
    var lines = [responseHeadline(r)]
    var rows: [(String, String)] = []
    func row(_ label: String, _ value: String?) { if let value, !value.isEmpty { rows.append((label, terminalSafe(value))) } }

    if let m = r.message {
        if let code = r.messageCode {
            row("Message", "\(r.messageName ?? m) (code \(code))")
        } else {
            row("Message", m)
        }
    }
    if let a = r.amount {
        if let t = r.tipAmount, t.cents > 0 {
            // On top (sale.txt:26): an approved sale charges both. Included: the amount is what the card paid, the tip a
            // part of it. A declined or failed answer charged nothing.
            if tipStyle == .included { row("Amount", "\(a) incl. tip \(t) " + chargedWord(r)) }
            else { row("Amount", "\(a) + tip \(t) = \(a + t) " + chargedWord(r)) }
        } else {
            row("Amount", a.description)
        }
    } else if let raw = r["amount"], !raw.isEmpty {
        row("Amount", "'\(raw)' (not a number of cents)")
    }
    if r.amount == nil, let t = r.tipAmount { row("Tip", t.description) }
    let card = [r.cardType, r.accountNumber].compactMap { $0 }.joined(separator: " ")
    row("Card", card)
    row("Method", r.verificationMethod)
    row("STAN", r.referenceNumber)
    row("Auth code", r.authorisationCode)
    row("RRN", r.rrn)
    if let o = r.orderCode {
        row("Order code", r.shortOrderCode.map { "\(o) (short \($0))" } ?? o)
    } else {
        row("Short order code", r.shortOrderCode)
    }
    if let n = r.installments { row("Installments", String(n)) }
    if let d = r.transactionDate {
        let utc = TerminalDate.format(instant: d.instant, offsetMinutes: 0)
        row("Date", "\(d.text) (\(utc.prefix(19).replacingT()) UTC)")
    } else {
        row("Date", r["transactionDate"])
    }
    row("Terminal", r.tid)
    row("Transaction", r.transactionId)
    row("Your reference", r.clientTransactionId)
    if r.action == .batch {
        row("Batch", r.command)
        row("Batch name", r.batchName)
        row("Batch id", r.batchId)
    }
    let width = 16 // "Short order code": one layout for every answer
    for (label, value) in rows {
        lines.append("  " + label + String(repeating: " ", count: max(1, width - label.count + 2)) + value)
    }

    lines.append("")
    lines.append("Fields as received (\(r.fields.count)), from \(terminalSafe(r.target)):")
    for f in redactedForDisplay(r).fields {
        lines.append("  \(terminalSafe(f.name))=\(terminalSafe(f.value))")
    }
    if !r.warnings.isEmpty {
        lines.append("")
        lines.append("Warnings (\(r.warnings.count)):")
        for w in r.warnings { lines.append("  - " + terminalSafe(w.description)) }
    }
    return lines.joined(separator: "\n")
}

/// The answer as JSON for scripts: every field under its protocol name, then what till derived
/// (`CallbackResponse.json`), secrets redacted. Pretty by default; `indent: nil` for one line.
func responseJSON(_ r: CallbackResponse, indent: Int? = 2) -> String {
    redactedForDisplay(r).json.text(indent: indent)
}

/// The answer with secret fields (`merchantKey`, `ISV_clientSecret`, if a terminal ever echoed
/// them) replaced by `Secrets.placeholder`.
func redactedForDisplay(_ r: CallbackResponse) -> CallbackResponse {
    var copy = r
    for i in copy.fields.indices where Secrets.fieldNames.contains(copy.fields[i].name) {
        copy.fields[i].value = Secrets.placeholder
    }
    return copy
}

/// Text safe to print on a terminal: control and bidi characters (a `%1B` escape sequence smuggled
/// into a value, a line break, U+202E) are shown as `\u{1B}` instead of acting (`SafeText`).
func terminalSafe(_ s: String) -> String { SafeText.terminal(s) }

private extension Substring {
    func replacingT() -> String { String(map { $0 == "T" ? " " : $0 }) }
}
