import { createRoute } from "@hono/zod-openapi";
import { auditLogsGetResponseSchema, auditLogsQuerySchema } from "@/lib/contract/audit-logs";
import { organizationPathSchema } from "@/lib/contract/usage";
import { errors, json, operation } from "../shared";

export const getAuditLogs = createRoute({
  ...operation("getAuditLogs"),
  tags: ["Audit Logs"],
  summary: "Get audit logs belonging to the specified organization. User must be part of the organization.",
  description:
    "Newest first. Array filters take comma-separated or repeated values; limit 1 to 1000 (default 20); " +
    "next_token and prev_token are the page tokens of a previous answer.",
  request: { params: organizationPathSchema, query: auditLogsQuerySchema },
  responses: { 200: json(auditLogsGetResponseSchema, "audit log entries"), ...errors(400, 401, 403, 500) },
});
