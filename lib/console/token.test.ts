import { encode } from "next-auth/jwt";
import { describe, expect, it, vi } from "vitest";

const decodeCalls = vi.hoisted(() => ({ count: 0 }));
vi.mock("next-auth/jwt", async (importOriginal) => {
  const actual = await importOriginal<typeof import("next-auth/jwt")>();
  return {
    ...actual,
    decode: (params: Parameters<typeof actual.decode>[0]) => {
      decodeCalls.count++;
      return actual.decode(params);
    },
  };
});

const { decodedTokenCount, sessionIdFromToken } = await import("./token");

const SECRET = "token-tests-secret-0123456789abcdef0123";

describe("the session cookie's token", () => {
  it("is decoded once per cookie value while it lasts", async () => {
    const token = await encode({ token: { sid: "sid-once" }, secret: SECRET, maxAge: 3600 });
    const before = decodeCalls.count;
    expect(await sessionIdFromToken(token, SECRET)).toBe("sid-once");
    expect(await sessionIdFromToken(token, SECRET)).toBe("sid-once");
    expect(await sessionIdFromToken(token, SECRET)).toBe("sid-once");
    expect(decodeCalls.count - before).toBe(1);
  });

  it("is decoded again once its exp has passed (a remembered token is not served past it)", async () => {
    const token = await encode({ token: { sid: "sid-exp" }, secret: SECRET, maxAge: 3600 });
    expect(await sessionIdFromToken(token, SECRET)).toBe("sid-exp");
    const before = decodeCalls.count;
    // next-auth's own clock decides once the remembered copy has run out.
    await sessionIdFromToken(token, SECRET, Date.now() + 3601_000);
    expect(decodeCalls.count - before).toBe(1);
  });

  it("an expired token names no session", async () => {
    const token = await encode({ token: { sid: "sid-old" }, secret: SECRET, maxAge: -60 });
    expect(await sessionIdFromToken(token, SECRET)).toBeNull();
    expect(await sessionIdFromToken(token, SECRET)).toBeNull();
  });

  it("another secret, a damaged token or one without a session id name no session", async () => {
    const token = await encode({ token: { sid: "sid-secret" }, secret: SECRET, maxAge: 3600 });
    expect(await sessionIdFromToken(token, SECRET)).toBe("sid-secret");
    // Remembered under SECRET only: another secret decodes, and fails.
    expect(await sessionIdFromToken(token, "another-secret-0123456789abcdef0123456")).toBeNull();
    expect(await sessionIdFromToken(`${token.slice(0, -4)}AAAA`, SECRET)).toBeNull();
    expect(await sessionIdFromToken(await encode({ token: { uid: "u" }, secret: SECRET }), SECRET)).toBeNull();
    expect(await sessionIdFromToken(undefined, SECRET)).toBeNull();
    expect(await sessionIdFromToken("", SECRET)).toBeNull();
  });

  it("keeps a bounded number of tokens", async () => {
    for (let i = 0; i < 1_050; i++) {
      await sessionIdFromToken(await encode({ token: { sid: `sid-${i}` }, secret: SECRET, maxAge: 3600 }), SECRET);
    }
    expect(decodedTokenCount()).toBeLessThanOrEqual(1_000);
  });
});
