import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { countRequest, pacer, requestsAnswering } from "./server-load";

/** Keeps the thread busy for about `ms` milliseconds, as a seed statement does. */
function work(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

describe("server load", () => {
  it("counts a request until its response closes", () => {
    const before = requestsAnswering();
    const response = new EventEmitter();
    countRequest(response);
    expect(requestsAnswering()).toBe(before + 1);
    response.emit("close");
    expect(requestsAnswering()).toBe(before);
  });

  it("pauses only for a turn of the event loop while no request is answered", async () => {
    const pace = pacer();
    work(100);
    const started = performance.now();
    await pace();
    expect(performance.now() - started).toBeLessThan(50);
  });

  it("pauses as long as the step took while a request is answered, so the step takes at most half the thread", async () => {
    const response = new EventEmitter();
    countRequest(response);
    try {
      const pace = pacer();
      work(100);
      const started = performance.now();
      await pace();
      expect(performance.now() - started).toBeGreaterThanOrEqual(90);
    } finally {
      response.emit("close");
    }
  });
});
