import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkSignIn } from "@/lib/console/rate-limit";
import { sessions, signInAttempts } from "@/lib/console/store/schema";
import { createConsoleTestbed, type ConsoleTestbed } from "@/lib/console/testing";
import { apiKeys } from "@/lib/gateway/store/schema/identity";
import { getAuthOptions } from "./auth-options";
import { SignInError, signInWithKey } from "./sign-in";

let bed: ConsoleTestbed;
beforeAll(async () => {
  bed = await createConsoleTestbed({ STRATUS_SIGN_IN_MAX_FAILURES: "5", STRATUS_SIGN_IN_WINDOW_MINUTES: "5" });
});
afterAll(() => bed.close());

const owner = () => ({ accessKeyId: bed.t.demo.owner.access_key_id, secretKey: bed.t.demo.owner.secret_key });
const wrong = () => ({ accessKeyId: bed.t.demo.owner.access_key_id, secretKey: "A".repeat(43) });

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SignInError) return error.code;
    throw error;
  }
  return "ok";
}

describe("sign-in with an API key", () => {
  it("a valid key opens a vault session named after the key's user", async () => {
    const result = await signInWithKey({ credentials: owner(), clientIp: "203.0.113.10", rateLimited: true });
    expect(result.userId).toBe(bed.t.demo.owner.user_id);
    expect(result.email).toBe(bed.t.demo.owner.email);
    const [row] = await bed.db.select().from(sessions).where(eq(sessions.id, result.sessionId));
    expect(row?.accessKeyId).toBe(owner().accessKeyId);
    expect(row?.secretCiphertext).not.toContain(owner().secretKey);
  });

  it("wrong keys are refused, and the sixth try from one address is refused before the gateway is asked", async () => {
    const ip = "203.0.113.20";
    for (let i = 0; i < 5; i++) expect(await codeOf(signInWithKey({ credentials: wrong(), clientIp: ip, rateLimited: true }))).toBe("invalid_key");
    // Even the right key waits now.
    expect(await codeOf(signInWithKey({ credentials: owner(), clientIp: ip, rateLimited: true }))).toBe("rate_limited:5");
    // Another address is not affected.
    expect(await codeOf(signInWithKey({ credentials: owner(), clientIp: "203.0.113.21", rateLimited: true }))).toBe("ok");
  });

  it("counts an IPv6 client by its /64: a new address of the same network is the same client", async () => {
    for (let i = 1; i <= 5; i++) expect(await codeOf(signInWithKey({ credentials: wrong(), clientIp: `2001:db8:5:7::${i.toString(16)}`, rateLimited: true }))).toBe("invalid_key");
    expect(await codeOf(signInWithKey({ credentials: owner(), clientIp: "2001:db8:5:7:ffff:1:2:3", rateLimited: true }))).toBe("rate_limited:5");
    // The next /64 is another client.
    expect(await codeOf(signInWithKey({ credentials: owner(), clientIp: "2001:db8:5:8::1", rateLimited: true }))).toBe("ok");
  });

  it("a malformed secret counts as a failure without reaching the signer", async () => {
    const ip = "203.0.113.30";
    expect(await codeOf(signInWithKey({ credentials: { accessKeyId: "AKX", secretKey: "not base64!" }, clientIp: ip, rateLimited: true }))).toBe("invalid_key");
    expect(await bed.db.select().from(signInAttempts).where(eq(signInAttempts.clientKey, ip))).toHaveLength(1);
  });

  it("a success counts as no failure and wipes none: a valid key of one's own does not reset the address's count", async () => {
    const ip = "203.0.113.40";
    for (let i = 0; i < 4; i++) expect(await codeOf(signInWithKey({ credentials: wrong(), clientIp: ip, rateLimited: true }))).toBe("invalid_key");
    expect(await codeOf(signInWithKey({ credentials: owner(), clientIp: ip, rateLimited: true }))).toBe("ok");
    expect(await bed.db.select().from(signInAttempts).where(eq(signInAttempts.clientKey, ip))).toHaveLength(4);
    expect((await checkSignIn(bed.db, ip, { maxFailures: 5, windowMs: 300_000 })).allowed).toBe(true);
    // The fifth wrong key is still checked, and then the address waits, the valid key included.
    expect(await codeOf(signInWithKey({ credentials: wrong(), clientIp: ip, rateLimited: true }))).toBe("invalid_key");
    expect(await codeOf(signInWithKey({ credentials: owner(), clientIp: ip, rateLimited: true }))).toBe("rate_limited:5");
  });

  it("a revoked key is refused", async () => {
    const member = bed.t.demo.member;
    await bed.t.gateway.store.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, member.access_key_id));
    try {
      expect(
        await codeOf(signInWithKey({ credentials: { accessKeyId: member.access_key_id, secretKey: member.secret_key }, clientIp: "203.0.113.50", rateLimited: true })),
      ).toBe("invalid_key");
    } finally {
      await bed.t.gateway.store.db.update(apiKeys).set({ revokedAt: null }).where(eq(apiKeys.id, member.access_key_id));
    }
  });
});

