import { randomUUID } from "node:crypto";
import type { Database } from "../client";
import { registryTokens } from "../schema";

/** Stores a registry token by its hash; returns the token's id. */
export async function insertRegistryToken(
  tx: Database,
  t: { organizationId: string; userId: string; alias: string; tokenHash: string; expiresAt: Date | null },
): Promise<string> {
  const id = randomUUID();
  await tx.insert(registryTokens).values({ id, ...t });
  return id;
}
