import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { countRequest, pacer, requestsAnswering, serverBusy } from "./server-load";

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
    // Past the burst gap of any request answered before.
    await new Promise((resolve) => setTimeout(resolve, 1050));
    const pace = pacer();
    work(100);
    const started = performance.now();
    await pace();
    expect(performance.now() - started).toBeLessThan(50);
  });

  it("pauses four times as long as the step took while a request is answered, so the work takes at most a fifth of the thread", async () => {
    const response = new EventEmitter();
    countRequest(response);
    try {
      const pace = pacer();
      work(100);
      const started = performance.now();
      await pace();
      expect(performance.now() - started).toBeGreaterThanOrEqual(390);
    } finally {
      response.emit("close");
    }
  });

  it("counts the server busy for a moment after its last answer, when a page's scripts are still to come", async () => {
    const response = new EventEmitter();
    countRequest(response);
    response.emit("close");
    expect(serverBusy()).toBe(true);
    const pace = pacer();
    work(50);
    const started = performance.now();
    await pace();
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    await new Promise((resolve) => setTimeout(resolve, 1050));
    expect(serverBusy()).toBe(false);
  });
});
