import TillProtocol

/// One line of a report, with what kind of line it is: the screen styles it by its kind, never by its text (a batch
/// name or a card type the terminal sent may read like anything).
public struct ReportLine: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// The report's name: "Z report (closing): Morning".
        case title
        /// About the batch: its name and id, when it opened and closed, when the report was made.
        case detail
        case blank
        /// The column heads (count, amount).
        case columns
        /// A section's heading: "Approved sales by card type", "Not in the totals".
        case heading
        /// A figure.
        case row
        /// The net total.
        case total
        /// A figure that needs a person before it can be trusted: outcomes unknown, answers that need review.
        case warning
    }
    public var kind: Kind
    public var text: String
    public init(_ kind: Kind, _ text: String) { self.kind = kind; self.text = text }
}

extension Report {
    /// The report as typed lines for the screen and `till report` (fits 80 columns).
    public func reportLines(_ f: ReportFormat) -> [ReportLine] {
        var out: [ReportLine] = [ReportLine(.title, title)]
        func add(_ kind: ReportLine.Kind, _ text: String = "") { out.append(ReportLine(kind, text)) }
        // Batch names, card types and methods come from the terminal: escaped, never printed raw.
        let safe = SafeText.terminal
        // The batch by its name: its id is for machines (the CSV and JSON exports hold it), never read by a cashier.
        add(.detail, "Batch      " + (batchName.map(safe) ?? "(no name)"))
        add(.detail, "Opened     " + f.time(openedAtMs))
        if kind == .closing || closedAtMs != nil {
            add(.detail, "Closed     " + f.time(closedAtMs) + (closedHow.map { "  (\(safe($0.rawValue)))" } ?? ""))
        }
        add(.detail, "First/last " + f.time(firstAtMs) + "  /  " + f.time(lastAtMs))
        add(.detail, "Made at    " + f.time(generatedAtMs))
        if let r = restated {
            add(.warning, "Restated   an entry was settled after the first Z report,")
            add(.warning, "           made " + f.time(r.firstMadeAtMs) + ": NET TOTAL then " + f.money(r.firstNetCents))
        }
        add(.blank)
        add(.columns, pad("", 30) + lpad("count", 7) + lpad("amount", 18))
        var section = Row.Section.totals
        for r in rows where r.isShown(onScreen: true) {
            if r.section != section {
                section = r.section
                if section.blankBefore { add(.blank) }
                if let h = section.heading { add(.heading, h) }
            }
            let label = (r.section.heading == nil ? "" : "  ") + (r.isAName ? safe(r.label) : r.label)
            let count = r.value.count.map(String.init) ?? ""
            var line = pad(label, 30) + lpad(count, 7)
            if let cents = r.value.cents { line += lpad((r.subtracts && cents > 0 ? "-" : "") + f.money(cents), 18) }
            let notZero = !r.value.isZero
            if notZero, let note = r.note { line += "  " + note }
            add(r.isTotal ? .total : r.needsAPerson && notZero ? .warning : .row, line)
        }
        return out
    }

    /// The report's lines, and after them where the central store stands (when a sync runs for this journal): the Z
    /// report says what is not yet sent; closing never waits for the store.
    public func reportLines(_ f: ReportFormat, store: StoreSync?) -> [ReportLine] {
        guard let store else { return reportLines(f) }
        return reportLines(f) + [ReportLine(.blank, ""), store.reportLine(f)]
    }

    /// The report's lines as text.
    public func lines(_ f: ReportFormat) -> [String] { reportLines(f).map(\.text) }

    public func text(_ f: ReportFormat) -> String { lines(f).joined(separator: "\n") + "\n" }

