import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const HERE = path.dirname(fileURLToPath(import.meta.url));

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "migrations" ? [] : modules(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && entry.name !== "drizzle.config.ts" ? [full] : [];
  });
}

describe("lib/console", () => {
  it("every module is server-only, so a browser bundle that imports one fails to build", () => {
    const files = modules(HERE);
    expect(files.length).toBeGreaterThan(10);
    const missing = files.filter((file) => {
      // A server actions module starts with its directive: the browser gets only references to its actions.
      const code = readFileSync(file, "utf8")
        .replace(/^"use server";\n\n/, "")
        .replace(/^\/\*\*[\s\S]*?\*\/\n/, "");
      return !code.startsWith('import "server-only";');
    });
    expect(missing.map((f) => path.relative(HERE, f))).toEqual([]);
  });
});
