import TillProtocol
import TillModel

/// Formatting shared by the view and the update (pure, no Foundation).
public enum Format {
    public static func money(_ m: Money?, _ currency: String = "€") -> String {
        SummaryContext(currency: currency).money(m)
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

    /// Civil date from days since 1970-01-01: the protocol's routine (`TerminalDate.civilFromDays`).
    static func civil(_ days: Int64) -> (y: Int64, m: Int64, d: Int64) {
        let (y, m, d) = TerminalDate.civilFromDays(Int(days))
        return (Int64(y), Int64(m), Int64(d))
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

    public static func actionName(_ a: Action) -> String { a.words.name }

    /// The key a refund or capture named its payment by, as a cashier finds it on the terminal: `STAN 000023`,
    /// `order code …`, `short code …`.
    public static func key(_ k: FinderKey) -> String {
        switch k {
        case .shortOrderCode(let o): return "short code " + SafeText.terminal(o)
        case .orderCode(let o): return "order code " + SafeText.terminal(o)
        case .referenceNumber(let r): return "STAN " + SafeText.terminal(r)
        }
    }

    /// An entry's state as its row says it: a payment settled as not charged reads what did not happen to the money
    /// (`NOT CHARGED`, `NOT REFUNDED` …), not the journal's word `RESOLVED`.
    public static func stateName(_ e: JournalEntry) -> String {
        // A look-up by what it found: "APPROVED" beside the payment's own row read as a second sale.
        if let found = e.lookUpFinding { return found.replacingOccurrences(of: "payment ", with: "found ").uppercased() }
        guard e.state == .resolved, e.action.movesMoney else { return stateName(e.state) }
        return "NOT " + e.action.reportRole.moneyVerb.uppercased()
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

    /// Everything a journal filter can match, lower-cased: its words and its numbers (`numberText`, read once for both).
    public static func searchText(_ e: JournalEntry, numbers: String) -> String {
        let words = [actionName(e.action), stateName(e), e.batchName, e.note, e.response?["cardType"], e.response?["message"]]
        return (words.compactMap { $0 } + [numbers]).joined(separator: " ").lowercased()
    }

    /// The numbers of a journal row a number typed in the filter can mean: its amounts, its reference, and the
    /// terminal's STAN, order codes, card digits and authorisation code.
    public static func numberText(_ e: JournalEntry) -> String {
        var parts: [String] = []
        if let a = e.amount { parts.append(a.formatted()); parts.append(a.formatted(decimalSeparator: ",")) }
        if let t = e.tipAmount { parts.append(t.formatted()) }
        if let c = typedReference(e) { parts.append(c) }   // not the id till made up when none was typed
        if let r = e.response {
            for k in ["referenceNumber", "orderCode", "shortOrderCode", "accountNumber", "authorisationCode"] {
                if let v = r[k] { parts.append(v) }
            }
        }
        return parts.joined(separator: " ").lowercased()
    }

    /// A one-line description of a request, for the result pane (its declaration's `summary`).
    public static func summary(_ r: Request, currency: String = "€", tipStyle: TipStyle) -> String {
        r.summary(SummaryContext(currency: currency, tipStyle: tipStyle))
    }

    /// The money a journal row moved (the card paid): its amount and tip as the terminal answered them (as asked,
    /// before an answer), read with the tip style the row was journaled with. Every total the screen shows is this.
    public static func total(_ e: JournalEntry) -> Money? { e.charged }

    /// The goods of a journal row (the amount without the tip), read with its own tip style.
    public static func goods(_ e: JournalEntry) -> Money? { e.goods }

    /// What a sale or pre-auth request charges the card, read with the tip style; nil for other requests.
    public static func charged(_ r: Request, _ tipStyle: TipStyle) -> Money? {
        let asked = r.asked
        switch r.action.reportRole {
        case .sale: return asked.amount.map { tipStyle.charged(amount: $0, tip: asked.tip) }
        case .preAuth: return asked.amount
        case .capture, .refund, .none: return nil
        }
    }


    /// `10:31` of a moment in the till's local time.
    public static func hoursMinutesOfDay(_ ms: Int64, offsetMinutes: Int) -> String { String(clock(ms, offsetMinutes: offsetMinutes).prefix(5)) }

    /// A journaled request in a cashier's words: `Sale € 13.13`, `Refund € 5.00`.
    public static func entrySummary(_ e: JournalEntry, currency: String = "€") -> String {
        let what = e.action.words.entryTitle
        // What the card pays (a tip on top included): the figure a cashier compares with the terminal's screen.
        guard let a = total(e) else { return what }
        return what + " " + money(a, currency)
    }

    /// A journal note in the cashier's words: the journal writes its notes naming entries by number ("An answer for
    /// journal entry 12 (sale, approved) …", "… (journal entry 15)"), a programmer's identifier the screens never show
    /// (the raw view and `till show` keep them). The number goes; what the note says of it stays.
    public static func noteWords(_ note: String) -> String {
        var t = note.replacingOccurrences(of: #" \(journal entry [0-9]+\)"#, with: "", options: .regularExpression)
        t = t.replacingOccurrences(of: #"journal entry [0-9]+"#, with: "an earlier entry", options: .regularExpression)
        return t
    }

    /// The reference the cashier typed for a payment; nil where none was, and the till made one up to send
    /// (`Controller.newClientTransactionId`: a lower-case UUID, a programmer's identifier the raw view still shows).
    public static func typedReference(_ e: JournalEntry) -> String? {
        guard let r = e.clientTransactionId, !r.isEmpty else { return nil }
        let made = r.count == 36 && r.enumerated().allSatisfy { i, c in [8, 13, 18, 23].contains(i) ? c == "-" : c.isHexDigit && !c.isUppercase }
        return made ? nil : r
    }

    /// A journaled request named as a cashier knows it: `Sale € 13.13 at 10:31` (never the journal's entry number).
    public static func entryName(_ e: JournalEntry, currency: String = "€", offsetMinutes: Int) -> String {
        entrySummary(e, currency: currency) + " at " + hoursMinutesOfDay(e.createdAtMs, offsetMinutes: offsetMinutes)
    }

    /// What is in flight when this screen did not send it (start-up recovery's look-ups, another till).
    public static func inFlightSummary(_ e: JournalEntry, currency: String = "€") -> String {
        e.action.isLookUp ? "Asking the terminal about an earlier payment" : entrySummary(e, currency: currency)
    }
}
