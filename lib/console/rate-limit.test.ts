import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshStoreOptions } from "@/lib/gateway/testing";
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { installRequestGuard, PEER_ADDRESS_HEADER } from "@/lib/client-address";
import { eq, lt } from "drizzle-orm";
import {
  checkSignIn,
  clearSignInFailures,
  clientAddress,
  pruneSignInFailures,
  purgeSignInAttempts,
  rateLimitKey,
  retryMinutes,
  returnAttempt,
  takeAttempt,
  type SignInLimit,
} from "./rate-limit";
import { signInAttempts } from "./store/schema";
import { openConsoleStore, type ConsoleStore } from "./store/client";
import { EventEmitter } from "node:events";
import { createServer as createHttpsServer } from "node:https";

const limit: SignInLimit = { maxFailures: 5, windowMs: 5 * 60_000 };

let store: ConsoleStore;
let drop: () => Promise<void>;
beforeAll(async () => {
  const fresh = await freshStoreOptions();
  drop = fresh.drop;
  store = await openConsoleStore(fresh.store as Parameters<typeof openConsoleStore>[0]);
});
afterAll(async () => {
  await store.close();
  await drop();
});

const at = (t0: Date, seconds: number) => new Date(t0.getTime() + seconds * 1000);

describe("sign-in rate limit", () => {
  it("lets five attempts through, refuses the sixth until the oldest leaves the window", async () => {
    const t0 = new Date("2030-02-01T12:00:00Z");
    const ip = "203.0.113.1";
    for (let i = 0; i < 5; i++) {
      const taken = await takeAttempt(store.db, ip, limit, at(t0, i * 10));
      expect(taken).toEqual({ allowed: true, attemptId: expect.any(Number) });
      await pruneSignInFailures(store.db, ip, limit, at(t0, i * 10));
    }
    const refused = await takeAttempt(store.db, ip, limit, at(t0, 60));
    expect(refused).toEqual({ allowed: false, retryAfterMs: 240_000 });
    expect(retryMinutes(240_000)).toBe(4);
    // Still refused a second before the first attempt is 5 minutes old (a refusal takes none), allowed after.
    expect((await takeAttempt(store.db, ip, limit, at(t0, 299))).allowed).toBe(false);
    expect((await takeAttempt(store.db, ip, limit, at(t0, 301))).allowed).toBe(true);
    expect((await takeAttempt(store.db, ip, limit, at(t0, 302))).allowed).toBe(false);
  });

  it("counts attempts sent together: of twelve at once, five at most get through, and no more after them", async () => {
    const t0 = new Date("2030-02-04T12:00:00Z");
    const ip = "192.0.2.77";
    const taken = await Promise.all(Array.from({ length: 12 }, () => takeAttempt(store.db, ip, limit, t0)));
    const through = taken.filter((g) => g.allowed).length;
    // How many depends on how the twelve interleave (on PGlite, one statement at a time: none, as all
    // twelve are counted before any is given back); never more than the limit.
    expect(through).toBeLessThanOrEqual(5);
    expect(await store.db.select().from(signInAttempts).where(eq(signInAttempts.clientKey, ip))).toHaveLength(through);
    for (let i = through; i < 5; i++) expect((await takeAttempt(store.db, ip, limit, t0)).allowed).toBe(true);
    expect((await takeAttempt(store.db, ip, limit, t0)).allowed).toBe(false);
  });

  it("counts each client on its own, and an attempt given back is not counted", async () => {
    const t0 = new Date("2030-02-02T12:00:00Z");
    const taken = [];
    for (let i = 0; i < 5; i++) taken.push(await takeAttempt(store.db, "198.51.100.7", limit, at(t0, i)));
    expect((await takeAttempt(store.db, "198.51.100.7", limit, at(t0, 10))).allowed).toBe(false);
    expect((await takeAttempt(store.db, "198.51.100.8", limit, at(t0, 10))).allowed).toBe(true);
    const last = taken[4]!;
    if (!last.allowed || last.attemptId === undefined) throw new Error("the fifth attempt was not taken");
    await returnAttempt(store.db, last.attemptId);
    expect((await takeAttempt(store.db, "198.51.100.7", limit, at(t0, 11))).allowed).toBe(true);
  });

  it("a right answer clears the count (a second factor: clearSignInFailures)", async () => {
    const t0 = new Date("2030-02-03T12:00:00Z");
    const ip = "192.0.2.9";
    for (let i = 0; i < 5; i++) await takeAttempt(store.db, ip, limit, at(t0, i));
    await clearSignInFailures(store.db, ip);
    expect((await checkSignIn(store.db, ip, limit, at(t0, 10))).allowed).toBe(true);
  });

  it("never tells the user to wait 0 minutes", () => {
    expect(retryMinutes(1)).toBe(1);
    expect(retryMinutes(61_000)).toBe(2);
  });
});

