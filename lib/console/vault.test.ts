import { randomBytes } from "node:crypto";
import { inspect } from "node:util";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAuthOptions } from "@/lib/console/auth-options";
import { freshStoreOptions } from "@/lib/gateway/testing";
import { vaultKey } from "./config";
import { openConsoleStore, setConsoleDbForTests, type ConsoleStore } from "./store/client";
import { sessions } from "./store/schema";
import { TEST_AUTH_SECRET } from "./testing";
import {
  createVaultSession,
  deriveVaultKey,
  deleteVaultSession,
  lookupVaultSession,
  markVaultSessionRevoked,
  promoteVaultSession,
  recordSessionFactor,
  seal,
  sessionCredentials,
  signOutVaultSession,
  unseal,
  vaultCredentials,
  type VaultLimits,
} from "./vault";
import { SESSION_CACHE_TTL_MS } from "./vault-cache";

const limits: VaultLimits = { idleMinutes: 30, maxHours: 12 };
const key = deriveVaultKey(TEST_AUTH_SECRET);
const secretKey = randomBytes(32).toString("base64url");
const identity = { userId: "user-1", email: "user@example.test", accessKeyId: "AKTESTKEY00000000001", secretKey };

let store: ConsoleStore;
let drop: () => Promise<void>;
beforeAll(async () => {
  const fresh = await freshStoreOptions();
  drop = fresh.drop;
  store = await openConsoleStore(fresh.store as Parameters<typeof openConsoleStore>[0]);
});
afterAll(async () => {
  await store.close();
  await drop();
});

/** Every form the secret could be written in. */
function forms(secret: string): string[] {
  const raw = Buffer.from(secret, "base64url");
  return [secret, raw.toString("base64"), raw.toString("base64url"), raw.toString("hex"), Buffer.from(secret).toString("base64"), Buffer.from(secret).toString("hex")];
}

