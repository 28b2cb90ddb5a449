import { describe, expect, it } from "vitest";
import { StoreChanges } from "./changes";
import { ReadCache } from "./read-cache";

function counted<T>(value: T) {
  let calls = 0;
  return {
    load: async () => {
      calls++;
      return value;
    },
    get calls() {
      return calls;
    },
  };
}

describe("ReadCache", () => {
  it("answers a repeated read from memory until the store changes", async () => {
    const changes = new StoreChanges();
    const cache = new ReadCache(changes);
    const a = counted("a");
    expect(await cache.get("k", a.load)).toBe("a");
    expect(await cache.get("k", a.load)).toBe("a");
    expect(a.calls).toBe(1);
    changes.changed();
    expect(await cache.get("k", a.load)).toBe("a");
    expect(a.calls).toBe(2);
  });

  it("does not keep a value loaded while the store changed", async () => {
    const changes = new StoreChanges();
    const cache = new ReadCache(changes);
    let release!: (v: string) => void;
    const first = cache.get("k", () => new Promise<string>((r) => (release = r)));
    changes.changed(); // a write lands while the read is in flight
    release("old");
    expect(await first).toBe("old");
    expect(await cache.get("k", async () => "new")).toBe("new");
  });

  it("shares one pending load between concurrent reads", async () => {
    const cache = new ReadCache(new StoreChanges());
    const a = counted(1);
    const results = await Promise.all(Array.from({ length: 20 }, () => cache.get("k", a.load)));
    expect(results).toEqual(Array(20).fill(1));
    expect(a.calls).toBe(1);
  });

  it("forgets a failed load", async () => {
    const cache = new ReadCache(new StoreChanges());
    await expect(cache.get("k", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(await cache.get("k", async () => "up")).toBe("up");
  });

  it("reads through while changes elsewhere could go unheard", async () => {
    const changes = new StoreChanges();
    const cache = new ReadCache(changes);
    changes.coherent = false;
    const a = counted("a");
    await cache.get("k", a.load);
    await cache.get("k", a.load);
    expect(a.calls).toBe(2);
    expect(cache.size).toBe(0);
  });

  it("keeps what `keep` accepts once loaded, shares the load meanwhile, and lets what it refuses push nothing out", async () => {
    const cache = new ReadCache(new StoreChanges(), 2);
    const known = (value: string | null) => value !== null;
    for (const k of ["a", "b"]) await cache.get(k, async () => k, known);
    expect(cache.size).toBe(2);
    // A thousand unknown keys: each loaded, none kept, the known ones still answered from memory.
    for (let i = 0; i < 1000; i++) expect(await cache.get(`unknown-${i}`, async () => null, known)).toBeNull();
    expect(cache.size).toBe(2);
    const again = counted("a again");
    expect(await cache.get("a", again.load, known)).toBe("a");
    expect(again.calls).toBe(0);
    const unknown = counted<string | null>(null);
    await Promise.all(Array.from({ length: 10 }, () => cache.get("nobody", unknown.load, known)));
    expect(unknown.calls).toBe(1);
    await cache.get("nobody", unknown.load, known);
    expect(unknown.calls).toBe(2);
  });

  it("holds at most its bound, the oldest going first", async () => {
    const cache = new ReadCache(new StoreChanges(), 3);
    for (const k of ["a", "b", "c", "d"]) await cache.get(k, async () => k);
    expect(cache.size).toBe(3);
    const a = counted("a again");
    expect(await cache.get("a", a.load)).toBe("a again");
    expect(await cache.get("d", async () => "not d")).toBe("d");
  });
});
