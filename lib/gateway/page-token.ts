import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { z } from "zod";
import { badRequest } from "./errors";

export type Direction = "next" | "prev";

/**
 * Opaque keyset page tokens: the position ({d, …position} as JSON) sealed with AES-256-GCM under a key of the list's
 * own derived from the master key, the organization as its associated data: a token cannot be forged, edited, carried
 * to another organization or to another list, nor read (an audit position holds the store's sequence number, shared
 * by every organization: two tokens apart in time would tell how much the whole platform did between them).
 */
export function pageTokens<Shape extends z.ZodRawShape>(purpose: string, position: z.ZodObject<Shape>) {
  type Position = z.infer<z.ZodObject<Shape>>;
  const payloadSchema = position.extend({ d: z.enum(["next", "prev"]) });
  const keyOf = (masterKey: Buffer): Buffer => createHmac("sha256", masterKey).update(`${purpose}\nsealed`).digest();

  function encode(masterKey: Buffer, orgId: string, direction: Direction, at: Position): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", keyOf(masterKey), iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(orgId, "utf8"));
    const body = Buffer.concat([cipher.update(JSON.stringify({ d: direction, ...at }), "utf8"), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
  }

  function decode(masterKey: Buffer, orgId: string, direction: Direction, token: string): Position {
    const field = direction === "next" ? "query.next_token" : "query.prev_token";
    const invalid = () => badRequest(field, "is not a valid page token");
    // Only as written: base64url decoding skips characters outside its alphabet, and padding, so `<token>!!` would
    // open as the token issued, a token other than the one issued.
    if (!BASE64URL.test(token)) throw invalid();
    const sealed = Buffer.from(token, "base64url");
    if (sealed.length <= IV_BYTES + TAG_BYTES || sealed.toString("base64url") !== token) throw invalid();
    let parsed: unknown;
    try {
      const decipher = createDecipheriv("aes-256-gcm", keyOf(masterKey), sealed.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(orgId, "utf8"));
      decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const plain = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
      parsed = JSON.parse(plain.toString("utf8"));
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

const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
