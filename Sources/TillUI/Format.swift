import TillProtocol
import TillModel

/// Formatting shared by the view and the update (pure, no Foundation).
public enum Format {
    public static func money(_ m: Money?, _ currency: String = "€") -> String {
        guard let m else { return "—" }
        return currency.isEmpty ? m.formatted() : currency + " " + m.formatted()
    }

    /// `mm:ss` (or `h:mm:ss`) of a duration in milliseconds, never negative.
    public static func duration(_ ms: Int64) -> String {
        let s = max(0, ms) / 1000
        let h = s / 3600, m = (s / 60) % 60, sec = s % 60
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return h > 0 ? "\(h):\(two(m)):\(two(sec))" : "\(two(m)):\(two(sec))"
    }

    /// `47h 12m` for long spans, as the batch screen shows the time to auto-close.
    public static func hoursMinutes(_ ms: Int64) -> String {
        let m = max(0, ms) / 60_000
        return "\(m / 60)h \(m % 60)m"
    }

    /// Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    static func civil(_ days: Int64) -> (y: Int64, m: Int64, d: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }

    static func pad(_ n: Int64, _ w: Int = 2) -> String {
        var s = String(n)
        while s.count < w { s = "0" + s }
        return s
    }

    /// `2026-11-22 14:32` in the till's local time.
    public static func dateTime(_ ms: Int64, offsetMinutes: Int) -> String {
        let local = ms / 1000 + Int64(offsetMinutes) * 60
        let days = local >= 0 ? local / 86400 : (local - 86399) / 86400
        let secs = local - days * 86400
        let (y, m, d) = civil(days)
        return "\(y)-\(pad(m))-\(pad(d)) \(pad(secs / 3600)):\(pad((secs / 60) % 60))"
    }

    /// `14:32:05` in the till's local time.
    public static func clock(_ ms: Int64, offsetMinutes: Int) -> String {
        let local = ms / 1000 + Int64(offsetMinutes) * 60
        let secs = ((local % 86400) + 86400) % 86400
        return "\(pad(secs / 3600)):\(pad((secs / 60) % 60)):\(pad(secs % 60))"
    }

    /// `2026-11-22` of a moment in the till's local time.
    public static func day(_ ms: Int64, offsetMinutes: Int) -> String { String(dateTime(ms, offsetMinutes: offsetMinutes).prefix(10)) }

    public static func offset(_ minutes: Int) -> String {
        let sign = minutes < 0 ? "-" : "+"
        let m = Int64(abs(minutes))
        return sign + pad(m / 60) + ":" + pad(m % 60)
    }

    public static func actionName(_ a: Action) -> String {
        switch a {
        case .sale: return "sale"
        case .preAuth: return "pre-auth"
        case .cancel: return "refund"
        case .abort: return "abort"
        case .batch: return "batch"
        case .capturePreAuth: return "capture"
        case .transactionDetails: return "details"
        case .reprintTransaction: return "reprint"
        case .getPrintingSettings: return "print settings"
        case .setPrintingSettings: return "set printing"
        case .sendLogs: return "send logs"
        case .getActivationCode: return "activation code"
        case .activatePos: return "activate"
        }
    }

    public static func stateName(_ s: EntryState) -> String {
        switch s {
        case .pending: return "PENDING"
        case .sent: return "SENT"
        case .approved: return "APPROVED"
        case .declined: return "DECLINED"
        case .aborted: return "ABORTED"
        case .unknown: return "UNKNOWN"
        case .resolved: return "RESOLVED"
        case .review: return "NEEDS REVIEW"
        case .duplicate: return "REPEATED"
        }
    }

