import { randomUUID } from "node:crypto";
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
  private tokens = 0;
  /** Whether every change made anywhere moves the version (false while the listener is down). */
  coherent = true;

  get version(): number {
    return this.current;
  }

  /**
   * A version that moves only with writes that may change what a SCIM bearer token's lookup reads
   * (SCIM_TOKEN_TABLES), and with every write whose tables are not known. A provisioning sync
   * writes people, memberships and audit entries on every request; it must not empty the
   * tokens' cache each time.
   */
  get scimTokensVersion(): number {
    return this.tokens;
  }

  /** Something may have changed in these tables (all of them when not known): cached reads of them are stale. */
  changed(tables?: Iterable<string>): void {
    this.current++;
    if (tables === undefined || [...tables].some((table) => SCIM_TOKEN_TABLES.has(table))) this.tokens++;
  }
}

/** The tables a SCIM token's lookup reads, and the one whose deletes remove them by cascade. */
const SCIM_TOKEN_TABLES = new Set(["scim_tokens", "scim_integrations", "organizations"]);

/**
 * Statements that cannot change data: plain selects (advisory-lock calls included), and unions of
 * them, whose first select is in parentheses (Drizzle's `union all`). Anything else counts as a
 * write, a `with` query too (its parts may write). A lookup counted as a write emptied every
 * cache of reads: SCIM's `userName eq`, which an identity provider sends before each create, is
 * such a union.
 */
const READ = /^[\s(]*select\b/i;
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

/** Text with a statement after a semicolon: what follows the first statement is not looked at. */
const SEVERAL_STATEMENTS = /;\s*\S/;

/** Vacuum and analyze (lib/db/autovacuum.ts): they keep the store's rows as they are, and its cached reads good. */
const MAINTENANCE = /^\s*(?:vacuum|analy[sz]e)\b/i;

function isRead(text: unknown): boolean {
  if (typeof text !== "string" || SEVERAL_STATEMENTS.test(text)) return false;
  return (READ.test(text) && !WRITING_FUNCTION.test(text)) || CONSOLE_WRITE.test(text) || MAINTENANCE.test(text);
}

/** One insert, update or delete of a named table (what Drizzle writes), as the table's name. */
const ONE_TABLE_WRITE = /^\s*(?:insert\s+into|update|delete\s+from)\s+(?:only\s+)?(?:"?public"?\.)?"?([a-z_][a-z0-9_]*)"?\s/i;
/** The tables the store's writing functions write (migrations 0006 and 0011), with their triggers (0003): none of the token tables. */
const FUNCTION_TABLES = ["users", "memberships", "role_bindings", "audit_log", "audit_log_targets", "usage_daily"];

/** The tables a write changes, or undefined when that cannot be told from its text (several statements, a CTE, DDL, COMMIT…). */
export function writtenTables(text: unknown): string[] | undefined {
  if (typeof text !== "string" || SEVERAL_STATEMENTS.test(text)) return undefined;
  if (READ.test(text) && WRITING_FUNCTION.test(text)) return FUNCTION_TABLES;
  const table = ONE_TABLE_WRITE.exec(text)?.[1];
  return table === undefined ? undefined : [table.toLowerCase()];
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
      if (!isRead(text)) changes.changed(writtenTables(text));
    }
  }) as PGlite["query"];
  client.exec = (async (text: string, ...rest: unknown[]) => {
    try {
      return await (exec as (t: string, ...r: unknown[]) => Promise<unknown>)(text, ...rest);
    } finally {
      if (!isRead(text)) changes.changed(writtenTables(text));
    }
  }) as PGlite["exec"];
  // Reads wait while a PGlite transaction is open, so counting it once it ends is enough; its
  // statements say which tables it wrote.
  client.transaction = (async (fn: Parameters<PGlite["transaction"]>[0]) => {
    let tables: Set<string> | undefined = new Set<string>();
    const note = (text: unknown) => {
      if (isRead(text) || !tables) return;
      const written = writtenTables(text);
      if (written) for (const table of written) tables.add(table);
      else tables = undefined;
    };
    try {
      return await transaction((tx) => {
        const txQuery = tx.query.bind(tx);
        const txExec = tx.exec.bind(tx);
        tx.query = ((text: string, ...rest: unknown[]) => {
          note(text);
          return (txQuery as (t: string, ...r: unknown[]) => Promise<unknown>)(text, ...rest);
        }) as typeof tx.query;
        tx.exec = ((text: string, ...rest: unknown[]) => {
          note(text);
          return (txExec as (t: string, ...r: unknown[]) => Promise<unknown>)(text, ...rest);
        }) as typeof tx.exec;
        const txSql = tx.sql.bind(tx);
        tx.sql = ((...args: Parameters<typeof tx.sql>) => {
          tables = undefined;
          return txSql(...args);
        }) as typeof tx.sql;
        return fn(tx);
      });
    } finally {
      changes.changed(tables);
    }
  }) as PGlite["transaction"];
}

