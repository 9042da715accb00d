import TillProtocol

extension Report {
    /// The report as lines of text for the screen and `till report` (fits 80 columns).
    public func lines(_ f: ReportFormat) -> [String] {
        func row(_ label: String, _ t: Tally?, _ cents: Int?, sign: String = "") -> String {
            let count = t.map { String($0.count) } ?? ""
            let amount = cents.map { sign + f.money($0) } ?? ""
            return pad(label, 30) + lpad(count, 7) + lpad(amount, 18)
        }
        var out: [String] = [title]
        // Batch names, card types and methods come from the terminal: escaped, never printed raw.
        let safe = SafeText.terminal
        out.append("Batch      " + (batchName.map(safe) ?? "(no name)") + (batchId.map { "  " + safe($0) } ?? ""))
        out.append("Opened     " + f.time(openedAtMs))
        if kind == .closing || closedAtMs != nil {
            out.append("Closed     " + f.time(closedAtMs) + (closedHow.map { "  (\(safe($0)))" } ?? ""))
        }
        out.append("First/last " + f.time(firstAtMs) + "  /  " + f.time(lastAtMs))
        out.append("Made at    " + f.time(generatedAtMs))
        out.append("")
        out.append(pad("", 30) + lpad("count", 7) + lpad("amount", 18))
        out.append(row("Sales approved", sales, sales.cents))
        out.append(row("Tips (on top of sales)", tips, tips.cents))
        out.append(row("Pre-auths captured", captures, captures.cents))
        out.append(row("Refunds and cancels", refunds, refunds.cents, sign: refunds.cents > 0 ? "-" : ""))
        out.append(row("NET TOTAL", nil, netCents))
        out.append("")
        out.append(row("Pre-auths approved", preAuths, preAuths.cents))
        out.append(pad("Pre-auths awaiting capture", 30) + lpad(String(preAuthsAwaitingCapture), 7))
        if !byCardType.isEmpty {
            out.append("")
            out.append("Approved sales by card type (amount + tip)")
            for (k, t) in byCardType.sorted(by: { $0.key < $1.key }) { out.append(row("  " + safe(k), t, t.cents)) }
        }
        if !byVerificationMethod.isEmpty {
            out.append("Approved sales by verification method")
            for (k, t) in byVerificationMethod.sorted(by: { $0.key < $1.key }) { out.append(row("  " + safe(k), t, t.cents)) }
        }
        out.append("")
        out.append("Not in the totals")
        out.append(row("  Declined", declined, declined.cents))
        out.append(row("  Aborted", aborted, aborted.cents))
        out.append(row("  Outcome unknown", unknown, unknown.cents) + (unknown.count > 0 ? "  check the terminal" : ""))
        if review.count > 0 { out.append(row("  Needs review", review, review.cents) + "  check the terminal and resolve") }
        if duplicates.count > 0 { out.append(row("  Repeated answers", duplicates, duplicates.cents) + "  not charged again") }
        return out
    }

    public func text(_ f: ReportFormat) -> String { lines(f).joined(separator: "\n") + "\n" }

    /// The report as CSV (section,label,count,amount,currency): amounts with `.` so any spreadsheet reads them.
    public func csv(_ f: ReportFormat) -> String {
        var rows: [[String]] = [["section", "label", "count", "amount", "currency"]]
        func add(_ section: String, _ label: String, _ t: Tally?, _ cents: Int) {
            rows.append([section, label, t.map { String($0.count) } ?? "", Money(cents: cents).formatted(), f.currencySymbol])
        }
        rows.append(["batch", "name", "", batchName ?? "", ""])
        rows.append(["batch", "id", "", batchId ?? "", ""])
        rows.append(["batch", "kind", "", kind.rawValue, ""])
        add("totals", "sales approved", sales, sales.cents)
        add("totals", "tips", tips, tips.cents)
        add("totals", "pre-auths captured", captures, captures.cents)
        add("totals", "refunds and cancels", refunds, -refunds.cents)
        add("totals", "net total", nil, netCents)
        add("pre-auths", "approved", preAuths, preAuths.cents)
        rows.append(["pre-auths", "awaiting capture", String(preAuthsAwaitingCapture), "", ""])
        for (k, t) in byCardType.sorted(by: { $0.key < $1.key }) { add("card type", k, t, t.cents) }
        for (k, t) in byVerificationMethod.sorted(by: { $0.key < $1.key }) { add("verification method", k, t, t.cents) }
        add("not in totals", "declined", declined, declined.cents)
        add("not in totals", "aborted", aborted, aborted.cents)
        add("not in totals", "outcome unknown", unknown, unknown.cents)
        add("not in totals", "needs review", review, review.cents)
        add("not in totals", "repeated answers", duplicates, duplicates.cents)
        return CSV.text(rows)
    }

