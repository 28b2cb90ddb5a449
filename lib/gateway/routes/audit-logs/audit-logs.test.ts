import { eq, ne, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LogEntry } from "@/lib/contract/audit-logs";
import { pageQuery } from "../../store/queries/audit-logs";
import type { Database } from "../../store/client";
import { auditLog, organizations } from "../../store/schema";
import { createTestGateway, type TestGateway, type Who } from "../../testing";

let t: TestGateway;
let org: string;
/** Every entry of the demo organization, newest first, as the gateway answers them. */
let all: LogEntry[];

interface Page {
  items: LogEntry[];
  next_page_token: string;
  prev_page_token: string;
  message: string;
}
type Query = Array<[string, string]> | Record<string, string>;
/** The other organization (the outsider's, whose log they read), and the fields of an entry filed there. */
async function otherOrganizationEntry() {
  const [other] = await t.gateway.store.db.select({ id: organizations.id }).from(organizations).where(ne(organizations.id, org));
  const base = { organizationId: other!.id, action: "Update", actorId: "someone", actorEmail: "someone@example.com", actorType: "user", result: "OK", surface: "api", targetType: "VM" };
  return { other: other!, base };
}

const logs = (query: Query = {}, who: Who = "owner", orgId = org) =>
  t.opJson<Page>(who, "getAuditLogs", { params: { organization_id: orgId }, query });
const pairs = (q: Query): Array<[string, string]> => (Array.isArray(q) ? q : Object.entries(q));

/** Every page of a search, following next tokens. */
async function walk(query: Query, limit = 1000): Promise<Page[]> {
  const pages: Page[] = [];
  let token = "";
  do {
    const res = await logs([...pairs(query), ["limit", String(limit)], ...(token ? [["next_token", token] as [string, string]] : [])]);
    expect(res.status, res.body.message).toBe(200);
    pages.push(res.body);
    token = res.body.next_page_token;
  } while (token && pages.length < 100);
  return pages;
}
const entries = async (query: Query) => (await walk(query)).flatMap((p) => p.items);
const key = (e: LogEntry) => JSON.stringify(e);

beforeAll(async () => {
  t = await createTestGateway();
  org = t.demo.organization_id;
  all = await entries({});
});
afterAll(() => t.close());

