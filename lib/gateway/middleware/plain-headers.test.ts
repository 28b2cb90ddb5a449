import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { plainHeaders, sealPlainHeaders } from "./plain-headers";

const FRAME = { "cache-control": "no-store", "x-request-id": "req-12345678" };

/** An app whose one middleware does what the request frame does with its headers. */
function appWith(route: (app: Hono) => void): Hono {
  const app = new Hono();
  app.use("*", async (c, next) => {
    plainHeaders(c, { ...FRAME });
    await next();
    sealPlainHeaders(c);
  });
  route(app);
  return app;
}

async function answer(app: Hono, path = "/x"): Promise<Response> {
  return app.request(`http://gateway.test${path}`);
}

describe("plain answer headers", () => {
  it("gives a JSON answer the frame's headers, its content type and status", async () => {
    const res = await answer(appWith((app) => app.get("/x", (c) => c.json({ ok: true }, 201))));
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-request-id")).toBe("req-12345678");
    expect(await res.json()).toEqual({ ok: true });
  });

  it("keeps headers set before the answer, the answer's own (one name whatever its case), and c.status", async () => {
    const res = await answer(
      appWith((app) =>
        app.get("/x", (c) => {
          c.header("Location", "/elsewhere");
          c.status(202);
          return c.body("text", undefined, { "Content-Type": "text/csv", "X-Extra": "1" });
        }),
      ),
    );
    expect(res.status).toBe(202);
    expect(res.headers.get("location")).toBe("/elsewhere");
    expect(res.headers.get("content-type")).toBe("text/csv");
    expect(res.headers.get("x-extra")).toBe("1");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect([...res.headers.keys()].filter((name) => name === "content-type")).toHaveLength(1);
  });

  it("gives a body without a type the server's default, and an empty answer none", async () => {
    const text = await answer(appWith((app) => app.get("/x", (c) => c.body("plain"))));
    expect(text.headers.get("content-type")).toMatch(/^text\/plain/);
    const empty = await answer(appWith((app) => app.delete("/x", (c) => c.body(null, 204))), "/x");
    expect(empty.status).toBe(404); // only DELETE is routed: the default 404 still gets the headers
    expect(empty.headers.get("x-request-id")).toBe("req-12345678");
  });

  it("leaves the plain path for an appended header and for answers Hono makes itself, headers kept", async () => {
    const appended = await answer(
      appWith((app) =>
        app.get("/x", (c) => {
          c.header("Vary", "Accept", { append: true });
          c.header("Vary", "Origin", { append: true });
          return c.json({});
        }),
      ),
    );
    expect(appended.headers.get("vary")).toBe("Accept, Origin");
    expect(appended.headers.get("cache-control")).toBe("no-store");

    const redirect = await answer(appWith((app) => app.get("/x", (c) => c.redirect("/there"))));
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("location")).toBe("/there");
    expect(redirect.headers.get("x-request-id")).toBe("req-12345678");

    const made = await answer(appWith((app) => app.get("/x", () => new Response("own", { headers: { "x-own": "1" } }))));
    expect(made.headers.get("x-own")).toBe("1");
    expect(made.headers.get("cache-control")).toBe("no-store");
  });
});
