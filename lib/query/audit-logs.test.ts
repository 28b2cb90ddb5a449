import { describe, expect, it } from "vitest";
import { auditLogsQuerySchema } from "@/lib/contract/audit-logs";
import { auditLogQuery, auditQueryParams, type AuditSearch } from "./audit-logs";

const empty: AuditSearch = {
  window: "1d",
  from: null,
  to: null,
  project_ids: [],
  actions: [],
  actor_ids: [],
  actor_emails: [],
  actor_types: [],
  target_ids: [],
  target_types: [],
  target_names: [],
  locations: [],
  results: [],
  results_not: [],
  surfaces: [],
  limit: 20,
  next: null,
  prev: null,
};

describe("auditQueryParams", () => {
  const now = new Date("2026-03-15T12:00:00Z");

  it("measures a relative window back from now, as RFC 3339 with an offset", () => {
    const q = auditQueryParams(empty, now);
    expect(Date.parse(String(q.start_time))).toBe(now.getTime() - 86_400_000);
    expect(String(q.start_time)).toMatch(/([+-]\d{2}:\d{2}|Z)$/);
    expect(q.end_time).toBeUndefined();
    expect(q.limit).toBe("20");
  });

  it("sends lists comma-separated, the custom range as given, and one page token", () => {
    const q = auditQueryParams(
      { ...empty, window: "custom", from: "2026-03-01T00:00:00+01:00", to: "2026-03-02T00:00:00+01:00", results: ["OK", "NOT_FOUND"], next: "n", prev: "p" },
      now,
    );
    expect(q).toMatchObject({ results: "OK,NOT_FOUND", start_time: "2026-03-01T00:00:00+01:00", end_time: "2026-03-02T00:00:00+01:00", next_token: "n" });
    expect(q.prev_token).toBeUndefined();
    // The gateway's own schema accepts what the console sends.
    expect(auditLogsQuerySchema.safeParse(q).success).toBe(true);
  });

  it("keys a relative window by its name, so server and browser share the page", () => {
    const a = auditLogQuery("org", empty, new Date("2026-03-15T12:00:00Z"));
    const b = auditLogQuery("org", empty, new Date("2026-03-15T12:00:05Z"));
    expect(a.queryKey).toEqual(b.queryKey);
    expect(a.path).not.toEqual(b.path);
  });
});
