import { describe, expect, it } from "vitest";
import { RenderedDays } from "./usage-days";

describe("rendered days in memory", () => {
  it("gives a day's bytes only at the version they were read at", () => {
    const memory = new RenderedDays(1024);
    memory.set("d1", "100", Buffer.from("a"));
    expect(memory.get("d1", "100")?.toString()).toBe("a");
    expect(memory.get("d1", "101")).toBeUndefined();
    memory.set("d1", "101", Buffer.from("b"));
    expect(memory.get("d1", "100")).toBeUndefined();
    expect(memory.get("d1", "101")?.toString()).toBe("b");
  });

  it("lets the least recently used days go beyond its size, and never keeps a day larger than it", () => {
    const memory = new RenderedDays(10);
    memory.set("d1", "1", Buffer.alloc(4));
    memory.set("d2", "1", Buffer.alloc(4));
    // Used now: d2 becomes the one to go first.
    expect(memory.get("d1", "1")).toBeDefined();
    memory.set("d3", "1", Buffer.alloc(4));
    expect(memory.get("d2", "1")).toBeUndefined();
    expect(memory.get("d1", "1")).toBeDefined();
    expect(memory.get("d3", "1")).toBeDefined();
    memory.set("d4", "1", Buffer.alloc(11));
    expect(memory.get("d4", "1")).toBeUndefined();
    expect(memory.get("d1", "1")).toBeDefined();
    // A day read again at a new version replaces its old bytes in the count.
    memory.set("d1", "2", Buffer.alloc(7));
    expect(memory.get("d3", "1")).toBeUndefined();
    expect(memory.get("d1", "2")?.length).toBe(7);
  });
});
