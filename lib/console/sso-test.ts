import "server-only";
import { randomUUID } from "node:crypto";
import { decode, encode } from "next-auth/jwt";
import type { NextRequest } from "next/server";
import { custom, errors, generators, Issuer, type BaseClient, type TokenSet } from "openid-client";
import { operationPath } from "@/lib/contract/operations";
import type { CallerPermissions } from "@/lib/contract/people";
import { SIGN_IN_ERROR } from "@/lib/contract/sign-in-messages";
import { ssoRedirectUri } from "@/lib/contract/sso";
import {
  SSO_TEST_CHANNEL,
  SSO_TEST_CLAIM_NAMES,
  SSO_TEST_STEPS,
  type SsoTestClaims,
  type SsoTestReport,
  type SsoTestStartRequest,
  type SsoTestStartResponse,
  type SsoTestStep,
  type SsoTestStepId,
} from "@/lib/contract/sso-test";
import { z } from "zod";
import { env } from "@/lib/env";
import { logAuth } from "./auth-options";
import { consoleStoreFailure, isCrossSiteMutation } from "./bff";
import { sessionCookieSecure } from "./cookies";
import { cloudFetch } from "./gateway-client";
import { describeOidcFailure, installOidcNetworkPolicy, oidcNetworkPolicy, oidcUrlRefusal } from "./oidc-http";
import { consoleOrigin } from "./origin";
import { clientAddress } from "./rate-limit";
import { authSecret } from "./secret";
import { sessionStateFromCookies, type ConsoleSession, type SessionState } from "./session";
import { SignInError } from "./sign-in";
import { emailClaimsComplete, loadSsoProvider, sameIssuer, ssoEmailOf, ssoIdentityOf, wellKnownOf, type SsoClaims, type SsoProviderConfig } from "./sso";
import { SSO_SCOPES } from "./sso-auth";
import { isPublicEmailDomain } from "@/lib/gateway/public-email-domains";

/** POST /api/sso-test's body (its type is the contract's SsoTestStartRequest). */
const ssoTestStartRequestSchema: z.ZodType<SsoTestStartRequest> = z.object({
  organization_id: z
    .string({ message: "must be a string" })
    .min(1, "must not be empty")
    .max(128, "must be at most 128 characters")
    .regex(/^[\w.-]+$/, "must be an organization id"),
  provider_id: z
    .string({ message: "must be a string" })
    .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, "must be an SSO provider id"),
});

/**
 * "Test sign-in" of an SSO provider, for an admin holding sso.manage: the OpenID Connect
 * Authorization Code flow (PKCE, state, nonce) run by openid-client, as next-auth runs it for a
 * sign-in, but each step checked on its own and reported, and nobody signed in: no vault session,
 * no minted key, no person, no session cookie.
 *
 * The test comes back through the provider's one registered redirect URI, next-auth's
 * /api/auth/callback/<provider id>: admins register a single URI, and a second one only for tests
 * would be a set-up step people get wrong. The route handler there asks handleSsoTestCallback
 * first, which takes the callback only when this browser holds a test cookie whose state is the
 * callback's (else next-auth runs as always, and a test cookie can never answer a sign-in).
 *
 * The state, nonce and PKCE verifier travel in that cookie: encrypted (next-auth's JWE, under the
 * auth secret with a salt of its own, so it is no session token), httpOnly, SameSite=Lax, scoped to
 * the callback path, 10 minutes. The report exists only in the popup's answer, which hands it to
 * the SSO page over a same-origin BroadcastChannel. Codes, tokens and the client secret stay on
 * the server and out of the log; the report carries the ID token's claims, not the token.
 */

// The test's requests go only where an OpenID provider may be, as a sign-in's (oidc-http.ts).
installOidcNetworkPolicy();

const TEST_LIFETIME_SECONDS = 600;
const COOKIE_SALT = "stratus.sso-test";
const COOKIE_PATH = "/api/auth/callback";
const DETAIL_MAX = 400;
const MAX_START_BODY = 4096;

/** The test cookie's name (__Secure- when the console is served over https). */
export function ssoTestCookieName(): string {
  return `${sessionCookieSecure() ? "__Secure-" : ""}stratus.sso-test`;
}

