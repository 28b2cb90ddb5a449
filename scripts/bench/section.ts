/**
 * Runs one benchmark section in this (fresh) process and writes its rows, as JSON,
 * to the file named by the second argument: each section gets a clean heap, so
 * one section's data and warm caches never flatter the next.
 */
import { writeFileSync } from "node:fs";
import type { Row, SectionOutput } from "./report";
import { SCALES, SECTIONS, type Scale, type Section } from "./scale";

const load: Record<Section, () => Promise<{ run(scale: Scale): Promise<Row[] | SectionOutput> }>> = {
  signing: () => import("./signing"),
  throughput: () => import("./throughput"),
  bff: () => import("./bff"),
  audit: () => import("./audit-search"),
  csv: () => import("./csv-export"),
  scim: () => import("./scim"),
  console: () => import("./console"),
  scale: () => import("./pg-scale"),
};

const [name, outFile, scaleName] = process.argv.slice(2);
if (!name || !outFile || !(SECTIONS as readonly string[]).includes(name)) {
  throw new Error(`usage: section.ts <${SECTIONS.join("|")}> <out.json> [full|quick]`);
}
const scale = SCALES[scaleName === "quick" ? "quick" : "full"];
const result = await (await load[name as Section]()).run(scale);
const output: SectionOutput = Array.isArray(result) ? { rows: result } : result;
writeFileSync(outFile, JSON.stringify(output));
