import type { PGlite } from "@electric-sql/pglite";

/**
 * PostgreSQL's autovacuum for an embedded store. PGlite runs no background processes, so nothing
 * ever vacuumed or analyzed its tables: with no statistics the planner guesses, and for the demo
 * organization's billing options it chose a nested loop that scanned the projects table again for
 * every usage row (96 ms of CPU and 5,372 file-size lookups per call; 17 ms and 12 once the tables
 * were analyzed). A server's autovacuum launcher does this on its own; here a pass does it.
 *
 * A pass asks the statistics PostgreSQL keeps which tables are due by the server's own
 * autovacuum rules and settings, then vacuums or analyzes each, one statement per table (PGlite
 * runs one statement at a time: requests go in between two tables).
 */

export interface DueTable {
  /** Schema-qualified, quoted as an identifier. */
  name: string;
  /** Dead rows, or rows inserted since the last vacuum, past the thresholds. */
  vacuum: boolean;
  /** Rows changed since the last analyze past the threshold. */
  analyze: boolean;
}

/**
 * PostgreSQL's own test (relation_needs_vacanalyze), with the server's settings: vacuum when the
 * dead rows pass autovacuum_vacuum_threshold + autovacuum_vacuum_scale_factor × the table's rows,
 * or the rows inserted since the last vacuum pass the insert threshold and scale factor (-1 turns
 * that off); analyze when the rows changed since the last analyze pass the analyze ones. A table
 * never analyzed counts as empty (reltuples -1), so its first rows make it due.
 */
const DUE_TABLES = `
  select name, "vacuum", "analyze" from (
    select format('%I.%I', u.schemaname, u.relname) as name,
      u.n_dead_tup > s.vt + s.vs * greatest(c.reltuples, 0)
        or (s.it >= 0 and u.n_ins_since_vacuum > s.it + s."is" * greatest(c.reltuples, 0)) as "vacuum",
      u.n_mod_since_analyze > s.at + s."as" * greatest(c.reltuples, 0) as "analyze"
    from pg_stat_user_tables u
    join pg_class c on c.oid = u.relid
    cross join (
      select current_setting('autovacuum_vacuum_threshold')::float8 as vt, current_setting('autovacuum_vacuum_scale_factor')::float8 as vs,
        current_setting('autovacuum_vacuum_insert_threshold')::float8 as it, current_setting('autovacuum_vacuum_insert_scale_factor')::float8 as "is",
        current_setting('autovacuum_analyze_threshold')::float8 as at, current_setting('autovacuum_analyze_scale_factor')::float8 as "as"
    ) s
  ) due where "vacuum" or "analyze" order by name`;

/** The tables due for a vacuum or an analyze now. */
export async function dueTables(client: PGlite): Promise<DueTable[]> {
  // The statistics of the statements run so far reach the shared counters at the next report, which
  // this statement asks to be now (a backend otherwise reports at most once a second, when idle).
  await client.query("select pg_stat_force_next_flush()");
  return (await client.query<DueTable>(DUE_TABLES)).rows;
}

/** Vacuums and analyzes what is due, a table at a time; the tables it went through. */
export async function vacuumDue(client: PGlite): Promise<DueTable[]> {
  const due = await dueTables(client);
  for (const table of due) {
    await client.query(table.vacuum ? `vacuum ${table.analyze ? "(analyze) " : ""}${table.name}` : `analyze ${table.name}`);
  }
  return due;
}

/** How often the server's autovacuum launcher looks by default (autovacuum_naptime). */
export const NAPTIME_MS = 60_000;

export interface Autovacuum {
  /** A pass now (after the one under way, if any); the tables it went through. */
  run(): Promise<DueTable[]>;
  /** No more passes; settles once the one under way has ended. */
  stop(): Promise<void>;
}

/**
 * Passes every `intervalMs` (NAPTIME_MS when not given), one at a time. A pass
 * that fails (the store closing under it) is reported and the next one goes on as usual.
 */
export function startAutovacuum(client: PGlite, options: { intervalMs?: number; onError: (error: unknown) => void }): Autovacuum {
  let last: Promise<unknown> = Promise.resolve();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const run = (): Promise<DueTable[]> => {
    const pass = last.then(() => (stopped ? [] : vacuumDue(client)));
    last = pass.catch(() => undefined);
    return pass;
  };

  const intervalMs = options.intervalMs ?? NAPTIME_MS;
  const next = () => {
    timer = setTimeout(() => {
      run()
        .catch((error: unknown) => {
          if (!stopped) options.onError(error);
        })
        .finally(() => {
          if (!stopped) next();
        });
    }, intervalMs).unref();
  };
  next();

  return {
    run,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await last;
    },
  };
}
