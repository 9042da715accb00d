// The central store's schema: SQL only, one migration per version, applied in order by `till-sync init-store`
// (StoreAdmin.swift) in a transaction each, under an advisory lock. A version once shipped is never edited: a change is
// a new version.
//
// Who may do what (the walls, outermost first):
// - A till logs in as its own role, a member of `till_pusher`. That group has no privilege on any table: only EXECUTE
//   on `till_store.push_chained`, `till_store.last_seq` and `till_store.behind`, SECURITY DEFINER functions that find
//   the till from `session_user` (which `SET ROLE` and session variables do not change; only a superuser can change
//   it), so a till adds and reads only its own rows, whatever it sends.
// - `till_backoffice` reads every table and writes none.
// - Row-level security is on for every table with a till's rows: a till granted SELECT by mistake still sees only its
//   own rows; the back office sees all. The table owner (the functions run as it) is not subject to it.
//
// One active journal per till: the first journal a till pushes becomes its active one. Another journal id (a new or
// replaced journal file) is refused until the back office adopts it (`till-sync adopt-journal`). A copy of a journal
// has the same id as the journal it was copied from: pushed by another till it is refused (a journal belongs to one
// till); restored from a backup on the same till, it holds fewer events than the store already has, and the sync
// refuses to push it (it would never be silently skipped: the till's operator is told).

import TillModel
import TillProtocol

enum StoreSchema {
    static let schema = "till_store"

    /// `(version, SQL)`, in order.
    static let migrations: [(Int, String)] = [(1, v1), (2, v2), (3, v3), (4, v4), (5, v5), (6, v6), (7, v7), (8, v8)]

    /// The events of a push that the store does not hold yet, as a table (inside `push`).
    static let pushed = """
        (SELECT e.seq, e.kind, e."entityKey" AS entity_key, e.payload::jsonb AS payload, e."atMs" AS till_at_ms
           FROM jsonb_to_recordset(p_events) AS e(seq bigint, kind text, "entityKey" text, payload text, "atMs" bigint)
          WHERE e.seq > j.last_seq) pushed
        """

    /// The events a push has just added to the log that the store can read (not parked in `quarantine`), as a table.
    static let taken = """
        (SELECT ev.seq, ev.kind, ev.entity_key, ev.payload, ev.till_at_ms FROM till_store.event ev
          WHERE ev.till_id = t AND ev.journal_id = p_journal AND ev.seq > j.last_seq
            AND NOT EXISTS (SELECT 1 FROM till_store.quarantine q WHERE q.till_id = t AND q.journal_id = p_journal AND q.seq = ev.seq)) pushed
        """

    /// The run's events a push took (in the log, not parked), as a table (inside `pushRows`): from the arrays its
    /// parse made (`takeRun`), not read back from the log.
    static let takenRun = """
        (SELECT u.seq, u.kind, u.entity_key, u.payload FROM unnest(r_seq, r_kind, r_key, r_payload) AS u(seq, kind, entity_key, payload)) pushed
        """

    /// Inside `pushRows`: the run's events the store does not hold yet, each payload parsed once (`parse`, of `e.payload`),
    /// into the log; those the store cannot take parked with their reason (`event_problem`: one bad event never blocks
    /// the rest, it stays in the log as it came); the others into `r_seq`, `r_kind`, `r_key`, `r_payload` (`takenRun`).
    /// One statement: the quarantine's reference to the log is checked at its end, when the log holds the run.
    static func takeRun(_ parse: String) -> String {
        """
        WITH ev AS MATERIALIZED (
          SELECT e.seq, e.kind, e.entity_key, \(parse) AS payload, e.at
            FROM unnest(p_seq, p_kind, p_key, p_payload, p_at) AS e(seq, kind, entity_key, payload, at)
           WHERE e.seq > j.last_seq),
        checked AS MATERIALIZED (
          SELECT ev.seq, ev.kind, ev.entity_key, ev.payload, till_store.event_problem(ev.kind, ev.payload) AS reason FROM ev),
        logged AS (
          INSERT INTO till_store.event (till_id, journal_id, seq, kind, entity_key, payload, till_at_ms)
            SELECT t, p_journal, ev.seq, ev.kind, ev.entity_key, ev.payload, ev.at FROM ev
          ON CONFLICT DO NOTHING),
        parked AS (
          INSERT INTO till_store.quarantine (till_id, journal_id, seq, kind, entity_key, reason)
            SELECT t, p_journal, c.seq, c.kind, c.entity_key, c.reason FROM checked c WHERE c.reason IS NOT NULL)
        SELECT array_agg(c.seq ORDER BY c.seq), array_agg(c.kind ORDER BY c.seq), array_agg(c.entity_key ORDER BY c.seq),
               array_agg(c.payload ORDER BY c.seq)
          INTO r_seq, r_kind, r_key, r_payload
          FROM checked c WHERE c.reason IS NULL;
        """
    }

    /// Errors `push` raises, by SQLSTATE: the sync tells them apart.
    static let copiedJournal = "TS001", gap = "TS003", diverged = "TS004"

