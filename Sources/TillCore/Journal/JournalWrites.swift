import Foundation
import GRDB
import TillModel
import TillIO
import TillProtocol
#if canImport(Glibc)
import Glibc
#endif

// Every change to the journal: one SQLite transaction each, through `write`.
extension Journal {
    // MARK: writing

    /// Journals a request before it is sent (state `pending`). Returns the entry with its id.
    public func insertPending(requestId: String, request: TerminalRequest, batch: BatchInfo, parentId: Int64? = nil,
                              nowMs: Int64 = WallClock.nowMs()) throws -> JournalEntry {
        let asked = request.request.asked
        let url = request.redactedURL
        let id = try write { db -> Int64 in
            try db.execute(sql: """
                INSERT INTO entry (requestId, action, origin, parentId, clientTransactionId, amountCents, tipCents, requestURL,
                                   state, createdAtMs, updatedAtMs, batchId, batchName, requestedAmountCents, requestedTipCents, tipIncluded,
                                   finderKey)
                VALUES (?, ?, 'request', ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [requestId, request.request.action.rawValue, parentId, request.request.clientTransactionId,
                                 asked.amount?.cents, asked.tip?.cents, url, nowMs, nowMs, batch.isOpen ? batch.id : nil,
                                 batch.isOpen ? batch.name : nil, asked.amount?.cents, asked.tip?.cents, tipStyle == .included,
                                 Journal.finderKey(of: request.request)])
            return db.lastInsertedRowID
        }
        return JournalEntry(id: id, requestId: requestId, action: request.request.action,
                            clientTransactionId: request.request.clientTransactionId, amount: asked.amount, tipAmount: asked.tip,
                            requestURL: url, state: .pending, createdAtMs: nowMs, updatedAtMs: nowMs,
                            batchId: batch.isOpen ? batch.id : nil, batchName: batch.isOpen ? batch.name : nil, tipStyle: tipStyle)
    }

    /// `pending` → `sent`. False when the entry had already moved on (an answer came first).
    @discardableResult
    public func markSent(_ id: Int64, nowMs: Int64 = WallClock.nowMs()) throws -> Bool {
        try write { db in
            try db.execute(sql: "UPDATE entry SET state = 'sent', sentAtMs = ?, updatedAtMs = ? WHERE id = ? AND state = 'pending'",
                           arguments: [nowMs, nowMs, id])
            return db.changesCount > 0
        }
    }

    /// Sets state and note (no answer involved), whatever the state was. Prefer `transition`, which cannot overwrite
    /// what another process journaled meanwhile.
    public func setState(_ id: Int64, _ state: EntryState, note: String?, nowMs: Int64 = WallClock.nowMs()) throws {
        try write { db in
            try db.execute(sql: "UPDATE entry SET state = ?, note = ?, updatedAtMs = ? WHERE id = ?",
                           arguments: [state.rawValue, note, nowMs, id])
        }
    }

    /// Compare-and-set: moves the entry to `state` only if it is still in one of `from`. Returns whether it moved.
    /// Two processes on one journal can never overwrite each other's answer this way (an approved entry is never
    /// rewritten to unknown by another process's recovery).
    @discardableResult
    public func transition(_ id: Int64, to state: EntryState, note: String?, from: Set<EntryState>,
                           nowMs: Int64 = WallClock.nowMs()) throws -> Bool {
        let only = Journal.stateCondition(from)
        return try write { db in
            try db.execute(sql: "UPDATE entry SET state = ?, note = ?, updatedAtMs = ? WHERE id = ?" + only.sql,
                           arguments: StatementArguments([state.rawValue, note, nowMs, id] as [(any DatabaseValueConvertible)?]) + only.arguments)
            return db.changesCount > 0
        }
    }

    /// ` AND state IN (?, …)` and its values: the compare part of every compare-and-set.
    static func stateCondition(_ states: Set<EntryState>) -> (sql: String, arguments: StatementArguments) {
        let values = states.map(\.rawValue).sorted()
        return (" AND state IN (" + values.map { _ in "?" }.joined(separator: ",") + ")", StatementArguments(values))
    }

    /// The answer as it is stored: secrets that a peer echoed back are redacted too.
    static func storable(_ r: CallbackResponse) -> CallbackResponse {
        var r = r
        for i in r.fields.indices where Secrets.fieldNames.contains(r.fields[i].name) {
            r.fields[i].value = Secrets.placeholder
        }
        return r
    }

    /// An answer's fields as the journal keeps them (secrets redacted), `name=value`, in one order whatever order they
    /// came in: two answers whose lists are equal say the same thing (a terminal or bridge may sort its keys).
    static func storedFields(_ r: CallbackResponse) -> [String] {
        storable(r).fields.map { $0.name + "=" + $0.value }.sorted()
    }

    static func encode(_ r: CallbackResponse) -> String {
        // Encoding a CallbackResponse (strings only) cannot fail; an empty text would read back as "no answer".
        let data = (try? JSONEncoder().encode(storable(r))) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Journals an answer onto an entry and settles its state. Also records batch events for batch answers of
    /// requests till sent. With `onlyIf`, only when the entry is still in one of those states (returns false otherwise).
    @discardableResult
    public func recordAnswer(_ id: Int64, response: CallbackResponse, state: EntryState, note: String?,
                             onlyIf: Set<EntryState>? = nil, nowMs: Int64 = WallClock.nowMs()) throws -> Bool {
        try write { db in
            var sql = """
                UPDATE entry SET state = ?, note = ?, answeredAtMs = ?, updatedAtMs = ?, status = ?, message = ?, stan = ?,
                  orderCode = ?, shortOrderCode = ?, transactionId = ?, cardType = ?, verificationMethod = ?, response = ?,
                  amountCents = COALESCE(?, amountCents), tipCents = COALESCE(?, tipCents),
                  clientTransactionId = COALESCE(clientTransactionId, ?)
                WHERE id = ?
                """
            // An abort's answer says nothing of the payment's amounts (`ABORTED … amount=0`): the payment keeps its own.
            let figures = response.action == .abort ? nil : response
            let values: [(any DatabaseValueConvertible)?] = [
                state.rawValue, note, nowMs, nowMs, response.status.description, response.message,
                response.referenceNumber, response.orderCode, response.shortOrderCode, response.transactionId,
                response.cardType, response.verificationMethod, Journal.encode(response), figures?.amount?.cents,
                figures?.tipAmount?.cents, response.clientTransactionId, id]
            var args = StatementArguments(values)
            if let onlyIf {
                let only = Journal.stateCondition(onlyIf)
                sql += only.sql
                args += only.arguments
            }
            try db.execute(sql: sql, arguments: args)
            guard db.changesCount > 0 else { return false }
            let origin = try String.fetchOne(db, sql: "SELECT origin FROM entry WHERE id = ?", arguments: [id])
            if state == .approved, origin == EntryOrigin.request.rawValue {
                // The same transaction journaled earlier as an answer that matched nothing (it came while nothing was
                // waiting for it) is this entry's answer: no longer for review, never counted twice.
                try Journal.absorbUnmatched(db, response, into: id, nowMs: nowMs)
            }
            if response.action == .batch, response.isApproved, state == .approved, origin == EntryOrigin.request.rawValue {
                let command = response.batchCommand
                let key = command == .open ? try Journal.openedBatchKey(db, response, entryId: id, nowMs: nowMs) : response.batchId
                try Journal.recordBatchCommand(db, command, entryId: id, key: key, name: response.batchName, nowMs: nowMs)
            }
            return true
        }
    }

    /// What a batch command the terminal did does to the shifts, in the transaction that settles its entry (by its
    /// answer, or by a person who found it done): its event (an open under `key`, with the entry that opened the batch
    /// filed under it), and the Z report of a batch it closed.
    static func recordBatchCommand(_ db: Database, _ command: BatchCommand?, entryId: Int64, key: String?, name: String?,
                                   nowMs: Int64) throws {
        if let command {
            try db.execute(sql: "INSERT INTO batch_event (entryId, command, batchId, batchName, atMs) VALUES (?, ?, ?, ?, ?)",
                           arguments: [entryId, command.rawValue, key, name, nowMs])
            if command == .open {
                try db.execute(sql: "UPDATE entry SET batchId = ?, batchName = ? WHERE id = ?", arguments: [key, name, entryId])
            }
        }
        try Journal.storeZReportOnClose(db, nowMs: nowMs)
    }

    /// The key the journal files a batch the terminal opened under: the terminal's batch id, unless it gives none or
    /// one an earlier batch had (a terminal that reuses ids). Then the key is till's own (`till-<entry>`, or the id
    /// and `~<entry>`), so that every shift has its own entries and its own Z report, never another's. An open for the
    /// batch that is open already is that batch.
    static func openedBatchKey(_ db: Database, _ response: CallbackResponse, entryId: Int64, nowMs: Int64) throws -> String {
        guard let id = response.batchId else { return tillBatchKey(entryId: entryId) }
        if let open = try latestBatch(db, nowMs: nowMs), open.isOpen, open.id == id { return id }
        let used = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM batch_event WHERE command = 'open' AND batchId = ?)",
                                     arguments: [id]) ?? false
        return used ? id + "~\(entryId)" : id
    }

    /// A stable key of an answer's text: the same answer delivered again (after a restart, or from a file that could
    /// not be archived) maps to the same journal row. Two independent 64-bit FNV-1a hashes and the length.
    public static func answerKey(_ text: String) -> String {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325, b: UInt64 = 0x8422_2325_cbf2_9ce4
        var n = 0
        for byte in text.utf8 {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            b = (b &+ UInt64(byte)) &* 0x9e37_79b9_7f4a_7c15
            b ^= b >> 29
            n += 1
        }
        return String(a, radix: 16) + "-" + String(b, radix: 16) + "-" + String(n)
    }

    static func absorbUnmatched(_ db: Database, _ r: CallbackResponse, into id: Int64, nowMs: Int64) throws {
        let note = "The answer of journal entry \(id), journaled before it was known whose it was: nothing more was charged."
        if let t = r.transactionId, !t.isEmpty {
            try db.execute(sql: "UPDATE entry SET state = 'duplicate', note = ?, updatedAtMs = ? WHERE origin = 'unmatched' AND state = 'review' AND transactionId = ?",
                           arguments: [note, nowMs, t])
        } else if let stan = r.referenceNumber, !stan.isEmpty, let order = r.orderCode, !order.isEmpty {
            try db.execute(sql: "UPDATE entry SET state = 'duplicate', note = ?, updatedAtMs = ? WHERE origin = 'unmatched' AND state = 'review' AND stan = ? AND orderCode = ?",
                           arguments: [note, nowMs, stan, order])
        }
    }

    /// Journals an answer that matched nothing: a row of its own (origin `unmatched`, state `review` — or
    /// `duplicate` when it repeats a transaction the journal already holds). Never counted in totals, never opens or
    /// closes a batch. Idempotent: the same answer text journaled twice is one row. Returns the row and whether
    /// this call inserted it.
    @discardableResult
    public func insertUnmatched(response: CallbackResponse, text: String, note: String, batch: BatchInfo,
                                state: EntryState = .review, nowMs: Int64 = WallClock.nowMs()) throws -> (entry: JournalEntry, inserted: Bool) {
        let requestId = "unmatched-" + Journal.answerKey(text)
        let action = response.action ?? .sale
        let inserted = try write { db -> Bool in
            try db.execute(sql: """
                INSERT OR IGNORE INTO entry (requestId, action, origin, clientTransactionId, amountCents, tipCents, requestURL, state,
                                   createdAtMs, answeredAtMs, updatedAtMs, batchId, batchName, status, message, stan, orderCode,
                                   shortOrderCode, transactionId, cardType, verificationMethod, response, note, tipIncluded)
                VALUES (?, ?, 'unmatched', ?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [requestId, action.rawValue, response.clientTransactionId, response.amount?.cents,
                                 response.tipAmount?.cents, state.rawValue, nowMs, nowMs, nowMs,
                                 batch.isOpen ? batch.id : nil, batch.isOpen ? batch.name : nil,
                                 response.status.description, response.message, response.referenceNumber, response.orderCode,
                                 response.shortOrderCode, response.transactionId, response.cardType, response.verificationMethod,
                                 Journal.encode(response), note, tipStyle == .included])
            return db.changesCount > 0
        }
        guard let e = try entry(requestId: requestId) else { throw FileError(path: path, operation: "read back the unmatched answer in") }
        return (e, inserted)
    }

    /// An approved (or duplicate-flagged) entry of a card transaction the terminal already reported: same transaction id,
    /// else same STAN and order code. Used to recognise an answer that repeats one already journaled.
    /// `countedOnly`: leave out answers that matched nothing and wait for review (an entry's own answer that came
    /// while nothing waited for it: the entry that it answers takes it over, see `absorbUnmatched`).
    /// `approvedOnly`: only entries that count (approved), as a person's mark must not count a transaction twice.
    public func entry(sameTransactionAs r: CallbackResponse, action: Action, excluding id: Int64? = nil,
                      countedOnly: Bool = false, approvedOnly: Bool = false) throws -> JournalEntry? {
        let which = (approvedOnly ? "state = 'approved'" : "state IN ('approved', 'review')") + " AND id IS NOT ? AND action = ?"
            + (countedOnly ? " AND NOT (origin = 'unmatched' AND state = 'review')" : "")
        return try reading { db in
            if let t = r.transactionId, !t.isEmpty {
                return try Row.fetchOne(db, sql: "SELECT \(Journal.columns) FROM entry WHERE transactionId = ? AND \(which) ORDER BY id LIMIT 1",
                                        arguments: [t, id, action.rawValue]).map(Journal.entry(from:))
            }
            guard let stan = r.referenceNumber, !stan.isEmpty, let order = r.orderCode, !order.isEmpty else { return nil }
            return try Row.fetchOne(db, sql: "SELECT \(Journal.columns) FROM entry WHERE stan = ? AND orderCode = ? AND \(which) ORDER BY id LIMIT 1",
                                    arguments: [stan, order, id, action.rawValue]).map(Journal.entry(from:))
        }
    }

    /// Settles an entry that needs attention as a person found it on the terminal. Charged: `approved` (it counts, with
    /// the terminal's amount when an answer gave one); not charged: `resolved` (never counts). Compare-and-set: an entry
    /// that was settled meanwhile (a late answer, another process) is left alone and this throws.
    ///
    /// One charge counts once: an entry holding a terminal transaction another entry already counts cannot be marked
    /// charged. Marked not charged, an approval that named no payment, kept with the entry while it waited, is journaled
    /// on its own for review (it may be a charge for something else) instead of going with the mark. The screen and
    /// `till resolve` both settle through here.
    ///
    /// Counted, a payment needs its amount: a full refund or capture (none asked) whose answer stated none, or 0.00,
    /// is marked charged only with the `amount` the person read on the terminal.
    ///
    /// A person's figure is bounded by what the terminal could have done (`mostTheTerminalCouldHaveDone`): a figure
    /// beyond it is refused unless `beyondBecause` says why, and that reason is journaled in the note.
    public func resolve(_ id: Int64, charged: Bool, note: String, amount: Money? = nil, tip: Money? = nil,
                        beyondBecause: String? = nil, nowMs: Int64 = WallClock.nowMs()) throws {
        var note = note
        let e = try entry(id: id)
        if let e {
            if charged, let r = e.response, let same = try entry(sameTransactionAs: r, action: e.action, excluding: id, approvedOnly: true) {
                // Short enough for the notice line at 80 columns, what to do included.
                throw ResolveError(message: (r.referenceNumber.map { "STAN " + $0 } ?? "its transaction") + " counts in #\(same.id) already: mark it not charged.")
            }
            // What the terminal's own answer (of this action, named or not) stated: it counts, a person's figure never
            // replaces it. An approval of 0.00 states no figure (a full refund's answered 0.00, a sale's cut short).
            let own = e.response.flatMap { $0.action == e.action ? $0 : nil }
            let asked = try requestedAmounts(of: id)
            let statedAmount = own?.amount.flatMap { $0.cents == 0 ? nil : $0 }
            if let amount, let stated = statedAmount, stated != amount {
                throw ResolveError(message: "#\(id): the terminal stated \(stated), which counts; not \(amount).")
            }
            if charged, e.action.movesMoney, amount?.cents == 0 {
                throw ResolveError(message: "#\(id): 0.00 moves no money: give the amount the terminal shows, or mark it not charged.")
            }
            if charged, e.action.movesMoney, amount == nil, (own != nil && statedAmount == nil) || (e.amount?.cents ?? 0) == 0 {
                throw ResolveError(message: "#\(id): the terminal stated no amount: till resolve \(id) --charged --amount X")
            }
            // A tip asked that the terminal's answer did not state: counted only as a person says (0 if none was taken).
            if let stated = own?.tipAmount, let tip, stated != tip {
                throw ResolveError(message: "#\(id): the terminal stated tip \(stated), which counts; not \(tip).")
            }
            if charged, e.action.takesTip, tip == nil, let own, own.tipAmount == nil, let askedTip = asked.tip, askedTip.cents != 0 {
                throw ResolveError(message: "#\(id): no tip stated (\(askedTip) asked): till resolve \(id) --charged --tip X")
            }
            // The figure that would count: the person's, else the one journaled (the answer's, else the one asked).
            if charged, let counted = amount ?? e.amount, let (payment, left) = try leftToRefund(by: e), counted > left {
                throw ResolveError(message: "#\(id) refunds #\(payment), with \(left) left to refund; not \(counted).")
            }
            // A figure the terminal itself stated is the terminal's, not a person's: only the protocol bounds it.
            let personsFigure = (amount != nil && statedAmount == nil) || (tip != nil && own?.tipAmount == nil)
            if charged, let limit = try mostTheTerminalCouldHaveDone(e, personsFigure: personsFigure) {
                let counted = Money(cents: (amount ?? e.amount ?? .zero).cents + (tip ?? e.tipAmount ?? .zero).cents)
                if counted > limit.most {
                    let why = (beyondBecause ?? "").trimmingWhitespace()
                    guard !why.isEmpty else {
                        throw ResolveError(message: "#\(id): \(counted) is more than the terminal could have taken (\(limit.what): \(limit.most)). "
                                           + "Check the figure; if it is right, say why: --override-limit \"…\"")
                    }
                    note += " Beyond what the terminal could have taken (\(limit.what): \(limit.most)), because: \(why)"
                }
            }
            if !charged { _ = try keepStoredStray(of: e, nowMs: nowMs) }
        }
        let from = EntryState.settledByAPerson
        // A payment a person finds charged counts in a batch that is listed and reported: one journaled outside any
        // (an approval that came while no batch was open) is filed under the open batch, or one opened for it, as the
        // terminal does for a payment.
        let filing: BatchInfo? = try e.flatMap { e in
            guard charged, e.action.movesMoney, !(try batchIsListed(e.batchId, nowMs: nowMs)) else { return nil }
            return try batch(for: e.action, nowMs: nowMs)
        }
        let moved = try write { db -> Bool in
            let only = Journal.stateCondition(from)
            if charged, let amount {
                try db.execute(sql: "UPDATE entry SET amountCents = ? WHERE id = ?" + only.sql,
                               arguments: StatementArguments([amount.cents, id] as [(any DatabaseValueConvertible)?]) + only.arguments)
            }
            if charged, let tip {
                try db.execute(sql: "UPDATE entry SET tipCents = ? WHERE id = ?" + only.sql,
                               arguments: StatementArguments([tip.cents, id] as [(any DatabaseValueConvertible)?]) + only.arguments)
            }
            if let filing {
                try db.execute(sql: "UPDATE entry SET batchId = ?, batchName = ? WHERE id = ?" + only.sql,
                               arguments: StatementArguments([filing.id, filing.name, id] as [(any DatabaseValueConvertible)?]) + only.arguments)
            }
            try db.execute(sql: "UPDATE entry SET state = ?, note = ?, updatedAtMs = ? WHERE id = ?" + only.sql,
                           arguments: StatementArguments([(charged ? EntryState.approved : .resolved).rawValue, note, nowMs, id]
                                                         as [(any DatabaseValueConvertible)?]) + only.arguments)
            guard db.changesCount > 0 else { return false }
            // A batch command a person found done (a close the terminal made while till was stopped) moves the shift as
            // its answer would have: the batch closes (its Z report made), or opens under a key of till's.
            if charged, let e, let command = AnswerRules.batchCommand(of: e) {
                try Journal.recordBatchCommand(db, command, entryId: id, key: command == .open ? Journal.tillBatchKey(entryId: id) : nil,
                                               name: QueryFields(url: e.requestURL)?.value(named: "batchName"), nowMs: nowMs)
            }
            return true
        }
        if !moved { throw ResolveError(message: "Entry \(id) no longer needs attention (it was settled meanwhile); nothing changed.") }
    }

    /// The most a person may mark `e` charged at (amount and tip together), and what bounds it: what was asked, with
    /// its tip (a sale or pre-auth); the pre-auth (a capture); what is left of the payment (a refund); always the
    /// protocol's largest amount. A refund's or capture's own ask does not bound it: the cardholder or the terminal
    /// may settle another figure within the payment, and the payment is what bounds the money. Nil for an entry that
    /// moves no money.
    /// Without a person's figure (the terminal's own counts) only the protocol's largest amount bounds it.
    func mostTheTerminalCouldHaveDone(_ e: JournalEntry, personsFigure: Bool) throws -> (most: Money, what: String)? {
        guard e.action.movesMoney else { return nil }
        var bound = (most: Money.maximum, what: "the largest amount the protocol carries")
        guard personsFigure else { return bound }
        func tighten(_ m: Money?, _ what: String) { if let m, m < bound.most { bound = (m, what) } }
        let asked = try requestedAmounts(of: e.id)
        let askedTotal = asked.amount.map { Money(cents: $0.cents + (asked.tip?.cents ?? 0)) }
        switch e.action {
        case .sale, .preAuth:
            tighten(askedTotal, "what was asked, with its tip")
        case .capturePreAuth:
            let links = RefundLinks(try entriesAbout(paymentOf: e))
            if let pre = links.preAuthOf[e.id], let held = try entry(id: pre)?.charged { tighten(held, "the pre-auth") }
        case .cancel:
            if let (_, left) = try leftToRefund(by: e) { tighten(left, "what is left of the payment") }
        case .abort, .batch, .transactionDetails, .reprintTransaction, .getPrintingSettings, .setPrintingSettings, .sendLogs,
             .getActivationCode, .activatePos:
            break   // moves no money: returned above
        }
        return bound
    }

    /// The entries about the payment refund (capture) `e` names, `e` among them (`entries(about:)`); none when it names
    /// no key (then it links to nothing).
    func entriesAbout(paymentOf e: JournalEntry) throws -> [JournalEntry] {
        guard let key = RefundLinks.finder(of: e).key else { return [e] }
        let about = try entries(about: key)
        return about.contains(where: { $0.id == e.id }) ? about : about + [e]
    }

    /// What is left to refund on the payment that refund `e` names (what the card paid, less its approved refunds):
    /// nil when `e` is no refund, names no payment the journal holds, or a refund of that payment has no known amount.
    func leftToRefund(by e: JournalEntry) throws -> (payment: Int64, left: Money)? {
        guard e.action.findsEarlierPayment == .toRefund else { return nil }
        let links = RefundLinks(try entriesAbout(paymentOf: e))
        guard let p = links.original[e.id], !links.unknownAmount.contains(p), let paid = try entry(id: p)?.charged else { return nil }
        let back = links.refunded[p] ?? .zero
        return (p, back < paid ? paid - back : .zero)
    }

    /// An approval that named no payment, journaled on its own for review while (or after) `waiting` waited for its own
    /// answer. Keyed by its fields as journaled, so that the same stray kept twice (when till stopped, and again when the
    /// entry holding it is settled later) is one row. Returns the row, and whether it is new.
    public func keepStray(_ response: CallbackResponse, whileWaiting waiting: JournalEntry, nowMs: Int64 = WallClock.nowMs()) throws
        -> (entry: JournalEntry, inserted: Bool) {
        let note = "An answer that named no payment, while journal entry \(waiting.id) waited for its own: "
            + (response.isApproved ? "it may be a charge for another payment. " : "") + "Check the terminal."
        let key = "stray:" + Journal.storedFields(response).joined(separator: "&")
        return try insertUnmatched(response: response, text: key, note: note, batch: try batch(), state: .review, nowMs: nowMs)
    }

    /// Before something else settles `e` (an answer replacing what it holds, a person's mark "not charged"): an approval
    /// that named no payment, kept with it while it waited, is journaled on its own so that it is not lost. Nil: it held
    /// none.
    public func keepStoredStray(of e: JournalEntry, nowMs: Int64 = WallClock.nowMs()) throws -> (entry: JournalEntry, inserted: Bool)? {
        guard let old = e.response, old.isApproved, old.clientTransactionId == nil, e.clientTransactionId != nil,
              old.action == e.action else { return nil }
        return try keepStray(old, whileWaiting: e, nowMs: nowMs)
    }

    /// Records that the cashier checked these unknown outcomes and chose to charge again.
    public func confirmRetry(_ ids: Set<Int64>, nowMs: Int64 = WallClock.nowMs()) throws {
        guard !ids.isEmpty else { return }
        try write { db in
            for id in ids {
                try db.execute(sql: "UPDATE entry SET retryConfirmedAtMs = ? WHERE id = ? AND retryConfirmedAtMs IS NULL", arguments: [nowMs, id])
            }
        }
    }

    /// Refunds (captures) of the payment `finder` names whose money may have moved (`mayHaveMovedMoney`) and that
    /// nobody confirmed before sending another: a second one may give the money back twice (charge the pre-auth twice).
    /// Approvals of that action kept for review count too, whatever payment was asked: their answers name none.
    /// Either side without a key (the cardholder picks the payment on the terminal) may be the same money
    /// (`RefundLinks.mayBeSameMoney`, the screen's rule too).
    public func unconfirmedUnknown(_ action: Action, sameKeyAs finder: TransactionFinder) throws -> [JournalEntry] {
        let uncounted = try unconfirmedUncountedApprovals([action])
        var payment: JournalEntry?
        if let key = finder.key {
            payment = RefundLinks.payment(named: key, in: try entries(about: key), capture: action.findsEarlierPayment == .toCapture)
        }
        return try unconfirmed([action]).filter { e in e.mayHaveMovedMoney && RefundLinks.mayBeSameMoney(e, as: finder, payment: payment) }
            + uncounted
    }

    /// Card payments that may have charged (`mayHaveCharged`) and that the cashier has not yet confirmed before
    /// charging again.
    public func unconfirmedUnknownPayments() throws -> [JournalEntry] {
        try unconfirmed([.sale, .preAuth]).filter(\.mayHaveCharged) + unconfirmedUncountedApprovals([.sale, .preAuth])
    }

    /// Approvals kept for review that no entry counts: one that contradicts what is journaled for its payment (its own
    /// decline came first), one naming no payment (as refund and capture answers never do), or a reference this
    /// journal never sent (the terminal's answer to this till's sale with another reference is not told apart from
    /// another's). Money may have moved, so a new request of that action asks first, as after an unknown outcome: a
    /// review row of such an approval let the next sale go, and the customer paid twice.
    func unconfirmedUncountedApprovals(_ actions: [Action]) throws -> [JournalEntry] {
        try unconfirmed(actions, origin: .unmatched, in: [.review]).filter { $0.response?.isApproved == true }
    }

    /// Entries of these actions and this origin (this till's requests, by default) in these states (by default, every
    /// one that needs attention) that nobody confirmed before sending another.
    func unconfirmed(_ actions: [Action], origin: EntryOrigin = .request,
                     in states: Set<EntryState> = [.pending, .sent, .unknown, .review]) throws -> [JournalEntry] {
        let only = Journal.stateCondition(states)
        return try reading { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Journal.columns) FROM entry WHERE origin = ? AND retryConfirmedAtMs IS NULL
                  AND action IN (\(actions.map { _ in "?" }.joined(separator: ",")))\(only.sql) ORDER BY id
                """, arguments: [origin.rawValue] + StatementArguments(actions.map(\.rawValue)) + only.arguments).map(Journal.entry(from:))
        }
    }

    /// When the cashier confirmed, before charging again, that this unknown payment was checked (nil: never).
    public func retryConfirmedAtMs(of id: Int64) throws -> Int64? {
        try reading { db in try Int64.fetchOne(db, sql: "SELECT retryConfirmedAtMs FROM entry WHERE id = ?", arguments: [id]) }
    }

    /// What the request asked for, before any answer (the answer's amount is in `amount`).
    public func requestedAmounts(of id: Int64) throws -> (amount: Money?, tip: Money?) {
        try reading { db in
            guard let r = try Row.fetchOne(db, sql: "SELECT requestedAmountCents, requestedTipCents FROM entry WHERE id = ?", arguments: [id]) else {
                return (nil, nil)
            }
            let a: Int? = r["requestedAmountCents"], t: Int? = r["requestedTipCents"]
            return (a.map(Money.init(cents:)), t.map(Money.init(cents:)))
        }
    }
}
