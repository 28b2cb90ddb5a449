import { and, eq } from "drizzle-orm";
import type { NextAuthOptions } from "next-auth";
import NextAuth from "next-auth/next";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { signInAtTestProvider, TEST_ISSUER_ALIAS, type TestOidcProvider } from "@/e2e/oidc-provider";
import { FACTORS_MANAGED_ELSEWHERE, SIGN_IN_ERROR } from "@/lib/contract/sign-in-messages";
import { createSsoTestbed, type ConsoleTestbed, type SsoTestbed } from "@/lib/console/testing";
import { resetEnvCache } from "@/lib/env";
import type { Database } from "@/lib/gateway/store/client";
import { setMfaMethods } from "@/lib/gateway/store/queries/mfa";
import { acceptTotpStep, createPendingTotp, recoveryCodesLeft } from "@/lib/gateway/store/queries/mfa-factors";
import { findPerson, removePerson } from "@/lib/gateway/store/queries/people";
import { insertSsoProvider, linkSsoIdentity } from "@/lib/gateway/store/queries/sso";
import { apiKeys, auditLog, memberships, roleBindings, roles, ssoIdentities, ssoProviders, userMfaFactors, users } from "@/lib/gateway/store/schema";
import { getAuthOptions } from "./auth-options";
import { authCookies, sessionCookieName, sessionCookieOptions } from "./cookies";
import { factorsManagedElsewhere, mfaStepState, regenerateRecoveryCodes, removeOwnFactor, startTotpEnrolment } from "./mfa";
import { passkeyRegistrationOptions, relyingPartyOf } from "./mfa-passkeys";
import { sessionStateFromCookies } from "./session";
import { loadSsoProvider, signInWithSso } from "./sso";
import { ssoAuthOptions, startSsoSignIn, type NextAuthCall } from "./sso-auth";
import { vaultKey, vaultLimits } from "./config";
import { sessions } from "./store/schema";
import { deleteVaultSession, purgeExpiredSessions, sessionCredentials } from "./vault";

/**
 * SSO sign-in end to end on the server side: a real OpenID provider (oidc-provider) on loopback,
 * next-auth's own handler with the options the console builds per request, and the console's
 * store. The ID token checks are next-auth's (openid-client's); these tests tamper with what the
 * provider's token endpoint answers and see the console refuse it.
 */

const CONSOLE = "http://console.test";
let bed: ConsoleTestbed;
let idp: TestOidcProvider;
let providerId: string;
let orgId: string;

let testbed: SsoTestbed | undefined;
beforeAll(async () => {
  testbed = await createSsoTestbed(CONSOLE);
  ({ bed, idp, providerId } = testbed);
  orgId = bed.t.demo.organization_id;
});
afterAll(() => testbed?.close());
beforeEach(() => idp.tamperIdTokens(null));

// ------------------------------------------------------------------ a browser, as next-auth sees it

/** The console's cookies in one browser. */
class Browser {
  readonly console = new Map<string, string>();
  readonly idp = new Map<string, string>();

  cookieHeader(jar: Map<string, string>): string {
    return [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  /** next-auth's handler (its Pages adapter, which reads the request it is given rather than next/headers). */
  async nextAuth(nextauth: string[], options: NextAuthOptions, init: { method?: string; query?: Record<string, string>; body?: Record<string, string> } = {}) {
    const answer: { status: number; redirect?: string; body?: unknown; headers: Map<string, string | string[]> } = { status: 200, headers: new Map() };
    const req = {
      method: init.method ?? "GET",
      query: { ...init.query, nextauth },
      body: init.body,
      cookies: Object.fromEntries(this.console),
      headers: { host: "console.test", cookie: this.cookieHeader(this.console) },
    };
    const res = {
      status(code: number) {
        answer.status = code;
        return res;
      },
      getHeader: (name: string) => answer.headers.get(name.toLowerCase()),
      setHeader(name: string, value: string | string[]) {
        answer.headers.set(name.toLowerCase(), value);
        if (name.toLowerCase() === "location") answer.redirect = String(value);
        return res;
      },
      end: () => res,
      json(body: unknown) {
        answer.body = body;
        if (body && typeof body === "object" && "url" in body) answer.redirect = String(body.url);
        return res;
      },
      send(body: unknown) {
        answer.body = body;
        return res;
      },
    };
    await NextAuth(req as never, res as never, options);
    const cookies = answer.headers.get("set-cookie") ?? [];
    for (const line of Array.isArray(cookies) ? cookies : [cookies]) {
      const [pair, ...attributes] = line.split(";").map((part) => part.trim());
      const at = pair!.indexOf("=");
      const name = pair!.slice(0, at);
      const expired = attributes.some((a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && new Date(a.slice(8)).getTime() < Date.now()));
      if (expired) this.console.delete(name);
      else this.console.set(name, decodeURIComponent(pair!.slice(at + 1)));
    }
    return answer;
  }

  /** The sign-in page's SSO form: CSRF token, then POST /api/auth/signin/sso; the URL it is sent to. */
  async startSso(email: string): Promise<string> {
    const csrf = await this.nextAuth(["csrf"], getAuthOptions());
    const { csrfToken } = csrf.body as { csrfToken: string };
    const body = new URLSearchParams({ email, csrfToken, callbackUrl: `${CONSOLE}/orgs`, json: "true" });
    const request = new NextRequest(`${CONSOLE}/api/auth/signin/sso`, { method: "POST", body, headers: { "content-type": "application/x-www-form-urlencoded" } });
    const run: NextAuthCall = async (forwarded, nextauth, options) => {
      const form = Object.fromEntries(new URLSearchParams(await forwarded.text()));
      const res = await this.nextAuth(nextauth, options, { method: "POST", query: Object.fromEntries(forwarded.nextUrl.searchParams), body: form });
      return Response.json({ url: res.redirect });
    };
    const res = await startSsoSignIn(request, { host: "console.test" }, run);
    return ((await res.json()) as { url: string }).url;
  }

  /** At the provider: its login page for `login`, any password; answers the console callback URL it redirects to. */
  signInAtProvider(authorizationUrl: string, login: string): Promise<URL> {
    return signInAtTestProvider(authorizationUrl, login, CONSOLE, this.idp);
  }

  /** The provider's redirect back: next-auth's callback for the provider; answers where it sends the browser. */
  async callback(callbackUrl: URL): Promise<string> {
    const id = callbackUrl.pathname.split("/").pop()!;
    const options = await ssoAuthOptions(id, { host: "console.test", cookie: this.cookieHeader(this.console) });
    if (!options) throw new Error("no options for the provider");
    const res = await this.nextAuth(["callback", id], options, { query: Object.fromEntries(callbackUrl.searchParams) });
    return res.redirect ?? "";
  }

  session() {
    const jar = this.console;
    return sessionStateFromCookies({ get: (name) => (jar.has(name) ? { value: jar.get(name)! } : undefined) });
  }

  async signIn(typed: string, login = typed): Promise<string> {
    return this.callback(await this.signInAtProvider(await this.startSso(typed), login));
  }
}

async function personRow(email: string) {
  const [row] = await bed.t.gateway.store.db
    .select({ userId: users.id, status: memberships.status, source: memberships.source, relation: memberships.relation, name: users.name })
    .from(users)
    .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.organizationId, orgId)))
    .where(eq(users.email, email));
  return row;
}

