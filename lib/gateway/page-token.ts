import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { badRequest } from "./errors";

export type Direction = "next" | "prev";

/**
 * Opaque keyset page tokens: base64url of {d, …position} and an HMAC over it and the organization,
 * under a key of the list's own derived from the master key, so a token cannot be forged, edited,
 * carried to another organization or to another list.
 */
export function pageTokens<Shape extends z.ZodRawShape>(purpose: string, position: z.ZodObject<Shape>) {
  type Position = z.infer<z.ZodObject<Shape>>;
  const payloadSchema = position.extend({ d: z.enum(["next", "prev"]) });
  const mac = (masterKey: Buffer, orgId: string, payload: string): Buffer => {
    const key = createHmac("sha256", masterKey).update(purpose).digest();
    return createHmac("sha256", key).update(`${orgId}\n${payload}`).digest();
  };

  function encode(masterKey: Buffer, orgId: string, direction: Direction, at: Position): string {
    const payload = Buffer.from(JSON.stringify({ d: direction, ...at })).toString("base64url");
    return `${payload}.${mac(masterKey, orgId, payload).toString("base64url")}`;
  }

  function decode(masterKey: Buffer, orgId: string, direction: Direction, token: string): Position {
    const field = direction === "next" ? "query.next_token" : "query.prev_token";
    const invalid = () => badRequest(field, "is not a valid page token");
    const [payload, signature, extra] = token.split(".");
    if (!payload || !signature || extra !== undefined) throw invalid();
    // Compared as written, not as decoded: base64url decoding skips characters outside its alphabet and
    // padding, so `<signature>!!` would decode to the same MAC, a token other than the one issued.
    const given = Buffer.from(signature, "utf8");
    const expected = Buffer.from(mac(masterKey, orgId, payload).toString("base64url"), "utf8");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    } catch {
      throw invalid();
    }
    const result = payloadSchema.safeParse(parsed);
    if (!result.success) throw invalid();
    const { d, ...at } = result.data as { d: Direction } & Position;
    if (d !== direction) throw badRequest(field, `is a ${d} token`);
    return position.parse(at);
  }

  return { encode, decode };
}
