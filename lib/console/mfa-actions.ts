"use server";

import "server-only";
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { cookies } from "next/headers";
import { z } from "zod";
import { withSession, type ActionResult } from "./action-session";
import { movedSessionCookie } from "./cookies";
import {
  answerWithRecoveryCode,
  answerWithTotp,
  confirmTotpEnrolment,
  postponeEnrolment,
  regenerateRecoveryCodes,
  removeOwnFactor,
  startTotpEnrolment,
  type Granted,
  type TotpEnrolment,
} from "./mfa";
import { answerWithPasskey, passkeyAssertionOptions, passkeyRegistrationOptions, passkeyResponseSchema, registerPasskey, relyingPartyOf } from "./mfa-passkeys";
import { consoleOrigin } from "./origin";
import type { ConsoleSession } from "./session";

/**
 * The browser's side of MFA: server actions (Next.js checks that they come from this site) for the
 * MFA step of sign-in and the person's own Sign-in security page. Each reads the session from the
 * request's cookie: answering a challenge needs a session that owes a factor, or an active one that
 * confirms it is the person before changing their factors (lib/console/mfa.ts mustConfirmItsYou);
 * managing one's factors needs an active session (enrolment is also open to a session that must enrol
 * to finish signing in).
 * Nothing secret goes back but what the person must see once (a new TOTP secret, recovery codes).
 */

/**
 * A factor given to a session owing one moves the session to a new id: the cookie of this response,
 * the answer's own, names it from now on (the one the browser sent names nothing any more).
 */
async function given<T extends Granted>(session: ConsoleSession, granted: T): Promise<T> {
  if (granted.sessionId) {
    const cookie = await movedSessionCookie(granted.sessionId, session);
    (await cookies()).set(cookie.name, cookie.value, cookie.options);
  }
  return granted;
}

const text = (max: number) => z.string().max(max);
const bad = (field: string, error: string): ActionResult<never> => ({ ok: false, error, field });

export async function answerTotpAction(code: unknown): Promise<ActionResult<{ done: boolean }>> {
  const parsed = text(32).safeParse(code);
  if (!parsed.success) return bad("code", "Enter the 6-digit code from your authenticator app");
  return withSession("either", async (s) => ({ ok: true, done: (await given(s, await answerWithTotp(s, parsed.data))).satisfied }));
}

export async function answerRecoveryCodeAction(code: unknown): Promise<ActionResult<{ done: boolean; left: number }>> {
  const parsed = text(64).safeParse(code);
  if (!parsed.success) return bad("code", "Enter one of your recovery codes");
  return withSession("either", async (s) => {
    const result = await given(s, await answerWithRecoveryCode(s, parsed.data));
    return { ok: true, done: result.satisfied, left: result.left };
  });
}

export async function postponeAction(): Promise<ActionResult<{ done: boolean }>> {
  return withSession("pending", async (s) => ({ ok: true, done: (await given(s, await postponeEnrolment(s))).satisfied }));
}

export async function startTotpAction(): Promise<ActionResult<{ enrolment: TotpEnrolment }>> {
  return withSession("either", async (s) => ({ ok: true, enrolment: await startTotpEnrolment(s) }));
}

export async function confirmTotpAction(factorId: unknown, code: unknown): Promise<ActionResult<{ done: boolean; recoveryCodes: string[] | null }>> {
  const id = z.uuid().safeParse(factorId);
  const parsed = text(32).safeParse(code);
  if (!id.success) return bad("session", "Start again: this set-up is no longer pending");
  if (!parsed.success) return bad("code", "Enter the 6-digit code your authenticator app shows");
  return withSession("either", async (s) => {
    const result = await given(s, await confirmTotpEnrolment(s, id.data, parsed.data));
    return { ok: true, done: result.satisfied, recoveryCodes: result.recoveryCodes };
  });
}

const rp = async () => relyingPartyOf(await consoleOrigin());

export async function passkeyRegistrationOptionsAction(): Promise<ActionResult<{ options: Awaited<ReturnType<typeof passkeyRegistrationOptions>> }>> {
  return withSession("either", async (s) => ({ ok: true, options: await passkeyRegistrationOptions(s, await rp()) }));
}


export async function registerPasskeyAction(response: unknown, name: unknown): Promise<ActionResult<{ done: boolean; recoveryCodes: string[] | null }>> {
  const parsed = passkeyResponseSchema.safeParse(response);
  const label = text(64).safeParse(name ?? "");
  if (!parsed.success) return bad("credential", "The browser's answer is not a passkey registration");
  if (!label.success) return bad("name", "A name of at most 64 characters");
  return withSession("either", async (s) => {
    const result = await given(s, await registerPasskey(s, await rp(), parsed.data as unknown as RegistrationResponseJSON, label.data));
    return { ok: true, done: result.satisfied, recoveryCodes: result.recoveryCodes };
  });
}

export async function passkeyAssertionOptionsAction(): Promise<ActionResult<{ options: Awaited<ReturnType<typeof passkeyAssertionOptions>> }>> {
  return withSession("either", async (s) => ({ ok: true, options: await passkeyAssertionOptions(s, await rp()) }));
}

export async function answerPasskeyAction(response: unknown): Promise<ActionResult<{ done: boolean }>> {
  const parsed = passkeyResponseSchema.safeParse(response);
  if (!parsed.success) return bad("credential", "The browser's answer is not a passkey sign-in");
  return withSession("either", async (s) => ({ ok: true, done: (await given(s, await answerWithPasskey(s, await rp(), parsed.data as unknown as AuthenticationResponseJSON))).satisfied }));
}

export async function newRecoveryCodesAction(): Promise<ActionResult<{ recoveryCodes: string[] }>> {
  return withSession("active", async (s) => ({ ok: true, recoveryCodes: await regenerateRecoveryCodes(s) }));
}

export async function removeFactorAction(factorId: unknown): Promise<ActionResult> {
  const id = z.uuid().safeParse(factorId);
  if (!id.success) return bad("credential", "No such factor");
  return withSession("active", async (s) => {
    await removeOwnFactor(s, id.data);
    return { ok: true };
  });
}