async function activeSession(browser: Browser) {
  const state = await browser.session();
  if (state.status !== "active") throw new Error(`no active session: ${state.status}`);
  return state.session;
}

// ------------------------------------------------------------------ the tests

describe("choosing the provider from the e-mail", () => {
  it("sends the person to the organization's provider with PKCE, state and nonce, and the e-mail as login hint", async () => {
    const url = new URL(await new Browser().startSso("Ada@SSO.example"));
    expect(url.origin).toBe(idp.issuer);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: idp.clientId,
      response_type: "code",
      scope: "openid email profile",
      redirect_uri: `${CONSOLE}/api/auth/callback/${providerId}`,
      code_challenge_method: "S256",
      login_hint: "ada@sso.example",
    });
    for (const p of ["code_challenge", "state", "nonce"]) expect(url.searchParams.get(p), p).toBeTruthy();
  });

  it.each([
    ["not an e-mail", "ada", SIGN_IN_ERROR.ssoEmailInvalid],
    ["a domain no organization claims", "eve@elsewhere.example", SIGN_IN_ERROR.ssoNoProvider],
  ])("refuses %s with a message code", async (_name, email, code) => {
    expect(await new Browser().startSso(email)).toBe(`/sign-in?error=${code}`);
  });

  it("refuses a domain that providers of two organizations claim", async () => {
    const globex = await bed.t.outsiderOrganizationId();
    const body = { issuer_uri: "https://idp.shared.example", client_id: "c", client_secret: "s", email_domains: ["shared.example"] };
    expect((await bed.t.op("owner", "createSSOProvider", { params: { organization_id: orgId }, body })).status).toBe(200);
    // The gateway no longer lets a second organization claim it (lib/gateway/routes/sso); a store
    // written before that rule may still hold both claims, and sign-in refuses to choose.
    expect((await bed.t.op("outsider", "createSSOProvider", { params: { organization_id: globex }, body })).status).toBe(400);
    await insertSsoProvider(bed.t.gateway.store.db, { organizationId: globex, clientId: "c", clientSecretCiphertext: null, issuerUri: body.issuer_uri, emailDomains: body.email_domains, signsInOwners: true });
    expect(await new Browser().startSso("someone@shared.example")).toBe(`/sign-in?error=${SIGN_IN_ERROR.ssoDomainAmbiguous}`);
  });

  it("sends nobody at a public e-mail service's domain to a provider that claimed it before the gateway refused such claims", async () => {
    const body = { issuer_uri: "https://idp.public.example", client_id: "c", client_secret: "s", email_domains: ["gmail.com"] };
    expect((await bed.t.op("owner", "createSSOProvider", { params: { organization_id: orgId }, body })).status).toBe(400);
    await insertSsoProvider(bed.t.gateway.store.db, { organizationId: orgId, clientId: "c", clientSecretCiphertext: null, issuerUri: body.issuer_uri, emailDomains: body.email_domains, signsInOwners: true });
    expect(await new Browser().startSso("someone@Gmail.com")).toBe(`/sign-in?error=${SIGN_IN_ERROR.ssoNoProvider}`);
  });

  it("refuses a provider without a client secret", async () => {
    const body = { issuer_uri: "https://idp.nosecret.example", client_id: "c", email_domains: ["nosecret.example"] };
    expect((await bed.t.op("owner", "createSSOProvider", { params: { organization_id: orgId }, body })).status).toBe(200);
    expect(await new Browser().startSso("someone@nosecret.example")).toBe(`/sign-in?error=${SIGN_IN_ERROR.ssoNotReady}`);
  });
});