    static let v1 = """
    DO $$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'till_pusher') THEN CREATE ROLE till_pusher NOLOGIN; END IF;
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'till_backoffice') THEN CREATE ROLE till_backoffice NOLOGIN; END IF;
    END $$;

    CREATE SCHEMA IF NOT EXISTS till_store;
    REVOKE ALL ON SCHEMA till_store FROM PUBLIC;
    GRANT USAGE ON SCHEMA till_store TO till_pusher, till_backoffice;

    CREATE TABLE till_store.shop (
      id text PRIMARY KEY,
      name text NOT NULL,
      time_zone text NOT NULL DEFAULT 'UTC'
    );

    CREATE TABLE till_store.till (
      id text PRIMARY KEY,
      shop_id text NOT NULL REFERENCES till_store.shop(id),
      role_name name NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now()
    );

    -- A journal file a till pushed (or tried to): `active` is pushed, `refused` waits for the back office.
    CREATE TABLE till_store.journal (
      till_id text NOT NULL REFERENCES till_store.till(id),
      journal_id text NOT NULL,
      status text NOT NULL CHECK (status IN ('active', 'refused', 'retired')),
      first_seen_at timestamptz NOT NULL DEFAULT now(),
      last_push_at timestamptz,
      last_seq bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (till_id, journal_id)
    );
    CREATE UNIQUE INDEX journal_one_active ON till_store.journal(till_id) WHERE status = 'active';

    -- The append-only event log: the journal's outbox as the till committed it. Order is `seq`, never a clock.
    CREATE TABLE till_store.event (
      till_id text NOT NULL,
      journal_id text NOT NULL,
      seq bigint NOT NULL,
      kind text NOT NULL,
      entity_key text NOT NULL,
      payload jsonb NOT NULL,
      till_at_ms bigint NOT NULL,
      store_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (till_id, journal_id, seq),
      FOREIGN KEY (till_id, journal_id) REFERENCES till_store.journal(till_id, journal_id)
    );

    -- Every journal entry as its latest event left it.
    CREATE TABLE till_store.payment (
      till_id text NOT NULL,
      journal_id text NOT NULL,
      entry_id bigint NOT NULL,
      request_id text NOT NULL,
      action text NOT NULL,
      origin text NOT NULL,
      state text NOT NULL,
      amount_cents bigint,
      tip_cents bigint,
      tip_included boolean NOT NULL,
      batch_id text,
      batch_name text,
      client_transaction_id text,
      transaction_id text,
      stan text,
      card_type text,
      created_at_ms bigint NOT NULL,
      updated_at_ms bigint NOT NULL,
      last_seq bigint NOT NULL,
      PRIMARY KEY (till_id, journal_id, entry_id),
      FOREIGN KEY (till_id, journal_id) REFERENCES till_store.journal(till_id, journal_id)
    );
    CREATE INDEX payment_transaction ON till_store.payment(transaction_id);
    CREATE INDEX payment_batch ON till_store.payment(till_id, batch_id);

    CREATE TABLE till_store.z_report (
      till_id text NOT NULL,
      journal_id text NOT NULL,
      batch_key text NOT NULL,
      closed_at_ms bigint,
      report jsonb NOT NULL,
      last_seq bigint NOT NULL,
      PRIMARY KEY (till_id, journal_id, batch_key),
      FOREIGN KEY (till_id, journal_id) REFERENCES till_store.journal(till_id, journal_id)
    );

    -- The money an entry moved, as the till's report counts it (README, "Shifts and reports"): an approved sale its
    -- amount plus a tip on top (a tip its amount already holds is not added again), a capture its amount, a refund its
    -- amount taken off; nothing else counts.
    CREATE VIEW till_store.payment_paid WITH (security_invoker = true) AS
      SELECT p.*, CASE WHEN p.state <> 'approved' THEN 0
                       WHEN p.action = 'sale' THEN COALESCE(p.amount_cents, 0) + CASE WHEN p.tip_included THEN 0 ELSE COALESCE(p.tip_cents, 0) END
                       WHEN p.action = 'capture_pre_auth' THEN COALESCE(p.amount_cents, 0)
                       WHEN p.action = 'cancel' THEN -COALESCE(p.amount_cents, 0)
                       ELSE 0 END AS paid_cents
      FROM till_store.payment p;
    CREATE VIEW till_store.till_batch_net WITH (security_invoker = true) AS
      SELECT till_id, journal_id, COALESCE(batch_id, '') AS batch_key, SUM(paid_cents)::bigint AS net_cents, COUNT(*) AS entries
      FROM till_store.payment_paid GROUP BY 1, 2, 3;

    -- The till of the session's login role; NULL for any other role.
    CREATE FUNCTION till_store.session_till() RETURNS text
      LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
      AS $f$ SELECT id FROM till_store.till WHERE role_name = session_user $f$;

    -- The last sequence the store holds of this till's journal (0: none yet), and whether the journal is the till's
    -- active one ('active', 'refused', or 'new' when the store has never seen it).
    CREATE FUNCTION till_store.last_seq(p_journal text, OUT last_seq bigint, OUT status text)
      LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
      AS $f$
    DECLARE t text := till_store.session_till();
    BEGIN
      IF t IS NULL THEN RAISE EXCEPTION 'role % is not a till of this store', session_user USING ERRCODE = 'insufficient_privilege'; END IF;
      SELECT j.last_seq, j.status INTO last_seq, status FROM till_store.journal j WHERE j.till_id = t AND j.journal_id = p_journal;
      IF NOT FOUND THEN last_seq := 0; status := 'new'; END IF;
    END $f$;

    -- Adds a run of events of the session's till's journal (-1: the journal is not the till's active one, nothing taken)
    -- that starts with the last event the store holds (when it holds any): `p_events` a JSON array of {seq, kind, entityKey, payload,
    -- atMs} in order, starting at most one past what the store holds (events it holds already are skipped: a push
    -- repeated after a timeout adds nothing), without a gap. Returns the last sequence the store then holds.
    CREATE FUNCTION till_store.push(p_journal text, p_events jsonb) RETURNS bigint
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
      AS $f$
    DECLARE
      t text := till_store.session_till();
      j till_store.journal%ROWTYPE;
      first_seq bigint; n bigint; max_seq bigint; other text;
    BEGIN
      IF t IS NULL THEN RAISE EXCEPTION 'role % is not a till of this store', session_user USING ERRCODE = 'insufficient_privilege'; END IF;
      -- One push at a time per till: the order checks below read what the last one wrote.
      PERFORM pg_advisory_xact_lock(hashtext('till_store.push'), hashtext(t));
      SELECT * INTO j FROM till_store.journal WHERE till_id = t AND journal_id = p_journal;
      IF NOT FOUND THEN
        SELECT till_id INTO other FROM till_store.journal WHERE journal_id = p_journal AND till_id <> t LIMIT 1;
        IF other IS NOT NULL THEN
          RAISE EXCEPTION 'journal % belongs to till %: a copy of its file is not this till''s journal', p_journal, other
            USING ERRCODE = 'TS001', HINT = 'give this till its own journal file';
        END IF;
        -- A second journal of a till is kept as refused (the back office sees it), and nothing of it is taken.
        INSERT INTO till_store.journal (till_id, journal_id, status)
          VALUES (t, p_journal, CASE WHEN EXISTS (SELECT 1 FROM till_store.journal WHERE till_id = t AND status = 'active')
                                     THEN 'refused' ELSE 'active' END)
          RETURNING * INTO j;
      END IF;
      -- Not an error: the refused journal's row must stay (an exception would roll it back). The sync says why.
      IF j.status <> 'active' THEN RETURN -1; END IF;
      IF jsonb_typeof(p_events) <> 'array' OR jsonb_array_length(p_events) = 0 THEN RETURN j.last_seq; END IF;
      SELECT min((e->>'seq')::bigint), count(*), max((e->>'seq')::bigint) INTO first_seq, n, max_seq FROM jsonb_array_elements(p_events) e;
      IF first_seq > j.last_seq + 1 THEN
        RAISE EXCEPTION 'gap: the store holds journal % of till % up to %, the push starts at %', p_journal, t, j.last_seq, first_seq
          USING ERRCODE = 'TS003';
      END IF;
      IF max_seq - first_seq + 1 <> n OR (SELECT count(DISTINCT (e->>'seq')) FROM jsonb_array_elements(p_events) e) <> n THEN
        RAISE EXCEPTION 'gap: the events pushed are not one run of sequence numbers' USING ERRCODE = 'TS003';
      END IF;
      -- Every push starts with the last event the store holds, and every event the store holds already must be the
      -- same: a journal restored from an older backup, which then journaled other sales under the same numbers, is
      -- refused here instead of having its first new events silently skipped.
      IF j.last_seq > 0 AND first_seq > j.last_seq THEN
        RAISE EXCEPTION 'gap: a push of journal % starts with the last event the store holds (%), not %', p_journal, j.last_seq, first_seq
          USING ERRCODE = 'TS003';
      END IF;
      IF EXISTS (SELECT 1 FROM jsonb_to_recordset(p_events) AS e(seq bigint, kind text, "entityKey" text, payload text, "atMs" bigint)
                 JOIN till_store.event s ON s.till_id = t AND s.journal_id = p_journal AND s.seq = e.seq
                 WHERE s.kind <> e.kind OR s.entity_key <> e."entityKey" OR s.payload <> e.payload::jsonb) THEN
        RAISE EXCEPTION 'journal % of till % holds other events than the store under the same numbers: restored from a backup, or changed by hand; nothing was taken', p_journal, t
          USING ERRCODE = 'TS004', HINT = 'keep the newer journal file, or have the back office retire this journal and give the till a new one';
      END IF;
      IF max_seq <= j.last_seq THEN RETURN j.last_seq; END IF;

      INSERT INTO till_store.event (till_id, journal_id, seq, kind, entity_key, payload, till_at_ms)
        SELECT t, p_journal, seq, kind, entity_key, payload, till_at_ms FROM \(pushed) ORDER BY seq
        ON CONFLICT DO NOTHING;

      -- Each entry's latest snapshot of the run (an event is the whole row after its change).
      INSERT INTO till_store.payment AS p (till_id, journal_id, entry_id, request_id, action, origin, state, amount_cents, tip_cents,
          tip_included, batch_id, batch_name, client_transaction_id, transaction_id, stan, card_type, created_at_ms, updated_at_ms, last_seq)
        SELECT DISTINCT ON (entity_key) t, p_journal, (payload->>'id')::bigint, payload->>'requestId', payload->>'action',
               COALESCE(payload->>'origin', 'request'), payload->>'state', (payload->>'amountCents')::bigint, (payload->>'tipCents')::bigint,
               COALESCE((payload->>'tipIncluded')::int, 0) = 1, payload->>'batchId', payload->>'batchName',
               payload->>'clientTransactionId', payload->>'transactionId', payload->>'stan', payload->>'cardType',
               (payload->>'createdAtMs')::bigint, (payload->>'updatedAtMs')::bigint, seq
        FROM \(pushed) WHERE kind = 'entry' ORDER BY entity_key, seq DESC
      ON CONFLICT (till_id, journal_id, entry_id) DO UPDATE SET
          request_id = excluded.request_id, action = excluded.action, origin = excluded.origin, state = excluded.state,
          amount_cents = excluded.amount_cents, tip_cents = excluded.tip_cents, tip_included = excluded.tip_included,
          batch_id = excluded.batch_id, batch_name = excluded.batch_name, client_transaction_id = excluded.client_transaction_id,
          transaction_id = excluded.transaction_id, stan = excluded.stan, card_type = excluded.card_type,
          created_at_ms = excluded.created_at_ms, updated_at_ms = excluded.updated_at_ms, last_seq = excluded.last_seq
        WHERE p.last_seq < excluded.last_seq;

      -- Z reports: the last event of each batch key wins (a restated one is dropped until it is stored again).
      DELETE FROM till_store.z_report z USING (
          SELECT DISTINCT ON (entity_key) entity_key, kind, seq FROM \(pushed) WHERE kind IN ('z_report', 'z_report_restated')
          ORDER BY entity_key, seq DESC) x
        WHERE x.kind = 'z_report_restated' AND z.till_id = t AND z.journal_id = p_journal AND z.batch_key = x.entity_key AND z.last_seq < x.seq;
      INSERT INTO till_store.z_report AS z (till_id, journal_id, batch_key, closed_at_ms, report, last_seq)
        SELECT t, p_journal, entity_key, (payload->>'closedAtMs')::bigint, payload->'report', seq FROM (
          SELECT DISTINCT ON (entity_key) * FROM \(pushed) WHERE kind IN ('z_report', 'z_report_restated') ORDER BY entity_key, seq DESC) x
        WHERE x.kind = 'z_report'
      ON CONFLICT (till_id, journal_id, batch_key) DO UPDATE SET closed_at_ms = excluded.closed_at_ms, report = excluded.report,
          last_seq = excluded.last_seq WHERE z.last_seq < excluded.last_seq;

      UPDATE till_store.journal SET last_seq = max_seq, last_push_at = now() WHERE till_id = t AND journal_id = p_journal;
      RETURN max_seq;
    END $f$;

    REVOKE ALL ON ALL TABLES IN SCHEMA till_store FROM PUBLIC;
    REVOKE ALL ON ALL FUNCTIONS IN SCHEMA till_store FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION till_store.push(text, jsonb), till_store.last_seq(text), till_store.session_till() TO till_pusher;
    GRANT SELECT ON ALL TABLES IN SCHEMA till_store TO till_backoffice;
    GRANT EXECUTE ON FUNCTION till_store.session_till() TO till_backoffice;

    ALTER TABLE till_store.journal ENABLE ROW LEVEL SECURITY;
    ALTER TABLE till_store.event ENABLE ROW LEVEL SECURITY;
    ALTER TABLE till_store.payment ENABLE ROW LEVEL SECURITY;
    ALTER TABLE till_store.z_report ENABLE ROW LEVEL SECURITY;
    ALTER TABLE till_store.till ENABLE ROW LEVEL SECURITY;
    CREATE POLICY backoffice_reads ON till_store.journal FOR SELECT TO till_backoffice USING (true);
    CREATE POLICY backoffice_reads ON till_store.event FOR SELECT TO till_backoffice USING (true);
    CREATE POLICY backoffice_reads ON till_store.payment FOR SELECT TO till_backoffice USING (true);
    CREATE POLICY backoffice_reads ON till_store.z_report FOR SELECT TO till_backoffice USING (true);
    CREATE POLICY backoffice_reads ON till_store.till FOR SELECT TO till_backoffice USING (true);
    CREATE POLICY own_rows ON till_store.journal FOR SELECT TO till_pusher USING (till_id = till_store.session_till());
    CREATE POLICY own_rows ON till_store.event FOR SELECT TO till_pusher USING (till_id = till_store.session_till());
    CREATE POLICY own_rows ON till_store.payment FOR SELECT TO till_pusher USING (till_id = till_store.session_till());
    CREATE POLICY own_rows ON till_store.z_report FOR SELECT TO till_pusher USING (till_id = till_store.session_till());
    CREATE POLICY own_rows ON till_store.till FOR SELECT TO till_pusher USING (id = till_store.session_till());
    """