describe("key vault", () => {
  it("stores the secret encrypted: no form of it is in the row", async () => {
    const id = await createVaultSession(store.db, key, identity, limits);
    const rows = await store.db.execute(sql`select * from console_sessions where id = ${id}`);
    const dump = JSON.stringify(rows);
    expect(dump).toContain(identity.accessKeyId); // the row is really there
    for (const form of forms(secretKey)) expect(dump).not.toContain(form);
    expect(await vaultCredentials(store.db, key, id)).toEqual({ accessKeyId: identity.accessKeyId, secretKey });
  });

  it("opens only with the right key and in the row it was written for", async () => {
    const a = await createVaultSession(store.db, key, identity, limits);
    const b = await createVaultSession(store.db, key, identity, limits);
    const [rowA] = await store.db.select().from(sessions).where(eq(sessions.id, a));
    expect(() => unseal(deriveVaultKey("another-secret-entirely-0123456789"), a, rowA!.secretCiphertext)).toThrow();
    expect(() => unseal(key, b, rowA!.secretCiphertext)).toThrow();
    expect(unseal(key, a, seal(key, a, "x"))).toBe("x");
  });

  it("a live session is found and its last_seen_at moves on", async () => {
    const t0 = new Date("2030-01-01T10:00:00Z");
    const id = await createVaultSession(store.db, key, identity, limits, t0);
    const later = new Date(t0.getTime() + 10 * 60_000);
    const found = await lookupVaultSession(store.db, id, limits, later);
    expect(found).toEqual({ status: "active", session: { sessionId: id, userId: "user-1", email: "user@example.test", startedAt: t0.getTime(), mfaPending: false, factors: ["api_key"] } });
    const [row] = await store.db.select().from(sessions).where(eq(sessions.id, id));
    expect(row!.lastSeenAt.toISOString()).toBe(later.toISOString());
  });

  it("an idle session expires and is deleted", async () => {
    const t0 = new Date("2030-01-02T10:00:00Z");
    const id = await createVaultSession(store.db, key, identity, limits, t0);
    expect((await lookupVaultSession(store.db, id, limits, new Date(t0.getTime() + 29 * 60_000))).status).toBe("active");
    // 29 minutes later it was touched: 31 minutes after that touch it has been idle too long.
    const idle = new Date(t0.getTime() + (29 + 31) * 60_000);
    expect(await lookupVaultSession(store.db, id, limits, idle)).toEqual({ status: "expired" });
    expect(await store.db.select().from(sessions).where(eq(sessions.id, id))).toHaveLength(0);
  });

  it("a busy session still ends at its absolute lifetime", async () => {
    const t0 = new Date("2030-01-03T00:00:00Z");
    const id = await createVaultSession(store.db, key, identity, limits, t0);
    for (let minutes = 20; minutes < 12 * 60; minutes += 20) {
      expect((await lookupVaultSession(store.db, id, limits, new Date(t0.getTime() + minutes * 60_000))).status).toBe("active");
    }
    expect(await lookupVaultSession(store.db, id, limits, new Date(t0.getTime() + 12 * 3_600_000))).toEqual({ status: "expired" });
    expect(await vaultCredentials(store.db, key, id)).toBeNull();
  });

  it("a revoked session keeps no secret and says so", async () => {
    const id = await createVaultSession(store.db, key, identity, limits);
    await markVaultSessionRevoked(store.db, id);
    expect(await lookupVaultSession(store.db, id, limits)).toEqual({ status: "revoked" });
    expect(await vaultCredentials(store.db, key, id)).toBeNull();
    const [row] = await store.db.select().from(sessions).where(eq(sessions.id, id));
    expect(row!.secretCiphertext).toBe("");
  });

  it("a promoted session answers under its new id only, with the same key and owing no second factor, cached or not", async () => {
    const id = await createVaultSession(store.db, key, { ...identity, mfaPending: true }, limits);
    expect(await lookupVaultSession(store.db, id, limits)).toMatchObject({ status: "active", session: { mfaPending: true } });
    const renamed = await promoteVaultSession(store.db, key, id);
    expect(renamed).not.toBeNull();
    expect(renamed).not.toBe(id);
    expect(await lookupVaultSession(store.db, id, limits)).toEqual({ status: "missing" });
    expect(await vaultCredentials(store.db, key, id)).toBeNull();
    const moved = await lookupVaultSession(store.db, renamed!, limits);
    expect(moved).toMatchObject({ status: "active", session: { sessionId: renamed, userId: identity.userId, mfaPending: false } });
    expect(await vaultCredentials(store.db, key, renamed!)).toEqual({ accessKeyId: identity.accessKeyId, secretKey });
    // Promoted once: the old id has nothing left to move, and an ended session is not promoted.
    expect(await promoteVaultSession(store.db, key, id)).toBeNull();
    await markVaultSessionRevoked(store.db, renamed!);
    expect(await promoteVaultSession(store.db, key, renamed!)).toBeNull();
  });

  it("a factor given to a pending session moves it with the factor, in one step: of two given with the old id, the second finds nothing", async () => {
    const id = await createVaultSession(store.db, key, { ...identity, mfaPending: true }, limits);
    await lookupVaultSession(store.db, id, limits);
    const recorded = await recordSessionFactor(store.db, key, id, "totp", true);
    expect(recorded).toEqual({ sessionId: expect.any(String), factors: ["api_key", "totp"] });
    expect(recorded!.sessionId).not.toBe(id);
    expect(await lookupVaultSession(store.db, id, limits)).toEqual({ status: "missing" });
    expect(await lookupVaultSession(store.db, recorded!.sessionId, limits)).toMatchObject({ status: "active", session: { mfaPending: true, factors: ["api_key", "totp"] } });
    expect(await vaultCredentials(store.db, key, recorded!.sessionId)).toEqual({ accessKeyId: identity.accessKeyId, secretKey });
    expect(await recordSessionFactor(store.db, key, id, "webauthn", true)).toBeNull();
    // A whole session confirming it is the person keeps its id.
    const active = await createVaultSession(store.db, key, identity, limits);
    expect(await recordSessionFactor(store.db, key, active, "totp", false)).toEqual({ sessionId: active, factors: ["api_key", "totp"] });
    expect(await lookupVaultSession(store.db, active, limits)).toMatchObject({ status: "active", session: { factors: ["api_key", "totp"] } });
  });

  it("deleting a session removes the entry", async () => {
    const id = await createVaultSession(store.db, key, identity, limits);
    await deleteVaultSession(store.db, id);
    expect(await lookupVaultSession(store.db, id, limits)).toEqual({ status: "missing" });
  });

  it("next-auth's sign-out event deletes the vault entry of the token's session", async () => {
    const saved = { AUTH_SECRET: process.env.AUTH_SECRET, CLOUD_API_URL: process.env.CLOUD_API_URL };
    process.env.AUTH_SECRET = TEST_AUTH_SECRET;
    const { resetEnvCache } = await import("@/lib/env");
    resetEnvCache();
    setConsoleDbForTests(store.db);
    try {
      const id = await createVaultSession(store.db, vaultKey(), identity, limits);
      const other = await createVaultSession(store.db, vaultKey(), identity, limits);
      await getAuthOptions().events!.signOut!({ token: { sid: id }, session: undefined as never });
      expect(await store.db.select().from(sessions).where(eq(sessions.id, id))).toHaveLength(0);
      expect(await store.db.select().from(sessions).where(eq(sessions.id, other))).toHaveLength(1);
    } finally {
      setConsoleDbForTests(undefined);
      process.env.AUTH_SECRET = saved.AUTH_SECRET;
      if (saved.AUTH_SECRET === undefined) delete process.env.AUTH_SECRET;
      resetEnvCache();
    }
  });
});