describe("a person who must use SSO", () => {
  it("cannot open a console session with an API key until the requirement is lifted", async () => {
    const { setSsoRequired } = await import("@/lib/gateway/store/queries/people");
    const db = bed.t.gateway.store.db;
    const member = () => ({ accessKeyId: bed.t.demo.member.access_key_id, secretKey: bed.t.demo.member.secret_key });
    await setSsoRequired(db, bed.t.demo.organization_id, bed.t.demo.member.user_id, true);
    try {
      expect(await codeOf(signInWithKey({ credentials: member(), clientIp: "203.0.113.90", rateLimited: true }))).toBe("sso_required");
      // Known identities (the demo buttons) are held to it too.
      expect(
        await codeOf(signInWithKey({ credentials: member(), clientIp: "203.0.113.90", rateLimited: false, identity: { userId: bed.t.demo.member.user_id, email: bed.t.demo.member.email } })),
      ).toBe("sso_required");
    } finally {
      await setSsoRequired(db, bed.t.demo.organization_id, bed.t.demo.member.user_id, false);
    }
    expect(await codeOf(signInWithKey({ credentials: member(), clientIp: "203.0.113.90", rateLimited: true }))).toBe("ok");
  });
});

describe("next-auth providers", () => {
  type Authorize = (credentials: Record<string, string>, req: { headers: Record<string, string> }) => Promise<{ id: string; email?: string } | null>;
  function authorizeOf(id: string): Authorize {
    // next-auth merges a provider's options over its defaults when it starts; here we read them directly.
    const providers = getAuthOptions().providers as unknown as Array<{ options: { id: string; authorize: Authorize } }>;
    const provider = providers.find((p) => p.options.id === id);
    if (!provider) throw new Error(`no provider ${id}`);
    return provider.options.authorize;
  }

  it("api-key: the user the token carries is an opaque session id, not the key", async () => {
    const user = await authorizeOf("api-key")({ access_key_id: owner().accessKeyId, secret_key: owner().secretKey }, { headers: { "x-forwarded-for": "198.51.100.1" } });
    expect(user?.email).toBe(bed.t.demo.owner.email);
    expect(user?.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(user)).not.toContain(owner().secretKey);
    expect(JSON.stringify(user)).not.toContain(owner().accessKeyId);
  });

  it("api-key: wrong keys throw the code the sign-in page shows", async () => {
    await expect(authorizeOf("api-key")({ access_key_id: "AKNOPE", secret_key: "A".repeat(43) }, { headers: { "x-forwarded-for": "198.51.100.2" } })).rejects.toThrow(
      "invalid_key",
    );
    // No header can carry it: a wrong key too, not a gateway that cannot be reached.
    for (const accessKeyId of ["AK€", "AK NOPE", "AK\u0001"]) {
      await expect(authorizeOf("api-key")({ access_key_id: accessKeyId, secret_key: "A".repeat(43) }, { headers: { "x-forwarded-for": "198.51.100.2" } })).rejects.toThrow(
        "invalid_key",
      );
    }
  });

  it("the jwt and session callbacks keep only the session id and display fields", async () => {
    const options = getAuthOptions();
    const token = await options.callbacks!.jwt!({
      token: { sub: "x", name: "n", email: "e" },
      user: { id: "sid-1", email: "a@b.test", userId: "u-1" } as never,
      account: null,
    } as never);
    expect(token).toEqual({ sid: "sid-1", uid: "u-1", email: "a@b.test" });
    const session = await options.callbacks!.session!({ session: { expires: "2030-01-01T00:00:00Z", user: {} }, token } as never);
    expect(session).toEqual({ expires: "2030-01-01T00:00:00Z", user: { id: "u-1", email: "a@b.test", name: "a@b.test" } });
  });

  it("demo: offered in tests (not production), reads the key on the server", async () => {
    const { writeDemoCredentials } = await import("@/lib/gateway/seed");
    writeDemoCredentials(bed.dataDir, bed.t.demo);
    const user = await authorizeOf("demo")({ who: "member" }, { headers: {} });
    expect(user?.email).toBe(bed.t.demo.member.email);
    await expect(authorizeOf("demo")({ who: "outsider" }, { headers: {} })).rejects.toThrow("demo_unavailable");
  });
});