describe("a first sign-in", () => {
  it("creates the person just in time (source sso, the baseline role only) and opens a session with a key minted for it", async () => {
    expect(await personRow("ada@sso.example")).toBeUndefined();
    const browser = new Browser();
    expect(await browser.signIn("ada@sso.example")).toBe(`${CONSOLE}/orgs`);

    const person = await personRow("ada@sso.example");
    expect(person).toMatchObject({ status: "active", source: "sso", relation: "member", name: "Ada Lovelace" });
    const granted = await bed.t.gateway.store.db
      .select({ role: roles.roleName, scope: roleBindings.scopeType })
      .from(roleBindings)
      .innerJoin(roles, eq(roles.id, roleBindings.roleId))
      .where(and(eq(roleBindings.userId, person!.userId), eq(roleBindings.organizationId, orgId)));
    expect(granted).toEqual([{ role: "Organization Member", scope: "org" }]);
    const audit = await bed.t.gateway.store.db.select().from(auditLog).where(eq(auditLog.actorId, person!.userId));
    expect(audit.map((e) => [e.action, e.actionDetail, e.targetNames])).toEqual([["Create", "Create Person (first SSO sign-in)", ["ada@sso.example"]]]);

    const session = await activeSession(browser);
    expect(session).toMatchObject({ userId: person!.userId, email: "ada@sso.example", ssoProviderId: providerId });
    const credentials = (await sessionCredentials(bed.db, vaultKey(), session))!;
    const [key] = await bed.t.gateway.store.db.select().from(apiKeys).where(eq(apiKeys.id, credentials.accessKeyId));
    expect(key?.userId).toBe(person!.userId);
    // The key ends with the session's absolute lifetime (12 hours by default).
    expect(Math.abs(key!.expiresAt!.getTime() - (Date.now() + 12 * 3_600_000))).toBeLessThan(60_000);
    expect((await bed.t.op("owner", "listLocations", { credentials })).status).toBe(200);

    // Signing out deletes the minted key: it signs nothing any more.
    await deleteVaultSession(bed.db, session.sessionId);
    expect(await bed.t.gateway.store.db.select().from(apiKeys).where(eq(apiKeys.id, credentials.accessKeyId))).toEqual([]);
    expect((await bed.t.op("owner", "listLocations", { credentials })).status).toBe(401);
    expect((await browser.session()).status).not.toBe("active");
  });

  it("ends a session it signed in once the console uses a remote gateway (its provider and key are the embedded one's), rather than failing every page", async () => {
    const browser = new Browser();
    expect(await browser.signIn("ada@sso.example")).toBe(`${CONSOLE}/orgs`);
    await activeSession(browser);
    process.env.CLOUD_API_URL = "http://127.0.0.1:9";
    resetEnvCache();
    try {
      expect(await browser.session()).toEqual({ status: "revoked" });
    } finally {
      delete process.env.CLOUD_API_URL;
      resetEnvCache();
    }
    expect(await browser.session()).toEqual({ status: "revoked" });
  });

  it("signs the same person in again without creating anything", async () => {
    const before = await personRow("ada@sso.example");
    const browser = new Browser();
    expect(await browser.signIn("ada@sso.example")).toBe(`${CONSOLE}/orgs`);
    expect(await personRow("ada@sso.example")).toEqual(before);
    expect((await activeSession(browser)).userId).toBe(before!.userId);
  });

  it("is only the first factor where the organization requires MFA: the session owes the second", async () => {
    await setMfaMethods(bed.t.gateway.store.db, orgId, ["totp"], new Date());
    try {
      const browser = new Browser();
      await browser.signIn("ada@sso.example");
      const state = await browser.session();
      expect(state).toMatchObject({ status: "mfa", session: { email: "ada@sso.example", mfaPending: true, factors: ["sso"] } });
    } finally {
      await setMfaMethods(bed.t.gateway.store.db, orgId, [], new Date());
    }
  });

  it("joins a person once when two first sign-ins of theirs arrive together", async () => {
    const provider = (await loadSsoProvider(providerId))!;
    const claims = { iss: idp.issuer, sub: "twice@sso.example", email: "twice@sso.example", email_verified: true };
    const both = await Promise.all([signInWithSso(provider, claims, "203.0.113.7"), signInWithSso(provider, claims, "203.0.113.7")]);
    expect(both[0].userId).toBe(both[1].userId);
    expect(both[0].sessionId).not.toBe(both[1].sessionId);
    expect((await personRow("twice@sso.example"))?.source).toBe("sso");
  });

  it("refuses an e-mail the provider has not verified, and creates no one", async () => {
    expect(await new Browser().signIn("unverified@sso.example")).toBe(`/sign-in?error=${SIGN_IN_ERROR.ssoEmailUnverified}`);
    expect(await personRow("unverified@sso.example")).toBeUndefined();
  });

  it("refuses an e-mail outside the provider's domains (the person signed in at the provider as someone else)", async () => {
    expect(await new Browser().signIn("grace@sso.example", "eve@elsewhere.example")).toBe(`/sign-in?error=${SIGN_IN_ERROR.ssoWrongDomain}`);
    expect(await personRow("eve@elsewhere.example")).toBeUndefined();
  });

  it.each([
    [{ email_verified: false, xms_edov: true }, false],
    [{ email_verified: "false" }, false],
    [{}, false],
    [{ xms_edov: false }, false],
    [{ xms_edov: true }, true],
    [{ xms_edov: "1" }, true],
    [{ email_verified: "true" }, true],
  ])("takes the e-mail as verified from %j: %s (Entra ID's xms_edov only without email_verified)", async (claims, accepted) => {
    const provider = (await loadSsoProvider(providerId))!;
    const signIn = signInWithSso(provider, { iss: idp.issuer, sub: "linus@sso.example", email: "linus@sso.example", name: "Linus", ...claims }, "203.0.113.7");
    if (accepted) await expect(signIn).resolves.toMatchObject({ email: "linus@sso.example" });
    else await expect(signIn).rejects.toMatchObject({ code: SIGN_IN_ERROR.ssoEmailUnverified });
  });

  // U+212A KELVIN SIGN lower-cases to an ASCII "k": kate's address, not the one the provider vouched for.
  it.each(["ceo@acme.example@sso.example", "ada lovelace@sso.example", "ada\u202e@sso.example", "ada\u0007@sso.example", "\u212Aate@sso.example", "zo\u00eb@sso.example"])(
    "refuses an address the provider vouches for that is not one, and creates no one: %j",
    async (email) => {
      const provider = (await loadSsoProvider(providerId))!;
      const signIn = signInWithSso(provider, { iss: idp.issuer, sub: `odd-${email.length}`, email, email_verified: true }, "203.0.113.7");
      await expect(signIn).rejects.toMatchObject({ code: SIGN_IN_ERROR.ssoEmailUnusable });
      expect(await personRow(email.toLowerCase())).toBeUndefined();
    },
  );

  it("does not sign in as kate a person whose provider vouches for \u212Aate (a Kelvin sign), though kate has no link yet", async () => {
    expect((await bed.t.op("owner", "inviteOrganizationPerson", { params: { org_id: orgId }, body: { email: "kate@sso.example" } })).status).toBe(201);
    const provider = (await loadSsoProvider(providerId))!;
    const signIn = signInWithSso(provider, { iss: idp.issuer, sub: "mallory-subject", email: "\u212Aate@sso.example", email_verified: true }, "203.0.113.7");
    await expect(signIn).rejects.toMatchObject({ code: SIGN_IN_ERROR.ssoEmailUnusable });
    expect(await bed.t.gateway.store.db.select().from(ssoIdentities).where(eq(ssoIdentities.subject, "mallory-subject"))).toEqual([]);
  });

  it("tells a person whose provider sent no e-mail claim (an Entra ID user without a mailbox) just that", async () => {
    const provider = (await loadSsoProvider(providerId))!;
    const signIn = signInWithSso(provider, { iss: idp.issuer, sub: "no-mailbox", preferred_username: "nomail@sso.example" } as never, "203.0.113.7");
    await expect(signIn).rejects.toMatchObject({ code: SIGN_IN_ERROR.ssoEmailMissing });
  });

  it("signs in through Google only an account a Workspace manages (hd), not a personal one at the same address", async () => {
    const configured = (await loadSsoProvider(providerId))!;
    const google = { ...configured, issuer: "https://accounts.google.com" };
    const claims = { iss: "https://accounts.google.com", sub: "1077", email: "gw@sso.example", email_verified: true };
    await expect(signInWithSso(google, claims, "203.0.113.7")).rejects.toMatchObject({ code: SIGN_IN_ERROR.ssoAccountUnmanaged });
    expect(await personRow("gw@sso.example")).toBeUndefined();
    await expect(signInWithSso(google, { ...claims, hd: "sso.example" }, "203.0.113.7")).resolves.toMatchObject({ email: "gw@sso.example" });
  });

  it.each([
    ["a NUL", "Ada\u0000Lovelace", ""],
    ["a right-to-left override", "Ada\u202eecalevoL", ""],
    ["half of a surrogate pair", "Ada\udc00", ""],
    ["201 characters, the last an emoji", `${"a".repeat(199)}\u{1F600}x`, `${"a".repeat(199)}\u{1F600}`],
    ["a plain one", "  Ada Lovelace ", "Ada Lovelace"],
  ])("signs a person in whose provider gives a name with %s, keeping it only as the API would take it", async (what, claim, kept) => {
    const provider = (await loadSsoProvider(providerId))!;
    const email = `named-${what.replace(/[^a-z0-9]/g, "")}@sso.example`;
    const signIn = signInWithSso(provider, { iss: idp.issuer, sub: email, email, email_verified: true, name: claim }, "203.0.113.7");
    await expect(signIn).resolves.toMatchObject({ email });
    expect((await personRow(email))?.name).toBe(kept);
  });

  it("ends an idle or expired session's key when sessions are swept, though nobody uses the session again", async () => {
    const provider = (await loadSsoProvider(providerId))!;
    const longAgo = new Date(Date.now() - 13 * 3_600_000);
    const { sessionId } = await signInWithSso(provider, { iss: idp.issuer, sub: "ada@sso.example", email: "ada@sso.example", email_verified: true }, "203.0.113.7", longAgo);
    const [row] = await bed.db.select().from(sessions).where(eq(sessions.id, sessionId));
    const credentials = { accessKeyId: row!.accessKeyId, secretKey: "unused" };
    expect(await bed.t.gateway.store.db.select().from(apiKeys).where(eq(apiKeys.id, credentials.accessKeyId))).toHaveLength(1);
    await purgeExpiredSessions(bed.db, vaultLimits());
    expect(await bed.db.select().from(sessions).where(eq(sessions.id, sessionId))).toEqual([]);
    expect(await bed.t.gateway.store.db.select().from(apiKeys).where(eq(apiKeys.id, credentials.accessKeyId))).toEqual([]);
  });

  it("refuses an e-mail that is another person's SCIM userName in the organization, and creates no one", async () => {
    const provider = (await loadSsoProvider(providerId))!;
    const member = bed.t.demo.member.user_id;
    const named = and(eq(memberships.userId, member), eq(memberships.organizationId, orgId));
    // The identity provider's directory names the demo member by an address that is not their account's.
    await bed.t.gateway.store.db.update(memberships).set({ scimUserName: "Directory.Name@sso.example" }).where(named);
    try {
      await expect(signInWithSso(provider, { iss: idp.issuer, sub: "directory.name@sso.example", email: "directory.name@sso.example", email_verified: true }, "203.0.113.7")).rejects.toMatchObject({
        code: SIGN_IN_ERROR.ssoUserNameTaken,
      });
      expect(await personRow("directory.name@sso.example")).toBeUndefined();
      expect(await bed.t.gateway.store.db.select().from(users).where(eq(users.email, "directory.name@sso.example"))).toEqual([]);
    } finally {
      await bed.t.gateway.store.db.update(memberships).set({ scimUserName: null }).where(named);
    }
  });

  it("refuses a suspended person", async () => {
    const browser = new Browser();
    expect(await browser.signIn("grace@sso.example")).toBe(`${CONSOLE}/orgs`);
    const grace = (await personRow("grace@sso.example"))!;
    await bed.t.gateway.store.db
      .update(memberships)
      .set({ status: "suspended", updatedAt: new Date() })
      .where(and(eq(memberships.userId, grace.userId), eq(memberships.organizationId, orgId)));
    try {
      expect(await new Browser().signIn("grace@sso.example")).toBe(`/sign-in?error=${SIGN_IN_ERROR.ssoSuspended}`);
    } finally {
      await bed.t.gateway.store.db.update(memberships).set({ status: "active" }).where(and(eq(memberships.userId, grace.userId), eq(memberships.organizationId, orgId)));
    }
  });

  it("signs an owner in only through a provider an owner added; the other people, through any of the organization's", async () => {
    const db = bed.t.gateway.store.db;
    expect(await new Browser().signIn("grace@sso.example")).toBe(`${CONSOLE}/orgs`);
    const grace = (await personRow("grace@sso.example"))!;
    const made = async (signsInOwners: boolean) => db.update(ssoProviders).set({ signsInOwners }).where(eq(ssoProviders.id, providerId));
    const relation = async (value: "owner" | "member") =>
      db.update(memberships).set({ relation: value }).where(and(eq(memberships.userId, grace.userId), eq(memberships.organizationId, orgId)));
    try {
      await relation("owner");
      // The owner added the test provider: it signs owners in.
      expect(await new Browser().signIn("grace@sso.example")).toBe(`${CONSOLE}/orgs`);
      // Added by someone who owns nothing here: not an owner, and no session is opened for her.
      await made(false);
      const refused = new Browser();
      expect(await refused.signIn("grace@sso.example")).toBe(`/sign-in?error=${SIGN_IN_ERROR.ssoOwnerUntrusted}`);
      expect((await refused.session()).status).not.toBe("active");
      await relation("member");
      expect(await new Browser().signIn("grace@sso.example")).toBe(`${CONSOLE}/orgs`);
    } finally {
      await made(true);
      await relation("member");
    }
  });
});