describe("sessionCredentials", () => {
  it("signs with the key read by the lookup, without reading the row again", async () => {
    const id = await createVaultSession(store.db, key, identity, limits);
    const found = await lookupVaultSession(store.db, id, limits);
    if (found.status !== "active") throw new Error(`expected an active session, got ${found.status}`);
    // The row changes after the lookup: the request that looked it up still uses what it read.
    await store.db.update(sessions).set({ accessKeyId: "AKCHANGEDAFTERLOOKUP" }).where(eq(sessions.id, id));
    expect(await sessionCredentials(store.db, key, found.session)).toEqual({ accessKeyId: identity.accessKeyId, secretKey });
    // A session object no lookup returned reads the row, and ends with it.
    expect(await sessionCredentials(store.db, key, { ...found.session })).toMatchObject({ accessKeyId: "AKCHANGEDAFTERLOOKUP" });
    await markVaultSessionRevoked(store.db, id);
    expect(await sessionCredentials(store.db, key, { ...found.session })).toBeNull();
    expect((await lookupVaultSession(store.db, id, limits)).status).toBe("revoked");
  });
});

describe("sessions kept in memory", () => {
  /** Deletes the row behind the vault's back, as a sign-out on another console replica would. */
  const deleteElsewhere = (id: string) => store.db.delete(sessions).where(eq(sessions.id, id));

  it("a looked-up session is answered from memory, and the row is read again within SESSION_CACHE_TTL_MS", async () => {
    const t0 = new Date("2030-02-01T10:00:00Z");
    const id = await createVaultSession(store.db, key, identity, limits, t0);
    expect((await lookupVaultSession(store.db, id, limits, t0)).status).toBe("active");
    await deleteElsewhere(id);
    // Another replica's sign-out goes unseen here for at most the cache's lifetime…
    expect((await lookupVaultSession(store.db, id, limits, new Date(t0.getTime() + SESSION_CACHE_TTL_MS - 1))).status).toBe("active");
    // …and no longer.
    expect(await lookupVaultSession(store.db, id, limits, new Date(t0.getTime() + SESSION_CACHE_TTL_MS))).toEqual({ status: "missing" });
    expect(SESSION_CACHE_TTL_MS).toBeLessThanOrEqual(5_000);
  });

  it("sign-out on this replica ends a cached session at once", async () => {
    const id = await createVaultSession(store.db, key, identity, limits);
    const found = await lookupVaultSession(store.db, id, limits);
    expect(found.status).toBe("active");
    await deleteVaultSession(store.db, id);
    expect(await lookupVaultSession(store.db, id, limits)).toEqual({ status: "missing" });
  });

  it("revocation ends a cached session at once, and a later lookup signs with nothing", async () => {
    const id = await createVaultSession(store.db, key, identity, limits);
    const found = await lookupVaultSession(store.db, id, limits);
    if (found.status !== "active") throw new Error(`expected an active session, got ${found.status}`);
    expect(await sessionCredentials(store.db, key, found.session)).toEqual({ accessKeyId: identity.accessKeyId, secretKey });
    await markVaultSessionRevoked(store.db, id);
    expect(await lookupVaultSession(store.db, id, limits)).toEqual({ status: "revoked" });
    expect(await vaultCredentials(store.db, key, id)).toBeNull();
  });

  it("a lookup under way when the session is signed out does not put it back", async () => {
    // A store whose reads answer late, as a read on another pooled connection may: the
    // lookup reads the row before the delete, and hears back only after the delete is done.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const late = <T extends object>(builder: T): T =>
      new Proxy(builder, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver) as unknown;
          if (prop === "then") {
            return (ok: (v: unknown) => unknown, fail: (e: unknown) => unknown) => {
              const result = (target as unknown as PromiseLike<unknown>).then((rows) => held.then(() => rows));
              return result.then(ok, fail);
            };
          }
          return typeof value === "function" ? (...args: unknown[]) => late((value as (...a: unknown[]) => object).apply(target, args)) : value;
        },
      });
    let slowReads = false;
    const db = new Proxy(store.db, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop === "select" && slowReads) return (...args: unknown[]) => late((value as (...a: unknown[]) => object).apply(target, args));
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const id = await createVaultSession(db, key, identity, limits);
    slowReads = true;
    const during = lookupVaultSession(db, id, limits);
    await new Promise((resolve) => setTimeout(resolve, 20)); // the lookup's read has run
    await deleteVaultSession(db, id);
    release();
    // What the lookup read may still serve its own request…
    expect((await during).status).toBe("active");
    slowReads = false;
    // …but it is not kept for the next one.
    expect(await lookupVaultSession(db, id, limits)).toEqual({ status: "missing" });
  });

  it("an idle session is refused even while cached", async () => {
    const short: VaultLimits = { idleMinutes: 3 / 60, maxHours: 12 }; // three seconds: inside the cache's lifetime
    const t0 = new Date("2030-02-02T10:00:00Z");
    const id = await createVaultSession(store.db, key, identity, short, t0);
    expect((await lookupVaultSession(store.db, id, short, new Date(t0.getTime() + 1_000))).status).toBe("active");
    expect(await lookupVaultSession(store.db, id, short, new Date(t0.getTime() + 3_000))).toEqual({ status: "expired" });
    expect(await store.db.select().from(sessions).where(eq(sessions.id, id))).toHaveLength(0);
  });

  it("a session is refused at its absolute lifetime even while cached", async () => {
    const short: VaultLimits = { idleMinutes: 30, maxHours: 2 / 3600 }; // two seconds
    const t0 = new Date("2030-02-03T10:00:00Z");
    const id = await createVaultSession(store.db, key, identity, short, t0);
    expect((await lookupVaultSession(store.db, id, short, new Date(t0.getTime() + 1_000))).status).toBe("active");
    expect(await lookupVaultSession(store.db, id, short, new Date(t0.getTime() + 2_000))).toEqual({ status: "expired" });
  });

  it("a busy session still moves last_seen_at on while served from memory", async () => {
    const t0 = new Date("2030-02-04T10:00:00Z");
    const id = await createVaultSession(store.db, key, identity, limits, t0);
    for (let seconds = 1; seconds <= 40 * 60; seconds += 1) {
      const now = new Date(t0.getTime() + seconds * 1_000);
      // Active for forty minutes straight, past the thirty-minute idle limit measured from sign-in.
      expect((await lookupVaultSession(store.db, id, limits, now)).status).toBe("active");
    }
    const [row] = await store.db.select().from(sessions).where(eq(sessions.id, id));
    expect(t0.getTime() + 40 * 60_000 - row!.lastSeenAt.getTime()).toBeLessThanOrEqual(30_000);
  });

  it("the unsealed key shows in no log or JSON of what the vault keeps", async () => {
    const id = await createVaultSession(store.db, key, identity, limits);
    const found = await lookupVaultSession(store.db, id, limits);
    if (found.status !== "active") throw new Error(`expected an active session, got ${found.status}`);
    expect((await sessionCredentials(store.db, key, found.session))?.secretKey).toBe(secretKey);
    const kept = (globalThis as Record<symbol, unknown>)[Symbol.for("stratus.vaultSessionCache")];
    expect(kept).toBeDefined();
    const dumps = [inspect(kept, { showHidden: true, depth: 6 }), inspect(found, { showHidden: true, depth: Infinity }), JSON.stringify(found)];
    for (const dump of dumps) for (const form of forms(secretKey)) expect(dump).not.toContain(form);
  });
});

