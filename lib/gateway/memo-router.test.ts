import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { MemoRouter } from "./memo-router";

function app(router: MemoRouter<never>) {
  const a = new Hono({ router: router as never });
  a.use("*", async (c, next) => {
    await next();
    c.header("x-seen", "1");
  });
  a.get("/organizations/projects", (c) => c.text("list"));
  a.get("/organizations/:organization_id/quotas", (c) => c.text(`quotas of ${c.req.param("organization_id")}`));
  a.get("/organizations/projects/:project_id", (c) => c.text(`project ${c.req.param("project_id")}`));
  return a;
}

describe("MemoRouter", () => {
  it("answers as Hono's own router, the same path again from what it kept", async () => {
    const router = new MemoRouter<never>();
    const a = app(router);
    for (let i = 0; i < 2; i++) {
      expect(await (await a.request("/organizations/projects")).text()).toBe("list");
      expect(await (await a.request("/organizations/o-1/quotas")).text()).toBe("quotas of o-1");
      expect(await (await a.request("/organizations/o%2F2/quotas")).text()).toBe("quotas of o/2");
      expect(await (await a.request("/organizations/projects/p-9")).text()).toBe("project p-9");
      expect((await a.request("/organizations/projects/p-9")).headers.get("x-seen")).toBe("1");
      expect((await a.request("/nowhere")).status).toBe(404);
    }
    expect(router.size).toBe(5);
  });

  it("keeps a bounded number of matches, the oldest going first", async () => {
    const router = new MemoRouter<never>(undefined, 3);
    const a = app(router);
    for (const id of ["a", "b", "c", "d", "e"]) {
      expect(await (await a.request(`/organizations/${id}/quotas`)).text()).toBe(`quotas of ${id}`);
    }
    expect(router.size).toBe(3);
    // An evicted path is matched afresh, with its own parameters.
    expect(await (await a.request("/organizations/a/quotas")).text()).toBe("quotas of a");
  });
});