describe("the bucket a client counts in", () => {
  it("is the IPv4 address, or the /64 network of an IPv6 address", () => {
    expect(rateLimitKey("203.0.113.7")).toBe("203.0.113.7");
    expect(rateLimitKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(rateLimitKey("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(rateLimitKey("2001:0db8:0001:0002:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:1:2::/64");
    expect(rateLimitKey("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(rateLimitKey("fe80::1%eth0")).toBe("fe80::/64");
    expect(rateLimitKey("::1")).toBe("::/64");
    expect(rateLimitKey("unknown")).toBe("unknown");
    // As a proxy may write them: brackets, ports and zones tell no clients apart.
    expect(rateLimitKey("[2001:db8:1:2::9]:443")).toBe("2001:db8:1:2::/64");
    expect(rateLimitKey("[2001:db8:1:2::9]")).toBe("2001:db8:1:2::/64");
    expect(rateLimitKey("203.0.113.7:5678")).toBe("203.0.113.7");
    expect(rateLimitKey("fe80::1%eth0.100")).toBe("fe80::/64");
  });
});

describe("sweeping failures past every window", () => {
  it("deletes every client's failures older than a day, the longest window there is, and keeps the rest", async () => {
    const now = new Date("2031-06-01T00:00:00Z");
    const hours = (h: number) => new Date(now.getTime() - h * 3_600_000);
    await store.db.insert(signInAttempts).values([
      { clientKey: "sweep-a", failedAt: hours(25) },
      { clientKey: "sweep-b", failedAt: hours(24.1) },
      { clientKey: "sweep-b", failedAt: hours(23.9) },
      { clientKey: "sweep-c", failedAt: hours(1) },
    ]);
    // A spray's worth, more than one statement deletes.
    await store.db.insert(signInAttempts).values(Array.from({ length: 5_001 }, (_, i) => ({ clientKey: `sweep-spray-${i}`, failedAt: hours(30) })));
    expect(await purgeSignInAttempts(store.db, now)).toBeGreaterThanOrEqual(5_003);
    const left = await store.db.select({ clientKey: signInAttempts.clientKey }).from(signInAttempts).where(lt(signInAttempts.failedAt, hours(23)));
    expect(left.map((r) => r.clientKey).sort()).toEqual(["sweep-b"]);
  });

  it("runs from an attempt of any client, so a client that never returns leaves nothing behind", async () => {
    const now = new Date("2032-03-01T00:00:00Z");
    await store.db.insert(signInAttempts).values({ clientKey: "gone-for-good", failedAt: new Date(now.getTime() - 2 * 86_400_000) });
    await takeAttempt(store.db, "someone-else", limit, now);
    await expect.poll(async () => (await store.db.select().from(signInAttempts).where(eq(signInAttempts.clientKey, "gone-for-good"))).length).toBe(0);
  });
});

describe("client address", () => {
  // This process's HTTP servers record each socket's address (as the console's server does).
  installRequestGuard();
  const peer = (extra: Record<string, string> = {}) => new Headers({ [PEER_ADDRESS_HEADER]: "192.0.2.10", ...extra });

  it("with no trusted proxy, is the socket's address, whatever X-Forwarded-For and X-Real-IP say", () => {
    expect(clientAddress(peer({ "x-forwarded-for": "127.0.0.1", "x-real-ip": "6.6.6.6" }))).toBe("192.0.2.10");
    expect(clientAddress(peer({ "x-forwarded-for": "6.6.6.6" }), 0)).toBe("192.0.2.10");
  });

  it("behind trusted proxies, is the entry the farthest of them wrote; the client's own entries never count", () => {
    const h = peer({ "x-forwarded-for": "6.6.6.6, 10.0.0.1, 203.0.113.5" });
    expect(clientAddress(h, 1)).toBe("203.0.113.5");
    expect(clientAddress(h, 2)).toBe("10.0.0.1");
    expect(clientAddress(peer(), 1)).toBe("192.0.2.10");
  });

  it("a new X-Forwarded-For per attempt does not make a new client", () => {
    const seen = new Set(Array.from({ length: 20 }, (_, i) => clientAddress(peer({ "x-forwarded-for": `198.51.100.${i}` }))));
    expect([...seen]).toEqual(["192.0.2.10"]);
  });

  it("on an HTTPS server of this process too (its emit is not an HTTP server's: https.Server extends tls.Server)", () => {
    const server = createHttpsServer();
    const req = { method: "GET", headers: { [PEER_ADDRESS_HEADER]: "6.6.6.6" } as Record<string, string>, rawHeaders: [PEER_ADDRESS_HEADER, "6.6.6.6"], socket: { remoteAddress: "192.0.2.77" } };
    const res = new EventEmitter();
    server.emit("request", req, res);
    res.emit("close");
    expect(req.headers[PEER_ADDRESS_HEADER]).toBe("192.0.2.77");
  });

  it("over a real socket: the address header a client sends is replaced, unsupported methods are 405", async () => {
    const server = createServer((req, res) => res.end(JSON.stringify({ address: clientAddress(req.headers) })));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const res = await fetch(`http://127.0.0.1:${port}/`, { headers: { [PEER_ADDRESS_HEADER]: "6.6.6.6", "x-forwarded-for": "6.6.6.6" } });
      expect(((await res.json()) as { address: string }).address).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest({ host: "127.0.0.1", port, method: "TRACE", path: "/" }, (r) => {
          r.resume();
          resolve(r.statusCode ?? 0);
        });
        req.on("error", reject);
        req.end();
      });
      expect(status).toBe(405);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
