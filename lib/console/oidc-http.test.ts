import { once } from "node:events";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from "node:net";
import { Issuer } from "openid-client";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  allowedRanges,
  describeOidcFailure,
  installOidcNetworkPolicy,
  OIDC_EXCHANGE_MS,
  OIDC_MAX_ANSWER_BYTES,
  oidcNetworkPolicyInstalled,
  oidcUrlRefusal,
  type OidcNetworkPolicy,
} from "./oidc-http";

/**
 * Where openid-client (next-auth's, and the test sign-in's) may send the console's server, through
 * openid-client's own calls: a provider on loopback serving discovery documents that name endpoints
 * elsewhere, and traps (TCP servers on 127.0.0.1 and 127.0.0.2, another loopback address the policy
 * does not allow) that count every connection made to them. A refused request must never reach its trap.
 */

const LOOPBACK: OidcNetworkPolicy = { loopback: true, privateNetworks: [], maxAnswerBytes: OIDC_MAX_ANSWER_BYTES, exchangeMs: OIDC_EXCHANGE_MS };
let policy: OidcNetworkPolicy = LOOPBACK;

interface Trap {
  server: TcpServer;
  port: number;
  connections: number;
}

async function trap(host: string): Promise<Trap> {
  const t: Trap = { server: createTcpServer((socket) => (t.connections++, socket.destroy())), port: 0, connections: 0 };
  t.server.listen(0, host);
  await once(t.server, "listening");
  t.port = (t.server.address() as AddressInfo).port;
  return t;
}

let provider: Server;
let issuerBase: string;
let elsewhere: Trap; // 127.0.0.2
let local: Trap; // 127.0.0.1
/** What the provider's discovery document under /<name> names, beside its issuer. */
const endpoints = new Map<string, Record<string, string>>();

beforeAll(async () => {
  installOidcNetworkPolicy(() => policy);
  provider = createHttpServer((req, res) => {
    const name = req.url!.split("/")[1]!;
    if (name === "big") {
      // A valid document, 2 MiB long.
      res.end(JSON.stringify({ issuer: `${issuerBase}/big`, authorization_endpoint: `${issuerBase}/big/auth`, padding: "x".repeat(2 * 1024 * 1024) }));
      return;
    }
    if (name === "slow") {
      // Headers at once, then a byte every 100 ms for 30 s.
      res.writeHead(200, { "content-type": "application/json" });
      const drip = setInterval(() => res.write(" "), 100);
      setTimeout(() => (clearInterval(drip), res.end("{}")), 30_000).unref();
      res.on("close", () => clearInterval(drip));
      return;
    }
    res.setHeader("content-type", "application/json");
    if (req.url!.endsWith("/jwks")) {
      res.end(JSON.stringify({ keys: [] }));
      return;
    }
    res.end(JSON.stringify({ issuer: `${issuerBase}/${name}`, authorization_endpoint: `${issuerBase}/${name}/auth`, ...endpoints.get(name) }));
  });
  provider.listen(0, "127.0.0.1");
  await once(provider, "listening");
  issuerBase = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  [elsewhere, local] = await Promise.all([trap("127.0.0.2"), trap("127.0.0.1")]);
});

afterAll(() => {
  installOidcNetworkPolicy();
  provider?.closeAllConnections();
  for (const server of [provider, elsewhere?.server, local?.server]) server?.close();
});

beforeEach(() => {
  policy = LOOPBACK;
  elsewhere.connections = 0;
  local.connections = 0;
});

const discover = (name: string) => Issuer.discover(`${issuerBase}/${name}/.well-known/openid-configuration`);
const reloadJwks = (issuer: Issuer) => (issuer as unknown as { reloadJwksUri(): Promise<void> }).reloadJwksUri();
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("the request went through");
    },
    (error: unknown) => describeOidcFailure(error),
  );

describe("the URL rule", () => {
  it("takes https anywhere, and http only to loopback with the loopback flag", () => {
    expect(oidcUrlRefusal("https://login.example.com/keys", LOOPBACK)).toBeNull();
    expect(oidcUrlRefusal("http://127.0.0.1:9000/keys", LOOPBACK)).toBeNull();
    expect(oidcUrlRefusal("http://[::1]:9000/keys", LOOPBACK)).toBeNull();
    expect(oidcUrlRefusal("http://127.0.0.1:9000/keys", { ...LOOPBACK, loopback: false })).toContain("is not https");
    expect(oidcUrlRefusal("http://127.0.0.2:9000/keys", LOOPBACK)).toBe("http://127.0.0.2:9000 is not https (an OpenID provider's endpoints must be)");
    expect(oidcUrlRefusal("http://169.254.169.254/latest/meta-data", LOOPBACK)).toContain("is not https");
    expect(oidcUrlRefusal("ftp://login.example.com/", LOOPBACK)).toContain("is not https");
  });
});

