import { z } from "zod";
import { pageTokens, type Direction } from "../../page-token";

export type { Direction };

/** The people list's tokens: the e-mail the page starts after (or before). */
const tokens = pageTokens("stratus people page token v1", z.object({ e: z.string().max(600) }));

export function encodePeopleToken(masterKey: Buffer, orgId: string, direction: Direction, email: string): string {
  return tokens.encode(masterKey, orgId, direction, { e: email });
}

export function decodePeopleToken(masterKey: Buffer, orgId: string, direction: Direction, token: string): string {
  return tokens.decode(masterKey, orgId, direction, token).e;
}
