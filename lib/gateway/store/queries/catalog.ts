import { and, arrayOverlaps, asc, eq, inArray, type SQL } from "drizzle-orm";
import type { Capacity, Image } from "@/lib/contract/catalog";
import type { Database } from "../client";
import { capacities, images, registryLocations, registryProviders } from "../schema";

export type ImageRow = typeof images.$inferSelect;

export async function listCapacities(db: Database, filter: { productNames?: string[]; locations?: string[] }): Promise<Capacity[]> {
  const conditions: SQL[] = [];
  if (filter.productNames?.length) conditions.push(inArray(capacities.type, filter.productNames));
  if (filter.locations?.length) conditions.push(inArray(capacities.location, filter.locations));
  const rows = await db
    .select()
    .from(capacities)
    .where(and(...conditions))
    .orderBy(asc(capacities.type), asc(capacities.location));
  return rows.map((r) => ({ location: r.location, num_slices: r.numSlices, quantity: r.quantity, quota_type: r.quotaType, type: r.type }));
}

export function toImage(row: ImageRow): Image {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    tags: row.tags,
    created_at: row.createdAt.toISOString(),
    locations: row.locations,
  };
}

/** Images, only those compatible with one of `productGroups` when given. */
export async function listImages(db: Database, productGroups?: string[]): Promise<Image[]> {
  if (productGroups?.length === 0) return [];
  const where = productGroups ? arrayOverlaps(images.productGroups, productGroups) : undefined;
  const rows = await db.select().from(images).where(where).orderBy(asc(images.name), asc(images.createdAt), asc(images.id));
  return rows.map(toImage);
}

export async function findImage(db: Database, imageId: string): Promise<Image | undefined> {
  const [row] = await db.select().from(images).where(eq(images.id, imageId.toLowerCase()));
  return row ? toImage(row) : undefined;
}

export async function listRegistryLocations(db: Database): Promise<string[]> {
  return (await db.select({ id: registryLocations.id }).from(registryLocations).orderBy(asc(registryLocations.id))).map((r) => r.id);
}

export async function listRegistryProviders(db: Database): Promise<string[]> {
  return (await db.select({ id: registryProviders.id }).from(registryProviders).orderBy(asc(registryProviders.id))).map((r) => r.id);
}