    /// What every `init-store` (re)makes after the migrations, so that it follows this build: which actions and states
    /// the store can count is TillProtocol's and TillModel's own list (`Action`, `EntryState`), and which of them count
    /// as money paid is each action's `reportRole` (`paidView`), not a copy in SQL.
    static var always: String {
        func list(_ values: [String]) -> String { values.map { "'" + $0 + "'" }.joined(separator: ", ") }
        let actions = list(Action.allCases.map(\.rawValue)), states = list(EntryState.allCases.map(\.rawValue))
        let whole = "'^-?[0-9]{1,18}$'"
        return """
        -- Why the store cannot take an event into its tables (NULL: it can). An event with a reason is kept in the log
        -- as it came and parked in `quarantine`; the push goes on with the next one.
        -- Without a search_path of its own (built-in functions and operators only, which pg_catalog, searched first,
        -- always gives): a function with one cannot be inlined, and called once an event it took twice as long as its
        -- check inlined (BENCHMARKS.md, 2026-11-29).
        CREATE OR REPLACE FUNCTION till_store.event_problem(p_kind text, p jsonb) RETURNS text
          LANGUAGE sql IMMUTABLE
          AS $f$
          SELECT CASE
            WHEN jsonb_typeof(p) IS DISTINCT FROM 'object' THEN 'the payload is not a JSON object'
            WHEN p_kind NOT IN ('entry', 'entry_change', 'batch_event', 'z_report', 'z_report_restated') THEN 'an unknown kind of event: ' || p_kind
            WHEN p_kind IN ('entry', 'entry_change') AND (p->>'id' IS NULL OR p->>'id' !~ '^[0-9]{1,18}$') THEN 'an entry without a whole-number id'
            -- A change holds only what changed: each column it holds is held to the rule of the whole row's.
            WHEN p_kind = 'entry_change' AND p ? 'requestId' AND p->>'requestId' IS NULL THEN 'an entry without a request id'
            WHEN p_kind = 'entry_change' AND p ? 'action' AND COALESCE(p->>'action', '') NOT IN (\(actions)) THEN 'an entry of an action this store does not know: ' || COALESCE(p->>'action', 'none')
            WHEN p_kind = 'entry_change' AND p ? 'state' AND COALESCE(p->>'state', '') NOT IN (\(states)) THEN 'an entry in a state this store does not know: ' || COALESCE(p->>'state', 'none')
            WHEN p_kind = 'entry_change' AND COALESCE(p->>'amountCents', '0') !~ \(whole) THEN 'an amount that is not a whole number of cents: ' || (p->>'amountCents')
            WHEN p_kind = 'entry_change' AND COALESCE(p->>'tipCents', '0') !~ \(whole) THEN 'a tip that is not a whole number of cents: ' || (p->>'tipCents')
            WHEN p_kind = 'entry_change' AND (COALESCE(p->>'updatedAtMs', '') !~ \(whole) OR (p ? 'createdAtMs' AND COALESCE(p->>'createdAtMs', '') !~ \(whole))) THEN 'an entry without its times'
            WHEN p_kind = 'entry_change' AND p ? 'tipIncluded' AND COALESCE(p->>'tipIncluded', '') NOT IN ('0', '1') THEN 'an entry whose tip style is neither 0 nor 1'
            WHEN p_kind = 'entry' AND p->>'requestId' IS NULL THEN 'an entry without a request id'
            WHEN p_kind = 'entry' AND (p->>'action' IS NULL OR p->>'action' NOT IN (\(actions))) THEN 'an entry of an action this store does not know: ' || COALESCE(p->>'action', 'none')
            WHEN p_kind = 'entry' AND (p->>'state' IS NULL OR p->>'state' NOT IN (\(states))) THEN 'an entry in a state this store does not know: ' || COALESCE(p->>'state', 'none')
            WHEN p_kind = 'entry' AND COALESCE(p->>'amountCents', '0') !~ \(whole) THEN 'an amount that is not a whole number of cents: ' || (p->>'amountCents')
            WHEN p_kind = 'entry' AND COALESCE(p->>'tipCents', '0') !~ \(whole) THEN 'a tip that is not a whole number of cents: ' || (p->>'tipCents')
            WHEN p_kind = 'entry' AND (COALESCE(p->>'createdAtMs', '') !~ \(whole) OR COALESCE(p->>'updatedAtMs', '') !~ \(whole)) THEN 'an entry without its times'
            WHEN p_kind = 'entry' AND COALESCE(p->>'tipIncluded', '0') NOT IN ('0', '1') THEN 'an entry whose tip style is neither 0 nor 1'
            WHEN p_kind = 'z_report' AND jsonb_typeof(p->'report') IS DISTINCT FROM 'object' THEN 'a Z report without its report'
            WHEN p_kind = 'z_report' AND COALESCE(p->>'closedAtMs', '0') !~ \(whole) THEN 'a Z report whose closing time is not a number'
          END $f$;
        GRANT EXECUTE ON FUNCTION till_store.event_problem(text, jsonb) TO till_backoffice;

        \(pushRows);

        \(summarise);
        -- A push summed its groups again with this one before it kept the summaries by difference (`pushRows`).
        DROP FUNCTION IF EXISTS till_store.summarise(text, text, text[], date[]);

        \(paidView)
        """
    }

    /// The money an entry moved, as the till's report and its transactions export count it (`TransactionExport.paid`):
    /// an approved sale its amount plus a tip on top (a tip its amount already holds is not added again), a capture its
    /// amount, a refund its amount taken off; nothing else counts. Which actions are sales, captures and refunds is each
    /// action's `reportRole`, so a new action counts here as it counts in the till's report. Made again at every
    /// `init-store` (version 1 made the first, with the actions of its day written out); `till_batch_net` reads it.
    static var paidView: String {
        func amount(_ role: ReportRole) -> String {
            switch role {
            case .sale: return "COALESCE(p.amount_cents, 0) + CASE WHEN p.tip_included THEN 0 ELSE COALESCE(p.tip_cents, 0) END"
            case .capture: return "COALESCE(p.amount_cents, 0)"
            case .refund: return "-COALESCE(p.amount_cents, 0)"
            case .preAuth, .none: return "0"   // a reservation moves no money until captured
            }
        }
        let arms = Action.allCases.filter(\.movesMoney)
            .map { "WHEN p.action = '\($0.rawValue)' THEN \(amount($0.reportRole))" }
        return """
        DROP VIEW IF EXISTS till_store.till_batch_net;
        DROP VIEW IF EXISTS till_store.payment_paid;
        CREATE VIEW till_store.payment_paid WITH (security_invoker = true) AS
          SELECT p.*, CASE WHEN p.state <> '\(EntryState.approved.rawValue)' THEN 0
                           \(arms.joined(separator: "\n                           "))
                           ELSE 0 END AS paid_cents
          FROM till_store.payment p;
        CREATE VIEW till_store.till_batch_net WITH (security_invoker = true) AS
          SELECT till_id, journal_id, COALESCE(batch_id, '') AS batch_key, SUM(paid_cents)::bigint AS net_cents, COUNT(*) AS entries
          FROM till_store.payment_paid GROUP BY 1, 2, 3;
        GRANT SELECT ON till_store.payment_paid, till_store.till_batch_net TO till_backoffice;
        """
    }

    /// An entry's local day in its shop's time zone (`tz`), from the till's clock: the rule the summaries and a fresh
    /// aggregation (`BackOffice.localDay`) both follow (`summarise` by the day's bounds, which the tests compare).
    static func localDay(_ ms: String, _ tz: String) -> String { "(to_timestamp(\(ms) / 1000.0) AT TIME ZONE \(tz))::date" }

    /// Sums `report_summary` again from `payment` for every group of a shop's tills (NULL: of every shop), when its
    /// time zone changed or the store is migrated. A push does not sum: it adds and takes off what it changed
    /// (`pushRows`).
    static let summarise = """
    CREATE OR REPLACE FUNCTION till_store.summarise_shop(p_shop text) RETURNS void
      LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
      AS $f$
    BEGIN
      DELETE FROM till_store.report_summary r USING till_store.till tt
       WHERE tt.id = r.till_id AND (p_shop IS NULL OR tt.shop_id = p_shop);
      INSERT INTO till_store.report_summary (till_id, journal_id, batch_key, day, action, state, card_type, verification_method,
          entries, amount_cents, tip_cents, tipped, included_tip_cents, first_at_ms, last_at_ms)
        SELECT p.till_id, p.journal_id, COALESCE(p.batch_id, ''), \(localDay("p.created_at_ms", "s.time_zone")), \(BackOffice.bucketColumns)
          FROM till_store.payment p JOIN till_store.till tt ON tt.id = p.till_id JOIN till_store.shop s ON s.id = tt.shop_id
         WHERE p_shop IS NULL OR s.id = p_shop
         GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
    END $f$;
    REVOKE ALL ON FUNCTION till_store.summarise_shop(text) FROM PUBLIC
    """