const WATCHED = Symbol("stratus.watchedClient");
const OPEN_TRANSACTION = Symbol("stratus.openTransaction");
/**
 * A pooled client's open transaction: the tables its statements wrote (undefined once one could
 * not be read), or null outside a transaction.
 */
type OpenTransaction = { tables: Set<string> | undefined } | null;
type Queryable = { query: (...args: unknown[]) => unknown; [WATCHED]?: true; [OPEN_TRANSACTION]?: OpenTransaction };

/** Statements that open, end or mark a point in a transaction (what Drizzle sends around a transaction's statements). */
const TRANSACTION_START = /^\s*(?:begin|start\s+transaction)\b/i;
const TRANSACTION_END = /^\s*(?:commit|end|rollback|abort)\b(?!\s+(?:(?:work|transaction)\s+)?to\b)(?!\s+and\s+chain\b)/i;
const SAVEPOINT = /^\s*(?:savepoint|release|rollback\s+(?:(?:work|transaction)\s+)?to)\b/i;

function queryText(args: unknown[]): unknown {
  const first = args[0];
  return typeof first === "object" && first !== null ? (first as { text?: unknown }).text : first;
}

/**
 * Makes a pg client or pool count the writes it runs (after each one ends, commits included).
 *
 * A client lent by the pool (`transactions`) also follows its transactions: `BEGIN` and savepoints
 * change no data and move nothing, and the `COMMIT` (or `ROLLBACK`) moves the versions of the
 * tables the transaction's statements wrote, which other connections see only from then on. A
 * commit without a known beginning, or after a statement whose tables could not be told, moves
 * them all. Without this, every transaction's `BEGIN` and `COMMIT` emptied the SCIM tokens' cache.
 */
function watchQueries(target: Queryable, changes: StoreChanges, transactions: boolean): void {
  if (transactions) target[OPEN_TRANSACTION] = null;
  if (target[WATCHED]) return;
  target[WATCHED] = true;
  const query = target.query.bind(target);
  target.query = (...args: unknown[]) => {
    const text = queryText(args);
    if (isRead(text)) return query(...args);
    let done: () => void;
    const single = typeof text === "string" && !SEVERAL_STATEMENTS.test(text);
    if (transactions && single && TRANSACTION_START.test(text)) {
      target[OPEN_TRANSACTION] = { tables: new Set() };
      done = () => undefined;
    } else if (transactions && single && SAVEPOINT.test(text)) {
      done = () => undefined;
    } else if (transactions && single && TRANSACTION_END.test(text)) {
      const open = target[OPEN_TRANSACTION];
      target[OPEN_TRANSACTION] = null;
      done = () => {
        if (!open || open.tables === undefined) changes.changed();
        else if (open.tables.size > 0) changes.changed(open.tables);
      };
    } else {
      const written = writtenTables(text);
      const open = transactions ? target[OPEN_TRANSACTION] : null;
      if (open) {
        if (written === undefined) open.tables = undefined;
        else for (const table of written) open.tables?.add(table);
      }
      done = () => changes.changed(written);
    }
    const last = args[args.length - 1];
    if (typeof last === "function") {
      // The callback form (the pool's own query uses it): count the write when it calls back.
      args[args.length - 1] = (...results: unknown[]) => {
        done();
        return (last as (...r: unknown[]) => unknown)(...results);
      };
      return query(...args);
    }
    const result = query(...args);
    if (result && typeof (result as Promise<unknown>).then === "function") {
      // Moves the version when the statement is done; the caller's promise is the original.
      (result as Promise<unknown>).then(done, done);
    } else {
      done();
    }
    return result;
  };
}

