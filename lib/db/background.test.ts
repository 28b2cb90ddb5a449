import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backgroundPause, gatePglite, inBackground, runBeforeEachStatement } from "./background";

/** A gate held shut until `open()`; `asked` counts the statements that met it shut. */
function heldGate() {
  let open = false;
  let release: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (release = resolve));
  const gate = { asked: 0, gate: () => (open ? undefined : (gate.asked++, opened)), open: () => ((open = true), release()) };
  return gate;
}

const turns = (n: number) => new Promise((resolve) => setTimeout(resolve, n));

describe("background work on an embedded store", () => {
  let client: PGlite;
  beforeAll(async () => {
    client = await PGlite.create();
    gatePglite(client);
    await client.exec("create table steps (name text not null)");
  });
  afterAll(() => client.close());

  it("holds the work's statements at its gate, not the statements of anyone else", async () => {
    const held = heldGate();
    const order: string[] = [];
    const work = inBackground(held.gate, async () => {
      await client.query("insert into steps values ('background')");
      order.push("background");
    });
    await turns(50);
    await client.query("insert into steps values ('request')");
    order.push("request");
    expect(order).toEqual(["request"]);
    expect(held.asked).toBe(1);
    expect((await client.query<{ name: string }>("select name from steps")).rows.map((r) => r.name)).toEqual(["request"]);
    held.open();
    await work;
    expect(order).toEqual(["request", "background"]);
    await client.exec("delete from steps");
  });

  it("holds each statement of a transaction the work runs, and exec batches", async () => {
    const held = heldGate();
    let done = 0;
    const work = inBackground(held.gate, () =>
      client.transaction(async (tx) => {
        await tx.query("insert into steps values ('one')");
        done++;
        await tx.exec("insert into steps values ('two')");
        done++;
      }),
    );
    await turns(50);
    expect(done).toBe(0);
    expect(held.asked).toBe(1);
    held.open();
    await work;
    expect(done).toBe(2);
    expect((await client.query<{ name: string }>("select name from steps order by name")).rows.map((r) => r.name)).toEqual(["one", "two"]);
    await client.exec("delete from steps");
  });

  it("asks the gate before every statement, and goes on at once while it answers undefined", async () => {
    let asked = 0;
    await inBackground(
      () => {
        asked++;
        return undefined;
      },
      async () => {
        await client.query("select 1");
        await client.exec("select 2");
        await client.transaction((tx) => tx.query("select 3"));
      },
    );
    expect(asked).toBe(3);
  });

  it("runs what it is given before every statement: a query, an exec batch, each in a transaction", async () => {
    const before: string[] = [];
    runBeforeEachStatement(() => before.push("before"));
    try {
      await client.query("select 1");
      await client.exec("select 1; select 2");
      await client.transaction(async (tx) => {
        await tx.query("select 3");
        await tx.exec("select 4");
      });
    } finally {
      runBeforeEachStatement(undefined);
    }
    expect(before).toHaveLength(4);
    await client.query("select 5");
    expect(before).toHaveLength(4);
  });

  it("has no pause outside background work, during it or after it", async () => {
    expect(backgroundPause()).toBeUndefined();
    const held = heldGate();
    const work = inBackground(held.gate, () => client.query("select 1"));
    // This test's own context is not the work's.
    expect(backgroundPause()).toBeUndefined();
    held.open();
    await work;
    expect(backgroundPause()).toBeUndefined();
    expect(held.asked).toBe(1);
  });

  it("keeps the gates of two works running at once apart", async () => {
    const first = heldGate();
    const second = heldGate();
    const finished: string[] = [];
    const a = inBackground(first.gate, async () => {
      await client.query("select 'a'");
      finished.push("a");
    });
    const b = inBackground(second.gate, async () => {
      await client.query("select 'b'");
      finished.push("b");
    });
    await turns(20);
    second.open();
    await b;
    expect(finished).toEqual(["b"]);
    first.open();
    await a;
    expect(finished).toEqual(["b", "a"]);
  });
});
