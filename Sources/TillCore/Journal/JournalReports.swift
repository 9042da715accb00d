import Foundation
import GRDB
import TillIO
import TillProtocol

/// A batch (shift) as the journal's batch events tell it, including how it ended.
public struct BatchRecord: Sendable, Hashable, Codable {
    public var id: String?
    public var name: String?
    public var openedAtMs: Int64
    public var closedAtMs: Int64?
    /// How it ended; nil while open.
    public var closedHow: BatchCloseReason?
    public var isOpen: Bool { closedAtMs == nil }
    public init(id: String?, name: String?, openedAtMs: Int64, closedAtMs: Int64? = nil, closedHow: BatchCloseReason? = nil) {
        self.id = id; self.name = name; self.openedAtMs = openedAtMs; self.closedAtMs = closedAtMs; self.closedHow = closedHow
    }
    public var info: BatchInfo { BatchInfo(id: id, name: name, openedAtMs: openedAtMs, isOpen: isOpen) }
}

extension Journal {
    static let autoCloseMs: Int64 = 48 * 3_600_000

    /// Adds the per-batch summary that reports read, kept up to date by triggers in the same
    /// transaction as every journal write, so a report costs a few rows whatever the batch's size.
    static func registerReportMigrations(_ m: inout DatabaseMigrator) {
        m.registerMigration("v2-reports") { db in
            // Both triggers add the new row to its bucket alike. This migration's own text, as it ran: v5 replaces
            // these triggers with its own (`summaryAddNew`).
            let addNew = """
                INSERT INTO batch_summary VALUES (COALESCE(NEW.batchId, ''), NEW.action, NEW.state, COALESCE(NEW.cardType, ''),
                    COALESCE(NEW.verificationMethod, ''), 1, COALESCE(NEW.amountCents, 0), COALESCE(NEW.tipCents, 0),
                    COALESCE(NEW.tipCents, 0) > 0, NEW.createdAtMs, NEW.createdAtMs)
                  ON CONFLICT DO UPDATE SET n = n + 1, amountCents = amountCents + excluded.amountCents,
                    tipCents = tipCents + excluded.tipCents, tipped = tipped + excluded.tipped,
                    firstAtMs = MIN(firstAtMs, excluded.firstAtMs), lastAtMs = MAX(lastAtMs, excluded.lastAtMs);
                """
            try db.execute(sql: """
            ALTER TABLE entry ADD COLUMN verificationMethod TEXT;
            CREATE TABLE batch_summary (
              batchKey TEXT NOT NULL,
              action TEXT NOT NULL,
              state TEXT NOT NULL,
              cardType TEXT NOT NULL,
              verificationMethod TEXT NOT NULL,
              n INTEGER NOT NULL,
              amountCents INTEGER NOT NULL,
              tipCents INTEGER NOT NULL,
              tipped INTEGER NOT NULL,
              firstAtMs INTEGER NOT NULL,
              lastAtMs INTEGER NOT NULL,
              PRIMARY KEY (batchKey, action, state, cardType, verificationMethod)
            ) WITHOUT ROWID;
            CREATE TABLE z_report (
              batchKey TEXT PRIMARY KEY,
              closedAtMs INTEGER,
              report TEXT NOT NULL
            );
            CREATE TRIGGER entry_summary_insert AFTER INSERT ON entry BEGIN
              \(addNew)
            END;
            CREATE TRIGGER entry_summary_update AFTER UPDATE OF state, amountCents, tipCents, cardType, verificationMethod, batchId ON entry BEGIN
              UPDATE batch_summary SET n = n - 1, amountCents = amountCents - COALESCE(OLD.amountCents, 0),
                tipCents = tipCents - COALESCE(OLD.tipCents, 0), tipped = tipped - (COALESCE(OLD.tipCents, 0) > 0)
              WHERE batchKey = COALESCE(OLD.batchId, '') AND action = OLD.action AND state = OLD.state
                AND cardType = COALESCE(OLD.cardType, '') AND verificationMethod = COALESCE(OLD.verificationMethod, '');
              DELETE FROM batch_summary WHERE n <= 0;
              \(addNew)
            END;
            INSERT INTO batch_summary
              SELECT COALESCE(batchId, ''), action, state, COALESCE(cardType, ''), '', COUNT(*), COALESCE(SUM(amountCents), 0),
                     COALESCE(SUM(tipCents), 0), SUM(COALESCE(tipCents, 0) > 0), MIN(createdAtMs), MAX(createdAtMs)
              FROM entry GROUP BY 1, 2, 3, 4;
            """)
        }
    }