    /// The push (`push_rows`): a run of events of the session's till's journal as parallel arrays (sequence, kind,
    /// entity key, payload as the journal's JSON text, the till's time), in order, one row each, bound in PostgreSQL's
    /// binary protocol: no JSON document around them to make on the till and to take apart on the store, and each
    /// payload parsed once. The whole run is one transaction (the statement's). Returns the last sequence the store
    /// then holds (-1: the journal is not the till's active one, nothing taken).
    ///
    /// The rules are the ones `push` always had (schema v2): the run starts with the last event the store holds
    /// (when it holds any), without a gap; an event the store holds already must be the same (a journal restored from
    /// a backup that then journaled other sales under the same numbers is refused); a bad event is kept in the log and
    /// parked (`quarantine`), never blocking the rest. `push(text, jsonb)`, the older till-syncs' call, is this one.
    /// Neither is a till's to call since the chain (v6): `push_chained` checks a run's hashes, then calls this one.
    static let pushRows = """
    CREATE OR REPLACE FUNCTION till_store.push_rows(p_journal text, p_seq bigint[], p_kind text[], p_key text[], p_payload text[], p_at bigint[])
      RETURNS bigint
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
      AS $f$
    DECLARE
      t text := till_store.session_till();
      j till_store.journal%ROWTYPE;
      n int := COALESCE(cardinality(p_seq), 0);
      first_seq bigint; max_seq bigint; other text;
      tz text; g_keys text[]; g_days date[]; g_actions text[]; g_states text[]; g_cards text[]; g_methods text[];
      r_seq bigint[]; r_kind text[]; r_key text[]; r_payload jsonb[];
    BEGIN
      IF t IS NULL THEN RAISE EXCEPTION 'role % is not a till of this store', session_user USING ERRCODE = 'insufficient_privilege'; END IF;
      -- One push at a time per till: the order checks below read what the last one wrote.
      PERFORM pg_advisory_xact_lock(hashtext('till_store.push'), hashtext(t));
      SELECT * INTO j FROM till_store.journal WHERE till_id = t AND journal_id = p_journal;
      IF NOT FOUND THEN
        SELECT till_id INTO other FROM till_store.journal WHERE journal_id = p_journal AND till_id <> t LIMIT 1;
        IF other IS NOT NULL THEN
          RAISE EXCEPTION 'journal % belongs to till %: a copy of its file is not this till''s journal', p_journal, other
            USING ERRCODE = 'TS001', HINT = 'give this till its own journal file';
        END IF;
        -- A second journal of a till is kept as refused (the back office sees it), and nothing of it is taken.
        INSERT INTO till_store.journal (till_id, journal_id, status)
          VALUES (t, p_journal, CASE WHEN EXISTS (SELECT 1 FROM till_store.journal WHERE till_id = t AND status = 'active')
                                     THEN 'refused' ELSE 'active' END)
          RETURNING * INTO j;
      END IF;
      -- Every call is the till saying it is there (an empty push is how the sync says so when it has nothing to send).
      UPDATE till_store.journal SET last_contact_at = now() WHERE till_id = t AND journal_id = p_journal;
      -- Not an error: the refused journal's row must stay (an exception would roll it back). The sync says why.
      IF j.status <> 'active' THEN RETURN -1; END IF;
      IF n = 0 THEN RETURN j.last_seq; END IF;
      IF COALESCE(cardinality(p_kind), 0) <> n OR COALESCE(cardinality(p_key), 0) <> n OR COALESCE(cardinality(p_payload), 0) <> n
         OR COALESCE(cardinality(p_at), 0) <> n THEN
        RAISE EXCEPTION 'the events pushed are not whole: % sequence numbers, % kinds, % keys, % payloads, % times',
          n, cardinality(p_kind), cardinality(p_key), cardinality(p_payload), cardinality(p_at);
      END IF;
      first_seq := p_seq[1]; max_seq := p_seq[n];
      IF first_seq > j.last_seq + 1 THEN
        RAISE EXCEPTION 'gap: the store holds journal % of till % up to %, the push starts at %', p_journal, t, j.last_seq, first_seq
          USING ERRCODE = 'TS003';
      END IF;
      IF EXISTS (SELECT 1 FROM unnest(p_seq) WITH ORDINALITY AS u(seq, o) WHERE u.seq IS DISTINCT FROM first_seq + o - 1) THEN
        RAISE EXCEPTION 'gap: the events pushed are not one run of sequence numbers' USING ERRCODE = 'TS003';
      END IF;
      -- Every push starts with the last event the store holds, and every event the store holds already must be the
      -- same: a journal restored from an older backup, which then journaled other sales under the same numbers, is
      -- refused here instead of having its first new events silently skipped.
      IF j.last_seq > 0 AND first_seq > j.last_seq THEN
        RAISE EXCEPTION 'gap: a push of journal % starts with the last event the store holds (%), not %', p_journal, j.last_seq, first_seq
          USING ERRCODE = 'TS003';
      END IF;
      -- Each event the store holds already, looked up by its key one by one (a subquery a row, which the planner
      -- cannot make a join): as a join it was planned, when the statistics of `event` knew fewer of the journal's
      -- events than it holds, as a hash of the journal's every event (BENCHMARKS.md, 2026-11-29).
      IF EXISTS (SELECT 1 FROM unnest(p_seq, p_kind, p_key, p_payload) AS e(seq, kind, entity_key, payload)
                 WHERE e.seq <= j.last_seq
                   AND (SELECT s.kind <> e.kind OR s.entity_key <> e.entity_key OR s.payload <> till_store.as_jsonb(e.payload)
                          FROM till_store.event s WHERE s.till_id = t AND s.journal_id = p_journal AND s.seq = e.seq)) THEN
        RAISE EXCEPTION 'journal % of till % holds other events than the store under the same numbers: restored from a backup, or changed by hand; nothing was taken', p_journal, t
          USING ERRCODE = 'TS004', HINT = 'keep the newer journal file, or have the back office retire this journal and give the till a new one';
      END IF;
      IF max_seq <= j.last_seq THEN RETURN j.last_seq; END IF;
      -- The planner's statistics of `payment` must know about as many of this journal's entries as it holds: told
      -- fewer (a first push of a long history fills it far faster than autovacuum looks, and a new till is not in
      -- them at all), it plans the look-up of the run's entries as the store held them (`before`, below) as a filter
      -- of the run's keys over the journal's every entry, and each push of a long history costs more than the one
      -- before (BENCHMARKS.md, 2026-11-29). So at every doubling of the journal since they were last made for it, the
      -- push makes them again: a journal of 1M events about ten times, each well under a second, the first at 1,000.
      IF j.last_seq >= 2 * greatest(j.analyzed_seq, 500) THEN
        ANALYZE till_store.payment;
        UPDATE till_store.journal SET analyzed_seq = j.last_seq WHERE till_id = t AND journal_id = p_journal;
      END IF;
      -- The shop's time zone makes the local days: read after this lock, which a change of it holds until the shop's
      -- summaries are summed again (`StoreAdmin.addShop`), so no push sums a group under the zone it had before.
      LOCK TABLE till_store.report_summary IN ROW EXCLUSIVE MODE;
      SELECT sh.time_zone INTO tz FROM till_store.till tt JOIN till_store.shop sh ON sh.id = tt.shop_id WHERE tt.id = t;

      -- Every payload parsed once, in one go, for the log, the checks and the tables the back office reads (`run`): the
      -- run's events are taken from the arrays the parse made, not read back from the log by each statement after it
      -- (the checks, the entries, the Z reports: BENCHMARKS.md, "Fast catch-up"). Only a run holding one that is not
      -- JSON is parsed again one by one (`as_jsonb` keeps such a payload as a JSON string, and event_problem parks it):
      -- an exception block a row would cost a subtransaction a row.
      BEGIN
        \(takeRun("e.payload::jsonb"))
      EXCEPTION WHEN data_exception THEN
        \(takeRun("till_store.as_jsonb(e.payload)"))
      END;

      -- Each entry's latest snapshot of the run (an event is the whole row after its change). The report summaries
      -- are kept by difference in the same statement: a changed entry's contribution to its bucket (the group: shift,
      -- local day; the bucket: action, state, card type, verification method) as it was is taken off, and as it is now
      -- added, so a push costs what it pushed whatever the size of the days it touched. Sums and counts subtract; a
      -- bucket's first and last times widen (LEAST, GREATEST), and are looked up again below only when an entry that
      -- left the bucket sat on one of them.
      -- An entry's events of the run in order, each on top of the one before (`jsonb_merge`, v7): a whole row (`entry`)
      -- holds every column, a change (`entry_change`) the ones that changed, on top of the row the store holds. A change
      -- of an entry the store does not hold (its row parked, or sent whole later by a journal's start) is nothing yet.
      WITH run AS MATERIALIZED (
        SELECT (m.d->>'id')::bigint AS entry_id, m.d, m.whole, m.seq FROM (
          SELECT till_store.jsonb_merge(payload ORDER BY seq) AS d, bool_or(kind = 'entry') AS whole, max(seq) AS seq
            FROM \(takenRun) WHERE kind IN ('entry', 'entry_change') GROUP BY entity_key) m),
      src AS (
        SELECT r.entry_id, \(entryColumns.map { "\($0.of) AS \($0.column)" }.joined(separator: ", ")), r.seq
          -- The row the store holds, looked up only for an entry whose run holds no whole row (a first push of a history
          -- holds nearly none: each entry's whole row and changes come together). One look-up by its key each: the
          -- LIMIT keeps it one (pulled up into a join, the planner read the till's every payment once per entry).
          FROM run r LEFT JOIN LATERAL (
            SELECT * FROM till_store.payment p
             WHERE NOT r.whole AND p.till_id = t AND p.journal_id = p_journal AND p.entry_id = r.entry_id LIMIT 1) h ON true
         WHERE r.whole OR h.entry_id IS NOT NULL),
      -- The run's entries as the store held them, looked up by their keys given as one array (an index condition): as
      -- a join, the planner (which cannot know how many rows the CTE holds) scanned the till's every entry once per
      -- entry of the run. Every data-modifying part of a statement sees the tables as they were before it.
      before AS (
        SELECT p.entry_id, COALESCE(p.batch_id, '') AS batch_key, p.created_at_ms, p.action, p.state, COALESCE(p.card_type, '') AS card_type,
               COALESCE(p.verification_method, '') AS verification_method, p.amount_cents, p.tip_cents, p.tip_included
          FROM till_store.payment p
         WHERE p.till_id = t AND p.journal_id = p_journal AND p.entry_id = ANY (ARRAY(SELECT src.entry_id FROM src))),
      after AS (
        INSERT INTO till_store.payment AS p (till_id, journal_id, entry_id, request_id, action, origin, state, amount_cents, tip_cents,
            tip_included, batch_id, batch_name, client_transaction_id, transaction_id, stan, card_type, verification_method,
            created_at_ms, updated_at_ms, last_seq)
          SELECT t, p_journal, entry_id, request_id, action, origin, state, amount_cents, tip_cents, tip_included, batch_id, batch_name,
                 client_transaction_id, transaction_id, stan, card_type, verification_method, created_at_ms, updated_at_ms, seq FROM src
        ON CONFLICT (till_id, journal_id, entry_id) DO UPDATE SET
            request_id = excluded.request_id, action = excluded.action, origin = excluded.origin, state = excluded.state,
            amount_cents = excluded.amount_cents, tip_cents = excluded.tip_cents, tip_included = excluded.tip_included,
            batch_id = excluded.batch_id, batch_name = excluded.batch_name, client_transaction_id = excluded.client_transaction_id,
            transaction_id = excluded.transaction_id, stan = excluded.stan, card_type = excluded.card_type,
            verification_method = excluded.verification_method,
            created_at_ms = excluded.created_at_ms, updated_at_ms = excluded.updated_at_ms, last_seq = excluded.last_seq
          WHERE p.last_seq < excluded.last_seq
        RETURNING p.entry_id, COALESCE(p.batch_id, '') AS batch_key, p.created_at_ms, p.action, p.state, COALESCE(p.card_type, '') AS card_type,
               COALESCE(p.verification_method, '') AS verification_method, p.amount_cents, p.tip_cents, p.tip_included),
      -- Only the entries the upsert changed: what the store held of them leaves its bucket, what it holds now enters one.
      change AS (
        SELECT -1 AS sign, b.* FROM before b WHERE b.entry_id IN (SELECT entry_id FROM after)
        UNION ALL
        SELECT 1, a.* FROM after a),
      delta AS (
        SELECT c.batch_key, \(localDay("c.created_at_ms", "tz")) AS day, c.action, c.state, c.card_type, c.verification_method,
               sum(c.sign)::bigint AS entries, COALESCE(sum(c.sign * c.amount_cents), 0)::bigint AS amount_cents,
               COALESCE(sum(c.sign * c.tip_cents), 0)::bigint AS tip_cents,
               COALESCE(sum(c.sign) FILTER (WHERE COALESCE(c.tip_cents, 0) > 0), 0)::bigint AS tipped,
               COALESCE(sum(CASE WHEN c.tip_included THEN c.sign * c.tip_cents ELSE 0 END), 0)::bigint AS included_tip_cents,
               -- Over both signs: an entry that left its bucket was at or inside the bucket's times, so it widens
               -- nothing; and the row a bucket's first entries make has times (NOT NULL is checked before a conflict).
               min(c.created_at_ms) AS first_at_ms, max(c.created_at_ms) AS last_at_ms,
               min(c.created_at_ms) FILTER (WHERE c.sign < 0) AS left_first, max(c.created_at_ms) FILTER (WHERE c.sign < 0) AS left_last
          FROM change c GROUP BY 1, 2, 3, 4, 5, 6),
      applied AS (
        INSERT INTO till_store.report_summary AS r (till_id, journal_id, batch_key, day, action, state, card_type, verification_method,
            entries, amount_cents, tip_cents, tipped, included_tip_cents, first_at_ms, last_at_ms)
          SELECT t, p_journal, d.batch_key, d.day, d.action, d.state, d.card_type, d.verification_method, d.entries, d.amount_cents,
                 d.tip_cents, d.tipped, d.included_tip_cents, d.first_at_ms, d.last_at_ms FROM delta d
        ON CONFLICT (till_id, journal_id, batch_key, day, action, state, card_type, verification_method) DO UPDATE SET
            entries = r.entries + excluded.entries, amount_cents = r.amount_cents + excluded.amount_cents,
            tip_cents = r.tip_cents + excluded.tip_cents, tipped = r.tipped + excluded.tipped,
            included_tip_cents = r.included_tip_cents + excluded.included_tip_cents,
            first_at_ms = LEAST(r.first_at_ms, excluded.first_at_ms), last_at_ms = GREATEST(r.last_at_ms, excluded.last_at_ms)
        RETURNING r.batch_key, r.day, r.action, r.state, r.card_type, r.verification_method, r.entries, r.first_at_ms, r.last_at_ms)
      -- The buckets to look at again: emptied, or an entry left on the first or last time (an entry that came at the
      -- same time keeps it, and is looked up again all the same).
      SELECT array_agg(a.batch_key), array_agg(a.day), array_agg(a.action), array_agg(a.state), array_agg(a.card_type),
             array_agg(a.verification_method)
        INTO g_keys, g_days, g_actions, g_states, g_cards, g_methods
        FROM applied a JOIN delta d USING (batch_key, day, action, state, card_type, verification_method)
       WHERE a.entries <= 0 OR d.left_first <= a.first_at_ms OR d.left_last >= a.last_at_ms;
      IF g_keys IS NOT NULL THEN
        DELETE FROM till_store.report_summary r
          USING unnest(g_keys, g_days, g_actions, g_states, g_cards, g_methods) AS g(batch_key, day, action, state, card_type, verification_method)
         WHERE r.till_id = t AND r.journal_id = p_journal AND r.batch_key = g.batch_key AND r.day = g.day AND r.action = g.action
           AND r.state = g.state AND r.card_type = g.card_type AND r.verification_method = g.verification_method AND r.entries <= 0;
        -- The bucket's entries within its group's range of the till's clock (`payment_summary_group`), from each end.
        UPDATE till_store.report_summary r SET first_at_ms = x.first_at_ms, last_at_ms = x.last_at_ms
          FROM unnest(g_keys, g_days, g_actions, g_states, g_cards, g_methods) AS g(batch_key, day, action, state, card_type, verification_method)
          CROSS JOIN LATERAL (SELECT (extract(epoch FROM g.day::timestamp AT TIME ZONE tz) * 1000)::bigint AS from_ms,
                                     (extract(epoch FROM (g.day + 1)::timestamp AT TIME ZONE tz) * 1000)::bigint AS to_ms) b
          CROSS JOIN LATERAL (SELECT
              (SELECT p.created_at_ms FROM till_store.payment p
                WHERE p.till_id = t AND p.journal_id = p_journal AND COALESCE(p.batch_id, '') = g.batch_key
                  AND p.created_at_ms >= b.from_ms AND p.created_at_ms < b.to_ms AND p.action = g.action AND p.state = g.state
                  AND COALESCE(p.card_type, '') = g.card_type AND COALESCE(p.verification_method, '') = g.verification_method
                ORDER BY p.created_at_ms LIMIT 1) AS first_at_ms,
              (SELECT p.created_at_ms FROM till_store.payment p
                WHERE p.till_id = t AND p.journal_id = p_journal AND COALESCE(p.batch_id, '') = g.batch_key
                  AND p.created_at_ms >= b.from_ms AND p.created_at_ms < b.to_ms AND p.action = g.action AND p.state = g.state
                  AND COALESCE(p.card_type, '') = g.card_type AND COALESCE(p.verification_method, '') = g.verification_method
                ORDER BY p.created_at_ms DESC LIMIT 1) AS last_at_ms) x
         WHERE r.till_id = t AND r.journal_id = p_journal AND r.batch_key = g.batch_key AND r.day = g.day AND r.action = g.action
           AND r.state = g.state AND r.card_type = g.card_type AND r.verification_method = g.verification_method;
      END IF;

      -- Z reports: the last event of each batch key wins (a restated one is dropped until it is stored again).
      DELETE FROM till_store.z_report z USING (
          SELECT DISTINCT ON (entity_key) entity_key, kind, seq FROM \(takenRun) WHERE kind IN ('z_report', 'z_report_restated')
          ORDER BY entity_key, seq DESC) x
        WHERE x.kind = 'z_report_restated' AND z.till_id = t AND z.journal_id = p_journal AND z.batch_key = x.entity_key AND z.last_seq < x.seq;
      INSERT INTO till_store.z_report AS z (till_id, journal_id, batch_key, closed_at_ms, report, last_seq)
        SELECT t, p_journal, entity_key, (payload->>'closedAtMs')::bigint, payload->'report', seq FROM (
          SELECT DISTINCT ON (entity_key) * FROM \(takenRun) WHERE kind IN ('z_report', 'z_report_restated') ORDER BY entity_key, seq DESC) x
        WHERE x.kind = 'z_report'
      ON CONFLICT (till_id, journal_id, batch_key) DO UPDATE SET closed_at_ms = excluded.closed_at_ms, report = excluded.report,
          last_seq = excluded.last_seq WHERE z.last_seq < excluded.last_seq;

      UPDATE till_store.journal SET last_seq = max_seq, last_push_at = now() WHERE till_id = t AND journal_id = p_journal;
      RETURN max_seq;
    END $f$;
    -- Called by `push_chained` only (a till's role may not: schema v6), which checks the run's hashes first.
    REVOKE ALL ON FUNCTION till_store.push_rows(text, bigint[], text[], text[], text[], bigint[]) FROM PUBLIC;

    CREATE OR REPLACE FUNCTION till_store.push(p_journal text, p_events jsonb) RETURNS bigint
      LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
      AS $f$
      SELECT till_store.push_rows(p_journal, array_agg(e.seq ORDER BY e.seq), array_agg(e.kind ORDER BY e.seq),
                                  array_agg(e."entityKey" ORDER BY e.seq), array_agg(e.payload ORDER BY e.seq), array_agg(e."atMs" ORDER BY e.seq))
        FROM jsonb_to_recordset(CASE WHEN jsonb_typeof(p_events) = 'array' THEN p_events ELSE '[]' END)
             AS e(seq bigint, kind text, "entityKey" text, payload text, "atMs" bigint)
      $f$
    """

