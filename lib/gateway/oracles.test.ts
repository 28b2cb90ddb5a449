import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestGateway, opPath, type TestGateway } from "./testing";

/** What an outsider may learn from the gateway's answers: nothing about what exists elsewhere. */
let t: TestGateway;
beforeAll(async () => {
  t = await createTestGateway();
});
afterAll(() => t.close());

describe("no existence oracle", () => {
  it("an unknown access key and a wrong signature get the same answer", async () => {
    const secretKey = "A".repeat(43);
    const unknown = await t.opJson("owner", "listProjects", { credentials: { accessKeyId: "AKNOSUCHKEY0000000000", secretKey } });
    const wrong = await t.opJson("owner", "listProjects", { credentials: { accessKeyId: t.demo.owner.access_key_id, secretKey } });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(unknown.status);
    const strip = (b: Record<string, unknown>) => ({ ...b, error_id: "" });
    expect(strip(wrong.body)).toEqual(strip(unknown.body));
  });

  it("another organization's project and a missing one get the same answer", async () => {
    const acme = await t.opJson<{ items: Array<{ id: string }> }>("owner", "listProjects");
    const theirs = acme.body.items[0]!.id;
    const missing = "00000000-0000-4000-8000-000000000000";
    for (const [method, path, query, body] of [
      ["GET", opPath("getProject", { project_id: theirs }), undefined, undefined],
      ["GET", opPath("listProjectVMs", { project_id: theirs }), undefined, undefined],
      ["PUT", opPath("updateProject"), { project_id: theirs }, { name: "x" }],
      ["DELETE", opPath("deleteProject", { project_id: theirs }), undefined, undefined],
    ] as const) {
      const a = await t.json("outsider", method, path, { query, body });
      const b = await t.json("outsider", method, path.replace(theirs, missing), { query: query && { project_id: missing }, body });
      expect([method, path, a.status, a.body.reason]).toEqual([method, path, 404, "not_found"]);
      expect([b.status, b.body.reason]).toEqual([404, "not_found"]);
      expect(a.body.message).toBe(String(b.body.message).replace(missing, theirs));
    }
  });
});

describe("names", () => {
  it.each([["\u202egnp.exe"], ["pay\u200broll"], ["\u2067x\u2069"]])("refuse format characters such as %j with 400 naming the field", async (name) => {
    const res = await t.opJson("owner", "createProject", { body: { organization_id: t.demo.organization_id, name } });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("name");
  });
});