describe("a sign-out the store cannot take now", () => {
  it("refuses the session here at once, and deletes it once the store takes writes again", async () => {
    const id = await createVaultSession(store.db, key, identity, limits);
    expect((await lookupVaultSession(store.db, id, limits)).status).toBe("active");
    // The store refuses the deletion, as one going away mid-failover does; and at first cannot even be opened.
    await store.db.execute(
      sql.raw(`create function zz_refuse_delete() returns trigger language plpgsql as $$ begin raise exception 'the store is going away' using errcode = '57P01'; end $$`),
    );
    await store.db.execute(sql.raw(`create trigger zz_refuse_delete before delete on console_sessions for each row execute function zz_refuse_delete()`));
    let opens = 0;
    const open = async () => {
      opens++;
      if (opens === 1) throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
      return store.db;
    };
    const logged: string[] = [];
    const retry = { retryMs: { first: 20, most: 80 }, log: (_level: string, message: string) => void logged.push(message) };
    await expect(signOutVaultSession(open, id, limits, retry)).rejects.toThrow("ECONNREFUSED");
    // A copy of the cookie opens nothing, though the row is still there.
    expect(await lookupVaultSession(store.db, id, limits)).toEqual({ status: "missing" });
    expect(await vaultCredentials(store.db, key, id)).not.toBeNull();
    // Tried again, and refused again, while the store refuses; said in the log.
    await until(async () => opens >= 3);
    expect(await store.db.select().from(sessions).where(eq(sessions.id, id))).toHaveLength(1);
    expect(logged[0]).toMatch(/^1 sign-outs still not taken by the store/);

    await store.db.execute(sql.raw(`drop trigger zz_refuse_delete on console_sessions`));
    await store.db.execute(sql.raw(`drop function zz_refuse_delete()`));
    await until(async () => (await store.db.select().from(sessions).where(eq(sessions.id, id))).length === 0);
    expect(await lookupVaultSession(store.db, id, limits)).toEqual({ status: "missing" });
    // Done: no more attempts.
    const after = opens;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(opens).toBe(after);
  });
});

async function until(done: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