    /// The payment's columns an entry event sets, each from the events' merged payload `d` (as the whole row's event
    /// always gave them), or, for a change that holds no such key, kept as the store's row `h` has it.
    static var entryColumns: [(column: String, of: String)] {
        let fromPayload: [(String, String, String)] = [
            ("request_id", "requestId", "d->>'requestId'"), ("action", "action", "d->>'action'"),
            ("origin", "origin", "COALESCE(d->>'origin', 'request')"), ("state", "state", "d->>'state'"),
            ("amount_cents", "amountCents", "(d->>'amountCents')::bigint"), ("tip_cents", "tipCents", "(d->>'tipCents')::bigint"),
            ("tip_included", "tipIncluded", "COALESCE((d->>'tipIncluded')::int, 0) = 1"), ("batch_id", "batchId", "d->>'batchId'"),
            ("batch_name", "batchName", "d->>'batchName'"), ("client_transaction_id", "clientTransactionId", "d->>'clientTransactionId'"),
            ("transaction_id", "transactionId", "d->>'transactionId'"), ("stan", "stan", "d->>'stan'"),
            ("card_type", "cardType", "d->>'cardType'"), ("verification_method", "verificationMethod", "d->>'verificationMethod'"),
            ("created_at_ms", "createdAtMs", "(d->>'createdAtMs')::bigint"), ("updated_at_ms", "updatedAtMs", "(d->>'updatedAtMs')::bigint"),
        ]
        return fromPayload.map { (column, key, expr) in
            (column, "CASE WHEN r.whole OR d ? '\(key)' THEN \(expr) ELSE h.\(column) END")
        }
    }

