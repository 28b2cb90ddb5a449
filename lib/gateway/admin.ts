import { randomUUID } from "node:crypto";
import { encrypt, newAccessKeyId, newSecret } from "./crypto";
import type { Database } from "./store/client";
import { insertApiKey, listApiKeysWithOwner, markApiKeyRevoked } from "./store/queries/api-keys";
import { insertRoleBinding, insertRoles, roleIdByName } from "./store/queries/iam";
import { insertMembership, insertOrganization, insertUser, organizationExists, userByEmail, userById } from "./store/queries/identity";
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
  return insertUser(db, { id: input.id ?? randomUUID(), email: input.email.toLowerCase(), name: input.name ?? "" });
}

export async function findUser(db: Database, idOrEmail: string) {
  return (await userById(db, { id: idOrEmail })) ?? (await userByEmail(db, { email: idOrEmail.toLowerCase() }));
}

export async function findOrganization(db: Database, id: string): Promise<boolean> {
  return organizationExists(db, { id });
}

export async function roleId(db: Database, organizationId: string, name: string): Promise<string> {
  const id = await roleIdByName(db, { organizationId, roleName: name });
  if (!id) throw new Error(`no role ${name} in ${organizationId}`);
  return id;
}

export async function bindRole(
  db: Database,
  input: { organizationId: string; userId: string; roleName: string; scopeType: "org" | "project"; scopeObjectId: string },
) {
  await insertRoleBinding(db, {
    id: randomUUID(),
    organizationId: input.organizationId,
    userId: input.userId,
    roleId: await roleId(db, input.organizationId, input.roleName),
    scopeType: input.scopeType,
    scopeObjectId: input.scopeObjectId,
  });
}

export async function addMember(db: Database, organizationId: string, userId: string, relation: Relation) {
  await insertMembership(db, { organizationId, userId, relation });
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
  const org = await insertOrganization(db, {
    id: input.id ?? randomUUID(),
    name: input.name,
    companyName: input.companyName ?? "",
    organizationType: input.organizationType ?? "standard",
  });
  await insertRoles(db, {
    rows: DEFAULT_ROLES.map((r) => ({
      id: randomUUID(),
      organizationId: org.id,
      roleName: r.name,
      description: r.description,
      allowedScopes: r.scopes,
      permissions: r.permissions,
    })),
  });
  await addMember(db, org.id, input.ownerId, "owner");
  return org;
}

/** A new API key (refused after `expiresAt` when given); the secret is returned here once and stored only encrypted. */
export async function createApiKey(db: Database, masterKey: Buffer, userId: string, name = "", expiresAt: Date | null = null, ssoProviderId: string | null = null) {
  const accessKeyId = newAccessKeyId();
  const secretKey = newSecret();
  await insertApiKey(db, { id: accessKeyId, userId, name, secretCiphertext: encrypt(masterKey, secretKey), expiresAt, ssoProviderId });
  return { accessKeyId, secretKey };
}

export async function listApiKeys(db: Database, userId?: string) {
  return listApiKeysWithOwner(db, { userId });
}

export async function revokeApiKey(db: Database, accessKeyId: string): Promise<boolean> {
  return markApiKeyRevoked(db, { accessKeyId });
}
