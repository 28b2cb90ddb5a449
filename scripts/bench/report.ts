import { readFileSync } from "node:fs";
import os from "node:os";

/** One line of the results table: what was measured, against which budget, and whether it holds. */
export interface Row {
  what: string;
  /** How it was measured: sizes, comparison, repetitions. */
  how: string;
  measured: string;
  budget: string;
  pass: boolean;
}

export interface Machine {
  date: string;
  node: string;
  cpu: string;
  cores: number;
}

export function machine(): Machine {
  let cpu = os.cpus()[0]?.model ?? "unknown";
  try {
    const line = readFileSync("/proc/cpuinfo", "utf8")
      .split("\n")
      .find((l) => l.startsWith("model name"));
    if (line) cpu = line.slice(line.indexOf(":") + 1).trim();
  } catch {
    // not Linux: os.cpus() is the best there is
  }
  return { date: new Date().toISOString().replace(/\.\d+Z$/, "Z"), node: process.version, cpu, cores: os.availableParallelism() };
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

export function renderTable(rows: readonly Row[]): string {
  const lines = ["| what | how | measured | budget | result |", "|---|---|---|---|---|"];
  for (const r of rows) lines.push(`| ${cell(r.what)} | ${cell(r.how)} | ${cell(r.measured)} | ${cell(r.budget)} | ${r.pass ? "PASS" : "FAIL"} |`);
  return lines.join("\n");
}

export function renderResults(rows: readonly Row[], m: Machine, scale: string): string {
  return [
    "# Benchmark results",
    "",
    `Written by \`npm run bench\` (scripts/bench/run.ts) on ${m.date}: Node ${m.node}, ${m.cpu}, ${m.cores} cores, scale ${scale}.`,
    "Every row compares measurements taken within the same run, so the machine's speed largely cancels out.",
    "",
    renderTable(rows),
    "",
  ].join("\n");
}
