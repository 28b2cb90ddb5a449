import fc from "fast-check";
import { sql } from "drizzle-orm";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FORMULA_START, neutraliseFormula } from "@/lib/csv-formula";
import { csvishString } from "@/lib/csv-formula.arbitraries";
import { csvHeader, csvLines, csvRecord, postgresPool, plainIsExact, type CsvBatchReader, type CsvColumn } from "./csv";
import { copyCells, copySlot, csvCopy, inlineParameters } from "./csv-copy";
import { openStore, type Store } from "./store/client";
import { freshStoreOptions } from "./testing";

/**
 * The SQL the writer builds, run by the store (PGlite, or PostgreSQL under
 * test:pg), against the writer's JavaScript reference (csvRecord), on arbitrary text.
 */
let store: Store;
let drop: () => Promise<void>;
beforeAll(async () => {
  const fresh = await freshStoreOptions();
  drop = fresh.drop;
  store = await openStore(fresh.store);
  await store.db.execute(sql`create table csv_writer_cells (seq int primary key, a text, b text, n numeric)`);
});
afterAll(async () => {
  await store.close();
  await drop();
});

type Cells = { a: string | null; b: string | null; n: string | null };
const COLUMNS: CsvColumn[] = [
  { text: sql.raw("a"), kind: "text" },
  { text: sql.raw("n::text"), kind: "number" },
  { text: sql.raw("b"), kind: "text" },
];

const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

const read: CsvBatchReader<number> = async (line, after, limit, through) => {
  const [found] = rowsOf<{ text: string | null; lines: number; last: number | null }>(
    await store.db.execute(sql`
      select string_agg(line, '' order by seq) as text, count(*)::int as lines, max(seq) as last
      from (select seq, ${line} as line from csv_writer_cells where seq > ${after ?? -1}
            ${through === undefined ? sql`order by seq limit ${limit}` : sql`and seq <= ${through} order by seq`}) as batch`),
  );
  return found && { text: found.text, lines: Number(found.lines), last: found.last === null ? null : Number(found.last) };
};

async function store_(records: Cells[]): Promise<void> {
  await store.db.execute(sql`delete from csv_writer_cells`);
  for (const [seq, r] of records.entries()) await store.db.execute(sql`insert into csv_writer_cells values (${seq}, ${r.a}, ${r.b}, ${r.n}::numeric)`);
}

async function written(batchSize: number): Promise<string[]> {
  const chunks: string[] = [];
  const decoder = new TextDecoder();
  for await (const chunk of csvLines(COLUMNS, read, batchSize)) chunks.push(decoder.decode(chunk));
  return chunks;
}

/** What the JavaScript reference writes of the stored rows (numbers as the database prints them). */
async function expected(): Promise<string> {
  const rows = rowsOf<Cells>(await store.db.execute(sql`select a, b, n::text as n from csv_writer_cells order by seq`));
  return rows
    .map((r) =>
      csvRecord([
        { value: r.a, kind: "text" },
        { value: r.n, kind: "number" },
        { value: r.b, kind: "text" },
      ]),
    )
    .join("");
}

const text = csvishString.map((s) => s.replace(/\0/g, ""));
const decimal = fc.tuple(fc.integer({ min: -100_000, max: 100_000 }), fc.nat(9_999)).map(([i, f]) => `${i}.${f}`);
const cells = fc.record({
  a: fc.option(text, { nil: null }),
  b: fc.option(text, { nil: null }),
  n: fc.option(fc.oneof(decimal, fc.constantFrom("-Infinity", "Infinity", "NaN")), { nil: null }),
});