    /// Version 7: an entry's change carries only what changed (`entry_change`, TillCore's `Journal.outboxEntryChange`),
    /// and the push (`pushRows`) applies the run's events of an entry on top of each other and of the row it holds:
    /// `jsonb_merge` is `||` over the events in order (a key a later event holds wins, a JSON null included).
    static let v7 = """
    CREATE AGGREGATE till_store.jsonb_merge(jsonb) (SFUNC = pg_catalog.jsonb_concat, STYPE = jsonb, INITCOND = '{}');
    REVOKE ALL ON FUNCTION till_store.jsonb_merge(jsonb) FROM PUBLIC
    """

    /// Version 8: the log's payloads compressed with LZ4 rather than PostgreSQL's own pglz. A whole entry's event (about
    /// 2.3 KB: the request and the terminal's answer, as a journal's first push sends each entry) is compressed as it is
    /// stored; pglz was about a tenth of the store's CPU in a first push, LZ4 is a fraction of that (BENCHMARKS.md,
    /// "LZ4 for the log"). Rows stored before keep pglz (both are read alike). A server built without LZ4 keeps pglz.
    static let v8 = """
    DO $$ BEGIN
      ALTER TABLE till_store.event ALTER COLUMN payload SET COMPRESSION lz4;
    EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN
      RAISE NOTICE 'this server has no LZ4: the event log keeps pglz';
    END $$
    """

    /// Version 2: a bad event never blocks the rest (`quarantine`), every push says the till is there (`last_contact_at`,
    /// the store's clock), the payment keeps its verification method (reports by it, as the till's do), and the indexes
    /// the back office's look-ups need.
    static let v2 = """
    CREATE TABLE till_store.quarantine (
      till_id text NOT NULL,
      journal_id text NOT NULL,
      seq bigint NOT NULL,
      kind text NOT NULL,
      entity_key text NOT NULL,
      reason text NOT NULL,
      parked_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (till_id, journal_id, seq),
      FOREIGN KEY (till_id, journal_id, seq) REFERENCES till_store.event(till_id, journal_id, seq)
    );
    ALTER TABLE till_store.quarantine ENABLE ROW LEVEL SECURITY;
    CREATE POLICY backoffice_reads ON till_store.quarantine FOR SELECT TO till_backoffice USING (true);
    CREATE POLICY own_rows ON till_store.quarantine FOR SELECT TO till_pusher USING (till_id = till_store.session_till());
    REVOKE ALL ON till_store.quarantine FROM PUBLIC;
    GRANT SELECT ON till_store.quarantine TO till_backoffice;

    ALTER TABLE till_store.journal ADD COLUMN last_contact_at timestamptz;
    UPDATE till_store.journal SET last_contact_at = last_push_at;
    ALTER TABLE till_store.payment ADD COLUMN verification_method text;
    UPDATE till_store.payment p SET verification_method = e.payload->>'verificationMethod'
      FROM till_store.event e WHERE e.till_id = p.till_id AND e.journal_id = p.journal_id AND e.seq = p.last_seq;

    CREATE INDEX payment_created ON till_store.payment(created_at_ms);
    CREATE INDEX payment_stan ON till_store.payment(stan) WHERE stan IS NOT NULL;
    CREATE INDEX payment_client_transaction ON till_store.payment(client_transaction_id) WHERE client_transaction_id IS NOT NULL;
    CREATE INDEX payment_amount ON till_store.payment(amount_cents);
    CREATE INDEX payment_unresolved ON till_store.payment(till_id) WHERE state IN ('pending', 'sent', 'unknown', 'review');
    CREATE INDEX payment_journal_batch ON till_store.payment(till_id, journal_id, batch_id);

    -- A payload that is not JSON is kept as a JSON string (the log holds what came); event_problem then parks it.
    CREATE FUNCTION till_store.as_jsonb(p text) RETURNS jsonb
      LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
      AS $f$ BEGIN RETURN p::jsonb; EXCEPTION WHEN others THEN RETURN to_jsonb(p); END $f$;

    \(always);

    CREATE OR REPLACE FUNCTION till_store.push(p_journal text, p_events jsonb) RETURNS bigint
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
      AS $f$
    DECLARE
      t text := till_store.session_till();
      j till_store.journal%ROWTYPE;
      first_seq bigint; n bigint; max_seq bigint; other text;
    BEGIN
      IF t IS NULL THEN RAISE EXCEPTION 'role % is not a till of this store', session_user USING ERRCODE = 'insufficient_privilege'; END IF;
      -- One push at a time per till: the order checks below read what the last one wrote.
      PERFORM pg_advisory_xact_lock(hashtext('till_store.push'), hashtext(t));
      SELECT * INTO j FROM till_store.journal WHERE till_id = t AND journal_id = p_journal;
      IF NOT FOUND THEN
        SELECT till_id INTO other FROM till_store.journal WHERE journal_id = p_journal AND till_id <> t LIMIT 1;
        IF other IS NOT NULL THEN
          RAISE EXCEPTION 'journal % belongs to till %: a copy of its file is not this till''s journal', p_journal, other
            USING ERRCODE = 'TS001', HINT = 'give this till its own journal file';
        END IF;
        -- A second journal of a till is kept as refused (the back office sees it), and nothing of it is taken.
        INSERT INTO till_store.journal (till_id, journal_id, status)
          VALUES (t, p_journal, CASE WHEN EXISTS (SELECT 1 FROM till_store.journal WHERE till_id = t AND status = 'active')
                                     THEN 'refused' ELSE 'active' END)
          RETURNING * INTO j;
      END IF;
      -- Every call is the till saying it is there (an empty push is how the sync says so when it has nothing to send).
      UPDATE till_store.journal SET last_contact_at = now() WHERE till_id = t AND journal_id = p_journal;
      -- Not an error: the refused journal's row must stay (an exception would roll it back). The sync says why.
      IF j.status <> 'active' THEN RETURN -1; END IF;
      IF jsonb_typeof(p_events) <> 'array' OR jsonb_array_length(p_events) = 0 THEN RETURN j.last_seq; END IF;
      SELECT min((e->>'seq')::bigint), count(*), max((e->>'seq')::bigint) INTO first_seq, n, max_seq FROM jsonb_array_elements(p_events) e;
      IF first_seq > j.last_seq + 1 THEN
        RAISE EXCEPTION 'gap: the store holds journal % of till % up to %, the push starts at %', p_journal, t, j.last_seq, first_seq
          USING ERRCODE = 'TS003';
      END IF;
      IF max_seq - first_seq + 1 <> n OR (SELECT count(DISTINCT (e->>'seq')) FROM jsonb_array_elements(p_events) e) <> n THEN
        RAISE EXCEPTION 'gap: the events pushed are not one run of sequence numbers' USING ERRCODE = 'TS003';
      END IF;
      -- Every push starts with the last event the store holds, and every event the store holds already must be the
      -- same: a journal restored from an older backup, which then journaled other sales under the same numbers, is
      -- refused here instead of having its first new events silently skipped.
      IF j.last_seq > 0 AND first_seq > j.last_seq THEN
        RAISE EXCEPTION 'gap: a push of journal % starts with the last event the store holds (%), not %', p_journal, j.last_seq, first_seq
          USING ERRCODE = 'TS003';
      END IF;
      IF EXISTS (SELECT 1 FROM jsonb_to_recordset(p_events) AS e(seq bigint, kind text, "entityKey" text, payload text, "atMs" bigint)
                 JOIN till_store.event s ON s.till_id = t AND s.journal_id = p_journal AND s.seq = e.seq
                 WHERE s.kind <> e.kind OR s.entity_key <> e."entityKey" OR s.payload <> till_store.as_jsonb(e.payload)) THEN
        RAISE EXCEPTION 'journal % of till % holds other events than the store under the same numbers: restored from a backup, or changed by hand; nothing was taken', p_journal, t
          USING ERRCODE = 'TS004', HINT = 'keep the newer journal file, or have the back office retire this journal and give the till a new one';
      END IF;
      IF max_seq <= j.last_seq THEN RETURN j.last_seq; END IF;

      INSERT INTO till_store.event (till_id, journal_id, seq, kind, entity_key, payload, till_at_ms)
        SELECT t, p_journal, e.seq, e.kind, e."entityKey", till_store.as_jsonb(e.payload), e."atMs"
          FROM jsonb_to_recordset(p_events) AS e(seq bigint, kind text, "entityKey" text, payload text, "atMs" bigint)
         WHERE e.seq > j.last_seq ORDER BY e.seq
        ON CONFLICT DO NOTHING;
      -- One bad event never blocks the rest: it stays in the log as it came, parked with its reason, and the tables
      -- the back office reads are made from the others.
      INSERT INTO till_store.quarantine (till_id, journal_id, seq, kind, entity_key, reason)
        SELECT t, p_journal, ev.seq, ev.kind, ev.entity_key, r.reason FROM till_store.event ev
          CROSS JOIN LATERAL (SELECT till_store.event_problem(ev.kind, ev.payload) AS reason) r
         WHERE ev.till_id = t AND ev.journal_id = p_journal AND ev.seq > j.last_seq AND r.reason IS NOT NULL;

      -- Each entry's latest snapshot of the run (an event is the whole row after its change).
      INSERT INTO till_store.payment AS p (till_id, journal_id, entry_id, request_id, action, origin, state, amount_cents, tip_cents,
          tip_included, batch_id, batch_name, client_transaction_id, transaction_id, stan, card_type, verification_method,
          created_at_ms, updated_at_ms, last_seq)
        SELECT DISTINCT ON (entity_key) t, p_journal, (payload->>'id')::bigint, payload->>'requestId', payload->>'action',
               COALESCE(payload->>'origin', 'request'), payload->>'state', (payload->>'amountCents')::bigint, (payload->>'tipCents')::bigint,
               COALESCE((payload->>'tipIncluded')::int, 0) = 1, payload->>'batchId', payload->>'batchName',
               payload->>'clientTransactionId', payload->>'transactionId', payload->>'stan', payload->>'cardType',
               payload->>'verificationMethod', (payload->>'createdAtMs')::bigint, (payload->>'updatedAtMs')::bigint, seq
        FROM \(taken) WHERE kind = 'entry' ORDER BY entity_key, seq DESC
      ON CONFLICT (till_id, journal_id, entry_id) DO UPDATE SET
          request_id = excluded.request_id, action = excluded.action, origin = excluded.origin, state = excluded.state,
          amount_cents = excluded.amount_cents, tip_cents = excluded.tip_cents, tip_included = excluded.tip_included,
          batch_id = excluded.batch_id, batch_name = excluded.batch_name, client_transaction_id = excluded.client_transaction_id,
          transaction_id = excluded.transaction_id, stan = excluded.stan, card_type = excluded.card_type,
          verification_method = excluded.verification_method,
          created_at_ms = excluded.created_at_ms, updated_at_ms = excluded.updated_at_ms, last_seq = excluded.last_seq
        WHERE p.last_seq < excluded.last_seq;

      -- Z reports: the last event of each batch key wins (a restated one is dropped until it is stored again).
      DELETE FROM till_store.z_report z USING (
          SELECT DISTINCT ON (entity_key) entity_key, kind, seq FROM \(taken) WHERE kind IN ('z_report', 'z_report_restated')
          ORDER BY entity_key, seq DESC) x
        WHERE x.kind = 'z_report_restated' AND z.till_id = t AND z.journal_id = p_journal AND z.batch_key = x.entity_key AND z.last_seq < x.seq;
      INSERT INTO till_store.z_report AS z (till_id, journal_id, batch_key, closed_at_ms, report, last_seq)
        SELECT t, p_journal, entity_key, (payload->>'closedAtMs')::bigint, payload->'report', seq FROM (
          SELECT DISTINCT ON (entity_key) * FROM \(taken) WHERE kind IN ('z_report', 'z_report_restated') ORDER BY entity_key, seq DESC) x
        WHERE x.kind = 'z_report'
      ON CONFLICT (till_id, journal_id, batch_key) DO UPDATE SET closed_at_ms = excluded.closed_at_ms, report = excluded.report,
          last_seq = excluded.last_seq WHERE z.last_seq < excluded.last_seq;

      UPDATE till_store.journal SET last_seq = max_seq, last_push_at = now() WHERE till_id = t AND journal_id = p_journal;
      RETURN max_seq;
    END $f$;
    REVOKE ALL ON FUNCTION till_store.push(text, jsonb), till_store.as_jsonb(text) FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION till_store.push(text, jsonb) TO till_pusher
    """

