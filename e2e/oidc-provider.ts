import { createPrivateKey, createSign, generateKeyPairSync, randomBytes, type JsonWebKey } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type Configuration, type KoaContextWithOIDC } from "oidc-provider";

/**
 * A real OpenID Connect provider (the `oidc-provider` package) on a free loopback port, for the
 * SSO tests: the end-to-end specs (started by e2e/global-setup.ts) and the console's Vitest tests.
 * Its login page (the package's development interactions) takes any password; the login name
 * picks one of the accounts below. Consent is granted as the person signs in, as an identity
 * provider does for an application its admin approved.
 */

export interface TestAccount {
  email: string;
  email_verified: boolean;
  name: string;
}

/** The accounts, by login name (also their `sub`). The SSO provider a test creates serves the domain sso.example. */
export const TEST_ACCOUNTS = {
  "ada@sso.example": { email: "ada@sso.example", email_verified: true, name: "Ada Lovelace" },
  "grace@sso.example": { email: "grace@sso.example", email_verified: true, name: "Grace Hopper" },
  // Another organization's person first (the tests add her there before her first sign-in here).
  "hedy@sso.example": { email: "hedy@sso.example", email_verified: true, name: "Hedy Lamarr" },
  // Whose address a directory gives another person of the organization as user name (the tests provision that person over SCIM).
  "katherine@sso.example": { email: "katherine@sso.example", email_verified: true, name: "Katherine Johnson" },
  "unverified@sso.example": { email: "unverified@sso.example", email_verified: false, name: "Una Verified" },
  "eve@elsewhere.example": { email: "eve@elsewhere.example", email_verified: true, name: "Eve Elsewhere" },
  // At a public e-mail service's domain, which no provider may serve.
  "mallory@gmail.com": { email: "mallory@gmail.com", email_verified: true, name: "Mallory Public" },
} satisfies Record<string, TestAccount>;

export const TEST_SSO_DOMAIN = "sso.example";

/**
 * A path under which the provider also answers, as itself: its discovery document there names its
 * own issuer, not the URL it was fetched from (a provider reached through another address than its
 * issuer, or an issuer set up wrong), which a relying party must refuse.
 */
export const TEST_ISSUER_ALIAS = "/another-address";

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Rewrites the next ID tokens the token endpoint answers with (null: as issued). */
  tamperIdTokens(change: ((idToken: string) => string) | null): void;
  /**
   * The bearer token of the provider's test control, for tests in other processes than the one that
   * started it (Playwright's workers): `POST /test-control/tamper-id-tokens?mode=signature|off`, and
   * `POST /test-control/token-endpoint?url=<url>` (no url: its own), the token endpoint its discovery
   * document names.
   */
  controlToken: string;
  /** An ID token as issued, re-signed with the provider's own key after `change` (a forgery only a key holder could make). */
  resign(idToken: string, change: (payload: Record<string, unknown>) => Record<string, unknown>): string;
  close(): Promise<void>;
}

const b64url = (value: Buffer | string) => Buffer.from(value).toString("base64url");

/**
 * Starts the provider. It accepts every redirect URI under `callbackBase` (the console's
 * `<origin>/api/auth/callback/`), since a provider's id, and so its callback, exists only once a
 * test has created it; a real provider is given the one URI the console's SSO page shows.
 */
