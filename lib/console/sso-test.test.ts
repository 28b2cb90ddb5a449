import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { eq, sql } from "drizzle-orm";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { signInAtTestProvider, TEST_SSO_DOMAIN, type TestOidcProvider } from "@/e2e/oidc-provider";
import type { SsoTestReport, SsoTestStartResponse, SsoTestStepStatus } from "@/lib/contract/sso-test";
import { createSsoTestbed, type ConsoleTestbed, type SsoTestbed } from "@/lib/console/testing";
import { apiKeys, memberships, ssoIdentities, ssoProviders, users } from "@/lib/gateway/store/schema";
import type { Who } from "@/lib/gateway/testing";
import { vaultKey, vaultLimits } from "./config";
import type { SessionState } from "./session";
import { handleSsoTestCallback, handleSsoTestStart, ssoTestCookieName, type SsoTestDeps } from "./sso-test";
import { sessions } from "./store/schema";
import { createVaultSession, lookupVaultSession } from "./vault";

/**
 * The SSO page's "Test sign-in" on the server side, against a real OpenID provider (oidc-provider)
 * on loopback: the start's permission and input checks, each step's report (passing, and failing
 * for a wrong client secret, a tampered ID token, an unverified e-mail, a domain outside the
 * provider's), and that nothing is signed in: no person, no vault session, no key, no session cookie.
 */

const CONSOLE = "http://console.test";
let bed: ConsoleTestbed;
let idp: TestOidcProvider;
let providerId: string;
let orgId: string;
const sessionOf: Partial<Record<Who, SessionState>> = {};

async function signedIn(who: Who): Promise<SessionState> {
  const user = bed.t.demo[who];
  const sessionId = await createVaultSession(
    bed.db,
    vaultKey(),
    { userId: user.user_id, email: user.email, accessKeyId: user.access_key_id, secretKey: user.secret_key },
    vaultLimits(),
  );
  // The session as the vault answers it (what sessionStateFromCookies gives a route handler).
  const found = await lookupVaultSession(bed.db, sessionId, vaultLimits());
  if (found.status !== "active") throw new Error(`no active session: ${found.status}`);
  return { status: "active", session: found.session };
}

const as = (who: Who | "nobody"): SsoTestDeps => ({ session: async () => (who === "nobody" ? { status: "none" } : sessionOf[who]!) });

let testbed: SsoTestbed | undefined;
beforeAll(async () => {
  testbed = await createSsoTestbed(CONSOLE);
  ({ bed, idp, providerId } = testbed);
  orgId = bed.t.demo.organization_id;
  for (const who of ["owner", "member"] as const) sessionOf[who] = await signedIn(who);
});
afterAll(() => testbed?.close());
beforeEach(() => idp.tamperIdTokens(null));

// ------------------------------------------------------------------ the admin's browser

function startRequest(body: unknown, headers: Record<string, string> = {}): NextRequest {
  return new NextRequest(`${CONSOLE}/api/sso-test`, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "content-type": "application/json", origin: CONSOLE, "sec-fetch-site": "same-origin", host: "console.test", ...headers },
  });
}

/** POST /api/sso-test as `who`: the status, the answer, and the test cookie it set. */
async function start(who: Who | "nobody", body: unknown = { organization_id: orgId, provider_id: providerId }) {
  const res = await handleSsoTestStart(startRequest(body), as(who));
  const setCookie = res.headers.getSetCookie();
  const cookie = setCookie.map((line) => line.split(";")[0]!).find((pair) => pair.startsWith(`${ssoTestCookieName()}=`));
  return { status: res.status, body: (await res.json()) as SsoTestStartResponse & { message?: string }, setCookie, cookie };
}

const signInAtProvider = (authorizationUrl: string, login: string) => signInAtTestProvider(authorizationUrl, login, CONSOLE);

/** The provider's redirect back, with this browser's cookies: the test's page (null: not the test's, next-auth's). */
async function callback(url: URL, cookie: string | undefined, who: Who = "owner") {
  const request = new NextRequest(url, { headers: { host: "console.test", ...(cookie ? { cookie } : {}) } });
  const res = await handleSsoTestCallback(request, url.pathname.split("/").pop()!, as(who));
  if (!res) return null;
  const html = await res.text();
  const json = /<script type="application\/json" id="sso-test-report">([^]*?)<\/script>/.exec(html)?.[1];
  return { res, html, report: json ? (JSON.parse(json) as SsoTestReport) : null };
}

