import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { listenForChanges, poolHeartbeat, StoreChanges } from "@/lib/db/changes";
import { signedHeaders } from "@/lib/signing";
import { revokeApiKey } from "../admin";
import { createLogger } from "../logger";
import { startGateway, type Gateway } from "../runtime";
import { seedDemo, type DemoCredentials } from "../seed";
import { freshStoreOptions, opPath } from "../testing";
import { usageRecords } from "./schema";

/**
 * Two gateway replicas on one PostgreSQL: what one changes, the other stops serving
 * from its read cache once the commit's change notice arrives.
 */
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

async function eventually(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error("the change did not reach the other replica in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!onPostgres)("change notices between replicas (PostgreSQL)", () => {
  let a: Gateway;
  let b: Gateway;
  let demo: DemoCredentials;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const fresh = await freshStoreOptions();
    drop = fresh.drop;
    const masterKey = randomBytes(32);
    const options = { store: fresh.store, masterKey, seed: false, logger: createLogger("silent"), dataDir: "/nonexistent" };
    a = await startGateway(options);
    b = await startGateway(options);
    demo = await seedDemo(a.store.db, masterKey);
    await eventually(async () => b.store.changes.coherent);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await drop?.();
  });

  const call = (g: Gateway, method: string, path: string, body?: unknown) => {
    const url = new URL(`http://gateway.test/v1${path}`);
    const credentials = { accessKeyId: demo.owner.access_key_id, secretKey: demo.owner.secret_key };
    return g.app.request(url.toString(), {
      method,
      headers: { ...signedHeaders(credentials, { method, url }), ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  };
  const projectNames = async (g: Gateway) => {
    const res = await call(g, "GET", opPath("listProjects"));
    return ((await res.json()) as { items: Array<{ name: string }> }).items.map((p) => p.name);
  };

  it("a project created through one replica is listed by the other", async () => {
    const before = await projectNames(b); // now cached on b
    expect(before).not.toContain("made-on-a");
    const created = await call(a, "POST", opPath("createProject"), { organization_id: demo.organization_id, name: "made-on-a" });
    expect(created.status).toBe(200);
    await eventually(async () => (await projectNames(b)).includes("made-on-a"));
  });

  it("an organization renamed through one replica is named so by the other", async () => {
    const name = async (g: Gateway) => {
      const res = await call(g, "GET", opPath("getOrganizations"));
      return ((await res.json()) as { items: Array<{ id: string; name: string }> }).items.find((o) => o.id === demo.organization_id)?.name;
    };
    expect(await name(b)).toBe("Acme AI Labs"); // now kept by b
    const renamed = await call(a, "PUT", `${opPath("updateOrganization")}?org_id=${demo.organization_id}`, { organization_name: "Acme renamed on a" });
    expect(renamed.status).toBe(200);
    await eventually(async () => (await name(b)) === "Acme renamed on a");
  });

  it("usage recorded through one replica is in the other's options at once, though usage sends no notices", async () => {
    const path = opPath("getUsageOptions", { organization_id: demo.organization_id });
    const regions = async (g: Gateway) => ((await (await call(g, "GET", path)).json()) as { regions: string[] }).regions;
    expect(await regions(b)).not.toContain("stamp-region-1"); // now kept by b
    const [row] = await a.store.db.select().from(usageRecords).where(eq(usageRecords.organizationId, demo.organization_id)).limit(1);
    if (!row) throw new Error("the demo has no usage");
    const copy: Partial<typeof row> = { ...row, resourceId: "stamp-resource", region: "stamp-region-1" };
    delete copy.seq; // a new record, numbered by the store
    await a.store.db.insert(usageRecords).values(copy as typeof row);
    expect(await regions(b)).toContain("stamp-region-1");
  });

  it("a key revoked through one replica is refused by the other", async () => {
    expect((await call(b, "GET", opPath("listProjects"))).status).toBe(200);
    expect(await revokeApiKey(a.store.db, demo.owner.access_key_id)).toBe(true);
    await eventually(async () => (await call(b, "GET", opPath("listProjects"))).status === 401);
  });

  it("counts every write of its own pool, transactions included", async () => {
    const before = a.store.changes.version;
    await a.store.db.transaction(async (tx) => {
      await tx.execute("update organizations set name = name" as never);
    });
    expect(a.store.changes.version).toBeGreaterThan(before);
  });
});

describe.skipIf(!onPostgres)("the change listener", () => {
  it("listens anew when the store's host is suspected (the pool gave up on it): the cache reads through until it does, and the version moves", async () => {
    const changes = new StoreChanges();
    const warnings: string[] = [];
    const listener = listenForChanges(process.env.TEST_DATABASE_URL!, changes, (m) => warnings.push(m));
    try {
      await eventually(async () => changes.coherent);
      const before = changes.version;
      listener.suspect("the store's host 127.0.0.1:1 failed");
      expect(changes.coherent).toBe(false);
      expect(warnings).toEqual(["change listener lost its connection: cached reads are off until it is back"]);
      await eventually(async () => changes.coherent);
      expect(changes.version).toBeGreaterThan(before);
    } finally {
      await listener.close();
    }
  });

  it("listens anew when its heartbeat does not come back: notices stopped reaching it with its connection still open", async () => {
    const changes = new StoreChanges();
    const warnings: Array<{ message: string; error: unknown }> = [];
    // Sent nowhere: as a listener left on a server no one writes to any more hears nothing of the writes.
    const listener = listenForChanges(process.env.TEST_DATABASE_URL!, changes, (message, fields) => warnings.push({ message, error: fields.error }), {
      send: async () => undefined,
      everyMs: 100,
    });
    try {
      await eventually(async () => changes.coherent);
      const before = changes.version;
      await eventually(async () => warnings.length > 0);
      expect(warnings[0]).toEqual({ message: "change listener lost its connection: cached reads are off until it is back", error: "its heartbeat did not come back within 0.3 s" });
      await eventually(async () => changes.coherent && changes.version > before);
    } finally {
      await listener.close();
    }
  });

  it("stays listening while its heartbeats come back through the pool, and counts none as a change", async () => {
    const changes = new StoreChanges();
    const seen: Array<string[] | undefined> = [];
    const changed = changes.changed.bind(changes);
    changes.changed = (tables?: Iterable<string>) => {
      seen.push(tables ? [...tables] : undefined);
      changed(tables);
    };
    const warnings: string[] = [];
    const pool = new pg.Pool({ connectionString: process.env.TEST_DATABASE_URL!, max: 1 });
    let stall = false;
    const sender = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL! });
    await sender.connect();
    const listener = listenForChanges(process.env.TEST_DATABASE_URL!, changes, (m) => warnings.push(m), {
      send: (payload) => {
        if (!stall) return poolHeartbeat(pool).send(payload);
        stall = false;
        // Written at once (a connected client's first query), then, once this turn of the loop has looked at its
        // sockets (the notice not back yet), the loop held while it comes back.
        const sent = sender.query("select pg_notify('stratus_changes', $1)", [payload]);
        setImmediate(() => {
          for (const until = performance.now() + 700; performance.now() < until; );
        });
        return sent;
      },
      everyMs: 100,
    });
    try {
      await eventually(async () => changes.coherent);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(warnings).toEqual([]);
      // The event loop held for longer than a heartbeat's wait, right after one was sent: the one back meanwhile is
      // read only after the timers have run.
      stall = true;
      await eventually(async () => !stall);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(warnings).toEqual([]);
      expect(changes.coherent).toBe(true);
      expect(seen.flat().filter((table) => table?.startsWith("heartbeat:"))).toEqual([]);
    } finally {
      await listener.close();
      await pool.end();
      await sender.end();
    }
  });

  it("keeps caches reading through while it cannot listen", async () => {
    const changes = new StoreChanges();
    const warnings: string[] = [];
    const listener = listenForChanges("postgres://nobody@127.0.0.1:1/none", changes, (m) => warnings.push(m));
    await eventually(async () => warnings.length > 0);
    expect(changes.coherent).toBe(false);
    await listener.close();
  });
});