    /// Each entry keeps the tip style it was journaled with (`tipIncluded`), and the summary the sum of the tips that
    /// its amounts hold (`includedTipCents`), so that a report reads every entry as the terminal did, whatever the config
    /// says today.
    static func registerTipStyleMigration(_ m: inout DatabaseMigrator, tipStyle: TipStyle) {
        m.registerMigration("v5-tip-style") { db in
            let included = tipStyle == .included ? 1 : 0
            let addNew = summaryAddNew
            try db.execute(sql: """
            ALTER TABLE entry ADD COLUMN tipIncluded INTEGER NOT NULL DEFAULT 0;
            UPDATE entry SET tipIncluded = \(included) WHERE action = 'sale';
            ALTER TABLE batch_summary ADD COLUMN includedTipCents INTEGER NOT NULL DEFAULT 0;
            UPDATE batch_summary SET includedTipCents = \(included) * tipCents WHERE action = 'sale';
            DROP TRIGGER entry_summary_insert;
            DROP TRIGGER entry_summary_update;
            CREATE TRIGGER entry_summary_insert AFTER INSERT ON entry BEGIN
              \(addNew)
            END;
            CREATE TRIGGER entry_summary_update AFTER UPDATE OF state, amountCents, tipCents, cardType, verificationMethod, batchId, tipIncluded ON entry BEGIN
              UPDATE batch_summary SET n = n - 1, amountCents = amountCents - COALESCE(OLD.amountCents, 0),
                tipCents = tipCents - COALESCE(OLD.tipCents, 0), tipped = tipped - (COALESCE(OLD.tipCents, 0) > 0),
                includedTipCents = includedTipCents - OLD.tipIncluded * COALESCE(OLD.tipCents, 0)
              WHERE batchKey = COALESCE(OLD.batchId, '') AND action = OLD.action AND state = OLD.state
                AND cardType = COALESCE(OLD.cardType, '') AND verificationMethod = COALESCE(OLD.verificationMethod, '');
              DELETE FROM batch_summary WHERE n <= 0;
              \(addNew)
            END;
            """)
        }
    }

    /// The new row's bucket gains it (both summary triggers end so).
    static let summaryAddNew = """
        INSERT INTO batch_summary VALUES (COALESCE(NEW.batchId, ''), NEW.action, NEW.state, COALESCE(NEW.cardType, ''),
          COALESCE(NEW.verificationMethod, ''), 1, COALESCE(NEW.amountCents, 0), COALESCE(NEW.tipCents, 0),
          COALESCE(NEW.tipCents, 0) > 0, NEW.createdAtMs, NEW.createdAtMs, NEW.tipIncluded * COALESCE(NEW.tipCents, 0))
        ON CONFLICT DO UPDATE SET n = n + 1, amountCents = amountCents + excluded.amountCents,
          tipCents = tipCents + excluded.tipCents, tipped = tipped + excluded.tipped,
          firstAtMs = MIN(firstAtMs, excluded.firstAtMs), lastAtMs = MAX(lastAtMs, excluded.lastAtMs),
          includedTipCents = includedTipCents + excluded.includedTipCents;
        """

