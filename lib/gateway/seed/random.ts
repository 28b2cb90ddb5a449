import { createHash } from "node:crypto";

/**
 * A small seeded PRNG (mulberry32) so the demo data is the same on every machine. With an
 * `idSalt` (drawn per install), the UUIDs it draws are mapped through a keyed hash: the data
 * stays the same, the ids differ between installs.
 */
export function rng(seed: number, idSalt?: string) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    /** A UUID v4 drawn from this generator (stable across runs). */
    uuid: () => {
      const drawn = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16)).join("");
      const hex = idSalt === undefined ? drawn : createHash("sha256").update(`${idSalt}:${drawn}`).digest("hex").slice(0, 32);
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((parseInt(hex[16] ?? "8", 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
    },
  };
}
export type Rng = ReturnType<typeof rng>;
