import { randomUUID } from "node:crypto";
import { and, asc, eq } from "drizzle-orm";
import type { S3Key } from "@/lib/contract/s3";
import type { Database } from "../client";
import { s3Keys } from "../schema";

export type S3KeyRow = typeof s3Keys.$inferSelect;

/** "S3U_" and 32 hex digits. */
export const S3_ACCESS_KEY_ID = /^S3U_[0-9a-f]{32}$/;

/** A key past its expiry is disabled, whatever its stored flag says. */
export function s3KeyStatus(row: Pick<S3KeyRow, "enabled" | "expireAt">, now: Date): S3Key["status"] {
  return row.enabled && (!row.expireAt || row.expireAt.getTime() > now.getTime()) ? "enabled" : "disabled";
}

export function toS3Key(row: S3KeyRow, now: Date): S3Key {
  return {
    key_uuid: row.id,
    user_id: row.userId,
    access_key_id: row.accessKeyId,
    status: s3KeyStatus(row, now),
    created_at: row.createdAt.toISOString(),
    ...(row.alias ? { alias: row.alias } : {}),
    ...(row.expireAt ? { expire_at: row.expireAt.toISOString() } : {}),
  };
}

export async function listS3Keys(db: Database, organizationId: string): Promise<S3KeyRow[]> {
  return db
    .select()
    .from(s3Keys)
    .where(eq(s3Keys.organizationId, organizationId))
    .orderBy(asc(s3Keys.createdAt), asc(s3Keys.id));
}

export async function findS3Key(db: Database, organizationId: string, accessKeyId: string): Promise<S3KeyRow | undefined> {
  if (!S3_ACCESS_KEY_ID.test(accessKeyId)) return undefined;
  const [row] = await db
    .select()
    .from(s3Keys)
    .where(and(eq(s3Keys.organizationId, organizationId), eq(s3Keys.accessKeyId, accessKeyId)));
  return row;
}

export interface NewS3Key {
  organizationId: string;
  userId: string;
  accessKeyId: string;
  secretHash: string;
  alias: string;
  expireAt: Date | null;
}

export async function insertS3Key(tx: Database, key: NewS3Key): Promise<void> {
  await tx.insert(s3Keys).values({ id: randomUUID(), ...key });
}

/** False when the key was already gone. */
export async function deleteS3KeyRow(tx: Database, orgId: string, id: string): Promise<boolean> {
  const gone = await tx
    .delete(s3Keys)
    .where(and(eq(s3Keys.organizationId, orgId), eq(s3Keys.id, id)))
    .returning({ id: s3Keys.id });
  return gone.length > 0;
}
