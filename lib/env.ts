import ipaddr from "ipaddr.js";
import { z } from "zod";
import { parseDatabaseUrl } from "./db/database-url";

/** A number of days to keep rows for: a whole number from 1 to 36500; unset or empty, keep forever. */
function retentionDays() {
  const message = "must be a whole number of days from 1 to 36500, or unset to keep everything";
  return z.preprocess(
    (v) => (typeof v === "string" && v.trim() === "" ? undefined : v),
    z.coerce.number({ error: message }).int(message).min(1, message).max(36_500, message).optional(),
  );
}

/** The longest sign-in failure window that can be set; failures older than this count nowhere (lib/console/rate-limit.ts). */
export const MAX_SIGN_IN_WINDOW_MINUTES = 24 * 60;

/**
 * The one place that reads process.env. Every setting is validated once; a bad
 * value stops the process with the variable named.
 */
const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(1).max(65535).default(8080),
  /** The address `npm run gateway` listens on. */
  HOST: z.string().trim().min(1, "expected an address to listen on (0.0.0.0, 127.0.0.1, ::)").default("0.0.0.0"),
  STRATUS_DATA_DIR: z.string().min(1).default("./.data"),
  /** One host, or a formation's hosts (`postgres://u@h1:5432,h2:5432/db?target_session_attrs=read-write`). */
  DATABASE_URL: z.string().superRefine(checkDatabaseUrl).optional(),
  /** 32 bytes, base64 or hex; generated into the data dir when unset. */
  STRATUS_MASTER_KEY: z.string().min(1).optional(),
  /** Allowed clock skew of signed requests, in seconds. */
  STRATUS_SIGNATURE_SKEW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  /** Longest time to the first byte of a gateway answer (504 after it). */
  STRATUS_REQUEST_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(30),
  /** The demo organization written into an empty store: "1" on, "0" off; unset, on except in production. */
  STRATUS_SEED_DEMO: z.enum(["0", "1"]).optional(),
  STRATUS_DEMO: z.enum(["0", "1"]).optional(),
  STRATUS_LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  /**
   * Remote gateway for the console; unset means the embedded one. A path of its own is a prefix that a proxy in
   * front of the gateway strips (the console signs the versioned path, `/v1/…`). Plain http only on loopback in
   * production: the signature covers no body, so anyone on the way could change one.
   */
  CLOUD_API_URL: z.string().superRefine(checkGatewayUrl).optional(),
  /** Signs the console's session cookie and keys its vault; required in production (see lib/console/secret.ts). */
  AUTH_SECRET: z.string().min(1).optional(),
  NEXTAUTH_SECRET: z.string().min(1).optional(),
  /** Public URL of the console (next-auth); https turns on secure `__Host-` cookies (lib/console/cookies.ts). */
  NEXTAUTH_URL: z.string().url().optional(),
  /** A console session ends after this many minutes without a request. */
  STRATUS_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(30),
  /** …and this many hours after sign-in, whatever happens. */
  STRATUS_SESSION_MAX_HOURS: z.coerce.number().int().min(1).max(24 * 30).default(12),
  /** Failed sign-ins from one client address within the window before it must wait. */
  STRATUS_SIGN_IN_MAX_FAILURES: z.coerce.number().int().min(1).max(1000).default(5),
  STRATUS_SIGN_IN_WINDOW_MINUTES: z.coerce.number().int().min(1).max(MAX_SIGN_IN_WINDOW_MINUTES).default(5),
  /**
   * Reverse proxies in front of the console (or the standalone gateway) that append to
   * X-Forwarded-For: the client address is the entry this many places back from the
   * socket's. 0 (no proxy): the socket's address; X-Forwarded-For is the client's own words.
   */
  STRATUS_TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  /**
   * Shared by the console and a remote gateway (CLOUD_API_URL), at least 32 characters: the console
   * marks its calls with an HMAC under it, so the gateway files them as the console's, with the
   * browser's address. Unset: a remote gateway files the console's calls as API calls.
   */
  STRATUS_CONSOLE_CHANNEL_KEY: z.preprocess((v) => (v === "" ? undefined : v), z.string().min(32).optional()),
  /** Where S3 clients reach the organization's object storage, and its region: shown with every new S3 key and in its .env. */
  STRATUS_S3_ENDPOINT: z.string().url().default("https://object-storage.stratus.example"),
  STRATUS_S3_REGION: z.string().min(1).default("us-east1"),
  /** The container registry's host name, in the `docker login` line shown with a new registry token. */
  STRATUS_REGISTRY_HOST: z.string().min(1).default("registry.stratus.example"),
  /**
   * "1" lets SSO providers have an issuer on this machine's loopback (http://127.0.0.1:…), for
   * development and tests against a local OpenID provider; unset or "0", issuers are https host names.
   */
  STRATUS_SSO_LOOPBACK_ISSUERS: z.enum(["0", "1"]).optional(),
  /**
   * Private addresses (CIDR ranges or single addresses, comma-separated) the console may reach an OpenID provider at: an
   * in-house provider on the operator's network. Unset: public addresses only (lib/console/oidc-http.ts).
   */
  STRATUS_OIDC_PRIVATE_NETWORKS: z.preprocess(
    (v) => (typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean) : []),
    z.array(z.string().refine(isCidr, "expected CIDR ranges or addresses separated by commas, e.g. 10.20.0.0/16,fd00:1::/64,10.30.1.5")),
  ),
  /** Days of audit-log entries the gateway keeps; older ones are deleted in batches every hour. Unset: kept forever. */
  STRATUS_AUDIT_RETENTION_DAYS: retentionDays(),
  /** Days of usage (and billing) rows the gateway keeps, as above. Unset: kept forever. */
  STRATUS_USAGE_RETENTION_DAYS: retentionDays(),
  /** Largest JSON body the console's backend forwards to the gateway. */
  STRATUS_BFF_MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(16 * 1024 * 1024).default(1024 * 1024),
});