/** A whole test: start as the owner, sign in at the provider as `login`, come back. */
async function runTest(login: string) {
  const started = await start("owner");
  expect(started.status).toBe(200);
  if (!("authorization_url" in started.body)) throw new Error(`no authorization URL: ${JSON.stringify(started.body)}`);
  const back = await signInAtProvider(started.body.authorization_url, login);
  const answer = await callback(back, started.cookie);
  const report = answer?.report;
  if (!answer || !report) throw new Error("the callback was not the test's");
  expect(report.test_id).toBe(started.body.test_id);
  return { res: answer.res, html: answer.html, report, back, started };
}

const statuses = (report: SsoTestReport) => Object.fromEntries(report.steps.map((s) => [s.id, s.status])) as Record<string, SsoTestStepStatus>;
const detailOf = (report: SsoTestReport, id: string) => report.steps.find((s) => s.id === id)!.detail;

async function counts() {
  const [people, keys, vault] = await Promise.all([
    bed.t.gateway.store.db.select({ id: memberships.userId }).from(memberships),
    bed.t.gateway.store.db.select({ id: apiKeys.id }).from(apiKeys),
    bed.db.select({ id: sessions.id }).from(sessions),
  ]);
  const accounts = await bed.t.gateway.store.db.select({ id: users.id }).from(users);
  return { people: people.length, keys: keys.length, vault: vault.length, accounts: accounts.length };
}

// ------------------------------------------------------------------ the tests

describe("starting a test", () => {
  it("sends the popup to the provider with PKCE, state and nonce, to the registered redirect URI, with an encrypted short-lived cookie", async () => {
    const started = await start("owner");
    expect(started.status).toBe(200);
    if (!("authorization_url" in started.body)) throw new Error("no authorization URL");
    const url = new URL(started.body.authorization_url);
    expect(url.origin).toBe(idp.issuer);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: idp.clientId,
      response_type: "code",
      scope: "openid email profile",
      redirect_uri: `${CONSOLE}/api/auth/callback/${providerId}`,
      code_challenge_method: "S256",
    });
    for (const p of ["code_challenge", "state", "nonce"]) expect(url.searchParams.get(p), p).toBeTruthy();
    const [line] = started.setCookie;
    expect(line).toMatch(/; Path=\/api\/auth\/callback; Max-Age=600; HttpOnly; SameSite=Lax$/);
    // Encrypted: neither the state nor the nonce can be read from it.
    expect(started.cookie).not.toContain(url.searchParams.get("state"));
    expect(Buffer.from(started.cookie!.split("=")[1]!.split(".")[1]!, "base64url").toString("latin1")).not.toContain(url.searchParams.get("nonce"));
  });

  it.each([
    ["no console session", "nobody", 401],
    ["a person without sso.manage", "member", 403],
  ] as const)("refuses %s", async (_name, who, status) => {
    const started = await start(who);
    expect(started.status).toBe(status);
    expect(started.setCookie).toEqual([]);
  });

  it.each([
    ["not JSON", "{", /must be JSON/],
    ["a body too large", JSON.stringify({ organization_id: "x".repeat(5000) }), /larger than 4096/],
    ["no provider id", { organization_id: "x" }, /provider_id/],
    ["a provider id that is none", { organization_id: "x", provider_id: "../../etc" }, /provider_id: must be an SSO provider id/],
    ["an organization id that is none", { organization_id: "a/b", provider_id: "00000000-0000-4000-8000-000000000000" }, /organization_id/],
  ])("answers 400 for %s", async (_name, body, message) => {
    const started = await start("owner", body);
    expect(started.status).toBe(400);
    expect(started.body.message).toMatch(message);
  });

  it("answers 404 for a provider of another organization, or none", async () => {
    const globex = await bed.t.outsiderOrganizationId();
    const theirs = await bed.t.opJson<{ id: string }>("outsider", "createSSOProvider", {
      params: { organization_id: globex },
      body: { issuer_uri: idp.issuer, client_id: "c", client_secret: "s", email_domains: ["globex-sso.example"] },
    });
    expect(theirs.status).toBe(200);
    expect((await start("owner", { organization_id: orgId, provider_id: theirs.body.id })).status).toBe(404);
    expect((await start("owner", { organization_id: orgId, provider_id: "00000000-0000-4000-8000-000000000000" })).status).toBe(404);
  });

  it("refuses a cross-site request", async () => {
    const res = await handleSsoTestStart(startRequest({ organization_id: orgId, provider_id: providerId }, { origin: "https://evil.example", "sec-fetch-site": "cross-site" }), as("owner"));
    expect(res.status).toBe(403);
  });

  it("reports a discovery that fails at once, without a popup", async () => {
    const down = await bed.t.opJson<{ id: string }>("owner", "createSSOProvider", {
      params: { organization_id: orgId },
      body: { issuer_uri: "http://127.0.0.1:9/idp", client_id: "c", client_secret: "s", email_domains: ["down.example"] },
    });
    expect(down.status).toBe(200);
    const started = await start("owner", { organization_id: orgId, provider_id: down.body.id });
    expect(started.status).toBe(200);
    expect(started.setCookie).toEqual([]);
    if (!("report" in started.body)) throw new Error("no report");
    expect(started.body.report.ok).toBe(false);
    expect(statuses(started.body.report)).toEqual({ discovery: "failed", redirect: "not_run", token: "not_run", id_token: "not_run", email_domain: "not_run" });
    expect(detailOf(started.body.report, "discovery")).toContain("http://127.0.0.1:9/idp/.well-known/openid-configuration could not be read");
  });
  it("fails discovery for a document naming an endpoint the console may not reach, without connecting to it", async () => {
    // A provider of the admin's own: its document sends the token endpoint into the operator's network.
    let reached = 0;
    const inside = createServer((_req, res) => (reached++, res.end())).listen(0, "127.0.0.2");
    await once(inside, "listening");
    const tokenEndpoint = `http://127.0.0.2:${(inside.address() as AddressInfo).port}/token`;
    const idpOf = createServer((req, res) => {
      const base = `http://127.0.0.1:${(idpOf.address() as AddressInfo).port}/inside`;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ issuer: base, authorization_endpoint: `${base}/auth`, token_endpoint: tokenEndpoint, jwks_uri: `${base}/jwks` }));
    }).listen(0, "127.0.0.1");
    await once(idpOf, "listening");
    try {
      const created = await bed.t.opJson<{ id: string }>("owner", "createSSOProvider", {
        params: { organization_id: orgId },
        body: { issuer_uri: `http://127.0.0.1:${(idpOf.address() as AddressInfo).port}/inside`, client_id: "c", client_secret: "s", email_domains: ["inside.example"] },
      });
      expect(created.status).toBe(200);
      const started = await start("owner", { organization_id: orgId, provider_id: created.body.id });
      if (!("report" in started.body)) throw new Error("no report");
      expect(statuses(started.body.report)).toEqual({ discovery: "failed", redirect: "not_run", token: "not_run", id_token: "not_run", email_domain: "not_run" });
      expect(detailOf(started.body.report, "discovery")).toContain(`names the token_endpoint ${tokenEndpoint}: http://127.0.0.2:`);
      expect(detailOf(started.body.report, "discovery")).toContain("is not https");
      expect(reached).toBe(0);
    } finally {
      inside.close();
      idpOf.close();
    }
  });
});

