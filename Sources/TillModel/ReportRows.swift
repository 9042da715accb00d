import TillProtocol

extension Report {
    /// One figure of a report, and everything each format needs to show it: the text report, its CSV and JSON, the
    /// screen's panel and the back office all walk `Report.rows`, so a figure added here appears in every one of them
    /// under the same words (`ReportRowsTests` fails when a format forgets one).
    public struct Row: Sendable, Hashable {
        /// Where a row sits. The raw value is the CSV's `section` column.
        public enum Section: String, Sendable, Hashable, CaseIterable {
            case totals, preAuths = "pre-auths", cardType = "card type", verificationMethod = "verification method"
            case notInTotals = "not in totals"

            /// The heading the text report prints above the section's rows (which it then indents).
            public var heading: String? {
                switch self {
                case .totals, .preAuths: return nil
                case .cardType: return "Approved sales by card type (amount + tip)"
                case .verificationMethod: return "Approved sales by verification method"
                case .notInTotals: return "Not in the totals"
                }
            }
            /// The text report leaves a blank line before it (the two breakdowns of approved sales read as one block).
            var blankBefore: Bool { self != .verificationMethod }
            /// The JSON object that holds the section's rows by their label (a card type, a method); nil: each row is a
            /// key of the report itself.
            public var jsonGroup: String? {
                switch self {
                case .cardType: return "byCardType"
                case .verificationMethod: return "byVerificationMethod"
                case .totals, .preAuths, .notInTotals: return nil
                }
            }
        }

        /// What a row holds: a count and an amount, a count alone, or an amount alone.
        public enum Value: Sendable, Hashable {
            case tally(Tally), count(Int), cents(Int)
            public var count: Int? {
                switch self { case .tally(let t): return t.count; case .count(let n): return n; case .cents: return nil }
            }
            public var cents: Int? {
                switch self { case .tally(let t): return t.cents; case .cents(let c): return c; case .count: return nil }
            }
            /// Nothing happened: no entry, no money.
            public var isZero: Bool { (count ?? 0) == 0 && (cents ?? 0) == 0 }
        }

        /// When a row is written.
        public enum Shown: Sendable, Hashable {
            /// In every format, zero or not.
            case always
            /// The machine formats (CSV, JSON, back office) always hold it; a cashier reads it only when it is not zero.
            case onScreenWhenNotZero
            /// Only when it is not zero, in every format.
            case whenNotZero
        }

        /// The back office's columns for a row (`till-sync report`): their names are its CSV header and JSON keys.
        public enum StoreColumns: Sendable, Hashable {
            case count(String, width: Int)
            case amount(String, width: Int)
            case countAndAmount(String, width: Int, amount: String, amountWidth: Int)
        }

        public var section: Section
        /// The JSON key (`sales`, `netCents`); for a row of a `jsonGroup` section, its label.
        public var key: String
        /// The cashier's words, the same on the screen, in `till report` and (in lower case) in the CSV; a card type or
        /// a verification method as the terminal sent it.
        public var label: String
        public var value: Value
        /// Money given back (refunds): written with a minus in the text and the CSV; the JSON and the back office hold
        /// the amount itself, under a key that says it is given back.
        public var subtracts = false
        /// The net total.
        public var isTotal = false
        /// When not zero, a person must look before the figures can be trusted: the screen shows it as a warning.
        public var needsAPerson = false
        /// Said after the figure when it is not zero ("check the terminal").
        public var note: String?
        public var shown = Shown.always
        /// The label is a name the terminal sent (a card type), written as it came, never in lower case.
        public var isAName = false
        /// The live panel on the Batch screen shows the row when set: rows of a lower number are kept first when not all
        /// fit, rows of one number together or not at all (so the figures shown always add up to the net total).
        public var panelKeep: Int?
        /// The panel leaves it out while the shift has none (a shop that never takes a pre-auth never reads "Captured").
        public var panelOnlyWhenNotZero = false
        public var store: StoreColumns?

        /// The label as the CSV's `label` column has it.
        public var csvLabel: String { isAName ? label : label.lowercased() }

