import { eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationPath } from "@/lib/contract/operations";
import { ReadCache } from "@/lib/db/read-cache";
import { authorizationHeader, sign, signedHeaders } from "@/lib/signing";
import { createApiKey, revokeApiKey } from "../admin";
import { createApp } from "../app";
import type { AppEnv } from "../context";
import { GatewayError } from "../errors";
import { projects, requestSignatures } from "../store/schema";
import { createTestGateway, type TestGateway } from "../testing";
import { MAX_ATTEMPTS, OUT_OF_WINDOW_MESSAGE, recordedSignatures, REPLAY_MESSAGE } from "./replay";
import { verifySignature } from "./verify-signature";

let t: TestGateway;
beforeAll(async () => {
  t = await createTestGateway();
  // Left by an earlier window: the first mutation of this process purges it.
  await t.gateway.store.db.insert(requestSignatures).values({ signature: "expired-long-ago", expiresAt: new Date(Date.now() - 60_000) });
});
afterAll(() => t.close());

const URL_PROJECTS = `http://gateway.test${operationPath("createProject")}`;

function ownerHeaders(method: string, url: string, now?: Date): Record<string, string> {
  const owner = t.demo.owner;
  return { ...signedHeaders({ accessKeyId: owner.access_key_id, secretKey: owner.secret_key }, { method, url }, now), "content-type": "application/json" };
}

const create = (headers: Record<string, string>, name: string, app = t.gateway.app) =>
  app.request(URL_PROJECTS, { method: "POST", headers, body: JSON.stringify({ organization_id: t.demo.organization_id, name }) });

const named = async (name: string) => (await t.gateway.store.db.select().from(projects).where(eq(projects.name, name))).length;

