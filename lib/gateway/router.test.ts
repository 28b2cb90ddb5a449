import { createRoute, z } from "@hono/zod-openapi";
import { describe, expect, it, vi } from "vitest";
import { GatewayError } from "./errors";
import { createRouter } from "./router";

/** A router with one listing whose query is validated, and the count of the schema's parses. */
function listing() {
  const query = z.object({
    limit: z.coerce.number().int().min(1).max(10).optional(),
    name: z.string().optional(),
    tag: z.union([z.string(), z.array(z.string())]).optional(),
  });
  const parses = vi.spyOn(query, "safeParseAsync");
  const router = createRouter();
  router.onError((error, c) => c.json({ message: error.message }, error instanceof GatewayError ? error.status : 500));
  const route = createRoute({
    method: "get",
    path: "/things",
    request: { query },
    responses: { 200: { description: "the query as the handler was given it" } },
  });
  router.openapi(route, (c) => {
    const given = c.req.valid("query");
    return c.json({ given, frozen: Object.isFrozen(given) }, 200);
  });
  const get = async (search: string) => {
    const res = await router.request(`http://gateway.test/things${search}`);
    return { status: res.status, body: (await res.json()) as { given?: unknown; frozen?: boolean; message?: string } };
  };
  return { router, parses, get };
}

describe("a route's query, remembered", () => {
  it("validates a query string once, and gives every request of it the same frozen values", async () => {
    const { parses, get } = listing();
    const first = await get("?limit=3&tag=a&tag=b");
    expect(first).toEqual({ status: 200, body: { given: { limit: 3, tag: ["a", "b"] }, frozen: true } });
    expect(await get("?limit=3&tag=a&tag=b")).toEqual(first);
    expect(parses).toHaveBeenCalledTimes(1);
    // Another query string is its own.
    expect((await get("?limit=4")).body.given).toEqual({ limit: 4 });
    expect((await get("")).body.given).toEqual({});
    expect(parses).toHaveBeenCalledTimes(3);
  });

  it("keeps no failure: a bad query is refused each time, naming the field", async () => {
    const { parses, get } = listing();
    for (let i = 0; i < 2; i++) {
      const res = await get("?limit=11");
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^query\.limit: /);
    }
    expect(parses).toHaveBeenCalledTimes(2);
  });

  it("refuses a value the store could not keep, each time", async () => {
    const { get } = listing();
    for (let i = 0; i < 2; i++) {
      expect(await get("?name=a%00b")).toEqual({ status: 400, body: { message: "query.name: must not contain NUL characters or unpaired surrogates" } });
    }
  });

  it("still documents the query's parameters", () => {
    const { router } = listing();
    const doc = router.getOpenAPIDocument({ openapi: "3.0.0", info: { title: "t", version: "1" } });
    const parameters = (doc.paths?.["/things"]?.get?.parameters ?? []) as Array<{ name: string; in: string }>;
    expect(parameters.map((p) => `${p.in}:${p.name}`)).toEqual(["query:limit", "query:name", "query:tag"]);
  });

  it("validates a long query string every time, keeping none", async () => {
    const { parses, get } = listing();
    const long = `?name=${"a".repeat(600)}`;
    expect((await get(long)).status).toBe(200);
    expect((await get(long)).status).toBe(200);
    expect(parses).toHaveBeenCalledTimes(2);
  });

  it("runs a route's own hook on every request", async () => {
    const router = createRouter();
    const hook = vi.fn(() => undefined);
    const route = createRoute({ method: "get", path: "/own", request: { query: z.object({ q: z.string().optional() }) }, responses: { 200: { description: "ok" } } });
    router.openapi(route, (c) => c.json(c.req.valid("query"), 200), hook);
    for (let i = 0; i < 2; i++) expect(await (await router.request("http://gateway.test/own?q=x")).json()).toEqual({ q: "x" });
    expect(hook).toHaveBeenCalledTimes(2);
  });
});

