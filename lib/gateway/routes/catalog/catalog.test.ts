import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_LOCATIONS, VM_TYPES } from "../../seed/compute";
import { createTestGateway, type TestGateway } from "../../testing";

let t: TestGateway;
beforeAll(async () => {
  t = await createTestGateway();
});
afterAll(() => t.close());

interface Capacity {
  location: string;
  num_slices: number;
  quantity: number;
  quota_type: string;
  type: string;
}
interface Image {
  id: string;
  name: string;
  description: string;
  tags: string[];
  created_at: string;
  locations: string[];
}
interface ErrorBody {
  code: string;
  message: string;
  reason: string;
}

const capacities = (query?: Array<[string, string]>) => t.opJson<{ items: Capacity[] } & ErrorBody>("member", "listSliceCapacities", { query });
const images = (query?: Array<[string, string]>) => t.opJson<{ items: Image[] }>("member", "listImages", { query });

describe("GET /capacities", () => {
  it("lists capacity per VM type and location from the catalog", async () => {
    const res = await capacities();
    expect(res.status).toBe(200);
    expect(res.body.items.length).toBeGreaterThan(DEMO_LOCATIONS.length);
    const locations = new Set<string>(DEMO_LOCATIONS.map((l) => l.id));
    for (const item of res.body.items) {
      expect(VM_TYPES).toContain(item.type);
      expect(locations.has(item.location)).toBe(true);
      expect(item.num_slices).toBe(Number(/\.(\d+)x$/.exec(item.type)![1]));
      expect(Number.isInteger(item.quantity) && item.quantity >= 0).toBe(true);
      expect(item.quota_type).toMatch(/^PROJECT_QUOTA_TYPE_MAXIMUM_VM_SLICES_[A-Z0-9_]+$/);
    }
    expect(new Set(res.body.items.map((i) => `${i.type}@${i.location}`)).size).toBe(res.body.items.length);
  });

  it("filters by product name and location; values of one filter are OR-ed, filters AND-ed", async () => {
    const all = (await capacities()).body.items;
    const [a, b] = ["h100-80gb-sxm-ib.8x", "l40s-48gb.1x"];
    const expected = all.filter((i) => i.type === a || i.type === b);
    expect(expected.length).toBeGreaterThan(0);
    const comma = await capacities([["product_name", `${a},${b}`]]);
    expect(comma.body.items).toEqual(expected);
    const repeated = await capacities([["product_name", a], ["product_name", b]]);
    expect(repeated.body.items).toEqual(expected);

    const loc = ["us-east1-a", "eu-north1-a"];
    const both = await capacities([["product_name", `${a},${b}`], ["location", loc.join(",")]]);
    expect(both.status).toBe(200);
    expect(both.body.items).toEqual(expected.filter((i) => loc.includes(i.location)));
    expect(both.body.items.length).toBeLessThan(expected.length);
  });

  it("answers an empty list for names that match nothing", async () => {
    const res = await capacities([["product_name", "z900.1x"]]);
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([]);
  });

  it.each([
    ["product_name", "a100.1x; drop table capacities"],
    ["location", "us east"],
    ["product_name", "\u0000"],
  ])("answers 400 naming %s for an impossible value", async (name, value) => {
    const res = await capacities([[name, value]]);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(`query.${name}`);
  });

  it("answers 401 to an unsigned request", async () => {
    expect((await t.gateway.app.request("http://gateway.test/v1/capacities")).status).toBe(401);
  });
});

describe("GET /compute/images", () => {
  it("lists about eight images with every required field", async () => {
    const res = await images();
    expect(res.status).toBe(200);
    expect(res.body.items.length).toBeGreaterThanOrEqual(8);
    for (const image of res.body.items) {
      expect(image).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: expect.any(String),
        description: expect.any(String),
        tags: expect.any(Array),
        created_at: expect.stringMatching(/Z$/),
        locations: expect.any(Array),
      });
      expect(image.locations.length).toBeGreaterThan(0);
    }
  });

  it("keeps only images compatible with product_group", async () => {
    const all = (await images()).body.items;
    const l40s = await images([["product_group", "l40s"]]);
    expect(l40s.status).toBe(200);
    expect(l40s.body.items.map((i) => i.name)).toContain("debian");
    expect(l40s.body.items.map((i) => i.name)).not.toContain("ubuntu-cuda-ib");
    const h100 = (await images([["product_group", "H100"]])).body.items;
    expect(h100.map((i) => i.name)).toContain("ubuntu-cuda-ib");
    expect(h100.map((i) => i.name)).not.toContain("debian");
    expect(h100.length).toBeLessThan(all.length);
  });

  it("answers an empty list for an unknown or impossible product group, not a 400", async () => {
    for (const group of ["tpu", "a b", "x".repeat(500)]) {
      const res = await images([["product_group", group]]);
      expect(res.status, group).toBe(200);
      expect(res.body.items).toEqual([]);
    }
    expect((await images([["product_group", ""]])).body.items.length).toBe((await images()).body.items.length);
  });

  it("answers the declared 400 for a product_group holding a NUL, which no stored value can", async () => {
    const res = await t.opJson<ErrorBody>("owner", "listImages", { query: [["product_group", "h100\u0000"]] });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^query\.product_group: /);
  });
});

describe("GET /compute/images/{image_id}", () => {
  it("returns one image", async () => {
    const [first] = (await images()).body.items;
    const res = await t.opJson<Image>("outsider", "getImage", { params: { image_id: first!.id } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(first);
  });

  it("answers 404 for an unknown image and 400 for an id that is not a UUID", async () => {
    const missing = await t.opJson<ErrorBody>("owner", "getImage", { params: { image_id: "00000000-0000-4000-8000-000000000000" } });
    expect(missing.status).toBe(404);
    expect(missing.body.reason).toBe("not_found");
    const bad = await t.opJson<ErrorBody>("owner", "getImage", { params: { image_id: "ubuntu" } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("path.image_id");
  });
});
