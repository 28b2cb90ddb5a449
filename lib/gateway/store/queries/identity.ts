import { eq } from "drizzle-orm";
import type { Database } from "../client";
import { memberships, organizations, users } from "../schema";
import type { Relation } from "./access";

export type UserRow = typeof users.$inferSelect;

export async function insertUser(db: Database, params: { id: string; email: string; name: string }): Promise<UserRow> {
  const [user] = await db.insert(users).values(params).returning();
  if (!user) throw new Error("user not created");
  return user;
}

export async function userById(db: Database, params: { id: string }): Promise<UserRow | undefined> {
  const [user] = await db.select().from(users).where(eq(users.id, params.id));
  return user;
}

/** By the stored (lower-case) email. */
export async function userByEmail(db: Database, params: { email: string }): Promise<UserRow | undefined> {
  const [user] = await db.select().from(users).where(eq(users.email, params.email));
  return user;
}

export async function organizationExists(db: Database, params: { id: string }): Promise<boolean> {
  const [org] = await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, params.id));
  return Boolean(org);
}

export async function insertOrganization(
  db: Database,
  params: { id: string; name: string; companyName: string; organizationType: string },
): Promise<typeof organizations.$inferSelect> {
  const [org] = await db.insert(organizations).values(params).returning();
  if (!org) throw new Error("organization not created");
  return org;
}

export async function insertMembership(db: Database, params: { organizationId: string; userId: string; relation: Relation }): Promise<void> {
  await db.insert(memberships).values(params);
}
