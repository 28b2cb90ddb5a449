import { sql } from "drizzle-orm";
import { bigint, bigserial, index, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

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
  (t) => [
    index("audit_org_time_idx").on(t.organizationId, t.startTime.desc(), t.seq.desc()),
    // A search by project, actor or e-mail reads one page of its own index, newest first, however
    // rare the value (migration 0011); the other filters' values are common enough for the time index.
    index("audit_project_time_idx").on(t.organizationId, t.projectId, t.startTime.desc(), t.seq.desc()),
    index("audit_actor_time_idx").on(t.organizationId, t.actorId, t.startTime.desc(), t.seq.desc()),
    index("audit_actor_email_time_idx").on(t.organizationId, sql`lower(${t.actorEmail})`, t.startTime.desc(), t.seq.desc()),
    // Searches by target id or name go through audit_log_targets (below), not through these columns.
  ],
);

/**
 * Every target id and name of every audit entry, one row each, filled by a trigger on
 * audit_log (migration 0003), with the entry's organization and start time copied, so
 * that one index gives a target's entries newest first. A search for a target then reads
 * one page of entries whether the target has three entries or three hundred thousand:
 * GIN on the arrays finds the matches but not their order (every match is read and
 * sorted), and walking the time index finds the order but reads every entry in between.
 */
export const auditLogTargets = pgTable(
  "audit_log_targets",
  {
    seq: bigint("seq", { mode: "number" })
      .notNull()
      .references(() => auditLog.seq, { onDelete: "cascade" }),
    organizationId: text("organization_id").notNull(),
    startTime: timestamp("start_time", { withTimezone: true, mode: "date" }).notNull(),
    /** `id` for an element of target_ids, `name` for one of target_names. */
    kind: text("kind", { enum: ["id", "name"] }).notNull(),
    value: text("value").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.seq, t.kind, t.value] }),
    index("audit_targets_search_idx").on(t.organizationId, t.kind, t.value, t.startTime.desc(), t.seq.desc()),
  ],
);