describe("what the sign-in does with the provider's answers", () => {
  it("asks userinfo nothing when the ID token holds the address and whether it is vouched for (Entra ID's xms_edov too)", async () => {
    const options = (await ssoAuthOptions(providerId, {}))!;
    const provider = options.providers.find((p) => p.id === providerId) as unknown as { userinfo: { request: (context: unknown) => Promise<Record<string, unknown>> } };
    let asked = 0;
    const client = { userinfo: async () => ((asked += 1), Promise.reject(new Error("userinfo is down"))) };
    const call = (claims: Record<string, unknown>) => provider.userinfo.request({ tokens: { claims: () => claims }, client });
    await expect(call({ sub: "s", email: "e@sso.example", xms_edov: true })).resolves.toMatchObject({ email: "e@sso.example" });
    await expect(call({ sub: "s", email: "e@sso.example", email_verified: true })).resolves.toMatchObject({ email: "e@sso.example" });
    expect(asked).toBe(0);
    // Without them, userinfo is asked (and its failure is the sign-in's).
    await expect(call({ sub: "s" })).rejects.toThrow("userinfo is down");
    expect(asked).toBe(1);
  });

  it("logs why a provider's answer was refused, and nothing of what else next-auth hands its logger", () => {
    const lines: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => (lines.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      const logger = getAuthOptions().logger!;
      logger.error!("OAUTH_CALLBACK_ERROR", { error: new Error("JWT not active yet, now 1700000000, nbf 1700000030"), providerId: "p" } as never);
      logger.error!("CLIENT_FETCH_ERROR", { error: new Error("typed-secret-of-someone"), url: "x" } as never);
    } finally {
      process.stderr.write = write;
    }
    expect(lines.join("")).toContain("JWT not active yet");
    expect(lines.join("")).not.toContain("typed-secret-of-someone");
  });

  it("answers the provider's own refusal (access_denied: not assigned to the application) with what it means, not 'try again'", async () => {
    const { GET } = await import("@/app/api/auth/[...nextauth]/route");
    const url = `${CONSOLE}/api/auth/callback/${providerId}?error=access_denied&error_description=User%20is%20not%20assigned&state=s`;
    const res = await GET(new NextRequest(url), { params: Promise.resolve({ nextauth: ["callback", providerId] }) });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`/sign-in?error=${SIGN_IN_ERROR.ssoRefusedByProvider}`);
  });
});