describe("the operator's private networks", () => {
  it("are compared as ranges, an address as a range of one, and IPv4 ones in their IPv6-mapped form too", () => {
    expect(allowedRanges(["10.20.0.0/16", "10.30.1.5", "fd00:1::/64", "fd00:2::7"])).toEqual([
      "10.20.0.0/16",
      "::ffff:10.20.0.0/112",
      "10.30.1.5/32",
      "::ffff:10.30.1.5/128",
      "fd00:1::/64",
      "fd00:2::7/128",
    ]);
  });
});

describe("openid-client's requests", () => {
  it("are put under the policy by the modules that sign people in and test providers", async () => {
    // Fresh copies of the modules (openid-client, from node_modules, stays the one loaded): the policy
    // module alone installs nothing; the sign-in's and the test's modules install it as they load.
    vi.resetModules();
    const fresh = await import("./oidc-http");
    expect(fresh.oidcNetworkPolicyInstalled()).toBe(false);
    await import("./sso-auth");
    expect(fresh.oidcNetworkPolicyInstalled()).toBe(true);
    vi.resetModules();
    const again = await import("./oidc-http");
    await import("./sso-test");
    expect(again.oidcNetworkPolicyInstalled()).toBe(true);
    installOidcNetworkPolicy(() => policy);
    expect(oidcNetworkPolicyInstalled()).toBe(true);
  });

  it("discover a provider on loopback under the loopback flag, and read its JWKS", async () => {
    endpoints.set("home", { jwks_uri: `${issuerBase}/home/jwks` });
    const issuer = await discover("home");
    expect(issuer.metadata.issuer).toBe(`${issuerBase}/home`);
    await expect(reloadJwks(issuer)).resolves.toBeUndefined();
  });

  it("refuse an http endpoint off loopback before connecting", async () => {
    endpoints.set("plain", { jwks_uri: `http://127.0.0.2:${elsewhere.port}/keys` });
    const issuer = await discover("plain");
    expect(await failure(reloadJwks(issuer))).toBe(`http://127.0.0.2:${elsewhere.port} is not https (an OpenID provider's endpoints must be)`);
    expect(elsewhere.connections).toBe(0);
  });

  it("refuse a JWKS at a private address over https before connecting", async () => {
    endpoints.set("jwks", { jwks_uri: `https://127.0.0.2:${elsewhere.port}/keys` });
    const issuer = await discover("jwks");
    expect(await failure(reloadJwks(issuer))).toMatch(/^127\.0\.0\.2 is not a public address/);
    expect(elsewhere.connections).toBe(0);
  });

  it("refuse a token endpoint at a private address before connecting", async () => {
    endpoints.set("token", { token_endpoint: `https://127.0.0.2:${elsewhere.port}/token` });
    const issuer = await discover("token");
    const client = new issuer.Client({ client_id: "c", client_secret: "s", redirect_uris: ["http://console.test/cb"] });
    expect(await failure(client.grant({ grant_type: "authorization_code", code: "x", redirect_uri: "http://console.test/cb" }))).toMatch(
      /^127\.0\.0\.2 is not a public address/,
    );
    expect(elsewhere.connections).toBe(0);
  });

  it("refuse a host name that resolves to loopback, without the loopback flag", async () => {
    policy = { ...LOOPBACK, loopback: false };
    expect(await failure(Issuer.discover(`https://localhost:${local.port}/.well-known/openid-configuration`))).toMatch(
      /^(127\.0\.0\.1|::1) is not a public address/,
    );
    expect(await failure(discover("home"))).toContain("is not https");
    expect(local.connections).toBe(0);
  });

  it("connect to a private address the operator allows (STRATUS_OIDC_PRIVATE_NETWORKS)", async () => {
    policy = { ...LOOPBACK, privateNetworks: ["127.0.0.2/32"] };
    endpoints.set("inside", { jwks_uri: `https://127.0.0.2:${elsewhere.port}/keys` });
    const issuer = await discover("inside");
    // The trap hangs up during the TLS handshake: the connection was made.
    expect(await failure(reloadJwks(issuer))).not.toContain("is not a public address");
    expect(elsewhere.connections).toBe(1);
  });

  it("cut an answer off past the byte limit", async () => {
    policy = { ...LOOPBACK, maxAnswerBytes: 4 * 1024 * 1024 };
    expect((await discover("big")).metadata.issuer).toBe(`${issuerBase}/big`);
    policy = LOOPBACK;
    await expect(discover("big")).rejects.toThrow();
  });

  it("cut an answer off past the time limit, however steadily it trickles", async () => {
    policy = { ...LOOPBACK, exchangeMs: 500 };
    const started = Date.now();
    await expect(discover("slow")).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 10_000);
});
