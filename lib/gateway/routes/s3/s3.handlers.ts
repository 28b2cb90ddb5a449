import { randomUUID } from "node:crypto";
import { auditAs, mutate } from "../../audit";
import { holdCallerMembership, requireOrgMember, requirePermission } from "../../authz";
import { hashSecret, newSecret } from "../../crypto";
import { notFound } from "../../errors";
import { deleteS3KeyRow, findS3Key, insertS3Key, listS3Keys as listKeyRows, toS3Key } from "../../store/queries/s3";
import type { AppRouteHandler } from "../shared";
import type * as routes from "./s3.routes";

const keyNotFound = () => notFound("S3 access key not found in this organization");

export const listS3Keys: AppRouteHandler<typeof routes.listS3Keys> = async (c) => {
  const { org_id: orgId } = c.req.valid("param");
  await requireOrgMember(c.get("access"), orgId);
  const now = new Date();
  const rows = await listKeyRows(c.get("deps").db, orgId);
  return c.json({ items: rows.map((row) => toS3Key(row, now)) }, 200);
};

export const createS3Key: AppRouteHandler<typeof routes.createS3Key> = async (c) => {
  const { org_id: orgId } = c.req.valid("param");
  const body = c.req.valid("json");
  const caller = c.get("caller");
  const audit = auditAs(c, {
    organizationId: orgId,
    action: "Create",
    actionDetail: "Create S3 Access Key",
    targetType: "S3Key",
    targetNames: body.alias ? [body.alias] : [],
  });
  // Any member may hold keys of their own.
  await requireOrgMember(c.get("access"), orgId);
  const accessKeyId = `S3U_${randomUUID().replace(/-/g, "")}`;
  const secretKey = newSecret();
  const expireAt = body.expire_at ? new Date(body.expire_at) : null;
  await mutate(c, audit, async (tx, meta) => {
    await holdCallerMembership(tx, orgId, caller.userId);
    await insertS3Key(tx, { organizationId: orgId, userId: caller.userId, accessKeyId, secretHash: hashSecret(secretKey), alias: body.alias ?? "", expireAt });
    meta.targetIds = [accessKeyId];
  });
  return c.json({ access_key_id: accessKeyId, secret_key: secretKey, ...(expireAt ? { expire_at: expireAt.toISOString() } : {}) }, 200);
};

export const deleteS3Key: AppRouteHandler<typeof routes.deleteS3Key> = async (c) => {
  const { org_id: orgId, access_key_id: accessKeyId } = c.req.valid("param");
  const access = c.get("access");
  const audit = auditAs(c, {
    organizationId: orgId,
    action: "Delete",
    actionDetail: "Delete S3 Access Key",
    targetType: "S3Key",
    targetIds: [accessKeyId],
  });
  await requireOrgMember(access, orgId);
  const key = await findS3Key(c.get("deps").db, orgId, accessKeyId);
  if (!key) throw keyNotFound();
  audit.targetNames = key.alias ? [key.alias] : [];
  if (key.userId !== access.caller.userId) await requirePermission(access, orgId, "s3.manage");
  await mutate(c, audit, async (tx) => {
    if (!(await deleteS3KeyRow(tx, orgId, key.id))) throw keyNotFound();
  });
  return c.body(null, 204);
};