export async function startTestOidcProvider(options: { callbackBase: string; clientId?: string }): Promise<TestOidcProvider> {
  const clientId = options.clientId ?? "stratus-console";
  const clientSecret = randomBytes(24).toString("base64url");
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = { ...(privateKey.export({ format: "jwk" }) as JsonWebKey), kid: "test-key-1", alg: "RS256", use: "sig" };
  const signingKey = createPrivateKey({ key: jwk, format: "jwk" });

  let tamper: ((idToken: string) => string) | null = null;
  let tokenEndpoint: string | null = null;
  let handle: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  const controlToken = randomBytes(24).toString("base64url");
  const server = createServer((req, res) => {
    if (req.method === "POST" && req.url?.startsWith("/test-control/tamper-id-tokens")) {
      if (req.headers.authorization !== `Bearer ${controlToken}`) res.statusCode = 403;
      else {
        const mode = new URL(req.url, "http://control").searchParams.get("mode");
        tamper = mode === "signature" ? breakSignature : null;
        res.statusCode = 204;
      }
      res.end();
      return;
    }
    if (req.method === "POST" && req.url?.startsWith("/test-control/token-endpoint")) {
      if (req.headers.authorization !== `Bearer ${controlToken}`) res.statusCode = 403;
      else {
        tokenEndpoint = new URL(req.url, "http://control").searchParams.get("url");
        res.statusCode = 204;
      }
      res.end();
      return;
    }
    if (!handle) {
      res.statusCode = 503;
      res.end();
      return;
    }
    if (req.url?.startsWith(`${TEST_ISSUER_ALIAS}/`)) req.url = req.url.slice(TEST_ISSUER_ALIAS.length);
    if (tamper && req.method === "POST" && req.url?.startsWith("/token")) {
      const change = tamper;
      rewriteJsonResponse(res, (body) => (typeof body.id_token === "string" ? { ...body, id_token: change(body.id_token) } : body));
    }
    if (tokenEndpoint && req.method === "GET" && req.url === "/.well-known/openid-configuration") {
      const named = tokenEndpoint;
      rewriteJsonResponse(res, (body) => ({ ...body, token_endpoint: named }));
    }
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const accounts: Record<string, TestAccount> = TEST_ACCOUNTS;
  const configuration: Configuration = {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [`${options.callbackBase}registered-after-creation`],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys: [jwk as never] },
    // Its session cookie is SameSite=None by default, which a browser drops without Secure (this provider is http).
    cookies: { keys: [randomBytes(16).toString("hex")], long: { httpOnly: true, sameSite: "lax" } },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true, methods: ["S256"] },
    findAccount: (_ctx, id) => {
      const account = accounts[id];
      return account ? { accountId: id, claims: () => ({ sub: id, ...account }) } : undefined;
    },
    // Consent is granted at once (as for an application the provider's admin approved).
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const accountId = ctx.oidc.session?.accountId;
      const client = ctx.oidc.client;
      if (!accountId || !client) return undefined;
      const grantId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session?.grantIdFor(client.clientId);
      if (grantId) {
        const existing = await ctx.oidc.provider.Grant.find(grantId);
        if (existing) return existing;
      }
      const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId });
      grant.addOIDCScope("openid email profile");
      grant.addOIDCClaims(["email", "email_verified", "name"]);
      await grant.save();
      return grant;
    },
  };
  const provider = new Provider(issuer, configuration);
  const exact = provider.Client.prototype.redirectUriAllowed;
  provider.Client.prototype.redirectUriAllowed = function redirectUriAllowed(this: InstanceType<typeof provider.Client>, value: string) {
    return value.startsWith(options.callbackBase) || exact.call(this, value);
  };
  // A failure inside the provider is a failure of the test's set-up: say what it was.
  provider.on("server_error", (_ctx: unknown, error: Error) => process.stderr.write(`test OpenID provider: ${error.stack ?? error.message}\n`));
  handle = provider.callback();

  return {
    issuer,
    clientId,
    clientSecret,
    tamperIdTokens(change) {
      tamper = change;
    },
    controlToken,
    resign(idToken, change) {
      const [header, payload] = idToken.split(".");
      const claims = change(JSON.parse(Buffer.from(payload ?? "", "base64url").toString("utf8")) as Record<string, unknown>);
      const signingInput = `${header}.${b64url(JSON.stringify(claims))}`;
      const signature = createSign("RSA-SHA256").update(signingInput).sign(signingKey);
      return `${signingInput}.${b64url(signature)}`;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * A sign-in at the provider without a browser, for the Vitest tests: follows its redirects from the
 * authorization URL, answers its login page as `login` (any password), and answers the first URL
 * under `until` (the console's callback) it is sent to. `jar` keeps the provider's cookies.
 */
export async function signInAtTestProvider(authorizationUrl: string, login: string, until: string, jar = new Map<string, string>()): Promise<URL> {
  let url = authorizationUrl;
  let form: URLSearchParams | undefined;
  for (let hop = 0; hop < 10; hop++) {
    if (url.startsWith(until)) return new URL(url);
    const res = await fetch(url, {
      method: form ? "POST" : "GET",
      body: form,
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "), ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
      redirect: "manual",
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    form = undefined;
    const location = res.headers.get("location");
    if (location) {
      url = new URL(location, url).toString();
      continue;
    }
    const html = await res.text();
    const action = /action="([^"]+)"/.exec(html)?.[1];
    if (res.status !== 200 || !action || !html.includes('name="login"')) {
      throw new Error(`unexpected answer from the provider: ${res.status} ${html.replace(/<style>[^]*?<\/style>/, "").slice(0, 1500)}`);
    }
    form = new URLSearchParams({ prompt: "login", login, password: "any" });
    url = new URL(action, url).toString();
  }
  throw new Error("too many redirects at the provider");
}

/** The ID token with one bit of its signature's first byte flipped: the same claims, a signature that does not verify. */
function breakSignature(idToken: string): string {
  const [header, payload, signature] = idToken.split(".");
  const bytes = Buffer.from(signature ?? "", "base64url");
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  return `${header}.${payload}.${bytes.toString("base64url")}`;
}

/** Lets a JSON answer of the provider be rewritten before it goes out (its headers are not sent yet when Koa ends it). */
function rewriteJsonResponse(res: ServerResponse, change: (body: Record<string, unknown>) => Record<string, unknown>): void {
  const end = res.end.bind(res) as (chunk?: unknown, ...rest: unknown[]) => ServerResponse;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (typeof chunk === "string" || Buffer.isBuffer(chunk)) {
      const text = JSON.stringify(change(JSON.parse(chunk.toString()) as Record<string, unknown>));
      res.setHeader("content-length", Buffer.byteLength(text));
      return end(text, ...rest);
    }
    return end(chunk, ...rest);
  }) as typeof res.end;
}
