import { integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { organizations } from "./identity";

/** The maximum of each quota an organization was granted; usage is counted from live rows. */
export const orgQuotas = pgTable(
  "org_quotas",
  {
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** The quota type, e.g. ORG_QUOTAS_MAXIMUM_VMS (see store/queries/quotas.ts). */
    type: text("type").notNull(),
    max: integer("max").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.type] })],
);
