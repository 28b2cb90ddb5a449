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

/** What a section hands back: its rows, and optionally a part of the results of its own (markdown under a heading). */
export interface SectionOutput {
  rows: Row[];
  /** Markdown starting with a `## ` heading, written after the table. */
  appendix?: string;
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

export function renderResults(rows: readonly Row[], m: Machine, scale: string, appendices: readonly string[] = []): string {
  return [
    "# Benchmark results",
    "",
    `Written by \`npm run bench\` (scripts/bench/run.ts) on ${m.date}: Node ${m.node}, ${m.cpu}, ${m.cores} cores, scale ${scale}.`,
    "Every row compares measurements taken within the same run, so the machine's speed largely cancels out.",
    "",
    renderTable(rows),
    "",
    ...appendices.flatMap((a) => [a.trimEnd(), ""]),
  ].join("\n");
}

/**
 * The results of a full-scale run of some sections merged into the file of an earlier
 * full run: each of their rows replaces the row of the same `what` (or is added at the
 * end), each appendix the one under the same heading; a line under the header says which
 * rows are from which run.
 */
export function mergeResults(previous: string, rows: readonly Row[], m: Machine, sections: readonly string[], appendices: readonly string[] = []): string {
  const lines = previous.split("\n");
  const tableStart = lines.findIndex((l) => l.startsWith("| what |"));
  if (tableStart < 0) return renderResults(rows, m, "full", appendices);
  let tableEnd = tableStart + 2;
  while (tableEnd < lines.length && lines[tableEnd]!.startsWith("|")) tableEnd++;
  const table = lines.slice(tableStart + 2, tableEnd);
  const whatOf = (line: string) => line.slice(2, line.indexOf(" | "));
  const fresh = renderTable(rows).split("\n").slice(2);
  for (const line of fresh) {
    const at = table.findIndex((old) => whatOf(old) === whatOf(line));
    if (at >= 0) table[at] = line;
    else table.push(line);
  }
  const note = `Rows of ${sections.join(", ")} from \`npm run bench -- --only ${sections.join(",")}\` on ${m.date}: Node ${m.node}, ${m.cpu}, ${m.cores} cores.`;
  const header = lines.slice(0, tableStart).filter((l) => !l.startsWith(`Rows of ${sections.join(", ")} from`));
  while (header.at(-1) === "") header.pop();
  let rest = lines.slice(tableEnd).join("\n");
  for (const appendix of appendices) {
    const heading = appendix.split("\n")[0]!;
    const start = rest.indexOf(`${heading}\n`);
    if (start >= 0) {
      const next = rest.indexOf("\n## ", start + heading.length);
      rest = rest.slice(0, start) + rest.slice(next < 0 ? rest.length : next + 1);
    }
    rest = `${rest.trimEnd()}\n\n${appendix.trimEnd()}\n`;
  }
  return [...header, note, "", ...lines.slice(tableStart, tableStart + 2), ...table, rest.startsWith("\n") ? rest : `\n${rest}`].join("\n");
}
