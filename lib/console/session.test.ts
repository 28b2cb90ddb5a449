import { eq } from "drizzle-orm";
import { encode } from "next-auth/jwt";
import { RequestCookies } from "next/dist/server/web/spec-extension/cookies";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleCloudRequest } from "@/lib/console/bff";
import { cloudFetch } from "@/lib/console/gateway-client";
import { operationPath } from "@/lib/contract/operations";
import { createConsoleTestbed, type ConsoleTestbed } from "@/lib/console/testing";
import { opPath } from "@/lib/gateway/testing";
import { apiKeys } from "@/lib/gateway/store/schema/identity";
import { sessionCookieName } from "./cookies";
import { getAuthOptions } from "./auth-options";
import { authSecret } from "./secret";
import { sessionStateFromCookies, type SessionState } from "./session";
import { signInWithKey } from "./sign-in";

let bed: ConsoleTestbed;
beforeAll(async () => {
  bed = await createConsoleTestbed();
});
afterAll(() => bed.close());

/** A browser's request carrying the session cookie of a fresh sign-in, as next-auth would have set it. */
async function signedInRequest(who: "owner" | "member" | "outsider", path = `/api/cloud${operationPath("listProjects")}`) {
  const user = bed.t.demo[who];
  const signedIn = await signInWithKey({ credentials: { accessKeyId: user.access_key_id, secretKey: user.secret_key }, clientIp: "203.0.113.90", rateLimited: false });
  const token = await encode({ token: { sid: signedIn.sessionId, uid: signedIn.userId, email: signedIn.email }, secret: authSecret() });
  const request = (p = path) => new Request(`http://console.test${p}`, { headers: { cookie: `${sessionCookieName()}=${token}`, host: "console.test" } });
  return { sessionId: signedIn.sessionId, request, state: () => sessionStateFromCookies(new RequestCookies(request().headers)) };
}

const through = (request: Request, state: () => Promise<SessionState>) =>
  handleCloudRequest(request, { session: state, fetch: cloudFetch, maxBodyBytes: 1 << 20, trustedProxyHops: 1 });

describe("the session a request's cookies name", () => {
  it("is active after sign-in, and answered the same way on every call", async () => {
    const s = await signedInRequest("owner");
    for (let i = 0; i < 3; i++) expect(await s.state()).toMatchObject({ status: "active", session: { sessionId: s.sessionId, email: bed.t.demo.owner.email } });
    expect((await through(s.request(), s.state)).status).toBe(200);
  });

  it("ends at sign-out, at once, though it was just used", async () => {
    const s = await signedInRequest("owner");
    expect((await through(s.request(), s.state)).status).toBe(200);
    await getAuthOptions().events!.signOut!({ token: { sid: s.sessionId }, session: undefined as never });
    expect(await s.state()).toEqual({ status: "expired" });
    const res = await through(s.request(), s.state);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ reason: "session_expired" });
  });

  it("ends when the gateway refuses the key, at once, though it was just used", async () => {
    const s = await signedInRequest("member", `/api/cloud${operationPath("listRoles")}`);
    expect((await through(s.request(), s.state)).status).toBe(200);
    await bed.t.gateway.store.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, bed.t.demo.member.access_key_id));
    try {
      const refused = await through(s.request(), s.state);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ reason: "session_revoked" });
      expect(await s.state()).toEqual({ status: "revoked" });
      expect((await through(s.request(`/api/cloud${operationPath("listLocations")}`), s.state)).status).toBe(401);
    } finally {
      await bed.t.gateway.store.db.update(apiKeys).set({ revokedAt: null }).where(eq(apiKeys.id, bed.t.demo.member.access_key_id));
    }
  });

  it("ends at its next request when its key is revoked, though nothing calls the gateway meanwhile", async () => {
    const s = await signedInRequest("member");
    expect(await s.state()).toMatchObject({ status: "active" });
    await bed.t.gateway.store.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, bed.t.demo.member.access_key_id));
    try {
      // Only the session is read (as the MFA step's and the account page's actions do): no gateway call.
      expect(await s.state()).toEqual({ status: "revoked" });
    } finally {
      await bed.t.gateway.store.db.update(apiKeys).set({ revokedAt: null }).where(eq(apiKeys.id, bed.t.demo.member.access_key_id));
    }
    expect(await s.state()).toEqual({ status: "revoked" });
    expect(await (await signedInRequest("member")).state()).toMatchObject({ status: "active" });
  });

  it("ends when an owner requires the person to sign in through SSO: a key session does not outlive the requirement", async () => {
    const s = await signedInRequest("member");
    expect(await s.state()).toMatchObject({ status: "active" });
    const require = (sso_required: boolean) =>
      bed.t.call("owner", "PATCH", opPath("updateOrganizationPerson", { org_id: bed.t.demo.organization_id, user_id: bed.t.demo.member.user_id }), { body: { sso_required } });
    expect((await require(true)).status).toBe(200);
    try {
      expect(await s.state()).toEqual({ status: "revoked" });
    } finally {
      expect((await require(false)).status).toBe(200);
    }
    expect(await (await signedInRequest("member")).state()).toMatchObject({ status: "active" });
  });

  it("ends at once when SCIM suspends the person, and a sign-in after reactivation works", async () => {
    const orgId = bed.t.demo.organization_id;
    const created = await bed.t.json<{ api_key_info: { api_key: string } }>("owner", "POST", opPath("createSCIMIntegration", { org_id: orgId }), {
      body: { name: "Session test", identity_provider: "okta", token: { alias: "t", expires_at: new Date(Date.now() + 86_400_000).toISOString() } },
    });
    const active = (value: boolean) =>
      bed.t.gateway.app.request(`http://gateway.test/scim/v2/Users/${bed.t.demo.member.user_id}`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${created.body.api_key_info.api_key}`, "content-type": "application/scim+json" },
        body: JSON.stringify({ schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "active", value }] }),
      });
    const s = await signedInRequest("member", `/api/cloud${operationPath("listRoles")}`);
    expect((await through(s.request(), s.state)).status).toBe(200);
    expect((await active(false)).status).toBe(200);
    try {
      expect(await s.state()).toEqual({ status: "revoked" });
      expect((await through(s.request(), s.state)).status).toBe(401);
    } finally {
      expect((await active(true)).status).toBe(200);
    }
    expect(await s.state()).toEqual({ status: "revoked" });
    const again = await signedInRequest("member", `/api/cloud${operationPath("listRoles")}`);
    expect((await through(again.request(), again.state)).status).toBe(200);
  });

  it("outlives a suspension in one organization while the person is active in another", async () => {
    // Acme's identity provider provisions Globex's owner here, then suspends them here.
    const orgId = bed.t.demo.organization_id;
    const created = await bed.t.json<{ api_key_info: { api_key: string } }>("owner", "POST", opPath("createSCIMIntegration", { org_id: orgId }), {
      body: { name: "Elsewhere test", identity_provider: "okta", token: { alias: "t2", expires_at: new Date(Date.now() + 86_400_000).toISOString() } },
    });
    const scim = (method: string, path: string, body?: unknown) =>
      bed.t.gateway.app.request(`http://gateway.test/scim/v2${path}`, {
        method,
        headers: { authorization: `Bearer ${created.body.api_key_info.api_key}`, "content-type": "application/scim+json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const outsider = bed.t.demo.outsider;
    expect((await scim("POST", "/Users", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: outsider.email })).status).toBe(201);
    try {
      const s = await signedInRequest("outsider", `/api/cloud${operationPath("getOrganizations")}`);
      const suspend = await scim("PATCH", `/Users/${outsider.user_id}`, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "active", value: false }] });
      expect(suspend.status).toBe(200);
      expect(await s.state()).toMatchObject({ status: "active" });
      // The session goes on in Globex; Acme's data is refused by the gateway.
      expect((await through(s.request(), s.state)).status).toBe(200);
      expect((await through(s.request(`/api/cloud${operationPath("listOrganizationPeople", { org_id: orgId })}`), s.state)).status).toBe(403);
    } finally {
      expect((await scim("DELETE", `/Users/${outsider.user_id}`)).status).toBe(204);
    }
  });

  it("no cookie, or one that does not decode, names none", async () => {
    expect(await sessionStateFromCookies(new RequestCookies(new Headers()))).toEqual({ status: "none" });
    expect(await sessionStateFromCookies(new RequestCookies(new Headers({ cookie: `${sessionCookieName()}=not-a-token` })))).toEqual({ status: "none" });
  });
});