/** What the test cookie carries. */
interface PendingTest {
  testId: string;
  providerId: string;
  organizationId: string;
  /** The admin who started it: the callback answers only their console session. */
  userId: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

// ------------------------------------------------------------------ the steps

class Steps {
  private readonly steps = new Map<SsoTestStepId, SsoTestStep>(
    SSO_TEST_STEPS.map((s) => [s.id, { id: s.id, name: s.name, status: "not_run", detail: "Not run: an earlier step failed" }]),
  );

  pass(id: SsoTestStepId, detail: string): void {
    this.set(id, "passed", detail);
  }

  fail(id: SsoTestStepId, detail: string): void {
    this.set(id, "failed", detail);
  }

  private set(id: SsoTestStepId, status: SsoTestStep["status"], detail: string) {
    const step = this.steps.get(id)!;
    step.status = status;
    step.detail = detail.replace(/\s+/g, " ").trim().slice(0, DETAIL_MAX);
  }

  report(testId: string, providerId: string, claims?: SsoTestClaims): SsoTestReport {
    const steps = [...this.steps.values()];
    return { test_id: testId, provider_id: providerId, ok: steps.every((s) => s.status === "passed"), steps, ...(claims ? { claims } : {}) };
  }
}

/** An error's message alone (openid-client's errors also carry the token or the response: never shown, never logged). */
function reason(error: unknown): string {
  if (error instanceof errors.OPError) return error.error_description ? `${error.error}: ${error.error_description}` : (error.error ?? error.message);
  return describeOidcFailure(error);
}

/** Discovery: the issuer's document fetched, naming the same issuer, with the endpoints the flow needs. */
async function discover(provider: SsoProviderConfig, steps: Steps): Promise<Issuer<BaseClient> | null> {
  const wellKnown = wellKnownOf(provider);
  let issuer: Issuer<BaseClient>;
  try {
    issuer = await Issuer.discover(wellKnown);
  } catch (error) {
    steps.fail("discovery", `${wellKnown} could not be read: ${reason(error)}`);
    return null;
  }
  const metadata = issuer.metadata;
  if (!sameIssuer(provider, metadata.issuer)) {
    steps.fail("discovery", `${wellKnown} names the issuer ${String(metadata.issuer)}, not ${provider.issuer} (they must be the same)`);
    return null;
  }
  const missing = (["authorization_endpoint", "token_endpoint", "jwks_uri"] as const).filter((field) => typeof metadata[field] !== "string");
  if (missing.length > 0) {
    steps.fail("discovery", `${wellKnown} has no ${missing.join(", ")}`);
    return null;
  }
  // Said now, not at the step that would first use the endpoint.
  const policy = oidcNetworkPolicy();
  for (const field of ["authorization_endpoint", "token_endpoint", "jwks_uri", "userinfo_endpoint"] as const) {
    const refusal = typeof metadata[field] === "string" ? oidcUrlRefusal(metadata[field], policy) : null;
    if (refusal) {
      steps.fail("discovery", `${wellKnown} names the ${field} ${String(metadata[field])}: ${refusal}`);
      return null;
    }
  }
  const responseTypes = metadata.response_types_supported;
  if (Array.isArray(responseTypes) && !responseTypes.includes("code")) {
    steps.fail("discovery", `${wellKnown} does not support the Authorization Code flow (response type "code")`);
    return null;
  }
  steps.pass("discovery", `${wellKnown} names the issuer ${metadata.issuer}, its authorization, token and JWKS endpoints`);
  return issuer;
}

function clientFor(issuer: Issuer<BaseClient>, provider: SsoProviderConfig, redirectUri: string): BaseClient {
  const client = new issuer.Client({ client_id: provider.clientId, client_secret: provider.clientSecret, redirect_uris: [redirectUri], response_types: ["code"] });
  // As next-auth's client: 10 s of clock skew.
  client[custom.clock_tolerance] = 10;
  return client;
}

/** openid-client's own ID token check (signature against the JWKS, alg, iss, aud, exp, iat, nonce), which callback() runs after grant(). */
interface IdTokenValidator {
  validateIdToken(tokenSet: TokenSet, nonce: string, returnedBy: "token"): Promise<TokenSet>;
}

function shownClaims(claims: SsoClaims): SsoTestClaims {
  const shown: Record<string, unknown> = {};
  for (const name of SSO_TEST_CLAIM_NAMES) {
    const value = claims[name];
    if (typeof value === "string") shown[name] = value.slice(0, 320);
    else if (typeof value === "boolean") shown[name] = value;
  }
  return shown as SsoTestClaims;
}

function emailRefusal(code: string, claims: SsoClaims, provider: SsoProviderConfig): string {
  const email = typeof claims.email === "string" ? claims.email : "";
  switch (code) {
    case SIGN_IN_ERROR.ssoEmailMissing:
      return "The provider sent no e-mail claim (is the scope email allowed? In Entra ID, a user without a mailbox has no email claim)";
    case SIGN_IN_ERROR.ssoEmailUnverified:
      return claims.email_verified === undefined
        ? `The provider does not vouch for ${email}: it sent neither email_verified nor Entra ID's xms_edov (${JSON.stringify(claims.xms_edov ?? null)})`
        : `The provider does not vouch for ${email}: email_verified is ${JSON.stringify(claims.email_verified)}`;
    case SIGN_IN_ERROR.ssoAccountUnmanaged:
      return `${email} is a personal Google account: its ID token names no hosted domain (hd), which a Google Workspace account has`;
    case SIGN_IN_ERROR.ssoWrongDomain:
      return `${email.split("@").pop()} is not one of the provider's e-mail domains (${provider.emailDomains.join(", ")})`;
    case SIGN_IN_ERROR.ssoNoProvider: {
      const domain = email.split("@").pop() ?? "";
      return isPublicEmailDomain(domain)
        ? `${domain} is a public e-mail service's domain, where anyone may have an address, so it signs nobody in`
        : `No SSO provider serves ${domain} any more`;
    }
    case SIGN_IN_ERROR.ssoDomainAmbiguous:
      return `${email.split("@").pop()} is also claimed by another organization's SSO provider, so it signs nobody in`;
    default:
      return "The e-mail could not be checked";
  }
}

// ------------------------------------------------------------------ start and finish

export type SsoTestStart = { testId: string; report: SsoTestReport } | { testId: string; authorizationUrl: string; cookie: string };

/**
 * Discovery, then the authorization request with fresh state, nonce and PKCE verifier: the URL to
 * open in the popup and the encrypted cookie holding them. A report at once when discovery fails.
 */
export async function startSsoTest(provider: SsoProviderConfig, input: { consoleOrigin: string; userId: string }): Promise<SsoTestStart> {
  const testId = randomUUID();
  const steps = new Steps();
  const issuer = await discover(provider, steps);
  if (!issuer) return { testId, report: steps.report(testId, provider.id) };
  const redirectUri = ssoRedirectUri(input.consoleOrigin, provider.id);
  const client = clientFor(issuer, provider, redirectUri);
  const pending: PendingTest = {
    testId,
    providerId: provider.id,
    organizationId: provider.organizationId,
    userId: input.userId,
    state: generators.state(),
    nonce: generators.nonce(),
    codeVerifier: generators.codeVerifier(),
  };
  const authorizationUrl = client.authorizationUrl({
    scope: SSO_SCOPES,
    redirect_uri: redirectUri,
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: generators.codeChallenge(pending.codeVerifier),
    code_challenge_method: "S256",
  });
  const cookie = await encode({ token: { ...pending }, secret: authSecret(), maxAge: TEST_LIFETIME_SECONDS, salt: COOKIE_SALT });
  return { testId, authorizationUrl, cookie };
}

/** The test a cookie names, or null (missing, tampered with, expired, or not a test cookie). */
async function pendingTest(cookie: string | undefined): Promise<PendingTest | null> {
  if (!cookie) return null;
  let payload: Record<string, unknown> | null;
  try {
    payload = await decode({ token: cookie, secret: authSecret(), salt: COOKIE_SALT });
  } catch {
    return null;
  }
  const fields = ["testId", "providerId", "organizationId", "userId", "state", "nonce", "codeVerifier"] as const;
  if (!payload || !fields.every((f) => typeof payload[f] === "string" && payload[f])) return null;
  return Object.fromEntries(fields.map((f) => [f, payload[f]])) as unknown as PendingTest;
}

/**
 * The provider's redirect back, checked step by step: discovery again (the client needs the
 * endpoints), the redirect's parameters (state, iss, error, code), the code exchanged at the token
 * endpoint with the PKCE verifier and the client secret, the ID token verified (signature against
 * the JWKS, iss, aud, exp, nonce; the e-mail claims completed from userinfo as sign-in does), and
 * the e-mail checked as sign-in checks it. Nothing is created.
 */
export async function finishSsoTest(provider: SsoProviderConfig | null, pending: PendingTest, callbackUrl: URL, origin: string): Promise<SsoTestReport> {
  const steps = new Steps();
  const report = (claims?: SsoTestClaims) => steps.report(pending.testId, pending.providerId, claims);
  if (!provider) {
    steps.fail("discovery", "The provider was deleted, or its client secret removed, during the test");
    return report();
  }
  const issuer = await discover(provider, steps);
  if (!issuer) return report();
  const redirectUri = ssoRedirectUri(origin, provider.id);
  const client = clientFor(issuer, provider, redirectUri);

  const params = callbackUrl.searchParams;
  const iss = params.get("iss");
  const error = params.get("error");
  const code = params.get("code");
  const refused =
    params.get("state") !== pending.state
      ? "The provider came back with another state than this test's"
      : iss !== null && iss !== issuer.metadata.issuer
        ? `The redirect's iss parameter names ${iss}, not the issuer ${issuer.metadata.issuer}`
        : error
          ? `The provider answered ${error}${params.get("error_description") ? `: ${params.get("error_description")}` : ""}`
          : !code
            ? "The provider came back without a code"
            : null;
  if (refused || !code) {
    steps.fail("redirect", refused ?? "The provider came back without a code");
    return report();
  }
  steps.pass("redirect", `The provider redirected to ${redirectUri} with a code and this test's state`);

  let tokens: TokenSet;
  try {
    tokens = await client.grant({ grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: pending.codeVerifier });
  } catch (failure) {
    steps.fail("token", `The token endpoint refused the code: ${reason(failure)}`);
    return report();
  }
  if (!tokens.id_token) {
    steps.fail("token", "The token endpoint answered without an ID token (is the scope openid allowed?)");
    return report();
  }
  steps.pass("token", `The code was exchanged at ${issuer.metadata.token_endpoint} with the PKCE verifier and the client secret`);

  let claims: SsoClaims;
  try {
    await (client as unknown as IdTokenValidator).validateIdToken(tokens, pending.nonce, "token");
    claims = tokens.claims();
  } catch (failure) {
    steps.fail("id_token", `The ID token was refused: ${reason(failure)}`);
    return report();
  }
  let fromUserinfo = false;
  if (!emailClaimsComplete(claims)) {
    // As sign-in does (lib/console/sso-auth.ts): the verified ID token's claims win over userinfo's.
    try {
      claims = { ...(await client.userinfo(tokens)), ...claims };
      fromUserinfo = true;
    } catch (failure) {
      steps.fail("id_token", `The ID token is valid but has no e-mail claims, and userinfo failed: ${reason(failure)}`);
      return report(shownClaims(claims));
    }
  }
  steps.pass(
    "id_token",
    `Signature verified against the issuer's JWKS; iss, aud, exp and nonce as expected${fromUserinfo ? "; e-mail claims from userinfo" : ""}`,
  );

  try {
    const email = await ssoEmailOf(provider, claims);
    const checked = `${email} is verified by the provider, and ${email.split("@").pop()} is one of its e-mail domains`;
    const identity = await ssoIdentityOf(provider, claims.sub, email);
    if (identity === "changed") {
      steps.fail(
        "email_domain",
        `${checked}, but the provider signed this address in before as another subject, or this subject with another address: ` +
          "the address passed to someone else at the provider, or the person's address changed. Sign-in refuses it until the old person is removed from the organization",
      );
    } else {
      steps.pass("email_domain", `${checked}; ${identity === "linked" ? "its subject is the one that signed this account in before" : "its first sign-in will link its subject to this account"}`);
    }
  } catch (failure) {
    if (!(failure instanceof SignInError)) throw failure;
    steps.fail("email_domain", emailRefusal(failure.code, claims, provider));
  }
  return report(shownClaims(claims));
}

// ------------------------------------------------------------------ the route handlers

function problem(status: number, message: string): Response {
  return Response.json({ code: String(status), message }, { status, headers: { "cache-control": "no-store" } });
}

export interface SsoTestDeps {
  session(request: NextRequest): Promise<SessionState>;
}

const defaultDeps: SsoTestDeps = { session: (request) => sessionStateFromCookies(request.cookies) };

/** Whether the session's person holds sso.manage in the organization: the gateway answers, signed with the session's key. */
async function mayManageSso(session: ConsoleSession, organizationId: string, clientIp: string): Promise<number> {
  const response = await cloudFetch(session, "GET", operationPath("getCallerPermissions", { org_id: organizationId }), { clientIp });
  if (!response.ok) {
    await response.body?.cancel();
    // The platform failing to answer (a failover's 503, a 500) says nothing of the person's permissions.
    return response.status === 401 ? 401 : response.status >= 500 ? response.status : 403;
  }
  const { permissions } = (await response.json()) as CallerPermissions;
  return permissions.includes("sso.manage") ? 200 : 403;
}

/**
 * POST /api/sso-test {organization_id, provider_id}: a same-origin request of a console session
 * whose person holds sso.manage there. Answers the report at once when discovery fails, else the
 * authorization URL for the popup, with the test cookie.
 */
export async function handleSsoTestStart(request: NextRequest, deps: SsoTestDeps = defaultDeps): Promise<Response> {
  if (isCrossSiteMutation(request, env().NEXTAUTH_URL)) return problem(403, "cross-site request refused");
  let body: unknown;
  try {
    const text = await request.text();
    if (text.length > MAX_START_BODY) return problem(400, `body: larger than ${MAX_START_BODY} characters`);
    body = JSON.parse(text);
  } catch {
    return problem(400, "body: must be JSON");
  }
  const parsed = ssoTestStartRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return problem(400, `body.${issue?.path.join(".") || ""}: ${issue?.message ?? "is not valid"}`.replace(/^body\.:/, "body:"));
  }
  const { organization_id: organizationId, provider_id: providerId } = parsed.data;

