import "server-only";
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { z } from "zod";
import { isPlainText } from "@/lib/contract/common";
import { uniqueClash } from "@/lib/gateway/errors";
import { addWebauthnFactor, listFactors, recordWebauthnUse } from "@/lib/gateway/store/queries/mfa-factors";
import { afterEnrolment, factorStore, gate, grant, ISSUER, mayEnrol, MfaError, refuse, type Enrolled, type Granted } from "./mfa";
import { clearSignInFailures } from "./rate-limit";
import type { ConsoleSession } from "./session";
import { consoleDb } from "./store/client";
import { setWebauthnChallenge, takeWebauthnChallenge } from "./vault";

/**
 * Passkeys and security keys (WebAuthn) as second factors: adding one, and answering the MFA step
 * with one. The challenge of each ceremony is kept on the session (the vault) and taken once.
 *
 * Library: @simplewebauthn/server (registration and assertion checks).
 */

/** The relying party: the console's own origin, as the browser sees it (its host is the RP ID). */
export interface RelyingParty {
  origin: string;
}

const LOOPBACK_IPS = new Set(["127.0.0.1", "[::1]"]);

/**
 * The relying party for a console reached at `origin` (NEXTAUTH_URL's, or the request's). Browsers take
 * no IP address as a WebAuthn RP ID, so a console configured on a loopback address is, for passkeys,
 * the same console reached as localhost (same port).
 */
export function relyingPartyOf(origin: string): RelyingParty {
  const url = new URL(origin);
  if (!LOOPBACK_IPS.has(url.hostname)) return { origin: url.origin };
  url.hostname = "localhost";
  return { origin: url.origin };
}

const rpId = (rp: RelyingParty) => new URL(rp.origin).hostname;

/**
 * The key is the second factor: having it (user presence) is what counts, and a PIN or fingerprint on it
 * is welcome (the options say "preferred") but not asked for. @simplewebauthn/server requires user
 * verification unless told otherwise, which refused every security key without a PIN.
 */
const USER_VERIFICATION_REQUIRED = false;

/** Options for adding a passkey or security key (the challenge is kept on the session). */
export async function passkeyRegistrationOptions(session: ConsoleSession, rp: RelyingParty): Promise<PublicKeyCredentialCreationOptionsJSON> {
  await mayEnrol(session, "webauthn");
  const { db } = await factorStore();
  const existing = (await listFactors(db, session.userId)).filter((f) => f.method === "webauthn" && f.credentialId);
  const options = await generateRegistrationOptions({
    rpName: ISSUER,
    rpID: rpId(rp),
    userName: session.email,
    userID: new TextEncoder().encode(session.userId),
    attestationType: "none",
    excludeCredentials: existing.map((f) => ({ id: f.credentialId!, transports: f.transports ?? undefined })),
    authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" },
  });
  await setWebauthnChallenge(await consoleDb(), session.sessionId, options.challenge);
  return options;
}

export async function registerPasskey(session: ConsoleSession, rp: RelyingParty, response: RegistrationResponseJSON, name: string): Promise<Enrolled> {
  const label = name.trim() || "Passkey";
  if (label.length > 64) throw new MfaError("A name of at most 64 characters", "name");
  // Checked before the ceremony's challenge is spent, as the API checks every name it takes.
  if (!isPlainText(label)) throw new MfaError("A name without control characters or invisible formatting characters", "name");
  await mayEnrol(session, "webauthn");
  const challenge = await takeWebauthnChallenge(await consoleDb(), session.sessionId);
  if (!challenge) throw new MfaError("Start again: that request expired", "credential");
  let verified;
  try {
    verified = await verifyRegistrationResponse({ response, expectedChallenge: challenge, expectedOrigin: rp.origin, expectedRPID: rpId(rp), requireUserVerification: USER_VERIFICATION_REQUIRED });
  } catch {
    throw new MfaError("The security key's answer could not be verified", "credential");
  }
  if (!verified.verified) throw new MfaError("The security key's answer could not be verified", "credential");
  const { credential } = verified.registrationInfo;
  const { db } = await factorStore();
  try {
    await addWebauthnFactor(db, {
      userId: session.userId,
      name: label,
      credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey).toString("base64url"),
      signCount: credential.counter,
      transports: credential.transports ?? [],
    });
  } catch (error) {
    // The credential id is unique; anything else (the store away) is no fault of the key's.
    if (uniqueClash(error)) throw new MfaError("That security key is already registered", "credential");
    throw error;
  }
  return afterEnrolment(session, "webauthn");
}

/** Options for signing in with one of the person's passkeys. */
export async function passkeyAssertionOptions(session: ConsoleSession, rp: RelyingParty): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const { db } = await factorStore();
  const keys = (await listFactors(db, session.userId)).filter((f) => f.method === "webauthn" && f.credentialId);
  if (keys.length === 0) throw new MfaError("You have no passkey or security key yet", "credential");
  const options = await generateAuthenticationOptions({
    rpID: rpId(rp),
    allowCredentials: keys.map((f) => ({ id: f.credentialId!, transports: f.transports ?? undefined })),
    userVerification: "preferred",
  });
  await setWebauthnChallenge(await consoleDb(), session.sessionId, options.challenge);
  return options;
}

export async function answerWithPasskey(session: ConsoleSession, rp: RelyingParty, response: AuthenticationResponseJSON): Promise<Granted> {
  // An answer to no challenge is checked against nothing: it takes none of the person's attempts.
  const challenge = await takeWebauthnChallenge(await consoleDb(), session.sessionId);
  if (!challenge) throw new MfaError("Start again: that request expired", "credential");
  await gate(session.userId);
  const { db } = await factorStore();
  const factor = (await listFactors(db, session.userId)).find((f) => f.method === "webauthn" && f.credentialId === response.id);
  if (!factor?.publicKey) return refuse(session.userId, "That passkey is not one of yours");
  let result;
  try {
    result = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rpId(rp),
      requireUserVerification: USER_VERIFICATION_REQUIRED,
      credential: { id: factor.credentialId!, publicKey: Buffer.from(factor.publicKey, "base64url"), counter: factor.signCount, transports: factor.transports ?? undefined },
    });
  } catch {
    return refuse(session.userId, "The passkey's answer could not be verified");
  }
  if (!result.verified) return refuse(session.userId, "The passkey's answer could not be verified");
  if (!(await recordWebauthnUse(db, factor.id, result.authenticationInfo.newCounter))) {
    return refuse(session.userId, "The passkey's answer could not be verified");
  }
  await clearSignInFailures(await consoleDb(), `mfa:${session.userId}`);
  return grant(session, "webauthn");
}

const TRANSPORTS = new Set(["ble", "cable", "hybrid", "internal", "nfc", "smart-card", "usb"]);

/**
 * The browser's answer: an object of base64url strings, checked by the WebAuthn library itself; but for the
 * transports a registration lists, which it copies as they come (no signature covers them) and which are stored:
 * the ones WebAuthn names are kept, others dropped (a browser may know newer ones; WebAuthn says to ignore them).
 */
export const passkeyResponseSchema = z.looseObject({
  id: z.string().max(1024),
  rawId: z.string().max(1024),
  type: z.literal("public-key"),
  response: z.looseObject({
    transports: z
      .array(z.string().max(32))
      .max(16)
      .optional()
      .transform((list) => list?.filter((t) => TRANSPORTS.has(t))),
  }),
});