    public var json: JSONValue {
        func tally(_ t: Tally) -> JSONValue { .object([("count", .int(t.count)), ("cents", .int(t.cents))]) }
        func opt(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        func optInt(_ i: Int64?) -> JSONValue { i.map { .int(Int($0)) } ?? .null }
        return .object([
            ("kind", .string(kind.rawValue)), ("batchId", opt(batchId)), ("batchName", opt(batchName)),
            ("openedAtMs", optInt(openedAtMs)), ("closedAtMs", optInt(closedAtMs)), ("closedHow", opt(closedHow)),
            ("generatedAtMs", .int(Int(generatedAtMs))), ("firstAtMs", optInt(firstAtMs)), ("lastAtMs", optInt(lastAtMs)),
            ("sales", tally(sales)), ("tips", tally(tips)), ("preAuths", tally(preAuths)), ("captures", tally(captures)),
            ("preAuthsAwaitingCapture", .int(preAuthsAwaitingCapture)), ("refunds", tally(refunds)), ("netCents", .int(netCents)),
            ("declined", tally(declined)), ("aborted", tally(aborted)), ("unknown", tally(unknown)),
            ("review", tally(review)), ("duplicates", tally(duplicates)),
            ("byCardType", .object(byCardType.sorted { $0.key < $1.key }.map { ($0.key, tally($0.value)) })),
            ("byVerificationMethod", .object(byVerificationMethod.sorted { $0.key < $1.key }.map { ($0.key, tally($0.value)) })),
        ])
    }
}

/// Transactions of a batch as CSV and JSON, for the accountant.
public enum TransactionExport {
    public static let columns = ["id", "time", "action", "state", "amount", "tip", "currency", "card type", "card number",
                                 "verification method", "STAN", "order code", "short order code", "client transaction id",
                                 "transaction id", "message", "note"]

    static func values(_ e: JournalEntry, _ f: ReportFormat) -> [String] {
        let r = e.response
        return [String(e.id), f.time(e.createdAtMs), e.action.rawValue, e.state.rawValue,
                Money(cents: ReportBucket.amountCents(of: e)).formatted(), Money(cents: ReportBucket.tipCents(of: e)).formatted(),
                f.currencySymbol, r?.cardType ?? "", r?.accountNumber ?? "", r?.verificationMethod ?? "",
                r?.referenceNumber ?? "", r?.orderCode ?? "", r?.shortOrderCode ?? "", e.clientTransactionId ?? "",
                r?.transactionId ?? "", r?.message ?? "", e.note ?? ""]
    }

    public static func csv(_ entries: [JournalEntry], _ f: ReportFormat) -> String {
        CSV.text([columns] + entries.map { values($0, f) })
    }

    public static func json(_ entries: [JournalEntry], report: Report?, _ f: ReportFormat) -> JSONValue {
        var o: [(String, JSONValue)] = []
        if let report { o.append(("report", report.json)) }
        o.append(("transactions", .array(entries.map { e in
            .object(zip(columns, values(e, f)).map { ($0.0, JSONValue.string($0.1)) })
        })))
        return .object(o)
    }
}

/// RFC 4180 CSV, safe to open in a spreadsheet: control and bidi characters escaped as in every
/// text output (`SafeText`), and a cell that a spreadsheet would run as a formula (OWASP's CSV
/// injection: starting with `=`, `+`, `-`, `@`, tab or CR) written with a leading `'` and quoted.
/// A plain number (`-12.50`) is a number, not a formula, and stays as it is.
public enum CSV {
    public static func field(_ raw: String) -> String {
        var s = SafeText.terminal(raw)
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

    public static func text(_ rows: [[String]]) -> String {
        rows.map { $0.map(field).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }
}

private func pad(_ s: String, _ w: Int) -> String { s.count >= w ? String(s.prefix(w)) : s + String(repeating: " ", count: w - s.count) }
private func lpad(_ s: String, _ w: Int) -> String { s.count >= w ? s : String(repeating: " ", count: w - s.count) + s }
