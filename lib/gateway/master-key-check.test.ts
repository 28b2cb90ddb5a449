import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, createUser } from "./admin";
import { createLogger } from "./logger";
import { confirmMasterKey, MASTER_KEY_MISMATCH, masterKeyCheckValue } from "./master-key-check";
import { startGateway } from "./runtime";
import { openStore, type Store } from "./store/client";
import { apiKeys, masterKeyCheck } from "./store/schema";
import { freshStoreOptions } from "./testing";
import { freePort } from "@/scripts/free-port";

const keyA = randomBytes(32);
const keyB = randomBytes(32);

describe("the master key's check against the store", () => {
  let store: Store;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await freshStoreOptions();
    drop = fresh.drop;
    store = await openStore(fresh.store);
  }, 120_000);
  afterAll(async () => {
    await store.close();
    await drop();
  });

  it("keeps the first key's check value and refuses any other key after it", async () => {
    await confirmMasterKey(store.db, keyA);
    const rows = await store.db.select().from(masterKeyCheck);
    expect(rows).toHaveLength(1);
    // The value tells keys apart without being the key.
    expect(rows[0]?.checkValue).toBe(masterKeyCheckValue(keyA));
    expect(rows[0]?.checkValue).not.toContain(keyA.toString("base64url"));
    await expect(confirmMasterKey(store.db, keyB)).rejects.toThrow(MASTER_KEY_MISMATCH);
    await confirmMasterKey(store.db, keyA);
    expect(await store.db.select().from(masterKeyCheck)).toHaveLength(1);
  });

  it("on a store from before the check, takes the key its sealed secrets open under, and only that one", async () => {
    const user = await createUser(store.db, { email: "sealed@initech.example" });
    await createApiKey(store.db, keyA, user.id, "sealed before the check");
    await store.db.delete(masterKeyCheck);
    await expect(confirmMasterKey(store.db, keyB)).rejects.toThrow(MASTER_KEY_MISMATCH);
    expect(await store.db.select().from(masterKeyCheck)).toHaveLength(0);
    await confirmMasterKey(store.db, keyA);
    await expect(confirmMasterKey(store.db, keyB)).rejects.toThrow(MASTER_KEY_MISMATCH);
  });

  it("on a store from before the check, is not misled by a secret sealed under a stray key, oldest or newest", async () => {
    const fresh = await freshStoreOptions();
    const own = await openStore(fresh.store);
    try {
      const user = await createUser(own.db, { email: "stray@initech.example" });
      // Made from a machine without the deployment's key, by mistake: the store's first sealed secret, still live.
      await createApiKey(own.db, keyB, user.id, "made with the wrong key");
      for (const name of ["one", "two", "three"]) await createApiKey(own.db, keyA, user.id, name);
      // And another, revoked: the newest.
      const stray = await createApiKey(own.db, keyB, user.id, "made with the wrong key again");
      await own.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, stray.accessKeyId));
      await expect(confirmMasterKey(own.db, keyB)).rejects.toThrow(MASTER_KEY_MISMATCH);
      await confirmMasterKey(own.db, keyA);
      expect((await own.db.select().from(masterKeyCheck))[0]?.checkValue).toBe(masterKeyCheckValue(keyA));
    } finally {
      await own.close();
      await fresh.drop();
    }
  });

  it("of two replicas starting together on an empty store with different keys, lets exactly one through", async () => {
    // No sealed secret to decide by: the first check value written decides.
    const fresh = await freshStoreOptions();
    const empty = await openStore(fresh.store);
    try {
      const both = await Promise.allSettled([confirmMasterKey(empty.db, keyA), confirmMasterKey(empty.db, keyB)]);
      expect(both.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const refused = both.find((r) => r.status === "rejected");
      expect(String((refused as PromiseRejectedResult).reason)).toContain("STRATUS_MASTER_KEY");
    } finally {
      await empty.close();
      await fresh.drop();
    }
  });
});

describe("a gateway started with another master key than its store's", { timeout: 300_000 }, () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "stratus-master-key-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const options = { store: { kind: "pglite" as const, dataDir }, dataDir, seed: false, logger: createLogger("silent") };

  it("is refused in process, and the store is left to the right key", async () => {
    const first = await startGateway({ ...options, masterKey: keyA });
    await first.close();
    await expect(startGateway({ ...options, masterKey: keyB })).rejects.toThrow(MASTER_KEY_MISMATCH);
    // The refused start closed the store again (its lock released): the right key starts.
    const again = await startGateway({ ...options, masterKey: keyA });
    await again.close();
  });

  it("as a standalone process without STRATUS_MASTER_KEY (making its own): says which variable, exits 1, before listening", async () => {
    // The store's key, whatever ran before.
    await (await startGateway({ ...options, masterKey: keyA })).close();
    const env: NodeJS.ProcessEnv = { ...process.env, STRATUS_DATA_DIR: dataDir, STRATUS_SEED_DEMO: "0", PORT: String(await freePort()), HOST: "127.0.0.1" };
    delete env.DATABASE_URL;
    delete env.STRATUS_MASTER_KEY;
    const run = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ["--import", "tsx", "lib/gateway/cli.ts", "serve"], { cwd: process.cwd(), env });
      let output = "";
      const heard = (d: Buffer) => {
        output += d.toString();
        // Started after all (the check missing): stopped, for the assertions below to say so.
        if (output.includes("gateway listening")) child.kill("SIGKILL");
      };
      child.stdout.on("data", heard);
      child.stderr.on("data", heard);
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, output }));
    });
    expect(run.code, run.output).toBe(1);
    expect(run.output).toContain(MASTER_KEY_MISMATCH);
    // The key it made is in its data dir, not in what it said.
    expect(run.output).not.toContain(readFileSync(path.join(dataDir, "master.key"), "utf8").trim());
    expect(run.output).not.toContain("gateway listening");
  });
});