describe("a replayed signature", () => {
  it("is refused on a mutation, even with another body, and nothing is created by it", async () => {
    const headers = ownerHeaders("POST", URL_PROJECTS);
    expect((await create(headers, "replay-first")).status).toBe(200);
    const again = await create(headers, "replay-second");
    expect(again.status).toBe(401);
    // Said as a use with another body (this call was not made), not as the first call's own repeat.
    expect(await again.json()).toMatchObject({ reason: "unauthenticated", message: "this signature was sent before with another body: sign every request anew" });
    const repeat = await create(headers, "replay-first");
    expect(await repeat.json()).toMatchObject({ reason: "unauthenticated", message: REPLAY_MESSAGE });
    expect(await named("replay-first")).toBe(1);
    expect(await named("replay-second")).toBe(0);
  });

  it("is refused by another replica sharing the store", async () => {
    const replica = createApp({ ...t.gateway.deps, reads: new ReadCache(t.gateway.store.changes) });
    const headers = ownerHeaders("POST", URL_PROJECTS);
    expect((await create(headers, "replica-first")).status).toBe(200);
    expect((await create(headers, "replica-second", replica)).status).toBe(401);
    expect(await named("replica-second")).toBe(0);
  });

  it("on a read is still answered (a GET changes nothing)", async () => {
    const url = "http://gateway.test/v1/organizations/projects";
    const headers = ownerHeaders("GET", url);
    for (let i = 0; i < 3; i++) expect((await t.gateway.app.request(url, { headers })).status).toBe(200);
  });

  it("is never what two calls signed in one millisecond get: each is accepted", async () => {
    const now = new Date();
    const [a, b] = [ownerHeaders("POST", URL_PROJECTS, now), ownerHeaders("POST", URL_PROJECTS, now)];
    expect(a.Authorization).not.toBe(b.Authorization);
    expect((await create(a, "same-ms-a")).status).toBe(200);
    expect((await create(b, "same-ms-b")).status).toBe(200);
  });

  it("is kept only while its window lasts: records past it are purged", async () => {
    const rows = await t.gateway.store.db.select().from(requestSignatures);
    expect(rows.map((r) => r.signature)).not.toContain("expired-long-ago");
    expect(rows.every((r) => r.expiresAt.getTime() <= Date.now() + t.gateway.deps.skewSeconds * 1000 + 1_000)).toBe(true);
    expect(await recordedSignatures(t.gateway.deps)).toBe(rows.length);
  });

  describe("sent again after a call that changed nothing (a retry)", () => {
    /** Creating a project of this name fails inside the change's transaction, after the signature was spent there, as a serialization failure does (503). */
    const failing = async (name: string, run: () => Promise<void>) => {
      const db = t.gateway.store.db;
      await db.execute(sql.raw(`CREATE FUNCTION fail_replay_test() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'lost to a concurrent change' USING ERRCODE = '40001'; END $$`));
      await db.execute(sql.raw(`CREATE TRIGGER fail_replay_test BEFORE INSERT ON projects FOR EACH ROW WHEN (NEW.name = '${name}') EXECUTE FUNCTION fail_replay_test()`));
      try {
        await run();
      } finally {
        await db.execute(sql.raw("DROP TRIGGER fail_replay_test ON projects"));
        await db.execute(sql.raw("DROP FUNCTION fail_replay_test()"));
      }
    };

    it("is taken after a 5xx whose change rolled back, and refused once a change commits under it", async () => {
      const headers = ownerHeaders("POST", URL_PROJECTS);
      await failing("retry-taken", async () => {
        const first = await create(headers, "retry-taken");
        expect(first.status).toBe(503);
        expect(first.headers.get("retry-after")).toMatch(/^\d+$/);
        expect((await create(headers, "retry-taken")).status).toBe(503);
      });
      // The same call once more, as go-retryablehttp sends it: the change is made now, and once only.
      expect((await create(headers, "retry-taken")).status).toBe(200);
      const replay = await create(headers, "retry-taken");
      expect(replay.status).toBe(401);
      expect(await replay.json()).toMatchObject({ message: REPLAY_MESSAGE });
      expect(await named("retry-taken")).toBe(1);
    });

    it("is refused after an answer a client does not retry (a 4xx), made inside the change's transaction or before it", async () => {
      const taken = ownerHeaders("POST", URL_PROJECTS);
      expect((await create(taken, "retry-taken")).status).toBe(400); // the name is taken: refused in the transaction
      const again = await create(taken, "retry-taken");
      expect(again.status).toBe(401);
      expect(await again.json()).toMatchObject({ message: REPLAY_MESSAGE });
      const headers = ownerHeaders("POST", URL_PROJECTS);
      const bad = { method: "POST", headers, body: JSON.stringify({ organization_id: t.demo.organization_id, name: "" }) };
      expect((await t.gateway.app.request(URL_PROJECTS, bad)).status).toBe(400);
      expect((await t.gateway.app.request(URL_PROJECTS, bad)).status).toBe(401);
    });

    it("is refused with another body, though nothing was changed", async () => {
      const headers = ownerHeaders("POST", URL_PROJECTS);
      await failing("retry-failed", async () => {
        expect((await create(headers, "retry-failed")).status).toBe(503);
        const other = await create(headers, "retry-other-body");
        expect(other.status).toBe(401);
        expect(await other.json()).toMatchObject({ message: expect.stringContaining("another body") });
      });
      expect(await named("retry-other-body")).toBe(0);
    });

    it(`is taken ${MAX_ATTEMPTS} times at most, as a client's retries are`, async () => {
      const headers = ownerHeaders("POST", URL_PROJECTS);
      await failing("retry-forever", async () => {
        for (let i = 0; i < MAX_ATTEMPTS; i++) expect((await create(headers, "retry-forever")).status).toBe(503);
        const more = await create(headers, "retry-forever");
        expect(more.status).toBe(401);
        expect(await more.json()).toMatchObject({ message: expect.stringContaining(`sent ${MAX_ATTEMPTS} times`) });
      });
      expect((await create(headers, "retry-forever")).status).toBe(401);
      expect(await named("retry-forever")).toBe(0);
    });

    it("makes one change of two identical calls sent at once: the other is refused", async () => {
      const headers = ownerHeaders("POST", URL_PROJECTS);
      const answers = await Promise.all([create(headers, "at-once"), create(headers, "at-once"), create(headers, "at-once")]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 401, 401]);
      expect(await named("at-once")).toBe(1);
    });

    it("is refused when a replica from before claims recorded it (its record spent by default)", async () => {
      const headers = ownerHeaders("POST", URL_PROJECTS);
      const signature = headers.Authorization!.split(":").at(-1)!;
      await t.gateway.store.db.insert(requestSignatures).values({ signature, expiresAt: new Date(Date.now() + 60_000) });
      expect((await create(headers, "old-replica")).status).toBe(401);
      expect(await named("old-replica")).toBe(0);
    });

    it("is spent by a success made without a change through mutate() as well", async () => {
      const bare = new Hono<AppEnv>();
      bare.use("*", async (c, next) => {
        c.set("deps", t.gateway.deps);
        await next();
      });
      bare.use("*", verifySignature);
      bare.post(operationPath("createProject"), (c) => c.json({ nothing: "changed" }, 200));
      bare.onError((error, c) => c.json({ message: error.message }, error instanceof GatewayError ? error.status : 500));
      const headers = ownerHeaders("POST", URL_PROJECTS);
      expect((await create(headers, "bare", bare)).status).toBe(200);
      expect((await create(headers, "bare", bare)).status).toBe(401);
    });
  });

  describe("signed with a whole-second timestamp, as the upstream's Go client signs", () => {
    const goHeaders = () => {
      const owner = t.demo.owner;
      const timestamp = new Date().toISOString().replace(/\.\d+Z$/, "Z");
      const signature = sign(owner.secret_key, { method: "POST", path: operationPath("createProject"), query: "", timestamp });
      return { Authorization: authorizationHeader(owner.access_key_id, signature), "X-Crusoe-Timestamp": timestamp, "content-type": "application/json" };
    };

    it("takes two calls to one path in one second with different bodies", async () => {
      const headers = goHeaders();
      expect((await create(headers, "go-first")).status).toBe(200);
      expect((await create(headers, "go-second")).status).toBe(200);
      expect(await named("go-first")).toBe(1);
      expect(await named("go-second")).toBe(1);
    });

    it("keys on a body read within the limit: one over it is a 413 that spends nothing", async () => {
      const headers = goHeaders();
      const big = new Blob([JSON.stringify({ organization_id: t.demo.organization_id, name: "go-big", pad: "x".repeat(2 * 1024 * 1024) })]);
      // Streamed, so no length is declared and the limit must hold while the body is read.
      const res = await t.gateway.app.request(URL_PROJECTS, { method: "POST", headers, body: big.stream(), duplex: "half" } as RequestInit);
      expect(res.status).toBe(413);
      // The same signature then goes through with a body within the limit.
      expect((await create(headers, "go-after-big")).status).toBe(200);
      expect(await named("go-big")).toBe(0);
    });

    it("refuses the same call with the same body again", async () => {
      const headers = goHeaders();
      expect((await create(headers, "go-once")).status).toBe(200);
      const again = await create(headers, "go-once");
      expect(again.status).toBe(401);
      expect(await again.json()).toMatchObject({ message: REPLAY_MESSAGE });
    });
  });
});

