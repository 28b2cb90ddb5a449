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
    // Searches by target id or name, or by location, go through audit_log_targets (below), not through these columns.
    // The enumerated filters' values are mostly common, and a page of them comes from the time
    // index; a value that few entries hold, or none (a typo), is found by its own index instead
    // (migrations/online/0017, built concurrently after the migrations): without one, a search for `actions=Restore` read every entry of the
    // organization to fill no page. These hold (organization, value) only, so equal keys share
    // one posting list (btree deduplication): each is a small part of the time index's size,
    // and the planner, from the values' statistics, reads the few matches and sorts them.
    index("audit_action_idx").on(t.organizationId, sql`lower(${t.action})`),
    index("audit_actor_type_idx").on(t.organizationId, sql`lower(${t.actorType})`),
    index("audit_target_type_idx").on(t.organizationId, sql`lower(${t.targetType})`),
    index("audit_result_idx").on(t.organizationId, sql`lower(${t.result})`),
    index("audit_surface_idx").on(t.organizationId, sql`lower(${t.surface})`),
    // Locations are an array, searched like targets through audit_log_targets (below).
  ],
);

/**
 * Every target id and name, and every location, of every audit entry, one row each, filled by
 * a trigger on audit_log (migrations 0003, 0017), with the entry's organization and start time
 * copied, so that one index gives a target's (or a location's) entries newest first. A search for a target then reads
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
    /** `id` for an element of target_ids, `name` for one of target_names, `location` for one of locations. */
    kind: text("kind", { enum: ["id", "name", "location"] }).notNull(),
    value: text("value").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.seq, t.kind, t.value] }),
    index("audit_targets_search_idx").on(t.organizationId, t.kind, t.value, t.startTime.desc(), t.seq.desc()),
  ],
);