describe("the gateway's CSV writer", () => {
  it("writes in SQL exactly what its JavaScript reference writes, batch by batch, for arbitrary text", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(cells, { maxLength: 8 }), fc.integer({ min: 1, max: 4 }), async (records, batchSize) => {
        await store_(records);
        const chunks = await written(batchSize);
        expect(chunks).toHaveLength(Math.ceil(records.length / batchSize));
        expect(chunks.join("")).toBe(await expected());
      }),
      { numRuns: 150 },
    );
  });

  it("never writes a cell that starts like a formula, and writes safe text and plain numbers as they are", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(cells, { minLength: 1, maxLength: 6 }), async (records) => {
        await store_(records);
        const parsed = Papa.parse<string[]>((await written(5000)).join("").replace(/\n$/, ""), { newline: "\n", delimiter: "," }).data;
        const stored = rowsOf<Cells>(await store.db.execute(sql`select a, b, n::text as n from csv_writer_cells order by seq`));
        expect(parsed).toHaveLength(records.length);
        parsed.forEach(([a, n, b], i) => {
          const r = stored[i]!;
          for (const [cell, original] of [
            [a, r.a ?? ""],
            [b, r.b ?? ""],
          ] as const) {
            expect(cell).toBe(FORMULA_START.test(original) ? `'${original}` : original);
            expect(FORMULA_START.test(cell!)).toBe(false);
          }
          const number = r.n ?? "";
          if (/^-?\d+(\.\d+)?$/.test(number) || number === "") expect(n).toBe(number);
          else expect(n).toBe(FORMULA_START.test(number) ? `'${number}` : number);
        });
      }),
      { numRuns: 100 },
    );
  });

  it("writes a credit's negative numbers plainly and a name made to look like a formula behind a '", async () => {
    await store_([
      { a: "@SUM(1+1)*cmd|' /C calc'!A1", n: "-12.50", b: "-12.50" },
      { a: "=HYPERLINK(\"http://x\",\"y\")", n: "-Infinity", b: "+1, -1" },
    ]);
    expect((await written(10)).join("")).toBe(`'@SUM(1+1)*cmd|' /C calc'!A1,-12.50,'-12.50\n"'=HYPERLINK(""http://x"",""y"")",'-Infinity,"'+1, -1"\n`);
  });

  it("writes every row once when a row is written or purged inside a batch between its two reads", async () => {
    // Batches of 2; the first holds a formula-like name, so it is read again with the whole rule, and the change
    // comes just before that second read (the third: the next batch is asked for first).
    const changes = [
      sql`insert into csv_writer_cells values (1, 'late', 'row', 1)`,
      sql`delete from csv_writer_cells where seq = 2`,
      // The whole first batch: the rows after it are still written.
      sql`delete from csv_writer_cells where seq <= 2`,
    ];
    for (const change of changes) {
      await store_([{ a: "=formula", b: "x", n: "1" }, { a: "gap", b: "x", n: "1" }, { a: "b", b: "x", n: "1" }, { a: "c", b: "x", n: "1" }]);
      // Positions 0, 2, 4, 6: room for a late row at 1.
      await store.db.execute(sql`update csv_writer_cells set seq = -seq`);
      await store.db.execute(sql`update csv_writer_cells set seq = -seq * 2`);
      let reads = 0;
      const changing: CsvBatchReader<number> = async (line, after, limit, through) => {
        if (++reads === 3) await store.db.execute(change);
        return read(line, after, limit, through);
      };
      const chunks: string[] = [];
      for await (const chunk of csvLines(COLUMNS, changing, 2)) chunks.push(new TextDecoder().decode(chunk));
      expect(reads).toBeGreaterThanOrEqual(3);
      expect(chunks.join("")).toBe(await expected());
    }
  });

  it("writes the header through the same rule", () => {
    expect(csvHeader(["cost", "=x"])).toBe("cost,'=x\n");
  });

  it("takes the plain lines only when they hold no quote, break, extra separator or formula start", () => {
    expect(plainIsExact("a,b\nc,d\n", 2, 2)).toBe(true);
    expect(plainIsExact("a,-1\nc,d\n", 2, 2)).toBe(false);
    expect(plainIsExact("a,b\n@c,d\n", 2, 2)).toBe(false);
    expect(plainIsExact("＝a,b\n", 1, 2)).toBe(false);
    expect(plainIsExact("a,b,c\n", 1, 2)).toBe(false);
    expect(plainIsExact('a,"b\n', 1, 2)).toBe(false);
  });
});

