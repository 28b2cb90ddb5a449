import "server-only";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { z } from "zod";
import { consoleDb } from "@/lib/console/store/client";
import { clientAddress } from "@/lib/console/rate-limit";
import { deleteVaultSession } from "@/lib/console/vault";
import { env } from "@/lib/env";
import { sessionCookieSecure } from "./cookies";
import { demoAllowed, demoWhoSchema, readDemoUser } from "./demo";
import { SIGN_IN_ERROR } from "@/lib/contract/sign-in-messages";
import { authSecret } from "./secret";
import { SignInError, signInWithKey } from "./sign-in";

/**
 * next-auth (v4) for the console. Sign-in is an API key pair checked against the
 * gateway; the key goes into the server-side vault and the cookie (an encrypted
 * JWT) carries only the vault's session id and display fields.
 */

const apiKeyCredentialsSchema = z.object({
  access_key_id: z.string().trim().min(1).max(128),
  secret_key: z.string().trim().min(1).max(512),
});

/** next-auth turns a thrown message into ?error=; ours are codes from lib/contract/sign-in-messages. */
function refuse(code: string): never {
  throw new Error(code);
}

interface SignedInUser {
  id: string;
  email: string;
  name: string;
  userId: string;
}

async function openSession(input: Parameters<typeof signInWithKey>[0]): Promise<SignedInUser> {
  try {
    const { sessionId, userId, email } = await signInWithKey(input);
    return { id: sessionId, email, name: email, userId };
  } catch (error) {
    if (error instanceof SignInError) refuse(error.code);
    logAuth("error", "sign-in failed", error);
    refuse(SIGN_IN_ERROR.gatewayUnavailable);
  }
}

function headersOf(req: { headers?: Record<string, unknown> } | undefined): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req?.headers ?? {})) out[k.toLowerCase()] = typeof v === "string" ? v : undefined;
  return out;
}

/** Logs without metadata bodies: nothing a request carried (keys included) reaches the log. */
function logAuth(level: "error" | "warn", msg: string, error?: unknown): void {
  const detail = error instanceof Error ? error.message : error === undefined ? undefined : String(error);
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
        const clientIp = clientAddress(headersOf(req), config.STRATUS_TRUSTED_PROXY_HOPS);
        if (!parsed.success) refuse(SIGN_IN_ERROR.invalidKey);
        return openSession({
          credentials: { accessKeyId: parsed.data.access_key_id, secretKey: parsed.data.secret_key },
          clientIp,
          rateLimited: true,
        });
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
          return openSession({
            credentials: { accessKeyId: user.access_key_id, secretKey: user.secret_key },
            clientIp: clientAddress(headersOf(req), config.STRATUS_TRUSTED_PROXY_HOPS),
            rateLimited: false,
            identity: { userId: user.user_id, email: user.email },
          });
        },
      }),
    );
  }

  return {
    secret: authSecret(),
    providers,
    useSecureCookies: sessionCookieSecure(),
    session: { strategy: "jwt", maxAge: config.STRATUS_SESSION_MAX_HOURS * 3600 },
    jwt: { maxAge: config.STRATUS_SESSION_MAX_HOURS * 3600 },
    pages: { signIn: "/sign-in", error: "/sign-in" },
    callbacks: {
      // The token holds the vault's session id and what the page shows; never the key.
      jwt({ token, user }) {
        if (user) {
          const signedIn = user as Partial<SignedInUser>;
          return { sid: user.id, uid: signedIn.userId ?? "", email: user.email ?? "" };
        }
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
          await deleteVaultSession(await consoleDb(), token.sid);
        } catch (error) {
          logAuth("error", "could not delete the signed-out session", error);
        }
      },
    },
    logger: {
      error: (code) => logAuth("error", `next-auth: ${code}`),
      warn: (code) => logAuth("warn", `next-auth: ${code}`),
      debug: () => {},
    },
  };
}

let cached: NextAuthOptions | undefined;

/** Built on first use (at request time, never during `next build`): AUTH_SECRET is read here. */
export function getAuthOptions(): NextAuthOptions {
  cached ??= buildOptions();
  return cached;
}
