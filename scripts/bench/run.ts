/**
 * `npm run bench`: every benchmark of the project, one table, written to
 * bench/results.md. Each section runs in a fresh process (section.ts), one after
 * the other, so they never compete for the two cores.
 *
 *   npm run bench                           # everything, full size (writes bench/results.md)
 *   npm run bench -- --quick                # small sizes, for development (prints only)
 *   npm run bench -- --only audit,csv       # some sections (updates their rows in bench/results.md)
 *   BENCH_SCALE_ROWS=1000000 npm run bench -- --only scale   # the scale section at 1 M rows (prints only)
 *
 * The scale section starts its own PostgreSQL server and fills it with 10 M audit entries and 10 M usage
 * rows (BENCH_SCALE_ROWS sets another count); see pg-scale.ts.
 * The csv section starts its own PostgreSQL server on loopback (Debian's server binaries, as
 * scripts/with-postgres.sh uses) to judge the export against COPY on both engines.
 *
 * BENCH_BUILD_LOCK, when set, names a lock file held (flock) around the console
 * section's production build and browser runs, for machines where builds are serialized.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { BENCH_DIR } from "./children";
import { machine, mergeResults, renderResults, renderTable, type Row, type SectionOutput } from "./report";
import { SECTIONS, type Section } from "./scale";

function parseArgs(argv: string[]): { quick: boolean; only: Section[] } {
  let quick = false;
  let only: Section[] = [...SECTIONS];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--quick") quick = true;
    else if (arg === "--only" || arg?.startsWith("--only=")) {
      const list = arg === "--only" ? argv[++i] : arg.slice("--only=".length);
      only = (list ?? "").split(",").filter(Boolean) as Section[];
      const unknown = only.filter((s) => !(SECTIONS as readonly string[]).includes(s));
      if (unknown.length) throw new Error(`unknown sections ${unknown.join(", ")}; known: ${SECTIONS.join(", ")}`);
    } else throw new Error(`unknown argument ${arg}`);
  }
  return { quick, only };
}

function runSection(section: Section, outFile: string, scale: string): Promise<number | null> {
  // The console's server modules import "server-only": scripts/server-only.mjs lets them load outside Next.js.
  const preload = section === "bff" ? ["--import", path.join(BENCH_DIR, "..", "server-only.mjs")] : [];
  const node = [process.execPath, ...preload, "--import", "tsx", path.join(BENCH_DIR, "section.ts"), section, outFile, scale];
  const lock = process.env.BENCH_BUILD_LOCK;
  const [command, ...args] = section === "console" && lock ? ["flock", lock, ...node] : node;
  const child = spawn(command!, args, { stdio: ["ignore", "inherit", "inherit"] });
  return new Promise((resolve) => child.on("exit", (code) => resolve(code)));
}

const { quick, only } = parseArgs(process.argv.slice(2));
const scale = quick ? "quick" : "full";
const work = mkdtempSync(path.join(tmpdir(), "stratus-bench-"));
const rows: Row[] = [];
const appendices: string[] = [];
const started = Date.now();
try {
  for (const section of only) {
    const outFile = path.join(work, `${section}.json`);
    const t0 = Date.now();
    process.stderr.write(`bench: ${section}…\n`);
    const code = await runSection(section, outFile, scale);
    let sectionRows: Row[] = [];
    try {
      const output = JSON.parse(readFileSync(outFile, "utf8")) as SectionOutput;
      sectionRows = output.rows;
      if (output.appendix) appendices.push(output.appendix);
    } catch {
      sectionRows = [{ what: section, how: "the section did not finish", measured: `exit code ${code}`, budget: "runs", pass: false }];
    }
    rows.push(...sectionRows);
    process.stderr.write(`bench: ${section} done in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const m = machine();
process.stdout.write(`\n${renderTable(rows)}\n\n${m.date} · Node ${m.node} · ${m.cpu} · ${m.cores} cores · scale ${scale} · ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
const file = path.resolve(BENCH_DIR, "../../bench/results.md");
// A full run writes the file; a full-size run of some sections updates their rows in it, at their
// usual sizes only (BENCH_SCALE_ROWS, for development, never reaches the file).
if (!quick && only.length === SECTIONS.length) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, renderResults(rows, m, scale, appendices));
  process.stdout.write(`written to ${path.relative(process.cwd(), file)}\n`);
} else if (!quick && !process.env.BENCH_SCALE_ROWS && existsSync(file)) {
  writeFileSync(file, mergeResults(readFileSync(file, "utf8"), rows, m, only, appendices));
  process.stdout.write(`rows of ${only.join(", ")} updated in ${path.relative(process.cwd(), file)}\n`);
}
for (const appendix of appendices) process.stdout.write(`\n${appendix}\n`);
process.exitCode = rows.every((r) => r.pass) ? 0 : 1;
