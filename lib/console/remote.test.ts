import { existsSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { signInWithKey, UNKNOWN_OWNER } from "@/lib/console/sign-in";
import { operationPath } from "@/lib/contract/operations";
import { desc } from "drizzle-orm";
import { resetEnvCache } from "@/lib/env";
import { auditLog } from "@/lib/gateway/store/schema";
import { setMfaMethods } from "@/lib/gateway/store/queries/mfa";
import { gatewayRouteHandlers } from "@/lib/gateway/next-handler";
import { listen } from "@/lib/gateway/server";
import { SIGN_IN_ERROR } from "@/lib/contract/sign-in-messages";
import { handleCloudRequest, type BffDeps } from "./bff";
import { cloudFetch, cloudJson, remoteFirstByteTimeoutMs } from "./gateway-client";
import type { ConsoleSession } from "./session";
import { consoleDb, setConsoleDbForTests } from "./store/client";
import { createConsoleTestbed, type ConsoleTestbed } from "./testing";

/** The console against a gateway elsewhere (CLOUD_API_URL): real HTTP, its own PGlite under the data dir. */
let bed: ConsoleTestbed;
let server: ReturnType<typeof listen>;
beforeAll(async () => {
  bed = await createConsoleTestbed();
  const gatewayFetch = bed.t.gateway.app.fetch;
  // The standalone gateway's own server, as a gateway elsewhere runs it (`npm run gateway`).
  server = await new Promise<ReturnType<typeof listen>>((resolve) => {
    const s = listen(gatewayFetch, { port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  process.env.CLOUD_API_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  resetEnvCache();
  setConsoleDbForTests(undefined);
  // The console's own store (PGlite under the data dir) opens and migrates here, in the set-up's time,
  // not in the first test's: on a busy machine that took longer than a test may.
  await consoleDb();
});
const standIns: http.Server[] = [];
afterAll(async () => {
  for (const s of standIns) s.closeAllConnections();
  await Promise.all(standIns.map((s) => new Promise((resolve) => s.close(resolve))));
  await new Promise((resolve) => server.close(resolve));
  await bed.close();
});

const gatewayOrigin = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** The console pointed at `url` for the length of `run`, then back at the gateway. */
async function pointedAt<T>(url: string, run: () => Promise<T>): Promise<T> {
  process.env.CLOUD_API_URL = url;
  resetEnvCache();
  try {
    return await run();
  } finally {
    process.env.CLOUD_API_URL = `${gatewayOrigin()}/`;
    resetEnvCache();
  }
}

/** An HTTP server on loopback standing in for what may sit between the console and the gateway. */
async function standIn(handler: http.RequestListener): Promise<string> {
  const s = http.createServer(handler);
  standIns.push(s);
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

const ownerSignIn = (clientIp: string) => {
  const owner = bed.t.demo.owner;
  return signInWithKey({ credentials: { accessKeyId: owner.access_key_id, secretKey: owner.secret_key }, clientIp, rateLimited: true });
};

function bffFor(session: ConsoleSession) {
  const deps: BffDeps = { session: async () => ({ status: "active", session }), fetch: cloudFetch, maxBodyBytes: 1 << 20, trustedProxyHops: 0 };
  return (path: string, init: RequestInit = {}) => handleCloudRequest(new Request(`http://console.test/api/cloud${path}`, { ...init, headers: { host: "console.test" } }), deps);
}

describe("remote gateway", () => {
  it("signs in over HTTP and keeps the vault in ${STRATUS_DATA_DIR}/console", async () => {
    const owner = bed.t.demo.owner;
    const s = await signInWithKey({ credentials: { accessKeyId: owner.access_key_id, secretKey: owner.secret_key }, clientIp: "203.0.113.70", rateLimited: true });
    // No "who am I" operation in the interface: a remote gateway's key stays anonymous for display.
    expect({ userId: s.userId, email: s.email }).toEqual(UNKNOWN_OWNER);
    expect(existsSync(path.join(bed.dataDir, "console", "pgdata"))).toBe(true);

    const entities = await cloudJson<{ items: Array<{ id: string }> }>(s, operationPath("getOrganizations"));
    expect(entities.items.map((o) => o.id)).toContain(bed.t.demo.organization_id);
    const vms = await cloudFetch(s, "GET", "/v1alpha5/locations");
    expect(vms.status).toBe(200);
  });

  it("with the channel key shared, the gateway files the console's calls as the console's, with the browser's address; without it, as the API's", async () => {
    const owner = bed.t.demo.owner;
    const s = await signInWithKey({ credentials: { accessKeyId: owner.access_key_id, secretKey: owner.secret_key }, clientIp: "203.0.113.73", rateLimited: false });
    const lastEntry = async () => {
      const rows = await bed.t.gateway.store.db.select().from(auditLog).orderBy(desc(auditLog.seq)).limit(1);
      return { surface: rows[0]!.surface, clientIp: rows[0]!.clientIp, name: rows[0]!.targetNames[0] };
    };
    const create = (name: string) =>
      cloudFetch(s, "POST", operationPath("createProject"), {
        body: JSON.stringify({ organization_id: bed.t.demo.organization_id, name }),
        headers: { "content-type": "application/json" },
        clientIp: "198.51.100.88",
      });
    const key = "console-channel-key-0123456789abcdef0123456789";
    process.env.STRATUS_CONSOLE_CHANNEL_KEY = key;
    resetEnvCache();
    bed.t.gateway.deps.consoleChannelKey = key;
    try {
      expect((await create("remote-marked")).status).toBe(200);
      expect(await lastEntry()).toEqual({ surface: "console", clientIp: "198.51.100.88", name: "remote-marked" });
      // A gateway holding another key does not take the mark.
      bed.t.gateway.deps.consoleChannelKey = `${key}-other`;
      expect((await create("remote-wrong-key")).status).toBe(200);
      expect(await lastEntry()).toMatchObject({ surface: "api", name: "remote-wrong-key" });
    } finally {
      delete process.env.STRATUS_CONSOLE_CHANNEL_KEY;
      resetEnvCache();
      bed.t.gateway.deps.consoleChannelKey = undefined;
    }
    expect((await create("remote-unmarked")).status).toBe(200);
    expect(await lastEntry()).toMatchObject({ surface: "api", name: "remote-unmarked" });
    expect((await lastEntry()).clientIp).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
  });

  it("a key of an organization that requires a second factor opens no session: the factor cannot be asked for here", async () => {
    const { db } = bed.t.gateway.store;
    const org = bed.t.demo.organization_id;
    const owner = bed.t.demo.owner;
    const signIn = () => signInWithKey({ credentials: { accessKeyId: owner.access_key_id, secretKey: owner.secret_key }, clientIp: "203.0.113.74", rateLimited: false });
    await setMfaMethods(db, org, ["totp"], new Date());
    try {
      await expect(signIn()).rejects.toMatchObject({ code: SIGN_IN_ERROR.mfaUnavailable });
    } finally {
      await setMfaMethods(db, org, [], new Date());
    }
    expect((await signIn()).mfaPending).toBe(false);
  });

  it("serves no API and no SCIM of its own (they are the remote gateway's)", async () => {
    const api = await gatewayRouteHandlers.GET(new Request("http://console.test/v1/locations"));
    expect(api.status).toBe(404);
    expect(await api.json()).toMatchObject({ code: "404", reason: "not_found", message: "this console does not serve the API: call the gateway" });
    // An identity provider reads SCIM errors only.
    const scim = await gatewayRouteHandlers.GET(new Request("http://console.test/scim/v2/Users"));
    expect(scim.status).toBe(404);
    expect(await scim.json()).toEqual({ schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"], status: "404", detail: "this console does not serve the API: call the gateway" });
  });

  it("a wrong secret is refused by the remote gateway", async () => {
    await expect(
      signInWithKey({ credentials: { accessKeyId: bed.t.demo.owner.access_key_id, secretKey: "B".repeat(43) }, clientIp: "203.0.113.71", rateLimited: true }),
    ).rejects.toMatchObject({ code: "invalid_key" });
  });

  it("an unreachable gateway is reported as such, not as a wrong key", async () => {
    process.env.CLOUD_API_URL = "http://127.0.0.1:9/";
    resetEnvCache();
    try {
      const owner = bed.t.demo.owner;
      await expect(
        signInWithKey({ credentials: { accessKeyId: owner.access_key_id, secretKey: owner.secret_key }, clientIp: "203.0.113.72", rateLimited: true }),
      ).rejects.toMatchObject({ code: "gateway_unavailable" });
    } finally {
      process.env.CLOUD_API_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      resetEnvCache();
    }
  });

  it("signs the versioned path under a CLOUD_API_URL whose own path a proxy in front of the gateway strips", async () => {
    const seen: string[] = [];
    const proxy = await standIn((req, res) => {
      seen.push(req.url ?? "");
      const upstream = http.request(`${gatewayOrigin()}${(req.url ?? "").replace(/^\/platform(?=\/)/, "")}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    await pointedAt(`${proxy}/platform/`, async () => {
      const s = await ownerSignIn("203.0.113.75");
      const entities = await cloudJson<{ items: Array<{ id: string }> }>(s, operationPath("getOrganizations"));
      expect(entities.items.map((o) => o.id)).toContain(bed.t.demo.organization_id);
    });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.every((url) => url.startsWith("/platform/v1/"))).toBe(true);
  });

  /** `run` with the deadlines shortened: the gateway's to 1 s, so the console waits 2 s for an answer to begin. */
  async function withShortDeadline<T>(run: () => Promise<T>): Promise<T> {
    process.env.STRATUS_REQUEST_TIMEOUT_SECONDS = "1";
    resetEnvCache();
    try {
      expect(remoteFirstByteTimeoutMs()).toBe(2_000);
      return await run();
    } finally {
      delete process.env.STRATUS_REQUEST_TIMEOUT_SECONDS;
      resetEnvCache();
    }
  }

  it("waits for an answer to begin, not for a long export to end: the time limit stops at the first byte", async () => {
    const s = await ownerSignIn("203.0.113.76");
    const remote = await standIn((_req, res) => {
      res.writeHead(200, { "content-type": "text/csv" });
      res.write("a,b\n");
      // The export's second part comes after the whole call's time would have run out.
      setTimeout(() => res.end("c,d\n"), 3_000);
    });
    await withShortDeadline(() =>
      pointedAt(remote, async () => {
        const res = await bffFor(s)(operationPath("getBillingExportProductline", { organization_id: bed.t.demo.organization_id }));
        expect(res.status).toBe(200);
        expect(await res.text()).toBe("a,b\nc,d\n");
      }),
    );
  });

  it("answers 504 when the remote gateway does not begin to answer in time", async () => {
    const s = await ownerSignIn("203.0.113.77");
    const remote = await standIn(() => {}); // never answers
    await withShortDeadline(() =>
      pointedAt(remote, async () => {
        const started = Date.now();
        const res = await bffFor(s)(operationPath("getOrganizations"));
        expect(res.status).toBe(504);
        expect(await res.json()).toMatchObject({ reason: "timeout" });
        expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
      }),
    );
  });

  it("a browser that gives up ends the call to a remote gateway that has not answered yet", async () => {
    const s = await ownerSignIn("203.0.113.78");
    let closed = false;
    const remote = await standIn((req) => {
      req.socket.on("close", () => (closed = true)); // never answers
    });
    await pointedAt(remote, async () => {
      const browser = new AbortController();
      const deps: BffDeps = { session: async () => ({ status: "active", session: s }), fetch: cloudFetch, maxBodyBytes: 1 << 20, trustedProxyHops: 0 };
      const pending = handleCloudRequest(new Request(`http://console.test/api/cloud${operationPath("getOrganizations")}`, { headers: { host: "console.test" }, signal: browser.signal }), deps);
      await new Promise((resolve) => setTimeout(resolve, 200));
      browser.abort();
      expect((await pending).status).toBe(499);
      await vi.waitFor(() => expect(closed).toBe(true), { timeout: 5_000 });
    });
  });

  it("a refusal while the gateway's clock is beyond the allowed skew keeps the session and counts no failed sign-in; within it, the refusal is the key's", async () => {
    const s = await ownerSignIn("203.0.113.79");
    // A gateway whose clock is ahead: beyond the allowed skew (300 s) it refuses every signature, as the real one would.
    let aheadMs = 600_000;
    const remote = await standIn((_req, res) => {
      res.writeHead(401, { "content-type": "application/json", date: new Date(Date.now() + aheadMs).toUTCString() });
      res.end(JSON.stringify({ code: "401", message: "X-Service-Timestamp is outside the allowed clock skew", reason: "unauthenticated" }));
    });
    const lines: string[] = [];
    const logged = vi.spyOn(process.stderr, "write").mockImplementation((line: string | Uint8Array) => (lines.push(String(line)), true));
    try {
      await pointedAt(remote, async () => {
        for (let i = 0; i < 3; i++) {
          const res = await cloudFetch(s, "GET", operationPath("getOrganizations"));
          expect(res.status).toBe(502);
          expect(await res.json()).toMatchObject({ reason: "clock_skew" });
        }
        await expect(ownerSignIn("203.0.113.79")).rejects.toMatchObject({ code: SIGN_IN_ERROR.gatewayUnavailable });
      });
    } finally {
      logged.mockRestore();
    }
    // Logged once, however many calls it refused.
    expect(lines.filter((line) => line.includes("gateway_ahead_seconds"))).toHaveLength(1);
    expect(lines.join("")).toMatch(/"gateway_ahead_seconds":(599|600|601),"allowed_skew_seconds":300\b/);
    // Back on the gateway, the same session still calls it: it was not ended.
    expect((await cloudFetch(s, "GET", operationPath("getOrganizations"))).status).toBe(200);

    // A minute ahead is within the allowed skew: the signature's time was good, so the key itself was refused.
    aheadMs = 60_000;
    await pointedAt(remote, async () => {
      const res = await cloudFetch(s, "GET", operationPath("getOrganizations"));
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ reason: "session_revoked" });
      await expect(ownerSignIn("203.0.113.79")).rejects.toMatchObject({ code: SIGN_IN_ERROR.invalidKey });
    });
  });
});