    /// Version 3: a till whose journal file holds fewer events than the store has of it (restored from a backup, or a
    /// copy) pushes nothing, and says so to the store (`behind`), so that the back office sees it (`reconcile`) as the
    /// till's status line does; a push that goes through again clears it.
    static let v3 = """
    ALTER TABLE till_store.journal ADD COLUMN behind_file_seq bigint;
    ALTER TABLE till_store.journal ADD COLUMN behind_since timestamptz;

    CREATE FUNCTION till_store.behind(p_journal text, p_file_seq bigint) RETURNS void
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
      AS $f$
    DECLARE t text := till_store.session_till();
    BEGIN
      IF t IS NULL THEN RAISE EXCEPTION 'role % is not a till of this store', session_user USING ERRCODE = 'insufficient_privilege'; END IF;
      UPDATE till_store.journal SET behind_file_seq = p_file_seq, behind_since = COALESCE(behind_since, now()),
          last_contact_at = now()
        WHERE till_id = t AND journal_id = p_journal AND p_file_seq < last_seq;
    END $f$;
    REVOKE ALL ON FUNCTION till_store.behind(text, bigint) FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION till_store.behind(text, bigint) TO till_pusher;

    CREATE FUNCTION till_store.clear_behind() RETURNS trigger
      LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
      AS $f$ BEGIN NEW.behind_file_seq := NULL; NEW.behind_since := NULL; RETURN NEW; END $f$;
    CREATE TRIGGER journal_caught_up BEFORE UPDATE OF last_seq ON till_store.journal
      FOR EACH ROW WHEN (NEW.last_seq > OLD.last_seq) EXECUTE FUNCTION till_store.clear_behind();
    """

    /// Version 4: the back office's reports from summaries the push keeps (`report_summary`), as the till's own
    /// `batch_summary` is kept: one row per till, journal, shift, local day (the shop's time zone) and bucket (action,
    /// state, card type, verification method), holding what `BackOffice.bucketColumns` sums over the group's entries.
    /// A push sums again each group whose entries it changed (before and after the change), from `payment` itself,
    /// so a summary is what a fresh aggregation of its group gives; a shop's new time zone sums its tills' again.
    static let v4 = """
    CREATE TABLE till_store.report_summary (
      till_id text NOT NULL,
      journal_id text NOT NULL,
      batch_key text NOT NULL,
      day date NOT NULL,
      action text NOT NULL,
      state text NOT NULL,
      card_type text NOT NULL,
      verification_method text NOT NULL,
      entries bigint NOT NULL,
      amount_cents bigint NOT NULL,
      tip_cents bigint NOT NULL,
      tipped bigint NOT NULL,
      included_tip_cents bigint NOT NULL,
      first_at_ms bigint NOT NULL,
      last_at_ms bigint NOT NULL,
      PRIMARY KEY (till_id, journal_id, batch_key, day, action, state, card_type, verification_method),
      FOREIGN KEY (till_id, journal_id) REFERENCES till_store.journal(till_id, journal_id)
    );
    CREATE INDEX report_summary_day ON till_store.report_summary(day);
    ALTER TABLE till_store.report_summary ENABLE ROW LEVEL SECURITY;
    CREATE POLICY backoffice_reads ON till_store.report_summary FOR SELECT TO till_backoffice USING (true);
    CREATE POLICY own_rows ON till_store.report_summary FOR SELECT TO till_pusher USING (till_id = till_store.session_till());
    REVOKE ALL ON till_store.report_summary FROM PUBLIC;
    GRANT SELECT ON till_store.report_summary TO till_backoffice;
    -- A group's entries: one till's journal, one shift, one local day (a range of the till's clock).
    CREATE INDEX payment_summary_group ON till_store.payment(till_id, journal_id, (COALESCE(batch_id, '')), created_at_ms);
    -- What the store held before this version, summed once (`always` makes these functions again after each init-store).
    \(summarise);
    SELECT till_store.summarise_shop(NULL)
    """

