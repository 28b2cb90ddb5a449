import { describe, expect, it } from "vitest";
import { AUDIT_LIST_FILTERS, MFA_METHODS, RESERVATION_STATUSES, SCIM_STATUSES, SCOPE_TYPES, USAGE_INTERVALS } from "./constants";
import { auditLogsQuerySchema } from "./audit-logs";
import { scopeTypeSchema } from "./iam";
import { mfaMethodSchema } from "./organizations";
import { reservationsQuerySchema } from "./reservations";
import { updateScimIntegrationRequestSchema } from "./scim";
import { usageIntervalSchema } from "./usage";

describe("zod-free constants", () => {
  it("are the values the schemas accept, and nothing else", () => {
    expect(mfaMethodSchema.options).toEqual([...MFA_METHODS]);
    expect(scopeTypeSchema.options).toEqual([...SCOPE_TYPES]);
    expect(usageIntervalSchema.options).toEqual([...USAGE_INTERVALS]);
    for (const status of RESERVATION_STATUSES) expect(reservationsQuerySchema.safeParse({ status }).success).toBe(true);
    expect(reservationsQuerySchema.safeParse({ status: "unknown" }).success).toBe(false);
    for (const status of SCIM_STATUSES) expect(updateScimIntegrationRequestSchema.safeParse({ status }).success).toBe(true);
    expect(updateScimIntegrationRequestSchema.safeParse({ status: "paused" }).success).toBe(false);
  });

  it("list every audit-log list filter the operation takes", () => {
    const shape = Object.keys(auditLogsQuerySchema.shape);
    const lists = shape.filter((k) => !["start_time", "end_time", "limit", "next_token", "prev_token"].includes(k));
    expect(lists).toEqual([...AUDIT_LIST_FILTERS]);
  });
});
