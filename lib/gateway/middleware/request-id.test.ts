import { describe, expect, it } from "vitest";
import { createApp } from "../app";
import type { GatewayDeps } from "../context";
import { createLogger } from "../logger";

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
  app.post("/echo", async (c) => c.text(await c.req.text()));
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
});
