import { z } from "zod";
import { queryArray } from "./common";
import { orderedRange, timestampSchema } from "./time";

export const AUDIT_LOG_DEFAULT_LIMIT = 20;
export const AUDIT_LOG_MAX_LIMIT = 1000;

const list = () => queryArray({ commaSeparated: true });

export const auditLogsQuerySchema = z
  .object({
    project_ids: list(),
    start_time: timestampSchema.optional(),
    end_time: timestampSchema.optional(),
    actions: list(),
    actor_ids: list(),
    actor_emails: list(),
    actor_types: list(),
    target_ids: list(),
    target_types: list(),
    target_names: list(),
    locations: list(),
    results: list(),
    results_not: list(),
    surfaces: list(),
    limit: z
      .string()
      .regex(/^\d{1,7}$/, `must be a whole number from 1 to ${AUDIT_LOG_MAX_LIMIT}`)
      .transform(Number)
      .pipe(
        z
          .number()
          .int()
          .min(1, `must be a whole number from 1 to ${AUDIT_LOG_MAX_LIMIT}`)
          .max(AUDIT_LOG_MAX_LIMIT, `must be at most ${AUDIT_LOG_MAX_LIMIT}`),
      )
      .optional()
      .meta({ type: "string", example: "20" } as never),
    next_token: z.string().max(1024, "is not a valid page token").optional(),
    prev_token: z.string().max(1024, "is not a valid page token").optional(),
  })
  .superRefine(orderedRange("start_time", "end_time"))
  .superRefine((v, ctx) => {
    if (v.next_token && v.prev_token) ctx.addIssue({ code: "custom", path: ["prev_token"], message: "must not be sent with next_token" });
  });

export const logEntrySchema = z
  .object({
    action: z.string(),
    action_detail: z.string(),
    actor_email: z.string(),
    actor_id: z.string(),
    actor_type: z.string(),
    client_ip: z.string(),
    end_time: z.string(),
    error_message: z.string(),
    locations: z.array(z.string()),
    organization_id: z.string(),
    organization_name: z.string(),
    project_id: z.string(),
    project_name: z.string(),
    result: z.string(),
    start_time: z.string(),
    surface: z.string(),
    target_ids: z.array(z.string()),
    target_names: z.array(z.string()),
    target_type: z.string(),
  })
  .meta({ id: "LogEntry" });

export const auditLogsGetResponseSchema = z
  .object({
    items: z.array(logEntrySchema),
    next_page_token: z.string(),
    prev_page_token: z.string(),
  })
  .meta({ id: "AuditLogsGetResponse" });

export type AuditLogsQuery = z.infer<typeof auditLogsQuerySchema>;
export type LogEntry = z.infer<typeof logEntrySchema>;