describe("GET /organizations/{organization_id}/audit-logs: pages", () => {
  it("answers 20 entries newest first by default, with no previous page", async () => {
    const res = await logs();
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(20);
    expect(res.body.items).toEqual(all.slice(0, 20));
    expect(res.body.prev_page_token).toBe("");
    expect(res.body.next_page_token).not.toBe("");
    expect(all.length).toBeGreaterThanOrEqual(2000);
    const times = all.map((e) => Date.parse(e.start_time));
    expect(times.every((time, i) => i === 0 || times[i - 1]! >= time)).toBe(true);
    expect(all.every((e) => e.organization_id === org)).toBe(true);
  });

  it("walks forward to the end and back to the start with the same pages, no duplicate and no gap", async () => {
    const forward: Page[] = [];
    let res = await logs({ limit: "137" });
    forward.push(res.body);
    while (res.body.next_page_token) {
      res = await logs({ limit: "137", next_token: res.body.next_page_token });
      expect(res.status).toBe(200);
      forward.push(res.body);
    }
    const seen = forward.flatMap((p) => p.items);
    expect(seen).toEqual(all);
    expect(new Set(seen.map(key)).size).toBe(all.length);
    expect(forward.at(-1)!.next_page_token).toBe("");
    expect(forward.slice(0, -1).every((p) => p.items.length === 137)).toBe(true);
    expect(forward.slice(1).every((p) => p.prev_page_token !== "")).toBe(true);

    const backward: Page[] = [forward.at(-1)!];
    let back = forward.at(-1)!;
    while (back.prev_page_token) {
      const r = await logs({ limit: "137", prev_token: back.prev_page_token });
      expect(r.status).toBe(200);
      back = r.body;
      backward.unshift(back);
    }
    expect(backward.map((p) => p.items)).toEqual(forward.map((p) => p.items));
    expect(backward[0]!.prev_page_token).toBe("");
  });

  it("accepts limits from 1 to 1000 and refuses the rest with 400", async () => {
    expect((await logs({ limit: "1" })).body.items).toEqual(all.slice(0, 1));
    expect((await logs({ limit: "1000" })).body.items).toEqual(all.slice(0, 1000));
    for (const limit of ["0", "-1", "1001", "abc", "1.5", "", "99999999999"]) {
      const res = await logs({ limit });
      expect(res.status, limit).toBe(400);
      expect(res.body.message).toMatch(/^query\.limit:/);
    }
  });

  it("refuses forged, garbled, misdirected and foreign tokens with 400", async () => {
    const first = (await logs({ limit: "5" })).body;
    const second = (await logs({ limit: "5", next_token: first.next_page_token })).body;
    const token = first.next_page_token;
    // Nothing of the position can be read from it: no JSON, no sequence number, no time.
    const opened = Buffer.from(token, "base64url").toString("latin1");
    expect(opened).not.toMatch(/"[dts]"|20\d\d-/);
    const flipAt = (s: string, i: number) => s.slice(0, i) + (s[i] === "A" ? "B" : "A") + s.slice(i + 1);
    const bad: Array<[string, string]> = [
      ["next_token", "garbage"],
      ["next_token", "a.b"],
      // A bit changed in the nonce, the tag, the sealed position.
      ["next_token", flipAt(token, 0)],
      ["next_token", flipAt(token, 20)],
      ["next_token", flipAt(token, token.length - 2)],
      ["next_token", token.slice(0, -4)],
      ["next_token", token.slice(0, 30)],
      // Base64url decoding skips characters outside its alphabet, and padding: these would open as the token issued.
      ["next_token", `${token}!!`],
      ["next_token", `${token}=`],
      ["next_token", `${token.slice(0, 4)}\n${token.slice(4)}`],
      ["next_token", second.prev_page_token],
      ["prev_token", first.next_page_token],
    ];
    for (const [name, value] of bad) {
      const res = await logs([[name, value]]);
      expect(res.status, `${name}=${value}`).toBe(400);
      expect(res.body.message).toMatch(new RegExp(`^query\\.${name}:`));
    }
    const both = await logs({ next_token: first.next_page_token, prev_token: second.prev_page_token });
    expect(both.status).toBe(400);

    const [other] = await t.gateway.store.db.select({ id: organizations.id }).from(organizations).where(ne(organizations.id, org));
    const foreign = await logs({ next_token: first.next_page_token }, "outsider", other!.id);
    expect(foreign.status).toBe(400);
    expect((await logs({}, "outsider", other!.id)).status).toBe(200);
  });
});

describe("audit-log pages and the index", () => {
  /** The plan of a page query when the planner may not scan the table whole: the index must give the order. */
  async function plan(toward: "older" | "newer"): Promise<string> {
    const middle = all[Math.floor(all.length / 2)]!;
    const from = { t: new Date(middle.start_time).toISOString().replace("Z", "000Z"), s: 1 };
    return t.gateway.store.db.transaction(async (txRaw) => {
      const tx = txRaw as unknown as Database;
      await tx.execute(sql`set local enable_seqscan = off`);
      await tx.execute(sql`set local enable_bitmapscan = off`);
      const result = await tx.execute(sql`explain ${pageQuery(tx, org, {}, 21, toward, from).getSQL()}`);
      const rows = ((result as unknown as { rows?: unknown[] }).rows ?? (result as unknown as unknown[])) as Array<Record<string, string>>;
      return rows.map((r) => Object.values(r)[0]).join("\n");
    });
  }

  it("serves deep pages in both directions from the index, without sorting", async () => {
    for (const toward of ["older", "newer"] as const) {
      const text = await plan(toward);
      expect(text, text).toContain("audit_org_time_idx");
      expect(text, text).not.toMatch(/\bSort\b/);
    }
  });

  it("serves a search by target from the target index, one page per value, whatever the statistics", async () => {
    const ids = [...new Set(all.flatMap((e) => e.target_ids))].slice(0, 3);
    const from = { t: new Date(all[Math.floor(all.length / 2)]!.start_time).toISOString().replace("Z", "000Z"), s: 1 };
    for (const toward of ["older", "newer"] as const) {
      const result = await t.gateway.store.db.execute(sql`explain ${pageQuery(t.gateway.store.db, org, { targetIds: ids }, 21, toward, from).getSQL()}`);
      const rows = ((result as unknown as { rows?: unknown[] }).rows ?? (result as unknown as unknown[])) as Array<Record<string, string>>;
      const text = rows.map((r) => Object.values(r)[0]).join("\n");
      expect(text, text).toContain("audit_targets_search_idx");
      // The only sort is of the merged pages (at most 21 entries per value).
      expect(text.match(/Sort Key/g)?.length ?? 0, text).toBeLessThanOrEqual(1);
      expect(text, text).not.toContain("Seq Scan");
    }
  });
});

