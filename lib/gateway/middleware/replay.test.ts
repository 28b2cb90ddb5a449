import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationPath } from "@/lib/contract/operations";
import { ReadCache } from "@/lib/db/read-cache";
import { authorizationHeader, sign, signedHeaders } from "@/lib/signing";
import { createApp } from "../app";
import type { AppEnv } from "../context";
import { GatewayError } from "../errors";
import { projects, requestSignatures } from "../store/schema";
import { createTestGateway, type TestGateway } from "../testing";
import { recordedSignatures, REPLAY_MESSAGE } from "./replay";
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
    expect(await again.json()).toMatchObject({ reason: "unauthenticated", message: REPLAY_MESSAGE });
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
    it("is taken while the first call's change rolled back, and refused once a change commits under it", async () => {
      expect((await create(ownerHeaders("POST", URL_PROJECTS), "retry-taken")).status).toBe(200);
      // The same name again: refused inside the change's transaction, after the signature was spent there.
      const headers = ownerHeaders("POST", URL_PROJECTS);
      const first = await create(headers, "retry-taken");
      expect(first.status).toBe(400);
      // The retry gets the call's own answer again, not "already used".
      const retry = await create(headers, "retry-taken");
      expect(retry.status).toBe(400);
      expect(await retry.json()).toMatchObject({ message: expect.stringContaining("already exists") });
      // Once the name is free, the same retry makes the change, and a replay after it is refused.
      const [held] = await t.gateway.store.db.select().from(projects).where(eq(projects.name, "retry-taken"));
      await t.gateway.store.db.update(projects).set({ name: "retry-taken-renamed" }).where(eq(projects.id, held!.id));
      expect((await create(headers, "retry-taken")).status).toBe(200);
      const replay = await create(headers, "retry-taken");
      expect(replay.status).toBe(401);
      expect(await replay.json()).toMatchObject({ message: REPLAY_MESSAGE });
      expect(await named("retry-taken")).toBe(1);
    });

    it("is taken after a refusal before any change (a body the contract refuses)", async () => {
      const headers = ownerHeaders("POST", URL_PROJECTS);
      const bad = { method: "POST", headers, body: JSON.stringify({ organization_id: t.demo.organization_id, name: "" }) };
      expect((await t.gateway.app.request(URL_PROJECTS, bad)).status).toBe(400);
      expect((await t.gateway.app.request(URL_PROJECTS, bad)).status).toBe(400);
    });

    it("is refused with another body, though nothing was changed", async () => {
      const headers = ownerHeaders("POST", URL_PROJECTS);
      expect((await create(headers, "retry-taken")).status).toBe(400);
      const other = await create(headers, "retry-other-body");
      expect(other.status).toBe(401);
      expect(await named("retry-other-body")).toBe(0);
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
