import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { badRequest } from "../../errors";
import type { AuditPosition } from "../../store/queries/audit-logs";

export type Direction = "next" | "prev";

const payloadSchema = z.object({
  d: z.enum(["next", "prev"]),
  t: z.iso.datetime(),
  s: z.number().int().min(0),
});

/** A key of its own for page tokens, derived from the master key. */
function tokenKey(masterKey: Buffer): Buffer {
  return createHmac("sha256", masterKey).update("stratus audit-log page token v1").digest();
}

function mac(masterKey: Buffer, orgId: string, payload: string): Buffer {
  return createHmac("sha256", tokenKey(masterKey)).update(`${orgId}\n${payload}`).digest();
}

/**
 * An opaque page token: base64url of {d, t, s} and an HMAC over it and the
 * organization, so a token cannot be forged, edited or carried to another organization.
 */
export function encodePageToken(masterKey: Buffer, orgId: string, direction: Direction, at: AuditPosition): string {
  const payload = Buffer.from(JSON.stringify({ d: direction, t: at.t, s: at.s })).toString("base64url");
  return `${payload}.${mac(masterKey, orgId, payload).toString("base64url")}`;
}

export function decodePageToken(masterKey: Buffer, orgId: string, direction: Direction, token: string): AuditPosition {
  const field = direction === "next" ? "query.next_token" : "query.prev_token";
  const invalid = () => badRequest(field, "is not a valid page token");
  const [payload, signature, extra] = token.split(".");
  if (!payload || !signature || extra !== undefined) throw invalid();
  const given = Buffer.from(signature, "base64url");
  const expected = mac(masterKey, orgId, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    throw invalid();
  }
  const result = payloadSchema.safeParse(parsed);
  if (!result.success) throw invalid();
  if (result.data.d !== direction) throw badRequest(field, `is a ${result.data.d} token`);
  return { t: result.data.t, s: result.data.s };
}
