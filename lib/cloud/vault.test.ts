import { randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAuthOptions } from "@/lib/auth/options";
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
  seal,
  sessionCredentials,
  unseal,
  vaultCredentials,
  type VaultLimits,
} from "./vault";

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
    expect(found).toEqual({ status: "active", session: { sessionId: id, userId: "user-1", email: "user@example.test" } });
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
