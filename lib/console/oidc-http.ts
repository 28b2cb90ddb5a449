import "server-only";
import type { TcpNetConnectOpts } from "node:net";
import type { Duplex } from "node:stream";
import ipaddr from "ipaddr.js";
import { custom, Issuer, type CustomHttpOptionsProvider } from "openid-client";
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent, type RequestFilteringAgentOptions } from "request-filtering-agent";
import { isLoopbackUrl } from "@/lib/contract/sso";
import { env } from "@/lib/env";

/**
 * Where the console's server may go for an OpenID provider. An organization's admin names the
 * issuer, and the issuer's discovery document names every other endpoint (token, JWKS, userinfo):
 * without a rule, a provider set up by one customer could send the console's server to the
 * operator's own network (a metadata service, a database's HTTP port, another replica) and read
 * parts of the answers back in the test sign-in's report. So every request openid-client makes,
 * for next-auth's sign-in and for the admin's test alike:
 *
 * - goes over https; http only to this machine's loopback when STRATUS_SSO_LOOPBACK_ISSUERS allows
 *   loopback issuers (development and tests), as the issuer rule does (lib/contract/sso.ts);
 * - connects only to a public unicast address, checked on the address the connection is made to,
 *   after the name was looked up (so a name that resolves to a private address, or is rebound to
 *   one, is refused too): request-filtering-agent's agents. Loopback's 127.0.0.1 and ::1 are allowed
 *   with the flag above, and the operator's own ranges with STRATUS_OIDC_PRIVATE_NETWORKS;
 * - has its answer cut off past 1 MiB or 10 s. openid-client waits 3.5 s for an answer's headers,
 *   but then reads the body to its end, however long or slow it is.
 */

export interface OidcNetworkPolicy {
  /** http, and connections to 127.0.0.1 and ::1, for loopback URLs (STRATUS_SSO_LOOPBACK_ISSUERS). */
  loopback: boolean;
  /** Private CIDR ranges a provider may also be at (STRATUS_OIDC_PRIVATE_NETWORKS). */
  privateNetworks: readonly string[];
  /** Bytes read from one connection (headers included) before it is cut off. */
  maxAnswerBytes: number;
  /** Milliseconds one connection may last before it is cut off. */
  exchangeMs: number;
}

export const OIDC_MAX_ANSWER_BYTES = 1024 * 1024;
export const OIDC_EXCHANGE_MS = 10_000;

/** The policy the environment sets. */
export function oidcNetworkPolicy(): OidcNetworkPolicy {
  const config = env();
  return {
    loopback: config.STRATUS_SSO_LOOPBACK_ISSUERS === "1",
    privateNetworks: config.STRATUS_OIDC_PRIVATE_NETWORKS,
    maxAnswerBytes: OIDC_MAX_ANSWER_BYTES,
    exchangeMs: OIDC_EXCHANGE_MS,
  };
}

/** Why a URL is not one to request from an OpenID provider under `policy`; null when it may be requested. */
export function oidcUrlRefusal(value: string, policy: OidcNetworkPolicy): string | null {
  if (!URL.canParse(value)) return `${value} is not a URL`;
  const url = new URL(value);
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && policy.loopback && isLoopbackUrl(value)) return null;
  return `${url.origin} is not https (an OpenID provider's endpoints must be)`;
}

/** A request refused before it was sent. */
export class OidcRequestRefused extends Error {
  override name = "OidcRequestRefused";
}

const REFUSED_ADDRESS = /^DNS lookup (\S+?)\(.*is not allowed/;

/**
 * An OpenID provider's failure in words for the admin: request-filtering-agent's refusal says which
 * address, and why; anything else is the error's own message.
 */
export function describeOidcFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : "unknown error";
  const refused = REFUSED_ADDRESS.exec(message);
  if (refused) {
    return `${refused[1]} is not a public address, and the console reaches OpenID providers only at public ones (STRATUS_OIDC_PRIVATE_NETWORKS names private ranges allowed)`;
  }
  return message;
}