describe("while the console's store fails", () => {
  /** Every line this test file logged (vitest.setup.ts records them). */
  const logged = () => (globalThis as { [key: symbol]: { text: string[] } | undefined })[Symbol.for("stratus.test.logRecord")]?.text ?? [];

  /** A session lookup whose statement (the session id among its parameters) the store refuses with `code`: 57P01 as in a failover, XX000 broken. */
  async function failingLookup(code: "57P01" | "XX000"): Promise<SsoTestDeps> {
    const db = bed.t.gateway.store.db;
    await db.execute(sql.raw(`create or replace function zz_lookup_fails(text) returns int language plpgsql as $$ begin raise exception 'the disk broke' using errcode = '${code}'; end $$`));
    return {
      session: async () => {
        await db.execute(sql`select zz_lookup_fails(${"private-session-id-0123"})`);
        throw new Error("the lookup should have failed");
      },
    };
  }

  it("starting a test answers 503 with Retry-After while it is away, and a 500 logged without the statement's parameters otherwise", async () => {
    const away = await handleSsoTestStart(startRequest({ organization_id: orgId, provider_id: providerId }), await failingLookup("57P01"));
    expect(away.status).toBe(503);
    expect(away.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(away.headers.getSetCookie()).toEqual([]);
    expect(await away.json()).toMatchObject({ code: "503", message: expect.stringMatching(/try again/) });

    const before = logged().length;
    const broke = await handleSsoTestStart(startRequest({ organization_id: orgId, provider_id: providerId }), await failingLookup("XX000"));
    expect(broke.status).toBe(500);
    expect(broke.headers.get("retry-after")).toBeNull();
    const body = (await broke.json()) as { code: string; error_id: string };
    expect(body.code).toBe("500");
    const lines = logged().slice(before).filter((line) => line.includes(body.error_id));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("the disk broke");
    expect(lines[0]).not.toMatch(/private-session-id|params:/);
  });

  it("starting a test when the platform cannot read the person's permissions says so, not that the permission is missing", async () => {
    const db = bed.t.gateway.store.db;
    // The gateway's read of the caller's permissions fails (a 500 of its own): its table is away.
    await db.execute(sql.raw("alter table role_bindings rename to role_bindings_away"));
    try {
      const res = await start("owner");
      expect(res.status).toBe(502);
      expect(res.body.message).toMatch(/could not check your permissions; try again/);
      expect(res.setCookie).toEqual([]);
    } finally {
      await db.execute(sql.raw("alter table role_bindings_away rename to role_bindings"));
    }
    expect((await start("owner")).status).toBe(200);
  });

  it("the provider's redirect back answers the popup 503 with Retry-After while it is away, and ends the test", async () => {
    const started = await start("owner");
    if (!("authorization_url" in started.body)) throw new Error("no authorization URL");
    const state = new URL(started.body.authorization_url).searchParams.get("state")!;
    const url = new URL(`${CONSOLE}/api/auth/callback/${providerId}?code=c&state=${encodeURIComponent(state)}`);
    const request = new NextRequest(url, { headers: { host: "console.test", cookie: started.cookie! } });
    const res = await handleSsoTestCallback(request, providerId, await failingLookup("57P01"));
    expect(res?.status).toBe(503);
    expect(res?.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(res?.headers.getSetCookie().join()).toMatch(/Max-Age=0/);
    expect(await res?.text()).toContain("The console is unavailable for a moment");
  });
});

describe("the report on the provider's subject", () => {
  it("says a first sign-in would link the subject, and fails the e-mail step when the subject is another account's, linking nothing", async () => {
    const first = await runTest("ada@sso.example");
    expect(statuses(first.report).email_domain).toBe("passed");
    expect(detailOf(first.report, "email_domain")).toContain("its first sign-in will link its subject to this account");
    const db = bed.t.gateway.store.db;
    // The provider's subject for ada already signed in someone else (the address it had then is another person's).
    await db.insert(ssoIdentities).values({ providerId, subject: "ada@sso.example", userId: bed.t.demo.member.user_id });
    try {
      const changed = await runTest("ada@sso.example");
      expect(statuses(changed.report).email_domain).toBe("failed");
      expect(changed.report.ok).toBe(false);
      expect(detailOf(changed.report, "email_domain")).toContain("signed this address in before as another subject");
    } finally {
      await db.delete(ssoIdentities).where(eq(ssoIdentities.providerId, providerId));
    }
  });
});

describe("the report", () => {
  it("passes every step for a verified address at the provider's domain, shows the claims, and signs nobody in", async () => {
    const before = await counts();
    const { report, res, html, back } = await runTest("ada@sso.example");
    expect(statuses(report)).toEqual({ discovery: "passed", redirect: "passed", token: "passed", id_token: "passed", email_domain: "passed" });
    expect(report.ok).toBe(true);
    expect(report.claims).toEqual({ sub: "ada@sso.example", email: "ada@sso.example", email_verified: true, name: "Ada Lovelace" });
    expect(detailOf(report, "id_token")).toContain("Signature verified against the issuer's JWKS; iss, aud, exp and nonce as expected");

    // Nothing signed in or created; the only cookie is the test cookie's removal.
    expect(await counts()).toEqual(before);
    expect(res.headers.getSetCookie()).toEqual([`${ssoTestCookieName()}=; Path=/api/auth/callback; Max-Age=0; HttpOnly; SameSite=Lax`]);
    // The code never comes back in the page (the ID token's claims do, the tokens do not).
    expect(html).not.toContain(back.searchParams.get("code")!);
    expect(html).not.toMatch(/eyJ[\w-]+\.eyJ/);
  });

  it("fails the token step with the provider's error when the client secret is wrong", async () => {
    const patch = (secret: string) => bed.t.op("owner", "updateSSOProvider", { params: { organization_id: orgId, provider_id: providerId }, body: { client_secret: secret } });
    expect((await patch("not-the-right-secret")).status).toBe(200);
    try {
      const { report } = await runTest("ada@sso.example");
      expect(statuses(report)).toEqual({ discovery: "passed", redirect: "passed", token: "failed", id_token: "not_run", email_domain: "not_run" });
      expect(detailOf(report, "token")).toMatch(/^The token endpoint refused the code: invalid_client/);
      expect(report.claims).toBeUndefined();
    } finally {
      expect((await patch(idp.clientSecret)).status).toBe(200);
    }
  });

  it.each([
    ["another nonce", () => idp.tamperIdTokens((t) => idp.resign(t, (c) => ({ ...c, nonce: "someone-elses" }))), /nonce mismatch/],
    ["another audience", () => idp.tamperIdTokens((t) => idp.resign(t, (c) => ({ ...c, aud: "another-client" }))), /aud mismatch/],
    ["a broken signature", () => idp.tamperIdTokens((t) => `${t.slice(0, t.lastIndexOf(".") + 1)}${"A".repeat(342)}`), /failed to validate JWT signature/],
  ])("fails the ID token step for %s", async (_name, tamper, message) => {
    tamper();
    const { report } = await runTest("ada@sso.example");
    expect(statuses(report)).toMatchObject({ token: "passed", id_token: "failed", email_domain: "not_run" });
    expect(detailOf(report, "id_token")).toMatch(message);
  });

  it("fails the last step for an address outside the provider's domains", async () => {
    const before = await counts();
    const { report } = await runTest("eve@elsewhere.example");
    expect(statuses(report)).toEqual({ discovery: "passed", redirect: "passed", token: "passed", id_token: "passed", email_domain: "failed" });
    expect(detailOf(report, "email_domain")).toBe(`elsewhere.example is not one of the provider's e-mail domains (${TEST_SSO_DOMAIN})`);
    expect(report.claims).toMatchObject({ email: "eve@elsewhere.example", email_verified: true });
    expect(await counts()).toEqual(before);
  });

  it("fails the last step for an address at a public e-mail service's domain, even one the provider claimed before the gateway refused such claims", async () => {
    const provider = eq(ssoProviders.id, providerId);
    await bed.t.gateway.store.db.update(ssoProviders).set({ emailDomains: [TEST_SSO_DOMAIN, "gmail.com"] }).where(provider);
    try {
      const before = await counts();
      const { report } = await runTest("mallory@gmail.com");
      expect(statuses(report)).toEqual({ discovery: "passed", redirect: "passed", token: "passed", id_token: "passed", email_domain: "failed" });
      expect(detailOf(report, "email_domain")).toBe("gmail.com is a public e-mail service's domain, where anyone may have an address, so it signs nobody in");
      expect(await counts()).toEqual(before);
    } finally {
      await bed.t.gateway.store.db.update(ssoProviders).set({ emailDomains: [TEST_SSO_DOMAIN] }).where(provider);
    }
  });

  it("fails the last step for an address the provider has not verified", async () => {
    const { report } = await runTest("unverified@sso.example");
    expect(statuses(report)).toMatchObject({ id_token: "passed", email_domain: "failed" });
    expect(detailOf(report, "email_domain")).toBe("The provider does not vouch for unverified@sso.example: email_verified is false");
    expect(report.claims?.email_verified).toBe(false);
  });

  it("fails the redirect step when the provider answers an error", async () => {
    const started = await start("owner");
    if (!("authorization_url" in started.body)) throw new Error("no authorization URL");
    const state = new URL(started.body.authorization_url).searchParams.get("state")!;
    const back = new URL(`${CONSOLE}/api/auth/callback/${providerId}?error=access_denied&error_description=the+person+said+no&state=${state}`);
    const answer = await callback(back, started.cookie);
    expect(statuses(answer!.report!)).toMatchObject({ discovery: "passed", redirect: "failed", token: "not_run" });
    expect(detailOf(answer!.report!, "redirect")).toBe("The provider answered access_denied: the person said no");
  });
});

describe("the callback", () => {
  it("is next-auth's without this browser's test cookie, with another state, or with a tampered cookie", async () => {
    const started = await start("owner");
    if (!("authorization_url" in started.body)) throw new Error("no authorization URL");
    const state = new URL(started.body.authorization_url).searchParams.get("state")!;
    const url = (s: string) => new URL(`${CONSOLE}/api/auth/callback/${providerId}?code=x&state=${s}`);
    expect(await callback(url(state), undefined)).toBeNull();
    expect(await callback(url("another-state"), started.cookie)).toBeNull();
    expect(await callback(url(state), `${started.cookie!.slice(0, -4)}AAAA`)).toBeNull();
    expect(await callback(new URL(`${CONSOLE}/api/auth/callback/00000000-0000-4000-8000-000000000000?code=x&state=${state}`), started.cookie)).toBeNull();
  });

  it("reports nothing to another console session than the one that started it", async () => {
    const started = await start("owner");
    if (!("authorization_url" in started.body)) throw new Error("no authorization URL");
    const back = await signInAtProvider(started.body.authorization_url, "ada@sso.example");
    const answer = await callback(back, started.cookie, "member");
    expect(answer?.report).toBeNull();
    expect(answer?.html).toContain("Your console session ended before the test finished");
  });
});
