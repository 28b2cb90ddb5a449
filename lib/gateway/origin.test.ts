import type { AddressInfo } from "node:net";
import type { ServerType } from "@hono/node-server";
import { desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installRequestGuard } from "@/lib/client-address";
import { signedHeaders } from "@/lib/signing";
import { CONSOLE_CHANNEL_HEADER, consoleChannelMark, type GatewayBindings } from "./origin";
import { listen } from "./server";
import { auditLog } from "./store/schema";
import { createTestGateway, type TestGateway } from "./testing";

let t: TestGateway;
let server: ServerType;
let base: string;

beforeAll(async () => {
  t = await createTestGateway();
  installRequestGuard();
  // The standalone gateway's own server, as `npm run gateway` runs it.
  server = listen(t.gateway.app.fetch, { port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await t.close();
});

async function lastEntry(name: string) {
  const [row] = await t.gateway.store.db
    .select({ clientIp: auditLog.clientIp, surface: auditLog.surface })
    .from(auditLog)
    .where(eq(auditLog.organizationId, t.demo.organization_id))
    .orderBy(desc(auditLog.seq))
    .limit(1);
  expect(row, name).toBeDefined();
  return row!;
}

function createProject(url: string, name: string, headers: Record<string, string>, bindings?: GatewayBindings) {
  const owner = t.demo.owner;
  const request = new Request(url, {
    method: "POST",
    headers: {
      ...signedHeaders({ accessKeyId: owner.access_key_id, secretKey: owner.secret_key }, { method: "POST", url }),
      "content-type": "application/json",
      ...headers,
    },
    body: JSON.stringify({ organization_id: t.demo.organization_id, name }),
  });
  return bindings ? t.gateway.app.fetch(request, bindings) : fetch(request);
}

describe("who the audit log says called", () => {
  it("a direct call is the API's, at the socket's address, whatever its headers claim", async () => {
    const res = await createProject(`${base}/v1/organizations/projects`, "origin-direct", {
      "x-forwarded-for": "6.6.6.6",
      "x-real-ip": "6.6.6.7",
      "x-stratus-surface": "console",
      "x-stratus-peer-address": "6.6.6.8",
    });
    expect(res.status).toBe(200);
    const entry = await lastEntry("direct");
    expect(entry.surface).toBe("api");
    expect(entry.clientIp).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
  });

  it("behind trusted proxies, the entry the farthest trusted one wrote; never one further left", async () => {
    t.gateway.deps.trustedProxyHops = 1;
    try {
      const res = await createProject(`${base}/v1/organizations/projects`, "origin-proxied", { "x-forwarded-for": "6.6.6.6, 198.51.100.23" });
      expect(res.status).toBe(200);
      expect(await lastEntry("proxied")).toEqual({ surface: "api", clientIp: "198.51.100.23" });
    } finally {
      t.gateway.deps.trustedProxyHops = 0;
    }
  });

  it("the console's mark travels beside the request, in process, never in it", async () => {
    const url = "http://gateway.embedded/v1/organizations/projects";
    expect((await createProject(url, "origin-console", { "x-forwarded-for": "6.6.6.6" }, { console: { clientIp: "203.0.113.44" } })).status).toBe(200);
    expect(await lastEntry("console")).toEqual({ surface: "console", clientIp: "203.0.113.44" });
    // The embedded gateway's public mount hands over the socket's address only.
    expect((await createProject(url, "origin-mount", { "x-stratus-surface": "console", "x-forwarded-for": "6.6.6.6" }, { peerAddress: "192.0.2.7" })).status).toBe(200);
    expect(await lastEntry("mount")).toEqual({ surface: "api", clientIp: "192.0.2.7" });
  });
});

describe("a console's mark on a remote call", () => {
  const KEY = "console-channel-key-for-origin-tests-0123456789";

  it("counts only when it is an HMAC under the shared key over that very call's signature", async () => {
    t.gateway.deps.consoleChannelKey = KEY;
    try {
      const url = `${base}/v1/organizations/projects`;
      const owner = t.demo.owner;
      const send = async (name: string, mark: (authorization: string) => string) => {
        const signed = signedHeaders({ accessKeyId: owner.access_key_id, secretKey: owner.secret_key }, { method: "POST", url });
        const res = await fetch(url, {
          method: "POST",
          headers: { ...signed, "content-type": "application/json", [CONSOLE_CHANNEL_HEADER]: mark(signed.Authorization ?? "") },
          body: JSON.stringify({ organization_id: t.demo.organization_id, name }),
        });
        expect(res.status).toBe(200);
        return lastEntry(name);
      };
      expect(await send("mark-good", (auth) => consoleChannelMark(KEY, auth, "203.0.113.9")!)).toEqual({ surface: "console", clientIp: "203.0.113.9" });
      expect((await send("mark-forged", () => "203.0.113.9;AAAA")).surface).toBe("api");
      expect((await send("mark-wrong-key", (auth) => consoleChannelMark(`${KEY}x`, auth, "203.0.113.9")!)).surface).toBe("api");
      const other = signedHeaders({ accessKeyId: owner.access_key_id, secretKey: owner.secret_key }, { method: "POST", url }).Authorization ?? "";
      expect((await send("mark-copied", () => consoleChannelMark(KEY, other, "203.0.113.9")!)).surface).toBe("api");
      expect((await send("mark-altered", (auth) => consoleChannelMark(KEY, auth, "203.0.113.9")!.replace("203.0.113.9", "6.6.6.6"))).surface).toBe("api");
    } finally {
      t.gateway.deps.consoleChannelKey = undefined;
    }
  });
});

describe("methods", () => {
  it.each(["TRACE", "PROPFIND", "PURGE"])("%s is 405 with the error body, over the wire", async (method) => {
    const { request } = await import("node:http");
    const answer = await new Promise<{ status: number; body: string; allow: string | undefined }>((resolve, reject) => {
      const req = request(`${base}/v1/locations`, { method }, (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body, allow: res.headers.allow }));
      });
      req.on("error", reject);
      req.end();
    });
    expect(answer.status).toBe(405);
    expect(JSON.parse(answer.body)).toMatchObject({ code: "405", reason: "method_not_allowed" });
    expect(answer.allow).toContain("GET");
  });

  it("an unsupported method reaching the app itself is 405 too", async () => {
    const res = await t.gateway.app.request("http://gateway.test/v1/locations", { method: "PROPFIND" });
    expect(res.status).toBe(405);
    expect(await res.json()).toMatchObject({ code: "405", reason: "method_not_allowed" });
  });
});