/** Cuts a connection off once it has read more than its bytes or lasted longer than its time. */
function bound(socket: Duplex, policy: OidcNetworkPolicy): Duplex {
  let read = 0;
  const timer = setTimeout(
    () => socket.destroy(new Error(`the OpenID provider took longer than ${policy.exchangeMs} ms to answer`)),
    policy.exchangeMs,
  );
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
  // The HTTP client reads the socket through its own 'data' listener, attached before anything can arrive.
  socket.on("data", (chunk: Buffer) => {
    read += chunk.length;
    if (read > policy.maxAnswerBytes) socket.destroy(new Error(`the OpenID provider's answer is larger than ${policy.maxAnswerBytes} bytes`));
  });
  return socket;
}

type ConnectionListener = (error: Error | null, socket: Duplex) => void;

/** The agent, with every connection it makes bounded by the policy's bytes and time. */
function bounded<A extends RequestFilteringHttpAgent | RequestFilteringHttpsAgent>(agent: A, policy: OidcNetworkPolicy): A {
  const create = agent.createConnection.bind(agent);
  agent.createConnection = (options: TcpNetConnectOpts, listener?: ConnectionListener) => bound(create(options, listener), policy);
  return agent;
}

interface Agents {
  http: RequestFilteringHttpAgent;
  https: RequestFilteringHttpsAgent;
}

/**
 * The ranges as request-filtering-agent compares them: a single address as a range of one, and an
 * IPv4 range in its IPv6-mapped form too (a name may resolve to `::ffff:10.20.1.5`).
 */
export function allowedRanges(networks: readonly string[]): string[] {
  return networks.flatMap((network) => {
    const [address, bits] = ipaddr.isValid(network) ? [ipaddr.parse(network), undefined] : ipaddr.parseCIDR(network);
    const length = bits ?? (address.kind() === "ipv4" ? 32 : 128);
    const range = `${address.toString()}/${length}`;
    return address.kind() === "ipv4" ? [range, `::ffff:${address.toString()}/${96 + length}`] : [range];
  });
}

function agentsFor(policy: OidcNetworkPolicy): Agents {
  const filter: RequestFilteringAgentOptions = {
    allowIPAddressList: [...(policy.loopback ? ["127.0.0.1", "::1"] : []), ...allowedRanges(policy.privateNetworks)],
  };
  // A connection per request: the deadline is the connection's, and providers are asked rarely.
  return {
    http: bounded(new RequestFilteringHttpAgent({ ...filter, keepAlive: false }), policy),
    https: bounded(new RequestFilteringHttpsAgent({ ...filter, keepAlive: false }), policy),
  };
}

let policyOf: () => OidcNetworkPolicy = oidcNetworkPolicy;
let agents: { key: string; agents: Agents } | undefined;

const httpOptions: CustomHttpOptionsProvider = (url) => {
  const policy = policyOf();
  const refusal = oidcUrlRefusal(url.href, policy);
  if (refusal) throw new OidcRequestRefused(refusal);
  const key = JSON.stringify(policy);
  if (agents?.key !== key) agents = { key, agents: agentsFor(policy) };
  return { agent: url.protocol === "https:" ? agents.agents.https : agents.agents.http };
};

/**
 * Puts every request of openid-client (the module next-auth uses too) under the policy: discovery is
 * the Issuer class's request, the JWKS an issuer's, the token and userinfo endpoints a client's
 * (openid-client reads `custom.http_options` from whichever makes the request, and clients are of a
 * class made per issuer, so the hook sits on their common prototype). Idempotent; `policy` is for tests.
 */
export function installOidcNetworkPolicy(policy: () => OidcNetworkPolicy = oidcNetworkPolicy): void {
  policyOf = policy;
  const clientPrototype = Object.getPrototypeOf(new Issuer({ issuer: "https://policy.invalid" }).Client.prototype) as {
    [custom.http_options]?: CustomHttpOptionsProvider;
  };
  Issuer[custom.http_options] = httpOptions;
  (Issuer.prototype as { [custom.http_options]?: CustomHttpOptionsProvider })[custom.http_options] = httpOptions;
  clientPrototype[custom.http_options] = httpOptions;
}

/** Whether openid-client's requests go through the policy (for the modules that rely on it, and their tests). */
export function oidcNetworkPolicyInstalled(): boolean {
  return Issuer[custom.http_options] === httpOptions;
}