describe("GET /organizations/{organization_id}/audit-logs: filters", () => {
  const pick = <T>(values: T[]): T => values[Math.floor(values.length / 2)]!;

  const cases: Array<[string, () => [Query, (e: LogEntry) => boolean]]> = [
    [
      "project_ids",
      () => {
        const ids = [...new Set(all.map((e) => e.project_id).filter(Boolean))].slice(0, 2);
        return [{ project_ids: ids.join(",") }, (e) => ids.includes(e.project_id)];
      },
    ],
    ["actions (any case)", () => [{ actions: "create,DELETE" }, (e) => e.action === "Create" || e.action === "Delete"]],
    ["actor_ids", () => [{ actor_ids: t.demo.member.user_id }, (e) => e.actor_id === t.demo.member.user_id]],
    [
      "actor_emails (users only)",
      () => [{ actor_emails: "OWNER@acme.example" }, (e) => e.actor_email === t.demo.owner.email && e.actor_type === "user"],
    ],
    ["actor_types", () => [{ actor_types: "System" }, (e) => e.actor_type === "system"]],
    [
      "target_ids (overlap)",
      () => {
        const id = pick(all.filter((e) => e.target_type === "VM")).target_ids[0]!;
        return [[["target_ids", id], ["target_ids", "not-a-target"]], (e) => e.target_ids.includes(id)];
      },
    ],
    ["target_types", () => [{ target_types: "VM,Disk" }, (e) => e.target_type === "VM" || e.target_type === "Disk"]],
    [
      "target_names (overlap)",
      () => {
        const name = pick(all.filter((e) => e.target_names.length > 0)).target_names[0]!;
        return [{ target_names: name }, (e) => e.target_names.includes(name)];
      },
    ],
    ["locations (overlap)", () => [{ locations: "us-east1-a,eu-north1-a" }, (e) => e.locations.some((l) => ["us-east1-a", "eu-north1-a"].includes(l))]],
    ["results", () => [{ results: "PERMISSION_DENIED,not_found" }, (e) => ["PERMISSION_DENIED", "NOT_FOUND"].includes(e.result)]],
    ["results_not", () => [{ results_not: "OK" }, (e) => e.result !== "OK"]],
    ["surfaces", () => [{ surfaces: "terraform,cli" }, (e) => e.surface === "terraform" || e.surface === "cli"]],
    [
      "start_time and end_time (with offsets)",
      () => {
        const end = new Date(Date.now() - 10 * 86_400_000);
        const start = new Date(Date.now() - 20 * 86_400_000);
        const withOffset = (d: Date) => new Date(d.getTime() - 7 * 3_600_000).toISOString().replace(/\.\d+Z$/, "-07:00");
        const s = Date.parse(withOffset(start));
        const en = Date.parse(withOffset(end));
        return [{ start_time: withOffset(start), end_time: withOffset(end) }, (e) => Date.parse(e.start_time) >= s && Date.parse(e.start_time) <= en];
      },
    ],
    [
      "several filters at once",
      () => [
        { actor_ids: t.demo.member.user_id, results: "PERMISSION_DENIED", surfaces: "console" },
        (e) => e.actor_id === t.demo.member.user_id && e.result === "PERMISSION_DENIED" && e.surface === "console",
      ],
    ],
  ];

  it.each(cases)("honours %s", async (_name, build) => {
    const [query, matches] = build();
    const expected = all.filter(matches);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(all.length);
    const found = await entries(query);
    expect(found.map(key)).toEqual(expected.map(key));
  });

  it("pages a search by several targets forward and back by its tokens, each entry once", async () => {
    const byCount = new Map<string, number>();
    for (const e of all) for (const id of e.target_ids) byCount.set(id, (byCount.get(id) ?? 0) + 1);
    const sorted = [...byCount].sort((x, y) => y[1] - x[1]);
    // The most frequent target, a middling one and a rare one (and one repeated).
    const ids = [sorted[0]![0], sorted[Math.floor(sorted.length / 2)]![0], sorted.at(-1)![0]];
    const expected = all.filter((e) => e.target_ids.some((id) => ids.includes(id)));
    const query: Query = [...ids, ids[0]!].map((id) => ["target_ids", id] as [string, string]);
    const forward = await walk(query, 9);
    expect(forward.flatMap((p) => p.items)).toEqual(expected);
    expect(forward.length).toBe(Math.ceil(expected.length / 9));
    let back = forward.at(-1)!;
    const backward = [back];
    while (back.prev_page_token) {
      back = (await logs([...pairs(query), ["limit", "9"], ["prev_token", back.prev_page_token]])).body;
      backward.unshift(back);
    }
    expect(backward.map((p) => p.items)).toEqual(forward.map((p) => p.items));
  });

  it("combines a search by target with the other filters, and target ids with target names", async () => {
    const vm = all.find((e) => e.target_type === "VM")!;
    const [id, name] = [vm.target_ids[0]!, vm.target_names[0]!];
    const other = all.find((e) => e.target_type === "Disk")!;
    const searches: Array<[Query, (e: LogEntry) => boolean]> = [
      [{ target_ids: id, results: "OK", surfaces: "console,api" }, (e) => e.target_ids.includes(id) && e.result === "OK" && ["console", "api"].includes(e.surface)],
      [{ target_ids: `${id},${other.target_ids[0]!}`, target_names: name }, (e) => e.target_ids.includes(id) && e.target_names.includes(name)],
      [{ target_names: `${name},${other.target_names[0]!}`, actor_types: "user" }, (e) => e.target_names.some((n) => [name, other.target_names[0]].includes(n)) && e.actor_type === "user"],
      [{ target_ids: id, target_names: other.target_names[0]! }, () => false],
    ];
    for (const [query, matches] of searches) {
      expect((await entries(query)).map(key), JSON.stringify(query)).toEqual(all.filter(matches).map(key));
    }
  });

  it("pages a filtered search by its tokens", async () => {
    const expected = all.filter((e) => e.actor_type === "system");
    const pages = await walk({ actor_types: "system" }, 7);
    expect(pages.length).toBe(Math.ceil(expected.length / 7));
    expect(pages.flatMap((p) => p.items)).toEqual(expected);
  });

  it("takes the widest window there is, to the microsecond at the end of the year 9999", async () => {
    const cases: Array<[Record<string, string>, number]> = [
      [{ end_time: "9999-12-31T23:59:59.999999Z" }, 3],
      [{ start_time: "0001-01-01T00:00:00Z", end_time: "9999-12-31T23:59:59.99999Z" }, 3],
      [{ start_time: "9999-12-31T23:59:59.9999999Z" }, 0],
    ];
    for (const [query, count] of cases) {
      const res = await logs({ ...query, limit: "3" });
      expect(res.status, JSON.stringify(query)).toBe(200);
      expect(res.body.items, JSON.stringify(query)).toEqual(all.slice(0, count));
    }
  });

  it("refuses times without an offset, bad times and reversed windows with 400", async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ start_time: "2024-01-01" }, /^query\.start_time:/],
      [{ start_time: "2024-01-01T00:00:00" }, /^query\.start_time:/],
      [{ end_time: "now" }, /^query\.end_time:/],
      [{ end_time: "2024-02-30T00:00:00Z" }, /^query\.end_time:/],
      [{ start_time: "0000-01-01T00:00:00Z" }, /^query\.start_time:/],
      [{ end_time: "9999-12-31T23:59:59-14:00" }, /^query\.end_time:/],
      [{ start_time: "2024-02-01T00:00:00Z", end_time: "2024-01-01T00:00:00+01:00" }, /^query\.start_time: must not be after end_time/],
    ];
    for (const [query, message] of cases) {
      const res = await logs(query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
  });
});

