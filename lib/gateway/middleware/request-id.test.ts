import { request as httpRequest, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { createApp } from "../app";
import type { GatewayDeps } from "../context";
import { createLogger } from "../logger";
import { listen } from "../server";
import { opPath } from "../testing";
import { readBody } from "./request-id";

/** The app with a slow route and an echo route added, no store: the frame needs none. */
function appWithLog() {
  const lines: Array<Record<string, unknown>> = [];
  const deps = {
    logger: createLogger("info", (line) => lines.push(JSON.parse(line) as Record<string, unknown>)),
    requestTimeoutMs: 50,
    trustedProxyHops: 0,
    maxBodyBytes: 16,
  } as unknown as GatewayDeps;
  const app = createApp(deps);
  app.get("/slow", async (c) => {
    await new Promise((resolve) => setTimeout(resolve, 500));
    return c.json({ late: true });
  });
  // As the API and the SCIM service read a body: after their authentication, which this route has none of.
  app.post("/echo", readBody, async (c) => c.text(await c.req.text()));
  return { app, lines };
}

describe("the request frame", () => {
  it("answers 504 with the error body when the answer takes longer than the deadline, and logs it", async () => {
    const { app, lines } = appWithLog();
    const started = performance.now();
    const res = await app.request("http://gateway.test/slow");
    expect(performance.now() - started).toBeLessThan(450);
    expect(res.status).toBe(504);
    const body = (await res.json()) as Record<string, string>;
    expect(body).toMatchObject({ code: "504", reason: "timeout" });
    expect(body.message).toContain("50 ms");
    expect(body.error_id).toBe(res.headers.get("x-request-id"));
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: "error", msg: "request", method: "GET", path: "/slow", status: 504, request_id: body.error_id });
  });

  it("refuses a body above the limit with 413 and logs the refusal", async () => {
    const { app, lines } = appWithLog();
    const res = await app.request("http://gateway.test/echo", { method: "POST", body: "x".repeat(100) });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: "413", reason: "payload_too_large" });
    expect(lines[0]).toMatchObject({ level: "info", status: 413, error: "body: larger than 16 bytes" });
    const small = await app.request("http://gateway.test/echo", { method: "POST", body: "hello" });
    expect(await small.text()).toBe("hello");
  });

  // A body with and without a declared length: the limit reads the second itself.
  const sent = (body: BodyInit, length?: number): RequestInit =>
    ({ method: "POST", body, duplex: "half", headers: length === undefined ? {} : { "content-length": String(length) } }) as RequestInit;

  it("refuses a body that is not UTF-8 with a 400 rather than read its bad bytes as U+FFFD, and takes one that is", async () => {
    const { app, lines } = appWithLog();
    const bad = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]);
    for (const length of [undefined, bad.length]) {
      const res = await app.request("http://gateway.test/echo", sent(bad, length));
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: "400", reason: "bad_request", message: "body: is not valid UTF-8" });
    }
    expect(lines.map((l) => l.status)).toEqual([400, 400]);
    const good = new TextEncoder().encode("héllo ✓");
    for (const length of [undefined, good.length]) expect(await (await app.request("http://gateway.test/echo", sent(good, length))).text()).toBe("héllo ✓");
    // Above the limit it is still a 413, declared or not.
    expect((await app.request("http://gateway.test/echo", sent("x".repeat(100), 100))).status).toBe(413);
  });

  it("answers an upload that breaks off with a 400, logged as the caller's failure, not an unhandled error", async () => {
    const { app, lines } = appWithLog();
    const broken = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("{"));
          controller.error(new Error("aborted"));
        },
      });
    for (const length of [undefined, 10]) {
      const res = await app.request("http://gateway.test/echo", sent(broken(), length));
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ message: "body: the upload broke off before its end" });
    }
    expect(lines.map((l) => [l.level, l.status])).toEqual([
      ["info", 400],
      ["info", 400],
    ]);
  });

  it("keeps a sane incoming request id, logs one line per request without the query", async () => {
    const { app, lines } = appWithLog();
    const res = await app.request("http://gateway.test/healthz?token=secret", { headers: { "x-request-id": "trace-0123456789" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe("trace-0123456789");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ request_id: "trace-0123456789", status: 200, path: "/healthz" });
    expect(typeof lines[0]?.duration_ms).toBe("number");
    expect(JSON.stringify(lines[0])).not.toContain("secret");
  });

  it("answers a caller it does not know without reading, or waiting for, its upload", async () => {
    const { app, lines } = appWithLog();
    const server = listen(app.fetch, { port: 0, hostname: "127.0.0.1" });
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    const { port } = server.address() as AddressInfo;
    // Announces a body it never sends: read first, the request would wait for it until its deadline (504).
    const stalled = (path: string, headers: Record<string, string>) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = httpRequest({ host: "127.0.0.1", port, path, method: "POST", agent: false, headers: { "content-type": "application/json", "content-length": "12", ...headers } });
        req.on("response", (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (text += chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on("error", (error: NodeJS.ErrnoException) => (error.code === "ECONNRESET" ? undefined : reject(error)));
        req.write("{");
      });
    try {
      const api = await stalled(`/v1${opPath("createProject")}`, { authorization: "Bearer 1.0:nobody:nothing" });
      expect(api.status).toBe(401);
      expect(JSON.parse(api.text)).toMatchObject({ code: "401", reason: "unauthenticated" });
      const scim = await stalled("/scim/v2/Users", {});
      expect(scim.status).toBe(401);
      expect(JSON.parse(scim.text)).toMatchObject({ status: "401" });
      expect(lines.map((l) => l.status)).toEqual([401, 401]);
    } finally {
      (server as HttpServer).closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
