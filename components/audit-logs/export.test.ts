import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { and, count, eq, gte, lte } from "drizzle-orm";
import { createTestGateway, type TestGateway } from "@/lib/gateway/testing";
import { auditLog } from "@/lib/gateway/store/schema";
import type { AuditSearch } from "@/lib/query/audit-logs";
import { AUDIT_LIST_FILTERS } from "@/lib/contract/constants";
import { generateAuditLog } from "@/scripts/bench/generate";
import { collectEntries, exportFileName } from "./export";

/** The cap the walk is given here: the export's own (10,000) at a quarter of the rows to generate and read. */
const MAX = 2_500;

/**
 * The audit export's walk through the pages, against a real gateway: the browser's calls (`/api/cloud/v1/…`) are
 * signed as the demo owner and handed to the gateway's fetch handler, as the console's backend does.
 */
let t: TestGateway;
let calls: URL[] = [];
/** The call of this number (from 1) waits, as a slow page would, until its signal aborts it; and the signals seen. */
let hangAt = 0;
let signals: Array<AbortSignal | undefined> = [];

function search(window: AuditSearch["window"] = "7d"): AuditSearch {
  const lists = Object.fromEntries(AUDIT_LIST_FILTERS.map((name) => [name, [] as string[]])) as unknown as Record<(typeof AUDIT_LIST_FILTERS)[number], string[]>;
  return { ...lists, window, from: null, to: null, limit: 20, next: null, prev: null };
}

beforeAll(async () => {
  t = await createTestGateway();
  const { demo } = t;
  // More than the walk's cap holds, over the last two days (about 1,500 a day).
  await generateAuditLog(t.gateway.store.db, {
    organizationId: demo.organization_id,
    people: { owner: { id: demo.owner.user_id, email: demo.owner.email }, member: { id: demo.member.user_id, email: demo.member.email } },
    count: 3_000,
    now: new Date(),
    spanDays: 2,
  });
  vi.stubGlobal("fetch", async (input: string, init: RequestInit) => {
    const url = new URL(input, "http://console.test");
    calls.push(url);
    signals.push(init.signal ?? undefined);
    const path = url.pathname.replace(/^\/api\/cloud\/v1/, "");
    if (calls.length === hangAt) {
      // As fetch does: the call ends when its signal aborts, with the signal's reason; never without one.
      await new Promise((_, reject) => init.signal?.addEventListener("abort", () => reject(init.signal!.reason)));
    }
    return t.call("owner", init.method ?? "GET", path, { query: [...url.searchParams.entries()] });
  });
}, 180_000);

afterAll(async () => {
  vi.unstubAllGlobals();
  await t?.close();
});

async function stored(start: string, end: string): Promise<number> {
  const [row] = await t.gateway.store.db
    .select({ n: count() })
    .from(auditLog)
    .where(and(eq(auditLog.organizationId, t.demo.organization_id), gte(auditLog.startTime, new Date(start)), lte(auditLog.startTime, new Date(end))));
  return row!.n;
}

describe("collectEntries, the audit export's walk", () => {
  it("walks the pages a thousand at a time to its cap, and says more match", async () => {
    calls = [];
    const progress: number[] = [];
    const collected = await collectEntries(t.demo.organization_id, search(), (n) => progress.push(n), new AbortController().signal, MAX);
    expect(await stored(collected.start!, collected.end)).toBeGreaterThan(MAX);
    expect(collected.entries).toHaveLength(MAX);
    expect(collected.truncated).toBe(true);
    expect(calls).toHaveLength(Math.ceil(MAX / 1_000));
    expect(calls.every((u) => u.searchParams.get("limit") === "1000" && u.searchParams.get("end_time") === collected.end)).toBe(true);
    expect(calls.slice(1).every((u) => u.searchParams.has("next_token"))).toBe(true);
    expect(progress.at(-1)).toBe(MAX);
    // Newest first, none twice.
    const times = collected.entries.map((e) => Date.parse(e.start_time));
    expect(times.every((time, i) => i === 0 || time <= times[i - 1]!)).toBe(true);
    expect(new Set(collected.entries.map((e) => JSON.stringify(e))).size).toBe(MAX);
    expect(exportFileName(collected, "csv")).toBe(`audit-log-${collected.start!.replace(/[:.]/g, "-")}--${collected.end.replace(/[:.]/g, "-")}.csv`);
  });

  it("holds every match of a narrower window, and says nothing more matches", async () => {
    calls = [];
    const collected = await collectEntries(t.demo.organization_id, search("1d"), () => undefined, new AbortController().signal, MAX);
    const expected = await stored(collected.start!, collected.end);
    expect(expected).toBeGreaterThan(1_000);
    expect(expected).toBeLessThan(MAX);
    expect(collected.entries).toHaveLength(expected);
    expect(collected.truncated).toBe(false);
    expect(calls).toHaveLength(Math.ceil(expected / 1_000));
  });

  it("ends the call under way when cancelled, with no call after", async () => {
    calls = [];
    signals = [];
    hangAt = 2;
    try {
      const abort = new AbortController();
      const walk = collectEntries(t.demo.organization_id, search(), () => undefined, abort.signal, MAX);
      // The second page's call is out (and would never answer): cancelling ends it.
      for (let waited = 0; calls.length < 2 && waited < 10_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
      abort.abort();
      await expect(walk).rejects.toThrow(/abort/i);
      expect(calls).toHaveLength(2);
      expect(signals[1]).toBe(abort.signal);
    } finally {
      hangAt = 0;
    }
  });
});
