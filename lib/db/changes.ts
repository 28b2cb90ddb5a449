import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";

/**
 * What a process knows of changes to its store, for caches of reads: a version that
 * moves on every write this process makes (when the statement or transaction ends)
 * and on every change notice from another process (PostgreSQL only). A cached read
 * is good while the version it was loaded at is still the current one.
 *
 * On PGlite the process is the store's only client (the data dir is locked), so
 * counting its own writes is the whole story. On PostgreSQL other replicas write too:
 * triggers (migration 0002_change_notices) send a notice on channel `stratus_changes`
 * at each commit, which `listenForChanges` turns into a new version. While that
 * listener is not connected, notices could be missed, so `coherent` is false and
 * caches must read through.
 */
export class StoreChanges {
  private current = 0;
  /** Whether every change made anywhere moves the version (false while the listener is down). */
  coherent = true;

  get version(): number {
    return this.current;
  }

  /** Something may have changed: every cached read is stale. */
  changed(): void {
    this.current++;
  }
}

/** Statements that cannot change data: plain selects (advisory-lock calls included). Anything else counts as a write. */
const READ = /^\s*select\b/i;
/**
 * Writes to the console's own tables (sessions, sign-in counters), which share the
 * embedded store but are never read through a cache: counting them would empty the
 * gateway's cache on every sign-in and session touch.
 */
const CONSOLE_WRITE = /^\s*(?:insert\s+into|update|delete\s+from)\s+"?console_/i;

/**
 * The store's own functions that write (migrations 0006 and 0011), called by a select: such a
 * statement is a write. Without this a person provisioned over SCIM stayed unseen by cached
 * reads (their organizations, their grants) until the next other write.
 */
const WRITING_FUNCTION = /\b(?:scim_provision_person|usage_daily_resum|usage_day_render)\s*\(/i;

function isRead(text: unknown): boolean {
  return typeof text === "string" && ((READ.test(text) && !WRITING_FUNCTION.test(text)) || CONSOLE_WRITE.test(text));
}

/** Counts every write made through a PGlite client: statements, `exec` batches and transactions. */
export function watchPglite(client: PGlite, changes: StoreChanges): void {
  const query = client.query.bind(client);
  const exec = client.exec.bind(client);
  const transaction = client.transaction.bind(client);
  client.query = (async (text: string, ...rest: unknown[]) => {
    try {
      return await (query as (t: string, ...r: unknown[]) => Promise<unknown>)(text, ...rest);
    } finally {
      if (!isRead(text)) changes.changed();
    }
  }) as PGlite["query"];
  client.exec = (async (text: string, ...rest: unknown[]) => {
    try {
      return await (exec as (t: string, ...r: unknown[]) => Promise<unknown>)(text, ...rest);
    } finally {
      if (!isRead(text)) changes.changed();
    }
  }) as PGlite["exec"];
  // Reads wait while a PGlite transaction is open, so counting it once it ends is enough.
  client.transaction = (async (fn: Parameters<PGlite["transaction"]>[0]) => {
    try {
      return await transaction(fn);
    } finally {
      changes.changed();
    }
  }) as PGlite["transaction"];
}

const WATCHED = Symbol("stratus.watchedClient");
type Queryable = { query: (...args: unknown[]) => unknown; [WATCHED]?: true };

function queryText(args: unknown[]): unknown {
  const first = args[0];
  return typeof first === "object" && first !== null ? (first as { text?: unknown }).text : first;
}

/** Makes a pg client or pool count the writes it runs (after each one ends, commits included). */
function watchQueries(target: Queryable, changes: StoreChanges): void {
  if (target[WATCHED]) return;
  target[WATCHED] = true;
  const query = target.query.bind(target);
  target.query = (...args: unknown[]) => {
    if (isRead(queryText(args))) return query(...args);
    const last = args[args.length - 1];
    if (typeof last === "function") {
      // The callback form (the pool's own query uses it): count the write when it calls back.
      args[args.length - 1] = (...results: unknown[]) => {
        changes.changed();
        return (last as (...r: unknown[]) => unknown)(...results);
      };
      return query(...args);
    }
    const result = query(...args);
    if (result && typeof (result as Promise<unknown>).then === "function") {
      // Moves the version when the statement is done; the caller's promise is the original.
      (result as Promise<unknown>).then(
        () => changes.changed(),
        () => changes.changed(),
      );
    } else {
      changes.changed();
    }
    return result;
  };
}

/** Counts every write made through a node-postgres pool: its own queries and those of clients it lends (transactions). */
export function watchPool(pool: pg.Pool, changes: StoreChanges): void {
  watchQueries(pool as unknown as Queryable, changes);
  pool.on("acquire", (client) => watchQueries(client as unknown as Queryable, changes));
}

export interface ChangeListener {
  close(): Promise<void>;
}

/**
 * Listens for other processes' change notices on a connection of its own, and
 * reconnects when it drops. Until it is listening, and whenever it is not,
 * `changes.coherent` is false; on every (re)connection the version moves, since
 * notices sent meanwhile are lost.
 */
export function listenForChanges(
  connection: string | pg.ClientConfig,
  changes: StoreChanges,
  warn: (message: string, fields: Record<string, unknown>) => void,
): ChangeListener {
  let closed = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  let delayMs = 250;
  changes.coherent = false;

  const connect = async () => {
    retry = null;
    if (closed) return;
    const next = new pg.Client(typeof connection === "string" ? { connectionString: connection } : connection);
    const lost = (error?: Error) => {
      if (client !== next) return;
      client = null;
      changes.coherent = false;
      next.end().catch(() => undefined);
      if (!closed) {
        warn("change listener lost its connection: cached reads are off until it is back", { error: error?.message ?? "ended" });
        retry = setTimeout(() => void connect(), delayMs);
        // Backs off while the server is away (a restart, a failover), never longer than 5 s between tries.
        delayMs = Math.min(delayMs * 2, 5_000);
      }
    };
    client = next;
    next.on("error", lost);
    next.on("end", () => lost());
    next.on("notification", () => changes.changed());
    try {
      await next.connect();
      await next.query("LISTEN stratus_changes");
      if (client !== next || closed) return;
      delayMs = 250;
      changes.changed();
      changes.coherent = true;
    } catch (error) {
      lost(error as Error);
    }
  };
  void connect();

  return {
    close: async () => {
      closed = true;
      if (retry) clearTimeout(retry);
      const open = client;
      client = null;
      changes.coherent = false;
      await open?.end().catch(() => undefined);
    },
  };
}