describe("GET /organizations/{organization_id}/audit-logs: access and new entries", () => {
  it("is open to holders of audit.read and refused to others (members without it included)", async () => {
    expect((await logs({ limit: "3" }, "auditor")).body.items).toEqual(all.slice(0, 3));
    expect((await logs({}, "member")).status).toBe(403);
    expect((await logs({}, "outsider")).status).toBe(403);
  });

  it("shows a mutation made just now on top, and a refused one as PERMISSION_DENIED", async () => {
    const created = await t.opJson<{ project: { id: string } }>("owner", "createProject", {
      body: { organization_id: org, name: "audited-project" },
    });
    expect(created.status).toBe(200);
    const refused = await t.opJson("member", "createProject", { body: { organization_id: org, name: "not-allowed" } });
    expect(refused.status).toBe(403);

    const top = (await logs({ limit: "2" })).body.items;
    expect(top[1]).toMatchObject({
      action: "Create",
      action_detail: "Create Project",
      actor_id: t.demo.owner.user_id,
      actor_email: t.demo.owner.email,
      actor_type: "user",
      result: "OK",
      surface: "api",
      target_type: "Project",
      target_ids: [created.body.project.id],
      target_names: ["audited-project"],
      project_id: created.body.project.id,
    });
    expect(top[0]).toMatchObject({ actor_id: t.demo.member.user_id, result: "PERMISSION_DENIED", target_names: ["not-allowed"] });
    const found = await logs({ target_ids: created.body.project.id, results: "OK" });
    expect(found.body.items).toHaveLength(1);
    const byName = await logs({ target_names: "not-allowed", actor_emails: t.demo.member.email });
    expect(byName.body.items.map((e) => e.result)).toEqual(["PERMISSION_DENIED"]);
  });

  it("finds an entry with several targets by each of them, once, whoever wrote it", async () => {
    const { other, base } = await otherOrganizationEntry();
    const at = (minutes: number) => new Date(Date.now() - minutes * 60_000);
    await t.gateway.store.db.insert(auditLog).values([
      { ...base, id: "multi-1", startTime: at(3), endTime: at(3), targetIds: ["vm-a", "vm-b", "vm-a"], targetNames: ["a", "b"] },
      { ...base, id: "multi-2", startTime: at(2), endTime: at(2), targetIds: ["vm-b"], targetNames: ["b"] },
    ]);
    const search = async (query: Query) => (await logs(query, "outsider", other.id)).body.items.map((e) => e.target_ids);
    expect(await search({ target_ids: "vm-a" })).toEqual([["vm-a", "vm-b", "vm-a"]]);
    expect(await search({ target_ids: "vm-a,vm-b" })).toEqual([["vm-b"], ["vm-a", "vm-b", "vm-a"]]);
    expect(await search({ target_names: "a,b" })).toEqual([["vm-b"], ["vm-a", "vm-b", "vm-a"]]);
    expect(await search({ target_ids: "vm-b", target_names: "a" })).toEqual([["vm-a", "vm-b", "vm-a"]]);
    // A changed entry is found by its new targets only.
    await t.gateway.store.db.update(auditLog).set({ targetIds: ["vm-c"] }).where(eq(auditLog.id, "multi-2"));
    expect(await search({ target_ids: "vm-b" })).toEqual([["vm-a", "vm-b", "vm-a"]]);
    expect(await search({ target_ids: "vm-c" })).toEqual([["vm-c"]]);
  });

  it("bounds a window to the last digit of its times, not to the millisecond a Date keeps", async () => {
    const { other, base } = await otherOrganizationEntry();
    const moment = new Date("2031-01-01T00:00:00.000Z");
    await t.gateway.store.db.insert(auditLog).values({ ...base, id: "sub-ms", startTime: moment, endTime: moment, targetIds: ["vm-sub-ms"] });
    const search = (query: Query) => logs({ target_ids: "vm-sub-ms", ...query }, "outsider", other.id);
    expect((await search({ start_time: "2031-01-01T00:00:00.000Z" })).body.items).toHaveLength(1);
    expect((await search({ start_time: "2031-01-01T00:00:00.0009Z" })).body.items).toEqual([]);
    expect((await search({ end_time: "2030-12-31T23:59:59.9999Z" })).body.items).toEqual([]);
    expect((await search({ start_time: "2031-01-01T09:00:00.0000+09:00", end_time: "2031-01-01T00:00:00Z" })).body.items).toHaveLength(1);
    const reversed = await search({ start_time: "2031-01-01T00:00:00.0009Z", end_time: "2031-01-01T00:00:00.0001Z" });
    expect(reversed.status).toBe(400);
    expect(reversed.body.message).toMatch(/^query\.start_time: must not be after end_time/);
  });

  it("takes every time RFC 3339 allows, the store's reading aside: an offset past ±15:59, a fraction of 200 digits", async () => {
    for (const start_time of ["2024-01-01T00:00:00+20:00", `2024-01-01T00:00:00.${"1".repeat(200)}Z`]) {
      expect((await logs({ start_time })).status, start_time).toBe(200);
    }
  });

  it("tells a malformed time only that it is malformed", async () => {
    const res = await logs({ start_time: "2031-01-01T00:00:00+99:99" });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("query.start_time: must be an RFC 3339 timestamp with offset, e.g. 2024-01-31T23:59:59Z");
  });
});
