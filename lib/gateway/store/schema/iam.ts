import { index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { organizations, users } from "./identity";

export const roles = pgTable(
  "roles",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    roleName: text("role_name").notNull(),
    description: text("description").notNull().default(""),
    /** Scope types a binding of this role may use: "org", "project". */
    allowedScopes: text("allowed_scopes").array().notNull(),
    /** Permission names, e.g. "projects.create" (see lib/gateway/authz.ts). */
    permissions: text("permissions").array().notNull(),
  },
  (t) => [uniqueIndex("roles_org_name_uq").on(t.organizationId, t.roleName)],
);

export const roleBindings = pgTable(
  "role_bindings",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    roleId: text("role_id")
      .notNull()
      .references(() => roles.id, { onDelete: "cascade" }),
    scopeType: text("scope_type").notNull(),
    scopeObjectId: text("scope_object_id").notNull(),
    /**
     * "" for a binding granted directly; otherwise the SCIM group (scim_groups.id) whose mapping granted it.
     * A direct and a group-granted binding of the same role and scope are two rows, removed independently.
     * No foreign key (a direct binding holds ""): deleting a group, or the integration with its groups,
     * deletes the group's bindings itself (deleteGroupGrantedBindings).
     */
    viaGroupId: text("via_group_id").notNull().default(""),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("role_bindings_uq").on(t.userId, t.roleId, t.scopeType, t.scopeObjectId, t.viaGroupId),
    index("role_bindings_org_idx").on(t.organizationId),
    index("role_bindings_scope_idx").on(t.scopeType, t.scopeObjectId),
  ],
);
