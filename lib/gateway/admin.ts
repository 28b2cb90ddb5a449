import { randomUUID } from "node:crypto";
import { and, desc, eq, isNull } from "drizzle-orm";
import { encrypt, newAccessKeyId, newSecret } from "./crypto";
import type { Database } from "./store/client";
import { apiKeys, memberships, organizations, roleBindings, roles, users } from "./store/schema";
import { PERMISSIONS, type Permission, type Relation } from "./authz";

/** The roles every organization starts with. Permissions are data: edit here, not in handlers. */
export const DEFAULT_ROLES: Array<{ name: string; description: string; scopes: Array<"org" | "project">; permissions: Permission[] }> = [
  {
    name: "Organization Admin",
    description: "Full control of the organization: projects, IAM, security settings, billing and audit logs.",
    scopes: ["org"],
    permissions: [...PERMISSIONS],
  },
  { name: "Project Creator", description: "May create projects in the organization.", scopes: ["org"], permissions: ["projects.create"] },
  { name: "Billing Viewer", description: "Reads billing, usage and quotas.", scopes: ["org"], permissions: ["billing.read"] },
  { name: "Auditor", description: "Reads audit logs and role bindings.", scopes: ["org"], permissions: ["audit.read", "iam.read"] },
  { name: "Organization Member", description: "Baseline membership; sees the organization and its own bindings.", scopes: ["org"], permissions: [] },
  {
    name: "Project Admin",
    description: "Manages a project: rename, delete and its resources.",
    scopes: ["project", "org"],
    permissions: ["projects.read", "projects.update", "projects.delete"],
  },
  { name: "Project Member", description: "Uses a project and its resources.", scopes: ["project"], permissions: ["projects.read"] },
];

export async function createUser(db: Database, input: { email: string; name?: string; id?: string }) {
  const [user] = await db
    .insert(users)
    .values({ id: input.id ?? randomUUID(), email: input.email.toLowerCase(), name: input.name ?? "" })
    .returning();
  if (!user) throw new Error("user not created");
  return user;
}

export async function findUser(db: Database, idOrEmail: string) {
  const [byId] = await db.select().from(users).where(eq(users.id, idOrEmail));
  if (byId) return byId;
  const [byEmail] = await db.select().from(users).where(eq(users.email, idOrEmail.toLowerCase()));
  return byEmail;
}

export async function roleId(db: Database, organizationId: string, name: string): Promise<string> {
  const [role] = await db
    .select({ id: roles.id })
    .from(roles)
    .where(and(eq(roles.organizationId, organizationId), eq(roles.roleName, name)));
  if (!role) throw new Error(`no role ${name} in ${organizationId}`);
  return role.id;
}

export async function bindRole(
  db: Database,
  input: { organizationId: string; userId: string; roleName: string; scopeType: "org" | "project"; scopeObjectId: string },
) {
  await db.insert(roleBindings).values({
    id: randomUUID(),
    organizationId: input.organizationId,
    userId: input.userId,
    roleId: await roleId(db, input.organizationId, input.roleName),
    scopeType: input.scopeType,
    scopeObjectId: input.scopeObjectId,
  });
}

export async function addMember(db: Database, organizationId: string, userId: string, relation: Relation) {
  await db.insert(memberships).values({ organizationId, userId, relation });
  await bindRole(db, {
    organizationId,
    userId,
    roleName: relation === "owner" ? "Organization Admin" : "Organization Member",
    scopeType: "org",
    scopeObjectId: organizationId,
  });
}

/** An organization with the default roles and its owner. */
export async function createOrganization(
  db: Database,
  input: { name: string; ownerId: string; companyName?: string; id?: string; organizationType?: string },
) {
  const [org] = await db
    .insert(organizations)
    .values({
      id: input.id ?? randomUUID(),
      name: input.name,
      companyName: input.companyName ?? "",
      organizationType: input.organizationType ?? "standard",
    })
    .returning();
  if (!org) throw new Error("organization not created");
  await db.insert(roles).values(
    DEFAULT_ROLES.map((r) => ({
      id: randomUUID(),
      organizationId: org.id,
      roleName: r.name,
      description: r.description,
      allowedScopes: r.scopes,
      permissions: r.permissions,
    })),
  );
  await addMember(db, org.id, input.ownerId, "owner");
  return org;
}

/** A new API key; the secret is returned here once and stored only encrypted. */
export async function createApiKey(db: Database, masterKey: Buffer, userId: string, name = "") {
  const accessKeyId = newAccessKeyId();
  const secretKey = newSecret();
  await db.insert(apiKeys).values({ id: accessKeyId, userId, name, secretCiphertext: encrypt(masterKey, secretKey) });
  return { accessKeyId, secretKey };
}

export async function listApiKeys(db: Database, userId?: string) {
  return db
    .select({ id: apiKeys.id, userId: apiKeys.userId, email: users.email, name: apiKeys.name, createdAt: apiKeys.createdAt, revokedAt: apiKeys.revokedAt })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(userId ? eq(apiKeys.userId, userId) : undefined)
    .orderBy(desc(apiKeys.createdAt));
}

export async function revokeApiKey(db: Database, accessKeyId: string): Promise<boolean> {
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.id, accessKeyId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}
