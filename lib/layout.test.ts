import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The layout's import rules (README, Layout): lib/ never imports components/; an area of the
 * console (components/<area>) never imports another area; no two folders import each other,
 * directly or round a longer cycle.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SHARED_COMPONENTS = new Set(["ui", "common", "spend", "shell", "providers.tsx"]);

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "migrations" ? [] : sources(rel);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [rel] : [];
  });
}

/** "lib/gateway/routes/x.ts" → "lib/gateway"; "components/iam/a.tsx" → "components/iam"; "app/…" → "app". */
function folderOf(file: string): string {
  const parts = file.split(path.sep);
  return parts[0] === "app" ? "app" : parts.slice(0, 2).join("/");
}

function importsOf(file: string): string[] {
  const code = readFileSync(path.join(ROOT, file), "utf8");
  const targets: string[] = [];
  for (const m of code.matchAll(/(?:import|export)\s[^"']*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)) {
    const spec = m[1] ?? m[2] ?? "";
    if (spec.startsWith("@/")) targets.push(spec.slice(2));
    else if (spec.startsWith(".")) targets.push(path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), spec)));
  }
  return targets.filter((t) => /^(lib|components|app)\//.test(t));
}

function edges(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of [...sources("lib"), ...sources("components"), ...sources("app")]) {
    const from = folderOf(file);
    for (const target of importsOf(file)) {
      const to = folderOf(target);
      if (to === from) continue;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from)!.add(to);
    }
  }
  return graph;
}

describe("layout", () => {
  const graph = edges();

  it("lib/ imports nothing from components/ or app/", () => {
    const wrong = [...graph].flatMap(([from, tos]) => (from.startsWith("lib/") ? [...tos].filter((t) => !t.startsWith("lib/")).map((t) => `${from} → ${t}`) : []));
    expect(wrong).toEqual([]);
  });

  it("an area of the console imports no other area", () => {
    const area = (f: string) => f.startsWith("components/") && !SHARED_COMPONENTS.has(f.slice("components/".length));
    const wrong = [...graph].flatMap(([from, tos]) => (area(from) ? [...tos].filter(area).map((t) => `${from} → ${t}`) : []));
    expect(wrong).toEqual([]);
  });

  it("no import cycle between folders", () => {
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const visit = (node: string, trail: string[]) => {
      if (state.get(node) === "done") return;
      if (state.get(node) === "open") {
        cycles.push([...trail.slice(trail.indexOf(node)), node].join(" → "));
        return;
      }
      state.set(node, "open");
      for (const next of graph.get(node) ?? []) visit(next, [...trail, node]);
      state.set(node, "done");
    };
    for (const node of graph.keys()) visit(node, []);
    expect(cycles).toEqual([]);
  });
});
