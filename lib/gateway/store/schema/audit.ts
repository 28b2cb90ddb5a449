import { sql } from "drizzle-orm";
import { bigserial, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** One entry per mutating call (failed ones too), in the reference's LogEntry shape. */
export const auditLog = pgTable(
  "audit_log",
  {
    /** Monotonic tie-breaker for keyset pagination. */
    seq: bigserial("seq", { mode: "number" }).primaryKey(),
    id: text("id").notNull().unique(),
    organizationId: text("organization_id").notNull(),
    organizationName: text("organization_name").notNull().default(""),
    projectId: text("project_id"),
    projectName: text("project_name"),
    action: text("action").notNull(),
    actionDetail: text("action_detail").notNull().default(""),
    actorId: text("actor_id").notNull(),
    actorEmail: text("actor_email").notNull(),
    actorType: text("actor_type").notNull(),
    clientIp: text("client_ip").notNull().default(""),
    startTime: timestamp("start_time", { withTimezone: true, mode: "date" }).notNull(),
    endTime: timestamp("end_time", { withTimezone: true, mode: "date" }).notNull(),
    result: text("result").notNull(),
    errorMessage: text("error_message").notNull().default(""),
    surface: text("surface").notNull(),
    locations: text("locations").array().notNull().default(sql`'{}'::text[]`),
    targetIds: text("target_ids").array().notNull().default(sql`'{}'::text[]`),
    targetNames: text("target_names").array().notNull().default(sql`'{}'::text[]`),
    targetType: text("target_type").notNull().default(""),
  },
  (t) => [index("audit_org_time_idx").on(t.organizationId, t.startTime.desc(), t.seq.desc())],
);
