import { eq, ne } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gpusOf } from "../../store/queries/quotas";
import { featureFlagRules, reservations, vms } from "../../store/schema";
import { createTestGateway, opPath, type TestGateway } from "../../testing";

let t: TestGateway;
let org: string;
beforeAll(async () => {
  t = await createTestGateway();
  org = t.demo.organization_id;
});
afterAll(() => t.close());

interface Reservation {
  id: string;
  product_line: string;
  quantity: number;
  used_quantity: number;
  locations: string[];
  projects: string[];
  vm_ids: string[];
  contract_start_date: string;
  contract_end_date: string;
  date_delivered: string;
  price: string;
}
interface Tracking {
  event_time: string;
  product_line: string;
  region: string;
  organization_id: string;
  regional_capacity: number;
  global_capacity: number;
  gpu_usage: number;
  on_demand_count: number;
  price: number;
}
type Who = "owner" | "member" | "outsider";
const list = (query: Record<string, string> = {}, who: Who = "owner") =>
  t.opJson<{ items: Reservation[]; message: string }>(who, "getReservations", { params: { organization_id: org }, query });

describe("GET /organizations/{organization_id}/reservations", () => {
  it("lists every reservation of the organization for a member", async () => {
    const res = await list({}, "member");
    expect(res.status).toBe(200);
    const stored = await t.gateway.store.db.select().from(reservations).where(eq(reservations.organizationId, org));
    expect(res.body.items.map((r) => r.id).sort()).toEqual(stored.map((r) => r.id).sort());
    for (const r of res.body.items) {
      expect(r.used_quantity).toBeLessThanOrEqual(r.quantity);
      expect(Number(r.price)).toBeGreaterThan(0);
      expect(Date.parse(r.contract_start_date)).toBeLessThan(Date.parse(r.contract_end_date));
    }
  });

  it("filters by status: effective, pending, expired, cancelled", async () => {
    const now = Date.now();
    const by = async (status: string) => {
      const res = await list({ status });
      expect(res.status).toBe(200);
      return res.body.items;
    };
    const effective = await by("effective");
    const pending = await by("pending");
    const expired = await by("expired");
    const cancelled = await by("cancelled");
    for (const group of [effective, pending, expired, cancelled]) expect(group.length).toBeGreaterThan(0);
    expect(effective.every((r) => Date.parse(r.contract_start_date) <= now && now < Date.parse(r.contract_end_date))).toBe(true);
    expect(pending.every((r) => Date.parse(r.contract_start_date) > now && r.date_delivered === "")).toBe(true);
    expect(expired.every((r) => Date.parse(r.contract_end_date) <= now)).toBe(true);
    const all = (await list()).body.items;
    expect(effective.length + pending.length + expired.length + cancelled.length).toBe(all.length);
  });

  it("counts the GPUs of the reserved VMs that still exist", async () => {
    const [r] = (await list({ status: "effective" })).body.items.filter((x) => x.vm_ids.length > 0);
    expect(r).toBeDefined();
    const live = await t.gateway.store.db.select().from(vms).where(eq(vms.organizationId, org));
    const reserved = live.filter((v) => r!.vm_ids.includes(v.id));
    expect(reserved).toHaveLength(r!.vm_ids.length);
    expect(r!.used_quantity).toBe(Math.min(r!.quantity, reserved.reduce((s, v) => s + gpusOf(v.type).gpus, 0)));
  });

  it("refuses an unknown status and non-members", async () => {
    const bad = await list({ status: "active" });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^query\.status:/);
    expect((await list({}, "outsider")).status).toBe(403);
  });
});

describe("GET /organizations/{organization_id}/reservations/{reservation_id}", () => {
  it("answers the one reservation, 404 when missing or another organization's", async () => {
    const [first] = (await list()).body.items;
    const res = await t.opJson<{ items: Reservation[] }>("member", "getReservation", { params: { organization_id: org, reservation_id: first!.id } });
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([first]);
    expect((await t.opJson("owner", "getReservation", { params: { organization_id: org, reservation_id: "00000000-0000-4000-8000-000000000000" } })).status).toBe(404);
    const [foreign] = await t.gateway.store.db.select().from(reservations).where(ne(reservations.organizationId, org));
    expect(foreign).toBeDefined();
    expect((await t.opJson("owner", "getReservation", { params: { organization_id: org, reservation_id: foreign!.id } })).status).toBe(404);
    expect((await t.opJson("outsider", "getReservation", { params: { organization_id: org, reservation_id: first!.id } })).status).toBe(403);
  });
});

