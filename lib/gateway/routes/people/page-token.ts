import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { badRequest } from "../../errors";

export type Direction = "next" | "prev";

const payloadSchema = z.object({ d: z.enum(["next", "prev"]), e: z.string().max(600) });

function mac(masterKey: Buffer, orgId: string, payload: string): Buffer {
  const key = createHmac("sha256", masterKey).update("stratus people page token v1").digest();
  return createHmac("sha256", key).update(`${orgId}\n${payload}`).digest();
}

/** An opaque page token, as the audit log's: base64url of {d, e} and an HMAC binding it to the organization. */
export function encodePeopleToken(masterKey: Buffer, orgId: string, direction: Direction, email: string): string {
  const payload = Buffer.from(JSON.stringify({ d: direction, e: email })).toString("base64url");
  return `${payload}.${mac(masterKey, orgId, payload).toString("base64url")}`;
}

export function decodePeopleToken(masterKey: Buffer, orgId: string, direction: Direction, token: string): string {
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
  return result.data.e;
}