    /// The report as CSV (section,label,count,amount,currency): amounts with `.` so any spreadsheet reads them.
    public func csv(_ f: ReportFormat) -> String {
        var out: [[String]] = [["section", "label", "count", "amount", "currency"]]
        out.append(["batch", "name", "", batchName ?? "", ""])
        out.append(["batch", "id", "", batchId ?? "", ""])
        out.append(["batch", "kind", "", kind.rawValue, ""])
        for r in rows where r.isShown(onScreen: false) {
            let amount = r.value.cents.map { Money(cents: r.subtracts ? -$0 : $0).formatted() } ?? ""
            out.append([r.section.rawValue, r.csvLabel, r.value.count.map(String.init) ?? "", amount,
                         r.value.cents == nil ? "" : f.currencySymbol])
        }
        return CSV.text(out)
    }

    /// The report as JSON: the batch, then each row under its key (a tally as `{count, cents}`, an amount in cents),
    /// the rows of a breakdown (card types, methods) in one object by their labels, present even when empty.
    public var json: JSONValue {
        func value(_ v: Row.Value) -> JSONValue {
            switch v {
            case .tally(let t): return .object([("count", .int(t.count)), ("cents", .int(t.cents))])
            case .count(let n), .cents(let n): return .int(n)
            }
        }
        func opt(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        func optInt(_ i: Int64?) -> JSONValue { i.map { .int(Int($0)) } ?? .null }
        var members: [(String, JSONValue)] = [
            ("kind", .string(kind.rawValue)), ("batchId", opt(batchId)), ("batchName", opt(batchName)),
            ("openedAtMs", optInt(openedAtMs)), ("closedAtMs", optInt(closedAtMs)), ("closedHow", opt(closedHow?.rawValue)),
            ("generatedAtMs", .int(Int(generatedAtMs))), ("firstAtMs", optInt(firstAtMs)), ("lastAtMs", optInt(lastAtMs)),
        ]
        let all = rows
        for section in Row.Section.allCases {
            let of = all.filter { $0.section == section && $0.isShown(onScreen: false) }
            if let group = section.jsonGroup {
                members.append((group, .object(of.map { ($0.key, value($0.value)) })))
            } else {
                members += of.map { ($0.key, value($0.value)) }
            }
        }
        return .object(members)
    }
}

/// Transactions of a batch as CSV and JSON, for the accountant.
public enum TransactionExport {
    public static let columns = ["id", "time", "action", "state", "amount", "tip", "currency", "card type", "card number",
                                 "verification method", "STAN", "order code", "short order code", "client transaction id",
                                 "transaction id", "message", "note", "paid", "what"]

    /// `paid` (the last column, so that columns read by position stay where they were) is the money the row moved, so
    /// that an accountant's sum of it is the day's money: what the card paid for an approved sale (read with the tip
    /// style: with the tip included `amount` already holds `tip`) or capture, minus what an approved refund gave back;
    /// zero for everything else (declined, unknown, needing review, repeated answers, pre-auths that only reserve,
    /// look-ups, batches, aborts). `currency` is the ISO 4217 code. `action` is the protocol's word (`cancel`), for
    /// machines; `what` (last, after `paid`, for the same reason) the word the cashier reads on screen (`refund`).
    static func values(_ e: JournalEntry, _ f: ReportFormat) -> [String] {
        let r = e.response
        let amount = Money(cents: ReportBucket.amountCents(of: e)), tip = Money(cents: ReportBucket.tipCents(of: e))
        return [String(e.id), f.time(e.createdAtMs), e.action.rawValue, e.state.rawValue,
                amount.formatted(), tip.formatted(),
                f.currencyCode, r?.cardType ?? "", r?.accountNumber ?? "", r?.verificationMethod ?? "",
                r?.referenceNumber ?? "", r?.orderCode ?? "", r?.shortOrderCode ?? "", e.clientTransactionId ?? "",
                r?.transactionId ?? "", r?.message ?? "", e.note ?? "", paid(e, amount: amount, tip: tip).formatted(),
                e.action.words.name]
    }

    /// The money an entry moved (refunds negative): only approved sales, captures and refunds move money.
    public static func paid(_ e: JournalEntry, amount: Money, tip: Money) -> Money {
        paid(action: e.action, state: e.state, tipStyle: e.tipStyle, amount: amount, tip: tip)
    }