describe("GET /organizations/{organization_id}/reservations/gpu-tracking", () => {
  const path = () => opPath("getReservationsGPUTracking", { organization_id: org });
  const track = (query: Array<[string, string]> | Record<string, string> = {}, who: Who = "owner") =>
    t.json<{ data: Tracking[]; message: string }>(who, "GET", path(), { query });

  it("answers the last 30 days of samples, not taken for a reservation id", async () => {
    const res = await track();
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    const times = res.body.data.map((d) => Date.parse(d.event_time));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(times[0]).toBeGreaterThanOrEqual(Date.now() - 30 * 86_400_000 - 1000);
    expect(res.body.data.every((d) => d.organization_id === org)).toBe(true);
    for (const d of res.body.data) expect(d.on_demand_count).toBe(Math.max(0, d.gpu_usage - d.regional_capacity));
  });

  it("filters by product line, region and time window", async () => {
    const everything = (await track()).body.data;
    const { product_line: line, region } = everything[0]!;
    const filtered = await track([
      ["product_line", line],
      ["region", region],
    ]);
    expect(filtered.body.data.length).toBe(everything.filter((d) => d.product_line === line && d.region === region).length);
    const start = new Date(Date.now() - 2 * 86_400_000).toISOString();
    const end = new Date(Date.now() - 86_400_000).toISOString().replace("Z", "+00:00");
    const window = await track({ start_time: start, end_time: end });
    expect(window.status).toBe(200);
    expect(window.body.data.length).toBeGreaterThan(0);
    expect(window.body.data.every((d) => d.event_time >= start && Date.parse(d.event_time) <= Date.parse(end))).toBe(true);
  });

  it("refuses bad times with 400", async () => {
    const cases: Array<Record<string, string>> = [
      { start_time: "2024-01-01" },
      { end_time: "yesterday" },
      { start_time: "2024-01-01T00:00:00" },
      { start_time: "2024-02-01T00:00:00Z", end_time: "2024-01-01T00:00:00Z" },
      { start_time: "2999-01-01T00:00:00Z" },
    ];
    for (const query of cases) {
      const res = await track(query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.message).toMatch(/^query\.(start|end)_time:/);
    }
  });

  it("needs the reservations feature: the demo member has it not, until a flag rule gives it", async () => {
    expect((await track({}, "member")).status).toBe(403);
    expect((await track({}, "outsider")).status).toBe(403);
    const rule = { id: "test-member-reservations", flagKey: "reservations", targetType: "user", targetId: t.demo.member.user_id, value: true };
    await t.gateway.store.db.insert(featureFlagRules).values(rule);
    try {
      expect((await track({}, "member")).status).toBe(200);
    } finally {
      await t.gateway.store.db.delete(featureFlagRules).where(eq(featureFlagRules.id, rule.id));
    }
    expect((await track({}, "member")).status).toBe(403);
  });
});

describe("GET /organizations/{organization_id}/reservations/gpu-tracking/latest", () => {
  const path = () => opPath("getLatestGPUTracking", { organization_id: org });
  interface Latest {
    data: Array<{
      event_time: string;
      product_line: string;
      region: string;
      regional_reservation_capacity: number;
      global_reservation_capacity: number;
      running_compute_unit_count: number;
      overage_count: number;
    }>;
    reservation_id: string[];
  }

  it("answers the newest sample per product line and region, and the effective reservations", async () => {
    const res = await t.json<Latest>("owner", "GET", path());
    expect(res.status).toBe(200);
    const series = (await t.opJson<{ data: Tracking[] }>("owner", "getReservationsGPUTracking", { params: { organization_id: org } })).body.data;
    const keys = new Set(series.map((d) => `${d.product_line}|${d.region}`));
    expect(res.body.data).toHaveLength(keys.size);
    for (const latest of res.body.data) {
      const newest = series.filter((d) => d.product_line === latest.product_line && d.region === latest.region).at(-1)!;
      expect(latest.event_time).toBe(newest.event_time);
      expect(latest.running_compute_unit_count).toBe(newest.gpu_usage);
      expect(latest.overage_count).toBe(newest.on_demand_count);
      expect(latest.regional_reservation_capacity).toBe(newest.regional_capacity);
    }
    const effective = (await list({ status: "effective" })).body.items.map((r) => r.id).sort();
    expect(res.body.reservation_id).toEqual(effective);
  });

  it("filters by product line and region", async () => {
    const all = (await t.json<Latest>("owner", "GET", path())).body;
    const { product_line: line, region } = all.data[0]!;
    const res = await t.json<Latest>("owner", "GET", path(), { query: { product_line: line, region } });
    expect(res.body.data.map((d) => `${d.product_line}|${d.region}`)).toEqual([`${line}|${region}`]);
    expect(res.body.reservation_id.length).toBeGreaterThan(0);
    const none = await t.json<Latest>("owner", "GET", path(), { query: { product_line: "no-such-line" } });
    expect(none.body).toEqual({ data: [], reservation_id: [] });
  });

  it("needs membership and the reservations feature", async () => {
    expect((await t.json("member", "GET", path())).status).toBe(403);
    expect((await t.json("outsider", "GET", path())).status).toBe(403);
  });
});