/**
 * On PostgreSQL an export is one COPY (csvCopy): the same rule, with COPY's own
 * quoting. PGlite has no client connection to stream a COPY to; these run under
 * `npm run test:pg`.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)("the gateway's CSV writer through COPY (PostgreSQL)", () => {
  const pool = () => postgresPool(store.db)!;
  const TWO_TEXTS: CsvColumn[] = [
    { text: sql.raw("a"), kind: "text" },
    { text: sql.raw("b"), kind: "text" },
  ];
  async function copied(query: { sql: string; params: unknown[] }, columns = COLUMNS, stallMs = 10_000): Promise<string> {
    let text = "";
    const decoder = new TextDecoder();
    for await (const chunk of csvCopy(pool(), columns, query, stallMs)) text += decoder.decode(chunk, { stream: true });
    return text + decoder.decode();
  }
  /** Rows enough to fill the sockets, the first at once (a set-returning function in the select list streams; in FROM it is made whole first). */
  const LONG_COPY = "select g::text, repeat('x', 200) from (select generate_series(1, 2000000) as g) as s";
  const cellsQuery = () => store.db.select(copyCells(COLUMNS)).from(sql`csv_writer_cells`).orderBy(sql`seq`).toSQL();
  /** The server's sessions running a COPY, other than this one. */
  const copies = async () =>
    rowsOf<{ n: number }>(
      await store.db.execute(sql`select count(*)::int as n from pg_stat_activity where query ilike 'copy (%' and pid <> pg_backend_pid() and state = 'active'`),
    )[0]!.n;

  it("writes exactly what its JavaScript reference writes, for arbitrary text", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(cells, { maxLength: 8 }), async (records) => {
        await store_(records);
        expect(await copied(cellsQuery())).toBe(await expected());
      }),
      { numRuns: 150 },
    );
  });

  it("writes a credit's negative numbers plainly and a name made to look like a formula behind a '", async () => {
    await store_([
      { a: "@SUM(1+1)*cmd|' /C calc'!A1", n: "-12.50", b: "-12.50" },
      { a: "=HYPERLINK(\"http://x\",\"y\")", n: "-Infinity", b: "+1, -1" },
      { a: "", n: null, b: null },
    ]);
    expect(await copied(cellsQuery())).toBe(`'@SUM(1+1)*cmd|' /C calc'!A1,-12.50,'-12.50\n"'=HYPERLINK(""http://x"",""y"")",'-Infinity,"'+1, -1"\n,,\n`);
  });

  it("writes the query's values into its text as literals, and nothing inside its quoted strings and names", async () => {
    expect(inlineParameters(`select $1, '$2 it''s', "$3", $2`, ["a'b", 7])).toBe(`select 'a''b', '$2 it''s', "$3", (7)`);
    expect(() => inlineParameters("select $2", ["x"])).toThrow(/no value for \$2/);
    expect(() => inlineParameters("select $1", [null])).toThrow(/not null/);
    expect(inlineParameters("select -$1, x$1, $1", [-1, 2])).toBe("select -(-1), x$1, (-1)");
    expect(() => inlineParameters("select $1 -- a comment", ["x"])).toThrow(/safely/);
    expect(() => inlineParameters("select E'\\'' || $1", ["x"])).toThrow(/safely/);
    expect(() => inlineParameters("select $$x$$ || $1", ["x"])).toThrow(/safely/);
    expect(() => inlineParameters("select $1", ["a\0b"])).toThrow(/NUL/);
    // Values that would break out of a badly made literal come back as they were.
    await fc.assert(
      fc.asyncProperty(text, async (value) => {
        const out = await copied({ sql: "select $1::text as v, 'x' as w", params: [value] }, TWO_TEXTS);
        expect(Papa.parse<string[]>(out.replace(/\n$/, ""), { newline: "\n", delimiter: "," }).data).toEqual([[neutraliseFormula(value), "x"]]);
      }),
      { numRuns: 100 },
    );
  });

  it("gives up an export whose client stops reading, and the server stops writing it", async () => {
    const rows = csvCopy(pool(), TWO_TEXTS, { sql: LONG_COPY, params: [] }, 1_000);
    expect((await rows.next()).done).toBe(false);
    expect(await copies()).toBe(1);
    // The client takes nothing more for longer than the export may stall, and may never come back:
    // the connection is closed and the slot freed all the same.
    await expect.poll(copies, { timeout: 5_000 }).toBe(0);
    expect(copySlot(pool())).toBe(true);
    await expect(async () => {
      for (;;) if ((await rows.next()).done) break;
    }).rejects.toThrow(/moved no bytes for 1000 ms/);
    expect(copySlot(pool())).toBe(true);
    await expect.poll(copies, { timeout: 5_000 }).toBe(0);
  });

  it("runs COPY exports on at most a quarter of the pool's connections at once", async () => {
    const slots = Math.max(1, Math.floor(pool().options.max / 4));
    const open = Array.from({ length: slots }, () => csvCopy(pool(), TWO_TEXTS, { sql: LONG_COPY, params: [] }, 10_000));
    for (const rows of open) {
      expect(copySlot(pool())).toBe(true);
      expect((await rows.next()).done).toBe(false);
    }
    expect(copySlot(pool())).toBe(false);
    await open[0]!.return(undefined);
    expect(copySlot(pool())).toBe(true);
    for (const rows of open) await rows.return(undefined);
  });

  it("closes an export the client left, and the server stops writing it", async () => {
    const rows = csvCopy(pool(), TWO_TEXTS, { sql: LONG_COPY, params: [] }, 10_000);
    expect((await rows.next()).done).toBe(false);
    expect(await copies()).toBe(1);
    await rows.return(undefined);
    expect(copySlot(pool())).toBe(true);
    await expect.poll(copies, { timeout: 5_000 }).toBe(0);
    // The pool still answers.
    expect(await copied({ sql: "select 1", params: [] }, TWO_TEXTS.slice(0, 1))).toBe("1\n");
  });
});
