/**
 * After `next build`: marks the scripts every page runs at load (the build manifest's
 * rootMainFiles: React DOM, the Next.js router, the bundler's runtime) for eager compilation
 * with V8's explicit compile hint, `//# allFunctionsCalledOnLoad` on the file's first line
 * (Chromium 136 and later; any other engine reads a comment).
 *
 * Without it, V8 compiles each function of those scripts the first time it is called, on the main
 * thread, inside the one task that starts the app and its hydration: React DOM alone was 180 ms of
 * that task at Lighthouse's 4x CPU. With it, the browser compiles them on a background thread while
 * they download. Nearly every function in those files runs at load, so little is compiled for
 * nothing. The pages' own chunks stay lazy: parts of them run only on use, and marking every chunk
 * measured no better than marking these (people page, CPU at 4x, time of its tasks past 50 ms:
 * 706-749 ms unmarked, 399-633 with these marked, 476-533 with every chunk marked).
 *
 * A marked file gains one line at its top, so its source map (when the build writes one) gains an
 * empty first line of mappings. Running it twice changes nothing.
 *
 *   tsx scripts/compile-hints.ts [.next]
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const COMPILE_HINT = "//# allFunctionsCalledOnLoad";

interface SourceMap {
  mappings?: string;
  sections?: Array<{ offset: { line: number; column: number } }>;
}

/** Shifts a source map by one generated line: the hint's. */
function shiftSourceMap(file: string): void {
  const map = JSON.parse(readFileSync(file, "utf8")) as SourceMap;
  if (map.sections) {
    for (const section of map.sections) section.offset.line += 1;
  } else {
    map.mappings = `;${map.mappings ?? ""}`;
  }
  writeFileSync(file, JSON.stringify(map));
}

/** Marks the build's root main files; returns the files it marked (already marked ones are skipped). */
export function markCompileHints(nextDir: string): string[] {
  const manifestFile = path.join(nextDir, "build-manifest.json");
  if (!existsSync(manifestFile)) throw new Error(`${manifestFile} is missing: run next build first`);
  const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as { rootMainFiles?: unknown };
  const files = manifest.rootMainFiles;
  if (!Array.isArray(files) || files.length === 0 || !files.every((f): f is string => typeof f === "string")) {
    throw new Error(`${manifestFile} lists no rootMainFiles: the scripts every page runs at load are unknown`);
  }
  const marked: string[] = [];
  for (const file of files) {
    const full = path.join(nextDir, file);
    const text = readFileSync(full, "utf8");
    if (text.startsWith(COMPILE_HINT)) continue;
    writeFileSync(full, `${COMPILE_HINT}\n${text}`);
    const mapName = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(text)?.[1];
    const mapFile = mapName && !mapName.startsWith("data:") ? path.join(path.dirname(full), mapName) : undefined;
    if (mapFile && existsSync(mapFile)) shiftSourceMap(mapFile);
    marked.push(file);
  }
  return marked;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const nextDir = path.resolve(process.argv[2] ?? ".next");
  const marked = markCompileHints(nextDir);
  process.stdout.write(`compile hints: ${marked.length} of the scripts every page runs at load marked for eager compilation\n`);
}