  let state: SessionState;
  try {
    state = await deps.session(request);
  } catch (error) {
    return consoleStoreFailure(error, "the session's lookup", "sso-test");
  }
  if (state.status !== "active") return problem(401, "Sign in to continue");
  try {
    const allowed = await mayManageSso(state.session, organizationId, clientAddress(request.headers, env().STRATUS_TRUSTED_PROXY_HOPS));
    if (allowed === 401) return problem(401, "Your session has ended; sign in again");
    if (allowed >= 500) return problem(allowed === 503 ? 503 : 502, "The platform could not check your permissions; try again in a moment");
    if (allowed !== 200) return problem(403, "Testing a sign-in needs the permission sso.manage in this organization");
    const provider = await loadSsoProvider(providerId);
    if (!provider || provider.organizationId !== organizationId) {
      return problem(404, "SSO provider not found in this organization, or it has no client secret");
    }
    const started = await startSsoTest(provider, { consoleOrigin: await consoleOrigin(), userId: state.session.userId });
    const headers = new Headers({ "cache-control": "no-store" });
    if ("report" in started) return Response.json({ test_id: started.testId, report: started.report } satisfies SsoTestStartResponse, { headers });
    const secure = sessionCookieSecure() ? "; Secure" : "";
    headers.append("set-cookie", `${ssoTestCookieName()}=${started.cookie}; Path=${COOKIE_PATH}; Max-Age=${TEST_LIFETIME_SECONDS}; HttpOnly; SameSite=Lax${secure}`);
    return Response.json({ test_id: started.testId, authorization_url: started.authorizationUrl } satisfies SsoTestStartResponse, { headers });
  } catch (error) {
    if (error instanceof SignInError) return problem(503, "Single sign-on is not available on this console");
    logAuth("error", "SSO test sign-in could not start", error);
    return problem(502, "The test could not start; try again in a moment");
  }
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STATUS_TEXT = { passed: "Passed", failed: "Failed", not_run: "Not run" } as const;

/**
 * The popup's page: the report, also posted to the SSO page over the BroadcastChannel (the
 * script carries this request's CSP nonce, set by proxy.ts), then the popup closes itself.
 */
function resultPage(report: SsoTestReport | null, message: string, nonce: string | null): string {
  const steps = report
    ? `<ol>${report.steps.map((s) => `<li><strong>${escapeHtml(s.name)}</strong>: ${STATUS_TEXT[s.status]}. ${escapeHtml(s.detail)}</li>`).join("")}</ol>`
    : "";
  const data = report ? `<script type="application/json" id="sso-test-report">${JSON.stringify(report).replace(/</g, "\\u003c")}</script>` : "";
  const script = report
    ? `<script${nonce ? ` nonce="${escapeHtml(nonce)}"` : ""}>(function(){try{var r=JSON.parse(document.getElementById("sso-test-report").textContent);var c=new BroadcastChannel(${JSON.stringify(SSO_TEST_CHANNEL)});c.postMessage(r);c.close();setTimeout(function(){window.close();},500);}catch(e){}})();</script>`
    : "";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>SSO test sign-in</title></head><body style="font-family:system-ui,sans-serif;margin:2rem;max-width:40rem"><main><h1>SSO test sign-in</h1><p role="status">${escapeHtml(message)}</p>${steps}</main>${data}${script}</body></html>`;
}

/** The popup's page; `failed`, an answer whose status (and Retry-After) the page takes. */
function htmlAnswer(html: string, clearCookie: boolean, failed?: Response): Response {
  const headers = new Headers({ "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "referrer-policy": "no-referrer" });
  if (clearCookie) headers.append("set-cookie", `${ssoTestCookieName()}=; Path=${COOKIE_PATH}; Max-Age=0; HttpOnly; SameSite=Lax${sessionCookieSecure() ? "; Secure" : ""}`);
  const retryAfter = failed?.headers.get("retry-after");
  if (retryAfter) headers.set("retry-after", retryAfter);
  return new Response(html, { status: failed?.status ?? 200, headers });
}

/**
 * GET /api/auth/callback/<provider id> when this browser's test cookie holds the callback's state:
 * the test's result page. Null otherwise: the callback is a sign-in's, for next-auth.
 */
export async function handleSsoTestCallback(request: NextRequest, providerId: string, deps: SsoTestDeps = defaultDeps): Promise<Response | null> {
  const pending = await pendingTest(request.cookies.get(ssoTestCookieName())?.value);
  const state = request.nextUrl.searchParams.get("state");
  if (!pending || !state || pending.state !== state || pending.providerId !== providerId) return null;

  // Only for the admin who started it, still signed in (the report names the person who signed in at the provider).
  let session: SessionState;
  try {
    session = await deps.session(request);
  } catch (error) {
    const failed = consoleStoreFailure(error, "the session's lookup", "sso-test");
    const message = failed.status === 503 ? "The console is unavailable for a moment (restart or failover): test again shortly." : "The test could not finish; try again in a moment.";
    return htmlAnswer(resultPage(null, message, null), true, failed);
  }
  if (session.status !== "active" || session.session.userId !== pending.userId) {
    return htmlAnswer(resultPage(null, "Your console session ended before the test finished: sign in and test again.", null), true);
  }
  let report: SsoTestReport;
  try {
    report = await finishSsoTest(await loadSsoProvider(providerId), pending, request.nextUrl, await consoleOrigin());
  } catch (error) {
    logAuth("error", "SSO test sign-in failed", error);
    return htmlAnswer(resultPage(null, "The test could not finish; try again in a moment.", null), true);
  }
  const message = report.ok ? "Every step passed. The result is shown in the console; this window closes." : "A step failed. The result is shown in the console; this window closes.";
  return htmlAnswer(resultPage(report, message, request.headers.get("x-nonce")), true);
}