/** Counts every write made through a node-postgres pool: its own queries and those of clients it lends (transactions). */
export function watchPool(pool: pg.Pool, changes: StoreChanges): void {
  watchQueries(pool as unknown as Queryable, changes, false);
  pool.on("acquire", (client) => watchQueries(client as unknown as Queryable, changes, true));
}

export interface ChangeListener {
  close(): Promise<void>;
  /**
   * Drops the listening connection and connects again (the cache off meanwhile, the version moved once back): the
   * store's host failed for the pool. A connection to a machine that died without a word (no reset) would look alive
   * to the listener for its keep-alive's 20 s, while other replicas' writes, and their notices, went to the new primary.
   */
  suspect(reason: string): void;
}

/** The channel every table's trigger notifies (migration 0002), and the listener's heartbeats with it. */
const CHANNEL = "stratus_changes";
/** How a heartbeat's payload begins: no table is named so. */
const HEARTBEAT_PREFIX = "heartbeat:";

/**
 * A notice the listener sends itself through the pool, every `everyMs`: the pool writes where every replica writes,
 * so a heartbeat that does not come back within three periods says notices are not reaching the listener (a host
 * gone without a word, a listener left on a server that is no longer the one written to), and it listens anew.
 */
export interface Heartbeat {
  send(payload: string): Promise<unknown>;
  everyMs?: number;
}

/**
 * Listens for other processes' change notices on a connection of its own, and
 * reconnects when it drops. Until it is listening, and whenever it is not,
 * `changes.coherent` is false; on every (re)connection the version moves, since
 * notices sent meanwhile are lost. With a heartbeat, notices that stop arriving
 * count as a lost connection too.
 */