    /// The card as shown: `Visa 478***…7417` (the number arrives masked).
    public static func card(_ r: CallbackResponse?) -> String? {
        guard let r else { return nil }
        let parts = [r.cardType, r.accountNumber].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// Everything a journal filter can match, lower-cased.
    public static func searchText(_ e: JournalEntry) -> String {
        var parts: [String] = ["#\(e.id)", actionName(e.action), stateName(e.state).lowercased()]
        if let a = e.amount { parts.append(a.formatted()); parts.append(a.formatted(decimalSeparator: ",")) }
        if let t = e.tipAmount { parts.append(t.formatted()) }
        if let c = e.clientTransactionId { parts.append(c) }
        if let b = e.batchName { parts.append(b) }
        if let n = e.note { parts.append(n) }
        if let r = e.response {
            for k in ["referenceNumber", "orderCode", "shortOrderCode", "cardType", "accountNumber", "message", "authorisationCode"] {
                if let v = r[k] { parts.append(v) }
            }
        }
        return parts.joined(separator: " ").lowercased()
    }

    /// A one-line description of a request, for the result pane.
    public static func summary(_ r: Request, currency: String = "€", tipStyle: TipStyle) -> String {
        switch r {
        case .sale(let s):
            // As the terminal reads the amount: the goods with the tip on top, or the total with the tip in it.
            var t = "Sale " + money(s.amount, currency)
            if let tip = s.tipAmount, tip.cents > 0 { t += (tipStyle == .included ? " incl. tip " : " + tip ") + tip.formatted() }
            if let m = s.paymentMethod, m != .cardPresent { t += " by " + m.rawValue }
            return t
        case .preAuth(let p): return "Pre-auth " + money(p.amount, currency) + (p.paymentMethod.map { $0 == .cardPresent ? "" : " by " + $0.rawValue } ?? "")
        case .cancel(let c): return "Refund " + (c.amount.map { money($0, currency) } ?? "in full") + finderText(c.finder)
        case .capturePreAuth(let c): return "Capture " + (c.amount.map { money($0, currency) } ?? "in full") + finderText(c.finder)
        case .batch(let b):
            let which = b.batchName.map { "'\($0)'" } ?? b.batchId ?? (b.command == .open ? "" : "active")
            return (b.command == .open ? "Open batch " : "Close batch ") + which
        case .abort: return "Abort"
        case .transactionDetails(let d): return "Details of " + d.clientTransactionId
        case .reprint(let r): return "Reprint " + (r.orderCode.map { "order " + $0 } ?? "the latest receipt")
        case .getPrintingSettings: return "Printing settings"
        case .setPrintingSettings: return "Change printing settings"
        case .sendLogs: return "Send logs"
        case .getActivationCode: return "Get an activation code"
        case .activatePos: return "Activate the terminal"
        }
    }

    static func finderText(_ f: TransactionFinder) -> String {
        switch f.key {
        case .shortOrderCode(let s)?: return ", short code " + s
        case .orderCode(let o)?: return ", order " + o
        case .referenceNumber(let r)?: return ", STAN " + r
        case nil: return ""
        }
    }

    /// The money a journal row moved (the card paid): its amount and tip as the terminal answered them (as asked,
    /// before an answer), read with the tip style the row was journaled with. Every total the screen shows is this.
    public static func total(_ e: JournalEntry) -> Money? { e.charged }

    /// The goods of a journal row (the amount without the tip), read with its own tip style.
    public static func goods(_ e: JournalEntry) -> Money? { e.goods }

    /// What a sale or pre-auth request charges the card, read with the tip style; nil for other requests.
    public static func charged(_ r: Request, _ tipStyle: TipStyle) -> Money? {
        switch r {
        case .sale(let s): return tipStyle.charged(amount: s.amount, tip: s.tipAmount)
        case .preAuth(let p): return p.amount
        default: return nil
        }
    }


    /// `10:31` of a moment in the till's local time.
    public static func hoursMinutesOfDay(_ ms: Int64, offsetMinutes: Int) -> String { String(clock(ms, offsetMinutes: offsetMinutes).prefix(5)) }

    /// A journaled request in a cashier's words: `Sale € 13.13`, `Refund € 5.00`.
    public static func entrySummary(_ e: JournalEntry, currency: String = "€") -> String {
        let what: String
        switch e.action {
        case .sale: what = "Sale"
        case .preAuth: what = "Pre-auth"
        case .cancel: what = "Refund"
        case .capturePreAuth: what = "Capture"
        case .batch: what = "Batch"
        case .abort: what = "Abort"
        case .transactionDetails: what = "Check of an earlier payment"
        case .reprintTransaction, .getPrintingSettings, .setPrintingSettings, .sendLogs, .getActivationCode, .activatePos: what = actionName(e.action).prefix(1).uppercased() + actionName(e.action).dropFirst()
        }
        // What the card pays (a tip on top included): the figure a cashier compares with the terminal's screen.
        guard let a = total(e) else { return what }
        return what + " " + money(a, currency)
    }

    /// What is in flight when this screen did not send it (start-up recovery's look-ups, another till).
    public static func inFlightSummary(_ e: JournalEntry, currency: String = "€") -> String {
        e.action == .transactionDetails ? "Asking the terminal about an earlier payment" : entrySummary(e, currency: currency)
    }
}
