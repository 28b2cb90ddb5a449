import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { countRequest, pacer, requestsAnswering, requestsWaiting, serverBusy, waitedFor } from "./server-load";

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
    const pace = pacer().step;
    work(100);
    const started = performance.now();
    await pace();
    expect(performance.now() - started).toBeLessThan(50);
  });

  it("waits while a request is answered, until the server is idle again", async () => {
    const response = new EventEmitter();
    countRequest(response);
    const pace = pacer().step;
    let resumed = false;
    const paused = pace().then(() => (resumed = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(resumed).toBe(false);
    const closed = performance.now();
    response.emit("close");
    await paused;
    // Not before the burst gap after the last answer: a page's scripts follow it.
    expect(performance.now() - closed).toBeGreaterThanOrEqual(950);
  });

  it("waits at most two seconds for a request that stays open", async () => {
    const response = new EventEmitter();
    countRequest(response);
    try {
      const pace = pacer().step;
      const started = performance.now();
      await pace();
      const paused = performance.now() - started;
      expect(paused).toBeGreaterThanOrEqual(1_950);
      expect(paused).toBeLessThan(3_000);
    } finally {
      response.emit("close");
    }
  });

  it("goes on at once while a request waits for the work, even with requests being answered", async () => {
    const response = new EventEmitter();
    countRequest(response);
    let finish: () => void = () => undefined;
    const work = new Promise<void>((resolve) => (finish = resolve));
    const waiting = waitedFor(work);
    try {
      expect(requestsWaiting()).toBeGreaterThan(0);
      const pace = pacer().step;
      const started = performance.now();
      await pace();
      expect(performance.now() - started).toBeLessThan(50);
    } finally {
      finish();
      await waiting;
      response.emit("close");
    }
    expect(requestsWaiting()).toBe(0);
  });

  it("goes on as soon as a request starts waiting for the work", async () => {
    const response = new EventEmitter();
    countRequest(response);
    const pace = pacer().step;
    let resumed = false;
    const paused = pace().then(() => (resumed = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(resumed).toBe(false);
    let finish: () => void = () => undefined;
    const waiting = waitedFor(new Promise<void>((resolve) => (finish = resolve)));
    const asked = performance.now();
    await paused;
    expect(performance.now() - asked).toBeLessThan(200);
    finish();
    await waiting;
    response.emit("close");
  });

  it("counts the server busy for a moment after its last answer, when a page's scripts are still to come", async () => {
    const response = new EventEmitter();
    countRequest(response);
    response.emit("close");
    expect(serverBusy()).toBe(true);
    const pace = pacer().step;
    const started = performance.now();
    await pace();
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
    await new Promise((resolve) => setTimeout(resolve, 1050));
    expect(serverBusy()).toBe(false);
  });
});

describe("pauses before a statement of background work", () => {
  it("lets a statement go on at once, without a turn of the event loop, while no request is answered", async () => {
    await new Promise((resolve) => setTimeout(resolve, 1050));
    expect(pacer().statement()).toBeUndefined();
  });

  it("pauses a statement while a request is answered, until the server is idle again", async () => {
    const response = new EventEmitter();
    countRequest(response);
    const pause = pacer().statement();
    expect(pause).toBeInstanceOf(Promise);
    let resumed = false;
    const paused = pause!.then(() => (resumed = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(resumed).toBe(false);
    const closed = performance.now();
    response.emit("close");
    await paused;
    expect(performance.now() - closed).toBeGreaterThanOrEqual(950);
  });

  it("lets a statement go on while a request waits for the work", async () => {
    const response = new EventEmitter();
    countRequest(response);
    let finish: () => void = () => undefined;
    const waiting = waitedFor(new Promise<void>((resolve) => (finish = resolve)));
    try {
      expect(pacer().statement()).toBeUndefined();
    } finally {
      finish();
      await waiting;
      response.emit("close");
    }
  });

  it("after a pause cut short by a request that stays open, runs unpaused for as long before pausing again", async () => {
    const response = new EventEmitter();
    countRequest(response);
    try {
      const pace = pacer();
      const started = performance.now();
      await pace.statement();
      expect(performance.now() - started).toBeGreaterThanOrEqual(1_950);
      // The same request is still open: the next statements and steps go on.
      expect(pace.statement()).toBeUndefined();
      const stepped = performance.now();
      await pace.step();
      expect(performance.now() - stepped).toBeLessThan(50);
      // Another work of its own pauses as before.
      expect(pacer().statement()).toBeInstanceOf(Promise);
    } finally {
      response.emit("close");
    }
  });
});