    /// Version 5: one history, provably. The store keeps each event's hash (`chain`, see `OutboxChain` in TillCore),
    /// and a push (`push_chained`, `push_rows` with the events' hashes) is taken only when every event it holds has
    /// the hash the store computes from the one before: SHA-256 of (the previous hash, the sequence as 8 bytes big
    /// endian, kind, 0, key, 0, payload). A journal restored from a backup, edited, cut or spliced cannot go on from
    /// what the store holds, whatever its number of events; the sync tells the store so (`behind`, which now also
    /// records a file whose history differs, not only one that holds fewer events) and `reconcile` lists it.
    static let v5 = """
    CREATE TABLE till_store.chain (
      till_id text NOT NULL,
      journal_id text NOT NULL,
      seq bigint NOT NULL,
      hash bytea NOT NULL,
      PRIMARY KEY (till_id, journal_id, seq)
    );
    ALTER TABLE till_store.chain ENABLE ROW LEVEL SECURITY;
    CREATE POLICY backoffice_reads ON till_store.chain FOR SELECT TO till_backoffice USING (true);
    REVOKE ALL ON till_store.chain FROM PUBLIC;
    GRANT SELECT ON till_store.chain TO till_backoffice;

    CREATE FUNCTION till_store.push_chained(p_journal text, p_seq bigint[], p_kind text[], p_key text[], p_payload text[], p_at bigint[],
                                            p_hash text[])
      RETURNS bigint
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
      AS $f$
    DECLARE
      t text := till_store.session_till();
      n int := COALESCE(cardinality(p_seq), 0);
      prev bytea; held bytea; h bytea; given bytea; last bigint;
    BEGIN
      IF t IS NULL THEN RAISE EXCEPTION 'role % is not a till of this store', session_user USING ERRCODE = 'insufficient_privilege'; END IF;
      IF COALESCE(cardinality(p_hash), 0) <> n THEN
        RAISE EXCEPTION 'the events pushed are not whole: % sequence numbers, % hashes', n, cardinality(p_hash);
      END IF;
      -- The lock push_rows takes (held to the end of the transaction): the chain read here is the one it goes on from.
      PERFORM pg_advisory_xact_lock(hashtext('till_store.push'), hashtext(t));
      IF n > 0 THEN
        -- The first event's predecessor: the genesis (32 zero bytes) for the journal's first event; unknown (taken as
        -- given) after events pushed without a hash (journaled before the chain began, or by an older sync).
        prev := (SELECT c.hash FROM till_store.chain c WHERE c.till_id = t AND c.journal_id = p_journal AND c.seq = p_seq[1] - 1);
        FOR i IN 1..n LOOP
          given := decode(NULLIF(p_hash[i], ''), 'hex');
          -- Without a hash: journaled before the chain began, so never after an event that has one.
          IF given IS NULL AND prev IS NOT NULL THEN
            RAISE EXCEPTION 'journal % of till %: event % has no hash, but the one before it had: its history was changed (restored from a backup, edited by hand or spliced); nothing was taken', p_journal, t, p_seq[i]
              USING ERRCODE = 'TS004', HINT = 'keep the newer journal file, or have the back office retire this journal and give the till a new one';
          END IF;
          CONTINUE WHEN given IS NULL;
          IF p_seq[i] = 1 THEN prev := '\\x\(String(repeating: "0", count: 64))'::bytea; END IF;
          h := CASE WHEN prev IS NULL THEN given ELSE sha256(prev || int8send(p_seq[i]) || convert_to(p_kind[i], 'UTF8') || '\\x00'::bytea
                                                            || convert_to(p_key[i], 'UTF8') || '\\x00'::bytea || convert_to(p_payload[i], 'UTF8')) END;
          SELECT c.hash INTO held FROM till_store.chain c WHERE c.till_id = t AND c.journal_id = p_journal AND c.seq = p_seq[i];
          IF h <> given OR h <> COALESCE(held, h) THEN
            RAISE EXCEPTION 'journal % of till %: event % does not go on from the history the store holds (restored from a backup, edited by hand, cut off or spliced); nothing was taken', p_journal, t, p_seq[i]
              USING ERRCODE = 'TS004', HINT = 'keep the newer journal file, or have the back office retire this journal and give the till a new one';
          END IF;
          prev := h;
        END LOOP;
      END IF;
      last := till_store.push_rows(p_journal, p_seq, p_kind, p_key, p_payload, p_at);
      IF last > 0 THEN
        INSERT INTO till_store.chain (till_id, journal_id, seq, hash)
          SELECT t, p_journal, u.seq, decode(u.h, 'hex') FROM unnest(p_seq, p_hash) AS u(seq, h) WHERE u.seq <= last AND u.h <> ''
        ON CONFLICT DO NOTHING;
      END IF;
      RETURN last;
    END $f$;
    REVOKE ALL ON FUNCTION till_store.push_chained(text, bigint[], text[], text[], text[], bigint[], text[]) FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION till_store.push_chained(text, bigint[], text[], text[], text[], bigint[], text[]) TO till_pusher;

    CREATE OR REPLACE FUNCTION till_store.behind(p_journal text, p_file_seq bigint) RETURNS void
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
      AS $f$
    DECLARE t text := till_store.session_till();
    BEGIN
      IF t IS NULL THEN RAISE EXCEPTION 'role % is not a till of this store', session_user USING ERRCODE = 'insufficient_privilege'; END IF;
      UPDATE till_store.journal SET behind_file_seq = p_file_seq, behind_since = COALESCE(behind_since, now()),
          last_contact_at = now()
        WHERE till_id = t AND journal_id = p_journal;
    END $f$
    """

    /// Version 6: a push goes through the chain, always. The pushes `push_chained` superseded (`push` of a JSON array,
    /// `push_rows` of arrays) take a run of events without its hashes: a till's role may no longer call them, so
    /// neither an older till-sync nor anything else logged in as a till can push a history around the chain (a
    /// till-sync older than the chain is refused: permission denied). And what the push needs to keep the
    /// planner's statistics of `payment` as large as the journal it is pushing (`pushRows`: it makes them again at
    /// every doubling of the journal since they were last made for it).
    ///
    /// And `push_chained` checks a run's hashes in one statement, not one an event (v5's loop: about a quarter of a
    /// push's time, BENCHMARKS.md 2026-11-29): each event's hash must be SHA-256 of its predecessor's hash (the one
    /// before it in the run; for the run's first, the one the store holds before it; the genesis for the journal's
    /// first event) and its own fields, as v5 describes, and equal to the hash the store holds of it when it holds
    /// one. The first event that fails is refused with v5's words.
    static let v6 = """
    REVOKE EXECUTE ON FUNCTION till_store.push(text, jsonb), till_store.push_rows(text, bigint[], text[], text[], text[], bigint[])
      FROM till_pusher;
    ALTER TABLE till_store.journal ADD COLUMN analyzed_seq bigint NOT NULL DEFAULT 0;

    CREATE OR REPLACE FUNCTION till_store.push_chained(p_journal text, p_seq bigint[], p_kind text[], p_key text[], p_payload text[], p_at bigint[],
                                                       p_hash text[])
      RETURNS bigint
      LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
      AS $f$
    DECLARE
      t text := till_store.session_till();
      n int := COALESCE(cardinality(p_seq), 0);
      before_run bytea; held_up_to bigint; bad record; last bigint;
    BEGIN
      IF t IS NULL THEN RAISE EXCEPTION 'role % is not a till of this store', session_user USING ERRCODE = 'insufficient_privilege'; END IF;
      IF COALESCE(cardinality(p_hash), 0) <> n THEN
        RAISE EXCEPTION 'the events pushed are not whole: % sequence numbers, % hashes', n, cardinality(p_hash);
      END IF;
      -- The lock push_rows takes (held to the end of the transaction): the chain read here is the one it goes on from.
      PERFORM pg_advisory_xact_lock(hashtext('till_store.push'), hashtext(t));
      IF n > 0 THEN
        -- The run's first event's predecessor as the store holds it (none: the journal's first event, or one pushed
        -- without a hash, journaled before the chain began or by an older sync, whose successor is taken as given).
        before_run := (SELECT c.hash FROM till_store.chain c WHERE c.till_id = t AND c.journal_id = p_journal AND c.seq = p_seq[1] - 1);
        -- Hashes the store holds: of the events it holds (a run starts with the last of them); looked up one by one by
        -- key, for those only.
        held_up_to := COALESCE((SELECT j.last_seq FROM till_store.journal j WHERE j.till_id = t AND j.journal_id = p_journal), 0);
        SELECT x.seq, x.given IS NULL AS unhashed INTO bad
          FROM (SELECT e.o, e.seq, e.kind, e.key, e.payload, e.given,
                       CASE WHEN e.o = 1 THEN before_run ELSE lag(e.given) OVER (ORDER BY e.o) END AS prev
                  FROM (SELECT u.*, decode(NULLIF(u.h, ''), 'hex') AS given
                          FROM unnest(p_seq, p_kind, p_key, p_payload, p_hash) WITH ORDINALITY AS u(seq, kind, key, payload, h, o)) e) x
         WHERE CASE
                 -- Without a hash: journaled before the chain began, so never after an event that has one.
                 WHEN x.given IS NULL THEN x.prev IS NOT NULL
                 ELSE x.given <> CASE WHEN x.seq = 1 OR x.prev IS NOT NULL
                                      THEN sha256(CASE WHEN x.seq = 1 THEN '\\x\(String(repeating: "0", count: 64))'::bytea ELSE x.prev END
                                                  || int8send(x.seq) || convert_to(x.kind, 'UTF8') || '\\x00'::bytea
                                                  || convert_to(x.key, 'UTF8') || '\\x00'::bytea || convert_to(x.payload, 'UTF8'))
                                      ELSE x.given END
                   OR (x.seq <= held_up_to
                       AND x.given <> COALESCE((SELECT c.hash FROM till_store.chain c
                                                 WHERE c.till_id = t AND c.journal_id = p_journal AND c.seq = x.seq), x.given))
               END
         ORDER BY x.o LIMIT 1;
        IF FOUND AND bad.unhashed THEN
          RAISE EXCEPTION 'journal % of till %: event % has no hash, but the one before it had: its history was changed (restored from a backup, edited by hand or spliced); nothing was taken', p_journal, t, bad.seq
            USING ERRCODE = 'TS004', HINT = 'keep the newer journal file, or have the back office retire this journal and give the till a new one';
        ELSIF FOUND THEN
          RAISE EXCEPTION 'journal % of till %: event % does not go on from the history the store holds (restored from a backup, edited by hand, cut off or spliced); nothing was taken', p_journal, t, bad.seq
            USING ERRCODE = 'TS004', HINT = 'keep the newer journal file, or have the back office retire this journal and give the till a new one';
        END IF;
      END IF;
      last := till_store.push_rows(p_journal, p_seq, p_kind, p_key, p_payload, p_at);
      IF last > 0 THEN
        INSERT INTO till_store.chain (till_id, journal_id, seq, hash)
          SELECT t, p_journal, u.seq, decode(u.h, 'hex') FROM unnest(p_seq, p_hash) AS u(seq, h) WHERE u.seq <= last AND u.h <> ''
        ON CONFLICT DO NOTHING;
      END IF;
      RETURN last;
    END $f$
    """
}