export type Env = z.infer<typeof envSchema>;

/** A CIDR range, or one address. */
function isCidr(value: string): boolean {
  if (ipaddr.isValid(value)) return true;
  try {
    ipaddr.parseCIDR(value);
    return true;
  } catch {
    return false;
  }
}

/** CLOUD_API_URL: an http(s) URL with no user info (it would reach logs in errors), query or fragment. */
function checkGatewayUrl(value: string, ctx: z.RefinementCtx): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: "custom", message: "expected the gateway's URL, e.g. https://api.example.com" });
    return;
  }
  const problem =
    url.protocol !== "https:" && url.protocol !== "http:"
      ? "expected an https:// URL"
      : url.username || url.password
        ? "must not hold a user name or password: put credentials for a proxy in front of the gateway elsewhere"
        : url.search || url.hash || value.includes("?") || value.includes("#")
          ? "must not hold a query or fragment"
          : url.protocol === "http:" && process.env.NODE_ENV === "production" && !isLoopbackHost(url.hostname)
            ? "must be https:// in production (plain http only to a gateway on this machine's loopback)"
            : null;
  if (problem) ctx.addIssue({ code: "custom", message: problem });
}

/** localhost, 127.0.0.0/8 or ::1, as a URL's hostname writes them. */
function isLoopbackHost(hostname: string): boolean {
  if (hostname === "localhost") return true;
  const address = hostname.replace(/^\[|\]$/g, "");
  return ipaddr.isValid(address) && ipaddr.parse(address).range() === "loopback";
}

const DATABASE_URL_FORMS = "expected postgres://user:password@host:port/db, or several host:port separated by commas";

/**
 * A connection string node-postgres reads as meant: postgres:// (or postgresql://) with a host list, or without one for
 * a Unix socket (`postgres:///db?host=/run/postgresql`), or `socket:/run/postgresql?db=db`. Another scheme is refused:
 * `db.internal:5432/stratus` is a URL too (its scheme `db.internal:`), which node-postgres would read as a database
 * named "432/stratus" on localhost. A value the host list cannot honour says why (target_session_attrs=primary).
 */
function checkDatabaseUrl(value: string, ctx: z.RefinementCtx): void {
  let parsed: ReturnType<typeof parseDatabaseUrl>;
  try {
    parsed = parseDatabaseUrl(value);
  } catch (error) {
    ctx.addIssue({ code: "custom", message: error instanceof Error ? error.message : DATABASE_URL_FORMS });
    return;
  }
  if (parsed) return;
  const socketForm = /^socket:\/\S+$/i.test(value);
  const hostless = /^postgres(?:ql)?:\/\/(?:[^@/?#]*@)?\//i.test(value) && URL.canParse(value);
  if (!socketForm && !hostless) ctx.addIssue({ code: "custom", message: DATABASE_URL_FORMS });
}

let cached: Env | undefined;

export function env(): Env {
  if (cached) return cached;
  const parsed = envSchema.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`Invalid environment: ${problems}`);
  }
  cached = parsed.data;
  return cached;
}

/** Tests change the environment between cases. */
export function resetEnvCache(): void {
  cached = undefined;
}
