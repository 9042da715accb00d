import GRDB
import GRDBSQLite
import TillModel

/// What start-up reads from a journal file that was there before the writer is set up (issue 11): whether it is
/// someone else's SQLite database (tables, none of till's), and what the first frame shows. Read through a read-only
/// SQLite connection of its own, opened with SQLite's own API: a GRDB connection's set-up (its dispatch queue, SQL
/// functions, collations, authorizer) cost about a millisecond here, on the way to the first frame. No byte of the
/// file changes; SQLite keeps the locks of its connections in one process apart.
///
/// The queries, the row readings and the batch history's folding are the ones the writer's `glance()` uses.
struct JournalFirstReading {
    var foreign: Bool
    /// Nil when the tables could be read but not the journal's rows (a foreign file, or a damaged journal).
    var glance: JournalGlance?

    /// Nil when the file cannot be opened or read read-only (the writer then checks it).
    static func read(_ path: String, nowMs: Int64) -> JournalFirstReading? {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db = handle else {
            sqlite3_close(handle)
            return nil
        }
        defer { sqlite3_close(db) }
        // One snapshot for everything read below, as the writer's reading has.
        guard sqlite3_exec(db, "BEGIN DEFERRED", nil, nil, nil) == SQLITE_OK else { return nil }
        defer { sqlite3_exec(db, "COMMIT", nil, nil, nil) }
        guard let tables = names(db, Journal.tablesSQL) else { return nil }
        let foreign = Journal.isForeign(tables: tables)
        guard !foreign, let events = rows(db, Journal.currentBatchEventsSQL), let unresolved = rows(db, Journal.unresolvedSQL),
              let open = try? unresolved.map(Journal.entry(from:)) else {
            return JournalFirstReading(foreign: foreign, glance: nil)
        }
        return JournalFirstReading(foreign: false, glance: Journal.glance(events: events.map(Journal.batchEvent(from:)),
                                                                          unresolved: open,
                                                                          nowMs: nowMs))
    }

    /// The first column of every row of `sql`, as text, or nil when SQLite refuses it. (The table names, read
    /// without GRDB's rows: their first use costs the runtime type look-ups, which the rows below pay in any case.)
    private static func names(_ db: OpaquePointer, _ sql: String) -> [String]? {
        each(db, sql) { statement in sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "" }
    }

    /// Every row of `sql`, as GRDB rows (column name → value), or nil when SQLite refuses it.
    private static func rows(_ db: OpaquePointer, _ sql: String) -> [Row]? {
        each(db, sql) { statement in
            var values: [String: (any DatabaseValueConvertible)?] = [:]
            for i in 0..<sqlite3_column_count(statement) {
                values[String(cString: sqlite3_column_name(statement, i))] = DatabaseValue(sqliteStatement: statement, index: i)
            }
            return Row(values)
        }
    }

    /// `row` of every row of `sql`, or nil when SQLite refuses it.
    private static func each<T>(_ db: OpaquePointer, _ sql: String, _ row: (OpaquePointer) -> T) -> [T]? {
        var handle: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &handle, nil) == SQLITE_OK, let statement = handle else {
            sqlite3_finalize(handle)
            return nil
        }
        defer { sqlite3_finalize(statement) }
        var out: [T] = []
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW: out.append(row(statement))
            case SQLITE_DONE: return out
            default: return nil
            }
        }
    }
}
