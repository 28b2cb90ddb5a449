import "server-only";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { z } from "zod";
import { consoleDb } from "@/lib/console/store/client";
import { clientAddress } from "@/lib/console/rate-limit";
import { vaultLimits } from "@/lib/console/config";
import { deleteVaultSession, lookupVaultSession, signOutVaultSession } from "@/lib/console/vault";
import { env } from "@/lib/env";
import { authCookies, sessionCookieName, sessionCookieSecure } from "./cookies";
import { demoAllowed, demoWhoSchema, readDemoUser } from "./demo";
import { sameSitePath, SIGN_IN_ERROR } from "@/lib/contract/sign-in-messages";
import { describeOidcFailure } from "./oidc-http";
import { authSecret } from "./secret";
import { SignInError, signInWithKey } from "./sign-in";
import { sessionIdFromToken } from "./token";
import { errorDetail } from "@/lib/error-detail";

/**
 * next-auth (v4) for the console. Sign-in is an API key pair checked against the
 * gateway; the key goes into the server-side vault and the cookie (an encrypted
 * JWT) carries only the vault's session id and display fields.
 */

const apiKeyCredentialsSchema = z.object({
  // Printable ASCII, as issued: anything else cannot be sent in a request header, and is no key of anyone's.
  access_key_id: z.string().trim().min(1).max(128).regex(/^[\x21-\x7e]+$/),
  secret_key: z.string().trim().min(1).max(512),
});

/** next-auth turns a thrown message into ?error=; ours are codes from lib/contract/sign-in-messages. */
function refuse(code: string): never {
  throw new Error(code);
}

export interface SignedInUser {
  id: string;
  email: string;
  name: string;
  userId: string;
}

async function openSession(input: Parameters<typeof signInWithKey>[0], headers: Record<string, string | undefined>): Promise<SignedInUser> {
  try {
    const { sessionId, userId, email } = await signInWithKey(input);
    // The browser's cookie is about to name the new session: the one it named before ends now,
    // so a copy of the old cookie is worth nothing (signing in as someone else included).
    await endPreviousSession(headers, sessionId);
    return { id: sessionId, email, name: email, userId };
  } catch (error) {
    if (error instanceof SignInError) refuse(error.code);
    logAuth("error", "sign-in failed", error);
    refuse(SIGN_IN_ERROR.gatewayUnavailable);
  }
}

/** The session cookie's value in a Cookie header, if any. */
function sessionCookieValue(cookieHeader: string | undefined): string | undefined {
  const name = sessionCookieName();
  for (const part of (cookieHeader ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

export async function endPreviousSession(headers: Record<string, string | undefined>, keep: string): Promise<void> {
  const previous = await sessionIdFromToken(sessionCookieValue(headers.cookie), authSecret());
  if (previous && previous !== keep) await deleteVaultSession(await consoleDb(), previous);
}

/** Thrown by the jwt callback for a cookie whose session is over: next-auth then answers "signed out" and clears it. */
class SessionOverError extends Error {
  constructor() {
    super("session over");
    this.name = "SessionOverError";
  }
}

export function headersOf(req: { headers?: Record<string, unknown> } | undefined): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req?.headers ?? {})) out[k.toLowerCase()] = typeof v === "string" ? v : undefined;
  return out;
}

/** next-auth's codes for a sign-in with an OpenID provider that failed. */
const OAUTH_FAILURES = new Set(["OAUTH_CALLBACK_ERROR", "OAUTH_CALLBACK_HANDLER_ERROR", "SIGNIN_OAUTH_ERROR", "OAUTH_PARSE_PROFILE_ERROR", "OAUTH_GET_ACCESS_TOKEN_ERROR"]);

/** Logs without metadata bodies: nothing a request carried (keys included) reaches the log. */
export function logAuth(level: "error" | "warn", msg: string, error?: unknown): void {
  const detail = errorDetail(error);
  process.stderr.write(`${JSON.stringify({ level, msg, component: "auth", ...(detail ? { error: detail } : {}) })}\n`);
}