    /// The update trigger takes the old row out of its bucket and drops that bucket once empty, by its key: the
    /// earlier `DELETE … WHERE n <= 0` read the whole summary table at every state change of every entry (a sale
    /// makes three), which grows with the journal's age (`SaleQueryPlanTests` holds every statement of a sale to an
    /// index).
    static func registerSummaryKeyedDeleteMigration(_ m: inout DatabaseMigrator) {
        m.registerMigration("v10-summary-keyed-delete") { db in
            let oldBucket = """
                batchKey = COALESCE(OLD.batchId, '') AND action = OLD.action AND state = OLD.state
                  AND cardType = COALESCE(OLD.cardType, '') AND verificationMethod = COALESCE(OLD.verificationMethod, '')
                """
            try db.execute(sql: """
            DROP TRIGGER entry_summary_update;
            CREATE TRIGGER entry_summary_update AFTER UPDATE OF state, amountCents, tipCents, cardType, verificationMethod, batchId, tipIncluded ON entry BEGIN
              UPDATE batch_summary SET n = n - 1, amountCents = amountCents - COALESCE(OLD.amountCents, 0),
                tipCents = tipCents - COALESCE(OLD.tipCents, 0), tipped = tipped - (COALESCE(OLD.tipCents, 0) > 0),
                includedTipCents = includedTipCents - OLD.tipIncluded * COALESCE(OLD.tipCents, 0)
              WHERE \(oldBucket);
              DELETE FROM batch_summary WHERE \(oldBucket) AND n <= 0;
              \(summaryAddNew)
            END;
            """)
        }
    }

    /// The report buckets of one batch (nil: entries outside any batch), from the summary table.
    public func reportBuckets(batchId: String?) throws -> [ReportBucket] {
        try reading { db in try Journal.reportBuckets(db, batchKey: batchId ?? "") }
    }

    static func reportBuckets(_ db: Database, batchKey: String) throws -> [ReportBucket] {
        try Row.fetchAll(db, sql: """
            SELECT action, state, cardType, verificationMethod, n, amountCents, tipCents, tipped, firstAtMs, lastAtMs, includedTipCents
            FROM batch_summary WHERE batchKey = ? ORDER BY action, state, cardType, verificationMethod
            """, arguments: [batchKey]).map { r in
            // A bucket of an action or state this build does not know would be money left out of the report unseen.
            guard let action = Action(rawValue: r["action"]), let state = EntryState(rawValue: r["state"]) else {
                throw Journal.UnreadableRow(id: nil, what: "a report line ('\(String(describing: r["action"] as String?))', '\(String(describing: r["state"] as String?))')")
            }
            return ReportBucket(action: action, state: state, cardType: r["cardType"], verificationMethod: r["verificationMethod"],
                                count: r["n"], amountCents: r["amountCents"], tipCents: r["tipCents"], tippedCount: r["tipped"],
                                firstAtMs: r["firstAtMs"], lastAtMs: r["lastAtMs"], includedTipCents: r["includedTipCents"])
        }
    }

    /// Every batch the journal knows, oldest first, with how each one ended.
    public func batches(nowMs: Int64 = WallClock.nowMs()) throws -> [BatchRecord] {
        try reading { db in try Journal.batches(db, nowMs: nowMs) }
    }

