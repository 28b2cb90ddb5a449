import type { Database } from "../client";
import { locations } from "../schema";

/** Every location's id, in order. */
export async function listLocationIds(db: Database): Promise<string[]> {
  const rows = await db.select({ id: locations.id }).from(locations).orderBy(locations.id);
  return rows.map((r) => r.id);
}
