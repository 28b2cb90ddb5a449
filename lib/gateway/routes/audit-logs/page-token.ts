import { z } from "zod";
import { pageTokens, type Direction } from "../../page-token";
import type { AuditPosition } from "../../store/queries/audit-logs";

export type { Direction };

const tokens = pageTokens("stratus audit-log page token v1", z.object({ t: z.iso.datetime(), s: z.number().int().min(0) }));

export function encodePageToken(masterKey: Buffer, orgId: string, direction: Direction, at: AuditPosition): string {
  return tokens.encode(masterKey, orgId, direction, { t: at.t, s: at.s });
}

export function decodePageToken(masterKey: Buffer, orgId: string, direction: Direction, token: string): AuditPosition {
  return tokens.decode(masterKey, orgId, direction, token);
}