    /// The newest `count` batches, oldest first, read from the events since the `count`-th last open: an indexed read
    /// whatever the journal's age (the batches from an open on do not depend on the events before it). `earlier`: the
    /// journal knows older ones.
    public func newestBatches(_ count: Int, nowMs: Int64 = WallClock.nowMs()) throws -> (batches: [BatchRecord], earlier: Bool) {
        try reading { db in
            let from = count < 1 ? nil : try Int64.fetchOne(db, sql: "SELECT id FROM batch_event WHERE command = 'open' ORDER BY id DESC LIMIT 1 OFFSET ?",
                                                              arguments: [count - 1])
            guard let from else {
                let all = try Journal.batches(db, nowMs: nowMs)
                return (Array(all.suffix(max(0, count))), all.count > count)
            }
            let events = try Row.fetchAll(db, sql: "SELECT * FROM batch_event WHERE id >= ? ORDER BY id", arguments: [from])
                .map(Journal.batchEvent(from:))
            let list = Journal.batches(events: events, nowMs: nowMs)
            let before = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM batch_event WHERE id < ? AND command = 'open')", arguments: [from]) ?? false
            return (Array(list.suffix(count)), before || list.count > count)
        }
    }

    /// The name shown for the batch the terminal started by itself after a 48-hour auto-close, until an
    /// answer names it (batch.txt:10: "automatically being closed and a new one being started").
    public static let terminalStartedBatchName = "started by the terminal"
    /// The key of a batch the terminal started by itself (`auto-<opened at ms>`).
    public static let terminalStartedBatchKeyPrefix = "auto-"
    /// The key of a batch the terminal opened without naming it (no batch id), or that a person found opened: the
    /// entry that opened it (`till-<entry id>`).
    static let tillBatchKeyPrefix = "till-"
    static func tillBatchKey(entryId: Int64) -> String { tillBatchKeyPrefix + String(entryId) }

    static func batches(_ db: Database, nowMs: Int64) throws -> [BatchRecord] {
        batches(events: try Row.fetchAll(db, sql: batchEventsSQL).map(Journal.batchEvent(from:)), nowMs: nowMs)
    }

    /// Whether the terminal's close (the id and name of the batch it says it closed) closes the open batch: it names
    /// none, or names it (its key, the terminal's id its key was made from, or its name), or the open batch's key is
    /// one the terminal never gave (started by the terminal, or opened with no id).
    static func closeNames(batchId: String?, batchName: String?, openId: String?, openName: String?) -> Bool {
        guard let named = batchId, let key = openId else { return true }
        if key.hasPrefix(terminalStartedBatchKeyPrefix) || key.hasPrefix(tillBatchKeyPrefix) { return true }
        return named == key || key.hasPrefix(named + "~") || (batchName != nil && batchName == openName)
    }

    static let batchEventsSQL = "SELECT * FROM batch_event ORDER BY id"
    /// The events from the last open on: all that the open batch (or the last one) depends on. One indexed look-up
    /// (`batch_event_command`), so a sale, a start-up and a report of the current shift cost the same on a till's
    /// first day and after thousands of shifts.
    static let currentBatchEventsSQL = """
        SELECT * FROM batch_event WHERE id >= COALESCE((SELECT MAX(id) FROM batch_event WHERE command = 'open'), 0) ORDER BY id
        """
    /// From the open before the last one: also the batch the last open closed.
    static let recentBatchEventsSQL = """
        SELECT * FROM batch_event WHERE id >= COALESCE((SELECT id FROM batch_event WHERE command = 'open' ORDER BY id DESC LIMIT 1 OFFSET 1), 0) ORDER BY id
        """

    /// The latest batch (open or not), from the events since the last open.
    public func latestBatch(nowMs: Int64 = WallClock.nowMs()) throws -> BatchRecord? {
        try reading { db in try Journal.latestBatch(db, nowMs: nowMs) }
    }

    static func latestBatch(_ db: Database, nowMs: Int64) throws -> BatchRecord? {
        Journal.batches(events: try Row.fetchAll(db, sql: Journal.currentBatchEventsSQL).map(Journal.batchEvent(from:)), nowMs: nowMs).last
    }

    static func registerBatchIndexMigration(_ m: inout DatabaseMigrator) {
        m.registerMigration("v6-batch-index") { db in
            try db.execute(sql: "CREATE INDEX batch_event_command ON batch_event(command, id)")
        }
    }

    /// The batches the events (oldest first) tell of, as at `nowMs`.
    static func batches(events: [BatchEvent], nowMs: Int64) -> [BatchRecord] {
        var out: [BatchRecord] = []
        /// Closes the open batch by `at`. One the terminal closed 48 hours after it opened, before `at`, is
        /// closed then, and the terminal started a new one (batch.txt:10), which the journal knows only by
        /// its start: at the last 48-hour mark before `at` (the simulator's rule; a till that was off for days
        /// finds one new batch, not one per 48 hours). It is open at `at` unless `how` closes it too.
        func closeOpen(at: Int64, how: BatchCloseReason?) {
            guard let last = out.last, last.isOpen else { return }
            let auto = last.openedAtMs + autoCloseMs
            if at >= auto {
                out[out.count - 1].closedAtMs = auto
                out[out.count - 1].closedHow = .autoClose
                let started = auto + (at - auto) / autoCloseMs * autoCloseMs
                // Its own key (the journal files its entries and reports under it), until and after an answer names it.
                out.append(BatchRecord(id: terminalStartedBatchKeyPrefix + String(started), name: terminalStartedBatchName, openedAtMs: started))
            }
            if let how, let last = out.last, last.isOpen {
                out[out.count - 1].closedAtMs = at
                out[out.count - 1].closedHow = how
            }
        }
        for e in events {
            switch e.command {
            case .open:
                if let key = e.batchId, key.hasPrefix(terminalStartedBatchKeyPrefix) {
                    // The batch the terminal started by itself, written down when a payment was filed under it: the
                    // same one the 48-hour rule makes at that time, not a second one (and it stays listed when the
                    // clock later reads earlier again: a clock that jumped ahead and back).
                    closeOpen(at: e.atMs, how: nil)
                    if let last = out.last, last.isOpen, last.id == key { continue }
                }
                closeOpen(at: e.atMs, how: .newBatchOpened)
                out.append(BatchRecord(id: e.batchId, name: e.batchName, openedAtMs: e.atMs))
            case .close:
                // Bring the batches up to the close first: the one it closes may be one the terminal started.
                closeOpen(at: e.atMs, how: nil)
                guard let last = out.last, last.isOpen else { continue }
                let startedByTerminal = last.id?.hasPrefix(terminalStartedBatchKeyPrefix) == true
                if closeNames(batchId: e.batchId, batchName: e.batchName, openId: last.id, openName: last.name) {
                    // The terminal's answer names the batch it started by itself: the journal learns its id and name.
                    if startedByTerminal {
                        // Its entries are filed under the key it had while open; the answer gives it its name.
                        if let n = e.batchName { out[out.count - 1].name = n }
                    }
                    closeOpen(at: e.atMs, how: .byTill)
                }
            }
        }
        closeOpen(at: nowMs, how: nil)
        return out
    }

    /// The batch a request is filed under. A payment (sale, pre-auth, capture, refund) always has one: with none open on
    /// till's side (a new journal, or the terminal opened one by itself), till opens one for it, as the terminal does, so
    /// that every payment is in exactly one report. Other requests take the open batch, if any.
    public func batch(for action: Action, nowMs: Int64 = WallClock.nowMs()) throws -> BatchInfo {
        let open = try batch(nowMs: nowMs)
        if open.isOpen, action.movesMoney, let key = open.id, key.hasPrefix(Journal.terminalStartedBatchKeyPrefix) {
            // A batch the 48-hour rule infers from the clock exists only as long as the clock says so: a payment filed
            // under it writes it down, so that the payment stays in a listed, reported batch whatever the clock does
            // next (an RTC or NTP step back, a VM snapshot restored).
            try write { db in
                guard try Int.fetchOne(db, sql: "SELECT 1 FROM batch_event WHERE command = 'open' AND batchId = ?", arguments: [key]) == nil
                else { return }
                try db.execute(sql: "INSERT INTO batch_event (entryId, command, batchId, batchName, atMs) VALUES (NULL, 'open', ?, ?, ?)",
                               arguments: [key, open.name, open.openedAtMs ?? nowMs])
            }
            return open
        }
        guard !open.isOpen, action.movesMoney else { return open }
        try write { db in
            try db.execute(sql: "INSERT INTO batch_event (entryId, command, batchId, batchName, atMs) VALUES (NULL, 'open', ?, ?, ?)",
                           arguments: [Journal.terminalStartedBatchKeyPrefix + String(nowMs), Journal.terminalStartedBatchName, nowMs])
        }
        return try batch(nowMs: nowMs)
    }

    /// Whether `key` is the key of a batch `batches` lists (nil: outside any batch).
    func batchIsListed(_ key: String?, nowMs: Int64) throws -> Bool {
        guard let key else { return false }
        return try batches(nowMs: nowMs).contains { $0.id == key }
    }

    /// Finds a batch by its key, in the order `BatchKey` documents: `current` is the open batch (nil when none is
    /// open), `last` the latest one; an id matches ignoring case; typed text is an id first, then the latest batch
    /// of exactly that name.
    public func findBatch(_ key: BatchKey, nowMs: Int64 = WallClock.nowMs()) throws -> BatchRecord? {
        switch key {
        case .current: return try latestBatch(nowMs: nowMs).flatMap { $0.isOpen ? $0 : nil }
        case .last: return try latestBatch(nowMs: nowMs)
        default: break
        }
        let all = try batches(nowMs: nowMs)
        func byId(_ id: String) -> BatchRecord? { all.last(where: { $0.id?.lowercased() == id.lowercased() }) }
        switch key {
        case .current: return all.last.flatMap { $0.isOpen ? $0 : nil }
        case .last: return all.last
        case .id(let id): return byId(id)
        case .idOrName(let text): return byId(text) ?? all.last(where: { $0.name == text })
        }
    }

    /// The batch a report is asked for: as `findBatch`, except that `current` with no batch open
    /// means the last one (a shift just closed still has its report).
    public func reportBatch(_ key: BatchKey, nowMs: Int64 = WallClock.nowMs()) throws -> BatchRecord? {
        if let b = try findBatch(key, nowMs: nowMs) { return b }
        return key == .current ? try findBatch(.last, nowMs: nowMs) : nil
    }

    /// The report of a batch: its stored Z report once it is closed (made and stored on first
    /// request for a batch the terminal closed by itself), else a running X report.
    public func report(for batch: BatchRecord?, nowMs: Int64 = WallClock.nowMs()) throws -> Report {
        let key = batch?.id ?? ""
        if let batch, !batch.isOpen {
            func stored(_ db: Database) throws -> Report? {
                try String.fetchOne(db, sql: "SELECT report FROM z_report WHERE batchKey = ?", arguments: [key])
                    // A stored Z report this build cannot read is made again from the summary (the same rows).
                    .flatMap { try? JSONDecoder().decode(Report.self, from: Data($0.utf8)) }
            }
            // Reading a stored Z report is a read; only the first request for a batch the terminal
            // closed by itself writes (and fsyncs) one.
            if let r = try reading(stored) { return r }
            return try write { db in
                if let r = try stored(db) { return r }
                let r = try Journal.closingReport(db, batch, nowMs: nowMs)
                try Journal.storeZReport(db, r, key: key)
                return r
            }
        }
        return try reading { db in
            var r = Report(kind: .running, batch: batch?.info, generatedAtMs: nowMs, buckets: try Journal.reportBuckets(db, batchKey: key))
            if batch != nil { r.waitingForABatch = try Journal.waitingForABatch(db) }
            return r
        }
    }

    /// Answers of money moved journaled outside any batch that still need a person (they came while no batch was open).
    static func waitingForABatch(_ db: Database) throws -> Tally {
        var t = Tally()
        for b in try reportBuckets(db, batchKey: "") where b.action.movesMoney && b.state.needsAttention {
            t = Tally(count: t.count + b.count, cents: t.cents + b.amountCents + b.tipCents - b.includedTipCents)
        }
        return t
    }

    /// A closed batch's Z report as the journal holds it now. One a settlement dropped (an entry of the batch settled
    /// after its close: `z_report_first` keeps the first) says it is restated and what the first said, whichever
    /// write makes it again: a report asked for, or the next batch answer's close.
    static func closingReport(_ db: Database, _ b: BatchRecord, nowMs: Int64) throws -> Report {
        let key = b.id ?? ""
        var r = Report(kind: .closing, batch: b.info, closedAtMs: b.closedAtMs, closedHow: b.closedHow,
                       generatedAtMs: nowMs, buckets: try reportBuckets(db, batchKey: key))
        if let first = try String.fetchOne(db, sql: "SELECT report FROM z_report_first WHERE batchKey = ?", arguments: [key])
            .flatMap({ try? JSONDecoder().decode(Report.self, from: Data($0.utf8)) }) {
            r.restated = Report.Restated(firstMadeAtMs: first.generatedAtMs, firstNetCents: first.netCents)
        }
        r.waitingForABatch = try waitingForABatch(db)
        return r
    }

    static func storeZReport(_ db: Database, _ r: Report, key: String) throws {
        let json = String(decoding: try JSONEncoder().encode(r), as: UTF8.self)
        try db.execute(sql: "INSERT OR IGNORE INTO z_report (batchKey, closedAtMs, report) VALUES (?, ?, ?)",
                       arguments: [key, r.closedAtMs, json])
    }

    /// Called in the transaction that journals a successful batch answer: a close stores the
    /// closed batch's Z report right away, with the journal exactly as it stood at the close.
    /// Only the batches a batch answer can have closed: the last and the one before it (an open closes the one before).
    static func storeZReportOnClose(_ db: Database, nowMs: Int64) throws {
        let recent = batches(events: try Row.fetchAll(db, sql: recentBatchEventsSQL).map(Journal.batchEvent(from:)), nowMs: nowMs)
        for b in recent where !b.isOpen {
            let key = b.id ?? ""
            if try Int.fetchOne(db, sql: "SELECT 1 FROM z_report WHERE batchKey = ?", arguments: [key]) != nil { continue }
            try storeZReport(db, try closingReport(db, b, nowMs: nowMs), key: key)
        }
    }

    /// A batch's entries and its summary buckets read in one snapshot (one read transaction), so that the two can be
    /// compared while other writes go on: the check that reports equal the journal.
    public func entriesAndBuckets(batchId: String?) throws -> (entries: [JournalEntry], buckets: [ReportBucket]) {
        try reading { db in
            (try Journal.entries(db, batchId: batchId), try Journal.reportBuckets(db, batchKey: batchId ?? ""))
        }
    }

    /// The entries of a batch, oldest first (for exports).
    public func entries(batchId: String?) throws -> [JournalEntry] {
        try reading { db in try Journal.entries(db, batchId: batchId) }
    }

    /// A batch's entries, oldest first, one at a time from one snapshot (an export of a year's batch holds one row).
    /// What was read is then held against the batch's report summary in the same snapshot (how many entries, their
    /// amounts and tips): an index or page that left rows out without SQLite noticing makes this throw
    /// `JournalDamagedError` (and marks the journal), so an export is never taken for whole when it is not. It costs
    /// the batch's rows, not the journal's: the whole file is checked by `till check`.
    public func forEachEntry(batchId: String?, _ body: (JournalEntry) throws -> Void) throws {
        let difference = try reading { db -> String? in
            var read: [Int64] = [0, 0, 0]
            try Journal.forEachEntry(db, batchId: batchId) { e in
                read[0] += 1; read[1] += Int64(e.amount?.cents ?? 0); read[2] += Int64(e.tipAmount?.cents ?? 0)
                try body(e)
            }
            let row = try Row.fetchOne(db, sql: """
                SELECT COALESCE(SUM(n), 0), COALESCE(SUM(amountCents), 0), COALESCE(SUM(tipCents), 0) FROM batch_summary WHERE batchKey = ?
                """, arguments: [batchId ?? ""])
            let summary: [Int64] = row.map { r -> [Int64] in [r[0], r[1], r[2]] } ?? [0, 0, 0]
            guard summary != read else { return nil }
            return "the entries read of batch \(batchId ?? "(none)") are \(read[0]) (\(read[1]) cents, tips \(read[2])), "
                + "its report summary counts \(summary[0]) (\(summary[1]) cents, tips \(summary[2]))"
        }
        if let difference { throw markDamaged([difference]) }
    }

    /// A batch's transactions as CSV, the header first, each line handed to `emit` as the journal is read: the screen's
    /// export file and `till export` write the same text.
    public func transactionsCSV(batchId: String?, _ f: ReportFormat, _ emit: (String) throws -> Void) throws {
        try emit(TransactionExport.csvHeader)
        try forEachEntry(batchId: batchId) { try emit(TransactionExport.csvLine($0, f)) }
    }

    static func entries(_ db: Database, batchId: String?) throws -> [JournalEntry] {
        var out: [JournalEntry] = []
        try forEachEntry(db, batchId: batchId) { out.append($0) }
        return out
    }

    static func forEachEntry(_ db: Database, batchId: String?, _ body: (JournalEntry) throws -> Void) throws {
        let key = batchId == nil ? "batchId IS NULL" : "batchId = ?"
        let rows = try Row.fetchCursor(db, sql: "SELECT \(Journal.columns) FROM entry WHERE \(key) ORDER BY id",
                                       arguments: batchId.map { [$0] } ?? [])
        while let row = try rows.next() { try body(try Journal.entry(from: row)) }
    }
}
