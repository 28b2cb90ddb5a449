import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { COMPILE_HINT, markCompileHints } from "./compile-hints";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A .next directory with two root main files (one with a source map), a page chunk and the manifest. */
function build(rootMainFiles: unknown = ["static/chunks/root-a.js", "static/chunks/root-b.js"]): string {
  const dir = mkdtempSync(path.join(tmpdir(), "stratus-compile-hints-"));
  dirs.push(dir);
  mkdirSync(path.join(dir, "static/chunks"), { recursive: true });
  writeFileSync(path.join(dir, "build-manifest.json"), JSON.stringify({ rootMainFiles }));
  writeFileSync(path.join(dir, "static/chunks/root-a.js"), "(()=>{a()})();\n//# sourceMappingURL=root-a.js.map");
  writeFileSync(path.join(dir, "static/chunks/root-a.js.map"), JSON.stringify({ version: 3, sources: ["a.ts"], names: [], mappings: "AAAA,CAAC" }));
  writeFileSync(path.join(dir, "static/chunks/root-b.js"), "b();");
  writeFileSync(path.join(dir, "static/chunks/page.js"), "c();");
  return dir;
}

const read = (dir: string, file: string) => readFileSync(path.join(dir, "static/chunks", file), "utf8");

describe("markCompileHints", () => {
  it("puts the hint on the first line of each root main file and shifts its source map by that line", () => {
    const dir = build();
    expect(markCompileHints(dir)).toEqual(["static/chunks/root-a.js", "static/chunks/root-b.js"]);
    expect(read(dir, "root-a.js")).toBe(`${COMPILE_HINT}\n(()=>{a()})();\n//# sourceMappingURL=root-a.js.map`);
    expect(read(dir, "root-b.js")).toBe(`${COMPILE_HINT}\nb();`);
    expect(JSON.parse(read(dir, "root-a.js.map")).mappings).toBe(";AAAA,CAAC");
    // A page's own chunk stays lazily compiled.
    expect(read(dir, "page.js")).toBe("c();");
  });

  it("changes nothing the second time", () => {
    const dir = build();
    markCompileHints(dir);
    expect(markCompileHints(dir)).toEqual([]);
    expect(read(dir, "root-b.js")).toBe(`${COMPILE_HINT}\nb();`);
    expect(JSON.parse(read(dir, "root-a.js.map")).mappings).toBe(";AAAA,CAAC");
  });

  it("shifts the sections of an index source map", () => {
    const dir = build(["static/chunks/root-a.js"]);
    writeFileSync(path.join(dir, "static/chunks/root-a.js.map"), JSON.stringify({ version: 3, sections: [{ offset: { line: 0, column: 0 }, map: {} }, { offset: { line: 4, column: 2 }, map: {} }] }));
    markCompileHints(dir);
    expect(JSON.parse(read(dir, "root-a.js.map")).sections.map((s: { offset: { line: number } }) => s.offset.line)).toEqual([1, 5]);
  });

  it("refuses a build whose manifest names no root main files", () => {
    expect(() => markCompileHints(build([]))).toThrow(/lists no rootMainFiles/);
    expect(() => markCompileHints(build("static/chunks/root-a.js"))).toThrow(/lists no rootMainFiles/);
    const dir = mkdtempSync(path.join(tmpdir(), "stratus-compile-hints-"));
    dirs.push(dir);
    expect(() => markCompileHints(dir)).toThrow(/run next build first/);
  });
});