function buildOptions(): NextAuthOptions {
  const config = env();
  const providers: NextAuthOptions["providers"] = [
    CredentialsProvider({
      id: "api-key",
      name: "API key",
      credentials: {
        access_key_id: { label: "Access key ID", type: "text" },
        secret_key: { label: "Secret key", type: "password" },
      },
      async authorize(credentials, req) {
        const parsed = apiKeyCredentialsSchema.safeParse(credentials);
        const headers = headersOf(req);
        const clientIp = clientAddress(headers, config.STRATUS_TRUSTED_PROXY_HOPS);
        if (!parsed.success) refuse(SIGN_IN_ERROR.invalidKey);
        return openSession(
          {
            credentials: { accessKeyId: parsed.data.access_key_id, secretKey: parsed.data.secret_key },
            clientIp,
            rateLimited: true,
          },
          headers,
        );
      },
    }),
  ];
  if (demoAllowed()) {
    providers.push(
      CredentialsProvider({
        id: "demo",
        name: "Demo",
        credentials: { who: { label: "Who", type: "text" } },
        async authorize(credentials, req) {
          const who = demoWhoSchema.safeParse(credentials?.who);
          if (!who.success) refuse(SIGN_IN_ERROR.demoUnavailable);
          const user = await readDemoUser(who.data);
          if (!user) refuse(SIGN_IN_ERROR.demoUnavailable);
          const headers = headersOf(req);
          return openSession(
            {
              credentials: { accessKeyId: user.access_key_id, secretKey: user.secret_key },
              clientIp: clientAddress(headers, config.STRATUS_TRUSTED_PROXY_HOPS),
              rateLimited: false,
              identity: { userId: user.user_id, email: user.email },
            },
            headers,
          );
        },
      }),
    );
  }

  return {
    secret: authSecret(),
    providers,
    useSecureCookies: sessionCookieSecure(),
    cookies: authCookies(),
    session: { strategy: "jwt", maxAge: config.STRATUS_SESSION_MAX_HOURS * 3600 },
    jwt: { maxAge: config.STRATUS_SESSION_MAX_HOURS * 3600 },
    pages: { signIn: "/sign-in", error: "/sign-in" },
    callbacks: {
      // next-auth's own check lets "/\t/host" through as a path: only a same-site path, else the site's root.
      redirect({ url, baseUrl }) {
        // next-auth passes the request's callbackUrl on as it came.
        if (typeof url !== "string") return baseUrl;
        let candidate = url;
        if (!url.startsWith("/")) {
          try {
            const parsed = new URL(url);
            if (parsed.origin !== new URL(baseUrl).origin) return baseUrl;
            candidate = `${parsed.pathname}${parsed.search}${parsed.hash}`;
          } catch {
            return baseUrl;
          }
        }
        return `${baseUrl}${sameSitePath(candidate) ?? "/"}`;
      },
      // The token holds the vault's session id and what the page shows; never the key.
      async jwt({ token, user }) {
        if (user) {
          const signedIn = user as Partial<SignedInUser>;
          return { sid: user.id, uid: signedIn.userId ?? "", email: user.email ?? "" };
        }
        // A token is only as good as its vault session: signed out, expired or revoked, it names no one
        // (next-auth's /api/auth/session then answers signed out and clears the cookie rather than renewing it).
        const sid = typeof token.sid === "string" ? token.sid : "";
        const state = sid ? await lookupVaultSession(await consoleDb(), sid, vaultLimits()) : { status: "none" as const };
        if (state.status !== "active") throw new SessionOverError();
        return { sid: token.sid, uid: token.uid, email: token.email };
      },
      session({ session, token }) {
        const email = typeof token.email === "string" ? token.email : "";
        return { expires: session.expires, user: { id: typeof token.uid === "string" ? token.uid : "", email, name: email } };
      },
    },
    events: {
      async signOut({ token }) {
        if (typeof token?.sid !== "string") return;
        try {
          await signOutVaultSession(consoleDb, token.sid, vaultLimits(), { log: (level, message) => logAuth(level, message) });
        } catch (error) {
          logAuth("error", "could not delete the signed-out session now: refused here, and tried again until the store takes it", error);
        }
      },
    },
    logger: {
      error: (code, metadata) => {
        // A cookie of an ended session: the expected answer, not an error.
        if (code === "JWT_SESSION_ERROR" && metadata instanceof SessionOverError) return;
        // Why a provider's answer was refused (a clock off, a key not published, another issuer, the token
        // endpoint's error): openid-client's message, which names claims and endpoints, never a token. Other
        // codes' metadata may carry what a person typed: not logged.
        const failure = OAUTH_FAILURES.has(code) ? ((metadata as { error?: unknown }).error ?? metadata) : undefined;
        logAuth("error", `next-auth: ${code}`, failure === undefined ? undefined : new Error(describeOidcFailure(failure)));
      },
      warn: (code) => logAuth("warn", `next-auth: ${code}`),
      debug: () => {},
    },
  };
}

let cached: { env: ReturnType<typeof env>; options: NextAuthOptions } | undefined;

/** Built on first use (at request time, never during `next build`): AUTH_SECRET is read here. Built again if the environment is read again. */
export function getAuthOptions(): NextAuthOptions {
  const current = env();
  if (cached?.env !== current) cached = { env: current, options: buildOptions() };
  return cached.options;
}