describe("a body that comes slowly", () => {
  const sleepUntil = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));

  /**
   * The body of a project's creation, its bytes held back until `release()` settles, which is called once the gateway
   * reads the body (after verify(): no pull before a read is asked for), as a client sending slowly.
   */
  function slowBody(name: string, release: () => Promise<unknown>): RequestInit {
    const bytes = new TextEncoder().encode(JSON.stringify({ organization_id: t.demo.organization_id, name }));
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          await release();
          controller.enqueue(bytes);
          controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    return { method: "POST", body, duplex: "half" } as RequestInit;
  }

  it("past its signature's window is refused: a replay sent as the window closes takes no expired record over", async () => {
    // A window of 4 s: a spent record lives until 4 s after its first use, as the window after its timestamp does.
    const app = createApp({ ...t.gateway.deps, skewSeconds: 4 });
    const signedAt = Date.now();
    const headers = ownerHeaders("POST", URL_PROJECTS, new Date(signedAt));
    expect((await create(headers, "slow-first", app)).status).toBe(200);
    // The replay's headers come inside the window (verify() takes them), its body once the record has expired.
    await sleepUntil(signedAt + 2_000);
    const answer = await app.request(URL_PROJECTS, { ...slowBody("slow-replay", () => sleepUntil(signedAt + 4_600)), headers });
    expect({ status: answer.status, body: await answer.json() }).toMatchObject({ status: 401, body: { message: OUT_OF_WINDOW_MESSAGE } });
    expect(await named("slow-replay")).toBe(0);
  });

  it("from a key revoked meanwhile changes nothing", async () => {
    const credentials = await createApiKey(t.gateway.store.db, t.gateway.deps.masterKey, t.demo.owner.user_id, "revoked while sending");
    const headers = { ...signedHeaders(credentials, { method: "POST", url: URL_PROJECTS }), "content-type": "application/json" };
    // The headers are taken (the key looked up and cached) before the revocation, which comes while the body does.
    let revoked = false;
    const revoke = async () => {
      revoked = await revokeApiKey(t.gateway.store.db, credentials.accessKeyId);
    };
    const answer = await t.gateway.app.request(URL_PROJECTS, { ...slowBody("sent-while-revoked", revoke), headers });
    expect(revoked).toBe(true);
    expect({ status: answer.status, body: await answer.json() }).toMatchObject({ status: 401, body: { message: "invalid access key or signature" } });
    expect(await named("sent-while-revoked")).toBe(0);
  });
});