        /// Whether a format of this kind writes the row.
        public func isShown(onScreen: Bool) -> Bool {
            switch shown {
            case .always: return true
            case .onScreenWhenNotZero: return !onScreen || !value.isZero
            case .whenNotZero: return !value.isZero
            }
        }
    }

    /// Every figure of the report, in the order a cashier reads them.
    public var rows: [Row] {
        func named(_ section: Row.Section, _ by: [String: Tally]) -> [Row] {
            by.sorted { $0.key < $1.key }.map { Row(section: section, key: $0.key, label: $0.key, value: .tally($0.value), isAName: true) }
        }
        return [
            Row(section: .totals, key: "sales", label: "Sales approved", value: .tally(sales), panelKeep: 3,
                store: .countAndAmount("sales", width: 6, amount: "sales_amount", amountWidth: 12)),
            Row(section: .totals, key: "tips", label: "Tips (on top of sales)", value: .tally(tips), panelKeep: 3,
                store: .amount("tips", width: 9)),
            Row(section: .totals, key: "captures", label: "Pre-auths captured", value: .tally(captures), panelKeep: 3,
                panelOnlyWhenNotZero: true, store: .amount("captures", width: 10)),
            Row(section: .totals, key: "refunds", label: "Refunds and cancels", value: .tally(refunds), subtracts: true,
                panelKeep: 3, store: .amount("refunds", width: 10)),
            Row(section: .totals, key: "netCents", label: "NET TOTAL", value: .cents(netCents), isTotal: true, panelKeep: 0,
                store: .amount("net", width: 12)),
            Row(section: .preAuths, key: "preAuths", label: "Pre-auths approved", value: .tally(preAuths)),
            Row(section: .preAuths, key: "preAuthsAwaitingCapture", label: "Pre-auths awaiting capture",
                value: .count(preAuthsAwaitingCapture)),
        ] + named(.cardType, byCardType) + named(.verificationMethod, byVerificationMethod) + [
            Row(section: .notInTotals, key: "declined", label: "Declined", value: .tally(declined), panelKeep: 4,
                store: .count("declined", width: 8)),
            Row(section: .notInTotals, key: "aborted", label: "Aborted", value: .tally(aborted), panelKeep: 4,
                panelOnlyWhenNotZero: true),
            Row(section: .notInTotals, key: "notCharged", label: "Not charged, no decline", value: .tally(notCharged),
                shown: .onScreenWhenNotZero, store: .count("not_charged", width: 11)),
            Row(section: .notInTotals, key: "waiting", label: "Waiting for the terminal", value: .tally(waiting),
                needsAPerson: true, note: "not counted yet", shown: .onScreenWhenNotZero, panelKeep: 1, panelOnlyWhenNotZero: true),
            // The back office's `unknown` is whatever has no outcome yet (`asTheStoreSeesIt`): the store cannot tell a
            // till still waiting for its terminal from one that stopped.
            Row(section: .notInTotals, key: "unknown", label: "Outcome unknown", value: .tally(unknown), needsAPerson: true,
                note: "check the terminal", panelKeep: 2, panelOnlyWhenNotZero: true,
                store: .countAndAmount("unknown", width: 7, amount: "unknown_amount", amountWidth: 14)),
            Row(section: .notInTotals, key: "review", label: "Needs review", value: .tally(review), needsAPerson: true,
                note: "check the terminal and resolve", shown: .onScreenWhenNotZero, store: .count("review", width: 6)),
            Row(section: .notInTotals, key: "duplicates", label: "Repeated answers", value: .tally(duplicates),
                note: "not charged again", shown: .onScreenWhenNotZero),
            Row(section: .notInTotals, key: "waitingForABatch", label: "Waiting for a batch", value: .tally(waitingForABatch),
                needsAPerson: true, note: "came with no batch open: check the terminal and resolve", shown: .whenNotZero),
        ]
    }

    /// The report as a reader that cannot tell a till still waiting for its terminal from one that stopped (the central
    /// store, and a Z report compared with it) counts it: what waits counts as unknown.
    public var asTheStoreSeesIt: Report {
        var r = self
        r.unknown = notYetKnown
        r.waiting = Tally()
        return r
    }
}