export function listenForChanges(
  connection: string | pg.ClientConfig,
  changes: StoreChanges,
  warn: (message: string, fields: Record<string, unknown>) => void,
  heartbeat?: Heartbeat,
  /**
   * Checks a new connection before it listens, as the pool checks its own (a host list's target_session_attrs): a node
   * that takes no writes hears none of the notices the writes send, and would leave the cache on but deaf.
   */
  verify?: (client: pg.Client) => Promise<void>,
): ChangeListener {
  let closed = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  let delayMs = 250;
  let drop: ((error?: Error) => void) | null = null;
  changes.coherent = false;
  const ownBeats = `${HEARTBEAT_PREFIX}${randomUUID()}:`;
  let beatsSent = 0;
  /** The heartbeat awaited: its payload (each its own), and since when (performance.now(): a clock step moves nothing). */
  let awaited: { payload: string; since: number } | null = null;
  const everyMs = heartbeat?.everyMs ?? 5_000;
  let lastTick = performance.now();
  const beats = heartbeat ? setInterval(() => beat(heartbeat), everyMs) : null;
  beats?.unref();

  const beat = (h: Heartbeat) => {
    const now = performance.now();
    // The event loop was held (a long task, a pause): timers run before the sockets are read, so a heartbeat back
    // meanwhile may not have been read yet. The wait starts again rather than count the stall against the listener.
    const stalled = now - lastTick > 2 * everyMs;
    lastTick = now;
    if (!client || !changes.coherent) return;
    if (awaited !== null) {
      if (stalled) awaited.since = now;
      else if (now - awaited.since > 3 * everyMs) {
        awaited = null;
        drop?.(new Error(`its heartbeat did not come back within ${(3 * everyMs) / 1000} s`));
      }
      return;
    }
    const mine = { payload: `${ownBeats}${++beatsSent}`, since: now };
    awaited = mine;
    // A store the pool cannot reach says nothing of the listener's connection: no beat is awaited then.
    h.send(mine.payload).catch(() => {
      if (awaited === mine) awaited = null;
    });
  };

  const connect = async () => {
    retry = null;
    if (closed) return;
    // TCP keep-alive: a connection idle between notices is not forgotten by a NAT or firewall on the way, which would
    // drop it without a word (no error, no end: notices lost while the cache stays on).
    const config = typeof connection === "string" ? { connectionString: connection } : connection;
    const again = (error?: Error) => {
      if (closed) return;
      warn("change listener lost its connection: cached reads are off until it is back", { error: error?.message ?? "ended" });
      retry = setTimeout(() => void connect(), delayMs);
      // Backs off while the server is away (a restart, a failover), never longer than 5 s between tries.
      delayMs = Math.min(delayMs * 2, 5_000);
    };
    let next: pg.Client;
    try {
      next = new pg.Client({ keepAlive: true, keepAliveInitialDelayMillis: 10_000, ...config });
    } catch (error) {
      // Making a client reads the TLS files the URL names (sslrootcert, sslkey): one away for a moment (a rotation) is
      // tried again, as a server away is, rather than end the listener (and the cache with it) for good.
      again(error as Error);
      return;
    }
    const lost = (error?: Error) => {
      if (client !== next) return;
      client = null;
      changes.coherent = false;
      next.end().catch(() => undefined);
      again(error);
    };
    client = next;
    drop = lost;
    next.on("error", lost);
    next.on("end", () => lost());
    // Each notice names the table changed (migration 0002); a heartbeat (any replica's) changes nothing.
    next.on("notification", (notice) => {
      if (notice.payload?.startsWith(HEARTBEAT_PREFIX)) {
        if (notice.payload === awaited?.payload) awaited = null;
        return;
      }
      changes.changed(notice.payload ? [notice.payload] : undefined);
    });
    // A connection made but never listening (its host gone silent after the session started, a pooler holding its
    // statements) would hold the listener not coherent, and without heartbeats, for ever: then no heartbeat fails, and
    // nothing asks the host list to find that host silent. Given up on after three periods, as a heartbeat is.
    const setup = setTimeout(() => lost(new Error(`its connection was not listening within ${(3 * everyMs) / 1000} s`)), 3 * everyMs);
    setup.unref();
    try {
      await next.connect();
      await verify?.(next);
      await next.query(`LISTEN ${CHANNEL}`);
      clearTimeout(setup);
      if (client !== next || closed) return;
      delayMs = 250;
      awaited = null;
      changes.changed();
      changes.coherent = true;
    } catch (error) {
      clearTimeout(setup);
      lost(error as Error);
    }
  };
  void connect();

  return {
    // Only a connection being made or made: between tries there is none to drop, and the next try connects anew.
    suspect: (reason) => drop?.(new Error(reason)),
    close: async () => {
      closed = true;
      if (retry) clearTimeout(retry);
      if (beats) clearInterval(beats);
      const open = client;
      client = null;
      changes.coherent = false;
      await open?.end().catch(() => undefined);
    },
  };
}

/** The heartbeat of a listener whose store is written through `pool`. */
export function poolHeartbeat(pool: pg.Pool, unsent?: () => void): Heartbeat {
  return {
    send: (payload) =>
      pool.query("select pg_notify($1, $2)", [CHANNEL, payload]).catch((error: unknown) => {
        // The pool lent no connection, or its connection failed: `unsent` may ask why (its connections all hanging on
        // a host gone silent lend none, and no beat awaited would ever tell).
        unsent?.();
        throw error;
      }),
  };
}
