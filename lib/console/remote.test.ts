import { existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInWithKey, UNKNOWN_OWNER } from "@/lib/console/sign-in";
import { operationPath } from "@/lib/contract/operations";
import { desc } from "drizzle-orm";
import { resetEnvCache } from "@/lib/env";
import { auditLog } from "@/lib/gateway/store/schema";
import { setMfaMethods } from "@/lib/gateway/store/queries/mfa";
import { gatewayRouteHandlers } from "@/lib/gateway/next-handler";
import { listen } from "@/lib/gateway/server";
import { SIGN_IN_ERROR } from "@/lib/contract/sign-in-messages";
import { cloudFetch, cloudJson } from "./gateway-client";
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
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await bed.close();
});

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
    for (const url of ["http://console.test/v1/locations", "http://console.test/scim/v2/Users"]) {
      const res = await gatewayRouteHandlers.GET(new Request(url));
      expect(res.status, url).toBe(404);
      expect(await res.json()).toMatchObject({ message: "this console does not serve the API: call the gateway" });
    }
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
});