describe("one browser, one session", () => {
  type Authorize = (credentials: Record<string, string>, req: { headers: Record<string, string> }) => Promise<{ id: string } | null>;
  const authorize = (): Authorize => {
    const providers = getAuthOptions().providers as unknown as Array<{ options: { id: string; authorize: Authorize } }>;
    return providers.find((p) => p.options.id === "api-key")!.options.authorize;
  };
  const cookieOf = (request: Request) => request.headers.get("cookie") ?? "";

  it("signing in (as anyone) ends the session the browser's cookie named before", async () => {
    const first = await signedInRequest("owner");
    expect(await first.state()).toMatchObject({ status: "active" });
    const member = bed.t.demo.member;
    const next = await authorize()({ access_key_id: member.access_key_id, secret_key: member.secret_key }, { headers: { cookie: cookieOf(first.request()) } });
    expect(next?.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await first.state()).toEqual({ status: "expired" });
    expect((await through(first.request(), first.state)).status).toBe(401);
  });

  it("a failed sign-in leaves the browser's session as it was", async () => {
    const first = await signedInRequest("owner");
    await expect(authorize()({ access_key_id: "AKNOPE", secret_key: "A".repeat(43) }, { headers: { cookie: cookieOf(first.request()) } })).rejects.toThrow();
    expect(await first.state()).toMatchObject({ status: "active" });
  });
});

describe("next-auth's session answer", () => {
  const jwt = (token: Record<string, unknown>) => getAuthOptions().callbacks!.jwt!({ token, account: null } as never);

  it("names the user while the vault session is active", async () => {
    const s = await signedInRequest("owner");
    expect(await jwt({ sid: s.sessionId, uid: "u", email: "e" })).toEqual({ sid: s.sessionId, uid: "u", email: "e" });
  });

  it("names no one for a signed-out, revoked or unknown session (next-auth then clears the cookie instead of renewing it)", async () => {
    const s = await signedInRequest("owner");
    await getAuthOptions().events!.signOut!({ token: { sid: s.sessionId }, session: undefined as never });
    await expect(jwt({ sid: s.sessionId, uid: bed.t.demo.owner.user_id, email: bed.t.demo.owner.email })).rejects.toThrow();
    await expect(jwt({ sid: "never-was", uid: "u", email: "e" })).rejects.toThrow();
    await expect(jwt({ uid: "u", email: "e" })).rejects.toThrow();
  });
});