    /// The same for an entry known by its values (the back office reads them from the store).
    public static func paid(action: Action, state: EntryState, tipStyle: TipStyle, amount: Money, tip: Money) -> Money {
        guard state == .approved else { return Money(cents: 0) }
        switch action.reportRole {
        case .sale: return tipStyle.charged(amount: amount, tip: tip)
        case .capture: return amount
        case .refund: return Money(cents: -amount.cents)
        case .preAuth, .none: return Money(cents: 0)   // a reservation moves no money until captured
        }
    }

    public static func csv(_ entries: [JournalEntry], _ f: ReportFormat) -> String {
        CSV.text([columns] + entries.map { values($0, f) })
    }

    /// The CSV's first line, and each entry's line: an export written as the journal is read, one row at a time.
    public static var csvHeader: String { CSV.line(columns) }
    public static func csvLine(_ e: JournalEntry, _ f: ReportFormat) -> String { CSV.line(values(e, f)) }

    /// One transaction as the JSON export has it.
    public static func json(_ e: JournalEntry, _ f: ReportFormat) -> JSONValue {
        .object(zip(columns, values(e, f)).map { ($0.0, JSONValue.string($0.1)) })
    }
}

/// RFC 4180 CSV, safe to open in a spreadsheet: control and bidi characters escaped as in every
/// text output (`SafeText`), and a cell that a spreadsheet would run as a formula (OWASP's CSV
/// injection: starting with `=`, `+`, `-`, `@`, tab or CR) written with a leading `'` and quoted.
/// A plain number (`-12.50`) is a number, not a formula, and stays as it is.
public enum CSV {
    public static func field(_ raw: String) -> String {
        let s = SafeText.terminal(raw)
        if let first = raw.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first), !isPlainNumber(raw) {
            return quoted("'" + s)
        }
        if s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) { return quoted(s) }
        return s
    }

    static func quoted(_ s: String) -> String { "\"" + String(s.flatMap { $0 == "\"" ? ["\"", "\""] : [$0] }) + "\"" }

    /// `-12.50`, `3`, `0.5`: digits with an optional leading minus and one decimal point.
    static func isPlainNumber(_ s: String) -> Bool {
        var digits = 0, points = 0
        for (i, u) in s.utf8.enumerated() {
            switch u {
            case UInt8(ascii: "-") where i == 0: continue
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "."): points += 1
            default: return false
            }
        }
        return digits > 0 && points <= 1 && s.last != "."
    }

    public static func text(_ rows: [[String]]) -> String { rows.map(line).joined() }

    /// One record with its line end.
    public static func line(_ row: [String]) -> String { row.map(field).joined(separator: ",") + "\r\n" }
}

private func pad(_ s: String, _ w: Int) -> String { s.count >= w ? String(s.prefix(w)) : s + String(repeating: " ", count: w - s.count) }
private func lpad(_ s: String, _ w: Int) -> String { s.count >= w ? s : String(repeating: " ", count: w - s.count) + s }

extension StoreSync {
    /// One line for a report: how many of the journal's changes the central store does not hold yet.
    public func reportLine(_ f: ReportFormat) -> ReportLine {
        let sent = sentAtMs.map { " (last sent " + f.time($0) + ")" } ?? ""
        if needsSetUp {
            let left = toSend > 0 ? "; \(toSend) journal change\(toSend == 1 ? "" : "s") not yet sent" : ""
            return ReportLine(.warning, "Central store: the sync needs set-up (see its message), nothing is being sent" + left)
        }
        if toSend == 0 { return ReportLine(.detail, "Central store: everything sent" + sent) }
        let why = failingSinceMs.map { "; offline since " + f.time($0) } ?? ""
        return ReportLine(failingSinceMs == nil ? .detail : .warning,
                          "Central store: \(toSend) journal change\(toSend == 1 ? "" : "s") not yet sent" + why + sent)
    }
}
