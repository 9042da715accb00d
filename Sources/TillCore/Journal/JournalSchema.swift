import Foundation
import GRDB
import TillIO
import TillProtocol
#if canImport(Glibc)
import Glibc
#endif

// The journal's tables and their migrations.
extension Journal {
    /// `tipStyle`: the style entries journaled before the journal kept one per entry are read with (the config's when
    /// the journal is first opened by a till that keeps it).
    static func migrator(tipStyle: TipStyle) -> DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.execute(sql: """
            CREATE TABLE entry (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              requestId TEXT NOT NULL UNIQUE,
              action TEXT NOT NULL,
              origin TEXT NOT NULL DEFAULT 'request',
              parentId INTEGER,
              clientTransactionId TEXT,
              amountCents INTEGER,
              tipCents INTEGER,
              requestURL TEXT NOT NULL,
              state TEXT NOT NULL,
              createdAtMs INTEGER NOT NULL,
              sentAtMs INTEGER,
              answeredAtMs INTEGER,
              updatedAtMs INTEGER NOT NULL,
              batchId TEXT,
              batchName TEXT,
              status TEXT,
              message TEXT,
              stan TEXT,
              orderCode TEXT,
              shortOrderCode TEXT,
              transactionId TEXT,
              cardType TEXT,
              response TEXT,
              note TEXT
            );
            CREATE INDEX entry_batch ON entry(batchId);
            CREATE INDEX entry_state ON entry(state);
            CREATE INDEX entry_ctid ON entry(clientTransactionId);
            CREATE INDEX entry_created ON entry(createdAtMs);
            CREATE TABLE batch_event (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              entryId INTEGER,
              command TEXT NOT NULL,
              batchId TEXT,
              batchName TEXT,
              atMs INTEGER NOT NULL
            );
            """)
        }
        registerReportMigrations(&m)
        m.registerMigration("v3-money") { db in
            try db.execute(sql: """
            ALTER TABLE entry ADD COLUMN requestedAmountCents INTEGER;
            ALTER TABLE entry ADD COLUMN requestedTipCents INTEGER;
            ALTER TABLE entry ADD COLUMN retryConfirmedAtMs INTEGER;
            UPDATE entry SET requestedAmountCents = amountCents, requestedTipCents = tipCents WHERE origin = 'request';
            CREATE INDEX entry_transaction ON entry(transactionId);
            -- Answers that matched nothing were counted as sales and could open or close batches: they need review.
            DELETE FROM batch_event WHERE entryId IN (SELECT id FROM entry WHERE origin = 'unmatched');
            UPDATE entry SET state = 'review' WHERE origin = 'unmatched' AND state IN ('approved', 'declined', 'aborted');
            """)
        }
        m.registerMigration("v4-z-restated") { db in
            // A Z report holds every entry journaled in its batch: one settled after the close (a sale in flight when a
            // late close answer came) makes the stored one stale, so it is dropped and made again when next asked for.
            try db.execute(sql: """
            CREATE TRIGGER z_report_restated AFTER UPDATE OF state, amountCents, tipCents ON entry WHEN NEW.batchId IS NOT NULL BEGIN
              DELETE FROM z_report WHERE batchKey = NEW.batchId;
            END;
            """)
        }
        registerTipStyleMigration(&m, tipStyle: tipStyle)
        registerBatchIndexMigration(&m)
        registerOutboxMigration(&m)
        m.registerMigration("v8-application-id") { db in
            // SQLite's own mark of whose file this is, in the file's header: a start reads it without opening SQLite.
            try db.execute(sql: "PRAGMA application_id = \(Journal.applicationId)")
        }
        m.registerMigration("v9-z-first") { db in
            // The first Z report of a batch is kept when a later settlement drops it, so the one made again can say it
            // was restated and what the first said (`Report.restated`).
            try db.execute(sql: """
            CREATE TABLE z_report_first (batchKey TEXT PRIMARY KEY NOT NULL, report TEXT NOT NULL);
            DROP TRIGGER z_report_restated;
            CREATE TRIGGER z_report_restated AFTER UPDATE OF state, amountCents, tipCents ON entry WHEN NEW.batchId IS NOT NULL BEGIN
              INSERT OR IGNORE INTO z_report_first (batchKey, report) SELECT batchKey, report FROM z_report WHERE batchKey = NEW.batchId;
              DELETE FROM z_report WHERE batchKey = NEW.batchId;
            END;
            """)
        }
        registerSummaryKeyedDeleteMigration(&m)
        OutboxChain.registerMigration(&m)
        registerCompactOutboxMigration(&m)
        registerFinderKeyMigration(&m)
        return m
    }

    /// The journal's `PRAGMA application_id`: "TILL" in ASCII.
    static let applicationId: Int32 = 0x5449_4C4C
}