describe("a callback that cannot be handled", () => {
  /** A callback as the browser sends it, with or without the state cookie a sign-in's start set; what was logged meanwhile. */
  async function callbackWithUnreadableSecret(withState: boolean): Promise<{ location: string | null; logged: string }> {
    const db = bed.t.gateway.store.db;
    const [row] = await db.select({ sealed: ssoProviders.clientSecretCiphertext }).from(ssoProviders).where(eq(ssoProviders.id, providerId));
    const lines: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    await db.update(ssoProviders).set({ clientSecretCiphertext: "v1.c2VhbGVkLWVsc2V3aGVyZQ.c2VhbGVkLWVsc2V3aGVyZQ" }).where(eq(ssoProviders.id, providerId));
    process.stderr.write = ((chunk: string | Uint8Array) => (lines.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      const { GET } = await import("@/app/api/auth/[...nextauth]/route");
      const url = `${CONSOLE}/api/auth/callback/${providerId}?code=c&state=s`;
      const headers = withState ? { cookie: `${authCookies().state.name}=sealed-state` } : undefined;
      const res = await GET(new NextRequest(url, { headers }), { params: Promise.resolve({ nextauth: ["callback", providerId] }) });
      expect(res.status).toBe(302);
      return { location: res.headers.get("location"), logged: lines.join("") };
    } finally {
      process.stderr.write = write;
      await db.update(ssoProviders).set({ clientSecretCiphertext: row!.sealed }).where(eq(ssoProviders.id, providerId));
    }
  }

  it("sends the person to the sign-in page with a message, logged, when the provider's secret cannot be read (sealed under another master key)", async () => {
    const { location, logged } = await callbackWithUnreadableSecret(true);
    expect(location).toBe(`/sign-in?error=${SIGN_IN_ERROR.gatewayUnavailable}`);
    expect(logged).toContain("the SSO callback could not be handled");
  });

  it("refuses a callback this browser started no sign-in for before loading the provider (its secret, its discovery document)", async () => {
    const { location, logged } = await callbackWithUnreadableSecret(false);
    expect(location).toBe(`/sign-in?error=${SIGN_IN_ERROR.ssoCallbackFailed}`);
    expect(logged).not.toContain("the SSO callback could not be handled");
  });
});

describe("the issuer is the one configured", () => {
  it("refuses a provider whose discovery document names another issuer than the one set up, and opens no session", async () => {
    const db = bed.t.gateway.store.db;
    const setIssuer = (issuerUri: string) => db.update(ssoProviders).set({ issuerUri }).where(eq(ssoProviders.id, providerId));
    // The same provider reached at another URL: its document, and the ID tokens, name its own issuer.
    expect(await new Browser().signIn("grace@sso.example")).toBe(`${CONSOLE}/orgs`);
    try {
      await setIssuer(`${idp.issuer}${TEST_ISSUER_ALIAS}`);
      const refused = new Browser();
      expect(await refused.signIn("grace@sso.example")).toBe(`/sign-in?error=${SIGN_IN_ERROR.ssoIssuerMismatch}`);
      expect((await refused.session()).status).not.toBe("active");
      // A trailing slash is the same issuer.
      await setIssuer(`${idp.issuer}/`);
      expect(await new Browser().signIn("grace@sso.example")).toBe(`${CONSOLE}/orgs`);
    } finally {
      await setIssuer(idp.issuer);
    }
  });
});

describe("the provider's ID token is verified", () => {
  const flipSignature = (token: string) => {
    const [h, p, s] = token.split(".");
    const sig = Buffer.from(s!, "base64url");
    sig[0] = sig[0]! ^ 0xff;
    return `${h}.${p}.${sig.toString("base64url")}`;
  };

  it.each([
    ["a broken signature", (t: string) => flipSignature(t)],
    ["another nonce (signed with the provider's key)", (t: string) => idp.resign(t, (c) => ({ ...c, nonce: "someone-elses-nonce" }))],
    ["another audience", (t: string) => idp.resign(t, (c) => ({ ...c, aud: "another-client" }))],
    ["another issuer", (t: string) => idp.resign(t, (c) => ({ ...c, iss: "https://evil.example" }))],
    ["an expired token", (t: string) => idp.resign(t, (c) => ({ ...c, iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 }))],
    ["no signature (alg none)", (t: string) => `${Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url")}.${t.split(".")[1]}.`],
  ])("refuses %s, and opens no session", async (_name, tamper) => {
    idp.tamperIdTokens(tamper);
    const browser = new Browser();
    const landed = await browser.signIn("grace@sso.example");
    expect(landed).toBe(`${CONSOLE}/api/auth/error?error=${SIGN_IN_ERROR.ssoCallbackFailed}`);
    expect((await browser.session()).status).toBe("none");
  });

  it("accepts the same token untouched (the tampering above is what fails)", async () => {
    idp.tamperIdTokens((t) => idp.resign(t, (c) => c));
    expect(await new Browser().signIn("grace@sso.example")).toBe(`${CONSOLE}/orgs`);
  });

  it("refuses a callback whose state is not the one this browser started with", async () => {
    const victim = new Browser();
    const attacker = new Browser();
    await victim.startSso("grace@sso.example");
    const callback = await attacker.signInAtProvider(await attacker.startSso("grace@sso.example"), "grace@sso.example");
    // The attacker's code and state, delivered to the victim's browser (login CSRF).
    const options = (await ssoAuthOptions(providerId, { host: "console.test" }))!;
    const res = await victim.nextAuth(["callback", providerId], options, { query: Object.fromEntries(callback.searchParams) });
    expect(res.redirect).toBe(`${CONSOLE}/api/auth/error?error=${SIGN_IN_ERROR.ssoCallbackFailed}`);
    expect((await victim.session()).status).toBe("none");
  });
});

describe("a provider answers for its own organization only", () => {
  it("signs a person of other organizations in to its own: the session's key acts in no other", async () => {
    // Globex's owner adds the person too (any organization may invite an existing account).
    const globex = await bed.t.outsiderOrganizationId();
    const invited = await bed.t.opJson<{ id: string }>("outsider", "inviteOrganizationPerson", { params: { org_id: globex }, body: { email: "grace@sso.example" } });
    expect(invited.status).toBe(201);

    const browser = new Browser();
    expect(await browser.signIn("grace@sso.example")).toBe(`${CONSOLE}/orgs`);
    const session = await activeSession(browser);
    expect(session.userId).toBe(invited.body.id);
    const credentials = (await sessionCredentials(bed.db, vaultKey(), session))!;

    // The same account, two organizations; the key this provider's sign-in minted sees one.
    const listed = await bed.t.opJson<{ items: Array<{ id: string }> }>("owner", "getOrganizations", { credentials });
    expect(listed.body.items.map((o) => o.id)).toEqual([orgId]);
    expect((await bed.t.op("owner", "listOrganizationPeople", { params: { org_id: orgId }, credentials })).status).toBe(200);
    expect((await bed.t.op("owner", "listOrganizationPeople", { params: { org_id: globex }, credentials })).status).toBe(403);
    expect((await bed.t.op("owner", "listSSOProviders", { params: { organization_id: globex }, credentials })).status).toBe(403);
    // The organizations the account reaches with a key of its own are unchanged.
    const own = await bed.t.gateway.store.db.select().from(memberships).where(eq(memberships.userId, session.userId));
    expect(own.map((m) => m.organizationId).sort()).toEqual([globex, orgId].sort());
  });

  it("lets such a session change the account's second factors only where the account is at home", async () => {
    const db = bed.t.gateway.store.db;
    const factorsOf = (userId: string) => db.select().from(userMfaFactors).where(eq(userMfaFactors.userId, userId));
    const globex = await bed.t.outsiderOrganizationId();
    // Grace's home is this organization (her first SSO sign-in, above), though Globex has added her since.
    const home = await activeSession(await signedIn("grace@sso.example"));
    expect(await factorsManagedElsewhere(home)).toBe(false);
    const enrolment = await startTotpEnrolment(home);
    await removeOwnFactor(home, enrolment.factorId);
    expect(await factorsOf(home.userId)).toEqual([]);

    // Globex had Hedy first: her factors are Globex's to govern, whatever this organization's SSO says.
    const hedy = await bed.t.opJson<{ id: string }>("outsider", "inviteOrganizationPerson", { params: { org_id: globex }, body: { email: "hedy@sso.example" } });
    expect(hedy.status).toBe(201);
    const elsewhere = await activeSession(await signedIn("hedy@sso.example"));
    expect(elsewhere.userId).toBe(hedy.body.id);
    expect(await factorsManagedElsewhere(elsewhere)).toBe(true);
    const refused = { name: "MfaError", message: FACTORS_MANAGED_ELSEWHERE };
    await expect(startTotpEnrolment(elsewhere)).rejects.toMatchObject(refused);
    await expect(passkeyRegistrationOptions(elsewhere, relyingPartyOf(CONSOLE))).rejects.toMatchObject(refused);
    await expect(regenerateRecoveryCodes(elsewhere)).rejects.toMatchObject(refused);
    await expect(removeOwnFactor(elsewhere, "00000000-0000-4000-8000-000000000000")).rejects.toMatchObject(refused);
    expect(await factorsOf(elsewhere.userId)).toEqual([]);

    // Even the enrolment a sign-in needs is not made here: a factor is the account's, and one planted
    // through this organization's SSO would answer for Globex as well (and leave Hedy none of her own).
    // She enrols where her account is at home, then answers here with it.
    await setMfaMethods(db, orgId, ["totp"], new Date());
    try {
      const state = await (await signedIn("hedy@sso.example")).session();
      if (state.status !== "mfa") throw new Error(`expected a session owing its second factor, got ${state.status}`);
      expect(await mfaStepState(state.session)).toMatchObject({ enrol: [], answer: [], enrolElsewhere: true });
      await expect(startTotpEnrolment(state.session)).rejects.toMatchObject(refused);
      await expect(passkeyRegistrationOptions(state.session, relyingPartyOf(CONSOLE))).rejects.toMatchObject(refused);
      expect(await factorsOf(elsewhere.userId)).toEqual([]);

      const pending = await createPendingTotp(db, elsewhere.userId, "sealed", "Authenticator app");
      expect(await acceptTotpStep(db, pending, 1_000)).toBe(true);
      expect(await mfaStepState(state.session)).toMatchObject({ enrol: [], answer: ["totp"], enrolElsewhere: false });
      expect(await recoveryCodesLeft(db, elsewhere.userId)).toBe(0);
    } finally {
      await setMfaMethods(db, orgId, [], new Date());
      await db.delete(userMfaFactors).where(eq(userMfaFactors.userId, elsewhere.userId));
    }

    // Once Globex lets her go, this organization is the only one she belongs to: it decides.
    expect((await bed.t.op("outsider", "removeOrganizationPerson", { params: { org_id: globex, user_id: elsewhere.userId } })).status).toBe(204);
    expect(await factorsManagedElsewhere(elsewhere)).toBe(false);
  });
});

/** A fresh browser signed in through the provider as this person. */
async function signedIn(email: string): Promise<Browser> {
  const browser = new Browser();
  expect(await browser.signIn(email)).toBe(`${CONSOLE}/orgs`);
  return browser;
}

describe("the provider's subject is the person it first signed in", () => {
  const identities = () => bed.t.gateway.store.db.select().from(ssoIdentities).where(eq(ssoIdentities.providerId, providerId));
  const sessionsOf = async (userId: string) => (await bed.db.select().from(sessions).where(eq(sessions.userId, userId))).length;

  it("links a person signed in before the links existed at their next sign-in, to the subject the ID token names", async () => {
    expect(await new Browser().signIn("grace@sso.example")).toBe(`${CONSOLE}/orgs`);
    const grace = (await personRow("grace@sso.example"))!;
    await bed.t.gateway.store.db.delete(ssoIdentities).where(eq(ssoIdentities.userId, grace.userId));
    expect(await new Browser().signIn("grace@sso.example")).toBe(`${CONSOLE}/orgs`);
    expect((await identities()).filter((i) => i.userId === grace.userId).map((i) => i.subject)).toEqual(["grace@sso.example"]);
  });

  it("refuses an address that passed to another subject while its first holder is a person here, and signs the new holder in once an administrator removed them", async () => {
    const provider = (await loadSsoProvider(providerId))!;
    const grace = (await personRow("grace@sso.example"))!;
    const before = await sessionsOf(grace.userId);
    const rehired = { iss: idp.issuer, sub: "another-grace", email: "grace@sso.example", email_verified: true };
    try {
      await expect(signInWithSso(provider, rehired, "203.0.113.7")).rejects.toMatchObject({ code: SIGN_IN_ERROR.ssoIdentityChanged });
      expect(await sessionsOf(grace.userId)).toBe(before);
      const removed = await bed.t.op("owner", "removeOrganizationPerson", { params: { org_id: orgId, user_id: grace.userId } });
      expect(removed.status).toBe(204);
      await expect(signInWithSso(provider, rehired, "203.0.113.7")).resolves.toMatchObject({ userId: grace.userId });
      // And now the first subject is the one refused.
      expect(await new Browser().signIn("grace@sso.example")).toBe(`/sign-in?error=${SIGN_IN_ERROR.ssoIdentityChanged}`);
    } finally {
      await bed.t.gateway.store.db.delete(ssoIdentities).where(eq(ssoIdentities.userId, grace.userId));
    }
    expect(await new Browser().signIn("grace@sso.example")).toBe(`${CONSOLE}/orgs`);
  });

  it("a removal while a sign-in holds the person forgets the link that sign-in made: no link outlives the membership", async () => {
    expect(await new Browser().signIn("grace@sso.example")).toBe(`${CONSOLE}/orgs`);
    const grace = (await personRow("grace@sso.example"))!;
    const db = bed.t.gateway.store.db;
    let locked!: () => void;
    const signInHolds = new Promise<void>((resolve) => (locked = resolve));
    // What a sign-in does in its transaction: hold the person, then link (here a subject of its own, to tell it apart).
    const signIn = db.transaction(async (txRaw) => {
      const tx = txRaw as unknown as Database;
      expect(await findPerson(tx, orgId, grace.userId, "share")).toBeDefined();
      await tx.delete(ssoIdentities).where(eq(ssoIdentities.userId, grace.userId));
      await linkSsoIdentity(tx, providerId, "linked-during-removal", grace.userId);
      locked();
      // Held while the removal runs (a PostgreSQL server serves both at once; PGlite runs them one after the other).
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    await signInHolds;
    const removal = db.transaction(async (tx) => removePerson(tx as unknown as Database, orgId, grace.userId));
    await signIn;
    expect(await removal).toBe(true);
    expect((await identities()).filter((i) => i.userId === grace.userId)).toEqual([]);
    expect(await new Browser().signIn("grace@sso.example")).toBe(`${CONSOLE}/orgs`);
  });

  it("refuses a subject whose address changed to another person's, and joins no one", async () => {
    const provider = (await loadSsoProvider(providerId))!;
    expect(await new Browser().signIn("grace@sso.example")).toBe(`${CONSOLE}/orgs`);
    // Grace's subject, now with an address no person has here.
    const moved = { iss: idp.issuer, sub: "grace@sso.example", email: "grace.hopper@sso.example", email_verified: true };
    await expect(signInWithSso(provider, moved, "203.0.113.7")).rejects.toMatchObject({ code: SIGN_IN_ERROR.ssoIdentityChanged });
    expect(await personRow("grace.hopper@sso.example")).toBeUndefined();
    // Or another person's.
    await expect(signInWithSso(provider, { ...moved, email: "ada@sso.example" }, "203.0.113.7")).rejects.toMatchObject({ code: SIGN_IN_ERROR.ssoIdentityChanged });
  });
});

describe("leaving the organization", () => {
  it("deletes the keys minted for the person's SSO sessions at once: they sign nothing more", async () => {
    const browser = new Browser();
    await browser.signIn("ada@sso.example");
    const session = await activeSession(browser);
    const credentials = (await sessionCredentials(bed.db, vaultKey(), session))!;
    expect((await bed.t.op("owner", "listLocations", { credentials })).status).toBe(200);
    const removed = await bed.t.op("owner", "removeOrganizationPerson", { params: { org_id: orgId, user_id: session.userId } });
    expect(removed.status).toBe(204);
    expect(await bed.t.gateway.store.db.select().from(apiKeys).where(eq(apiKeys.id, credentials.accessKeyId))).toEqual([]);
    expect((await bed.t.op("owner", "listLocations", { credentials })).status).toBe(401);
    // Signing in again joins the person anew (just in time, as the first time).
    const again = new Browser();
    expect(await again.signIn("ada@sso.example")).toBe(`${CONSOLE}/orgs`);
  });
});

it("the session cookie is the one the console reads, and over https it and the SSO sign-in's own cookies are __Host- cookies (no subdomain can plant one)", async () => {
  expect(sessionCookieName()).toBe("next-auth.session-token");
  expect(getAuthOptions().cookies?.sessionToken).toEqual({ name: sessionCookieName(), options: sessionCookieOptions() });
  const before = process.env.NEXTAUTH_URL;
  process.env.NEXTAUTH_URL = "https://console.example";
  resetEnvCache();
  try {
    expect(sessionCookieName()).toBe("__Host-next-auth.session-token");
    // What the prefix requires of the cookie, or the browser refuses it: Secure, Path=/ and no Domain.
    expect(sessionCookieOptions()).toEqual({ httpOnly: true, sameSite: "lax", path: "/", secure: true });
    // A sign-in started over https: its state, PKCE verifier and nonce (and the CSRF token) are set as __Host- cookies.
    const browser = new Browser();
    expect(new URL(await browser.startSso("ada@sso.example")).origin).toBe(idp.issuer);
    const names = [...browser.console.keys()];
    expect(names).toEqual(expect.arrayContaining(["__Host-next-auth.state", "__Host-next-auth.pkce.code_verifier", "__Host-next-auth.nonce", "__Host-next-auth.csrf-token"]));
    expect(names.filter((n) => !n.startsWith("__Host-"))).toEqual([]);
    for (const cookie of Object.values(getAuthOptions().cookies ?? {})) {
      expect(cookie.options).toMatchObject({ secure: true, path: "/" });
      expect(cookie.options).not.toHaveProperty("domain");
    }
  } finally {
    if (before === undefined) delete process.env.NEXTAUTH_URL;
    else process.env.NEXTAUTH_URL = before;
    resetEnvCache();
  }
});

describe("deleting the provider", () => {
  it("ends the sessions it signed in and deletes their keys", async () => {
    const browser = new Browser();
    expect(await browser.signIn("grace@sso.example")).toBe(`${CONSOLE}/orgs`);
    const session = await activeSession(browser);
    const credentials = (await sessionCredentials(bed.db, vaultKey(), session))!;
    expect((await bed.t.op("owner", "listLocations", { credentials })).status).toBe(200);

    expect((await bed.t.op("owner", "deleteSSOProvider", { params: { organization_id: orgId, provider_id: providerId } })).status).toBe(200);
    // The key is gone with the provider, before the (idle) session is ever used again.
    expect(await bed.t.gateway.store.db.select().from(apiKeys).where(eq(apiKeys.id, credentials.accessKeyId))).toEqual([]);
    expect((await bed.t.op("owner", "listLocations", { credentials })).status).toBe(401);
    expect(await browser.session()).toEqual({ status: "revoked" });
    // A sign-in through it, or its callback, is refused now.
    expect(await ssoAuthOptions(providerId, {})).toBeNull();
    expect(await new Browser().startSso("grace@sso.example")).toBe(`/sign-in?error=${SIGN_IN_ERROR.ssoNoProvider}`);
  });
});

