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
  (t) => [
    index("audit_org_time_idx").on(t.organizationId, t.startTime.desc(), t.seq.desc()),
    // A search for one resource matches a handful of entries among millions: without these,
    // finding its first page walks the time index through most of the organization's history.
    // No fast update: PGlite runs no autovacuum, so a pending list would only grow, and every
    // search would read all of it.
    index("audit_target_ids_idx").using("gin", t.targetIds).with({ fastupdate: false }),
    index("audit_target_names_idx").using("gin", t.targetNames).with({ fastupdate: false }),
  ],
);
