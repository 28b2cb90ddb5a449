import { and, eq, sql } from "drizzle-orm";
import { encode } from "next-auth/jwt";
import { NextRequest } from "next/server";
import { RequestCookies } from "next/dist/server/web/spec-extension/cookies";
import { generate } from "otplib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { handleCloudRequest } from "@/lib/console/bff";
import { cloudFetch } from "@/lib/console/gateway-client";
import { operationPath } from "@/lib/contract/operations";
import { createConsoleTestbed, type ConsoleTestbed } from "@/lib/console/testing";
import { resetPersonMfa, setMfaGraceDays } from "@/lib/gateway/store/queries/mfa-factors";
import { memberships } from "@/lib/gateway/store/schema/identity";
import { setMfaMethods } from "@/lib/gateway/store/queries/mfa";
import { sessions, signInAttempts } from "./store/schema";
import { sessionCookieName } from "./cookies";
import {
  answerWithRecoveryCode,
  answerWithTotp,
  confirmTotpEnrolment,
  finishSignIn,
  grant,
  MfaError,
  mfaStepState,
  ownFactors,
  postponeEnrolment,
  regenerateRecoveryCodes,
  removeOwnFactor,
  startTotpEnrolment,
  type Granted,
} from "./mfa";
import type { RegistrationResponseJSON } from "@simplewebauthn/server";
import { withSession } from "./action-session";
import { answerWithPasskey, passkeyAssertionOptions, passkeyRegistrationOptions, passkeyResponseSchema, registerPasskey, relyingPartyOf } from "./mfa-passkeys";
import { authSecret } from "./secret";
import { sessionStateFromCookies, type ConsoleSession } from "./session";
import { signInWithKey } from "./sign-in";

/**
 * MFA enforced on the console's real path: a sign-in with a key of a person whose organization requires
 * MFA opens a session that neither /api/cloud nor the session check lets through until a second factor
 * is given. The codes are computed here as an authenticator app computes them (otplib, RFC 6238).
 * Passkeys are exercised end to end in a browser (e2e/mfa.spec.ts, Chromium's virtual authenticator).
 */

let bed: ConsoleTestbed;
beforeAll(async () => {
  bed = await createConsoleTestbed();
});
afterAll(() => bed.close());

const gw = () => bed.t.gateway.store.db;
const org = () => bed.t.demo.organization_id;

afterEach(async () => {
  await setMfaMethods(gw(), org(), [], new Date());
  await setMfaGraceDays(gw(), org(), 0);
  for (const who of ["owner", "member", "auditor"] as const) await resetPersonMfa(gw(), bed.t.demo[who].user_id);
  await bed.db.delete(signInAttempts);
});

async function signIn(who: "owner" | "member" | "auditor") {
  const user = bed.t.demo[who];
  const signedIn = await signInWithKey({ credentials: { accessKeyId: user.access_key_id, secretKey: user.secret_key }, clientIp: "203.0.113.91", rateLimited: false });
  /** The session id the browser's cookie names: a new one at each factor given, and once the step is finished. */
  let sid = signedIn.sessionId;
  const cookieFor = async (id: string) => `${sessionCookieName()}=${await encode({ token: { sid: id, uid: signedIn.userId, email: signedIn.email }, secret: authSecret() })}`;
  const request = async (id = sid) => new Request(`http://console.test/api/cloud${operationPath("listProjects")}`, { headers: { cookie: await cookieFor(id), host: "console.test" } });
  const state = async (id = sid) => sessionStateFromCookies(new RequestCookies((await request(id)).headers));
  /** The session as the MFA step reads it now (its factors move on as they are given). */
  const session = async (): Promise<ConsoleSession> => {
    const s = await state();
    if (s.status !== "mfa" && s.status !== "active") throw new Error(`no session: ${s.status}`);
    return s.session;
  };
  const call = async () => handleCloudRequest(await request(), { session: () => state(), fetch: cloudFetch, maxBodyBytes: 1 << 20, trustedProxyHops: 1 });
  /** The step's end (app/(auth)/sign-in/finish): true when the session went on under a new id, which the cookie names from now on. */
  const finish = async () => {
    const promoted = await finishSignIn(await session());
    if (promoted) sid = promoted;
    return promoted !== null;
  };
  /**
   * A factor's answer as the browser takes it: the cookie names the session's new id from then on, and
   * the id it named before, nothing. Returns the answer without the id.
   */
  const gave = async <T extends Granted>(granted: T): Promise<Omit<T, "sessionId">> => {
    const { sessionId, ...rest } = granted;
    const before = sid;
    expect(sessionId, "a pending session moves at each factor given").toEqual(expect.any(String));
    sid = sessionId!;
    expect(sid).not.toBe(before);
    expect((await state(before)).status).toBe("expired");
    return rest;
  };
  return { signedIn, request, state, session, call, finish, gave };
}

/** Enrols an authenticator app for the person; returns its secret and the recovery codes shown. */
async function enrolTotp(s: Awaited<ReturnType<typeof signIn>>, at: Date) {
  const enrolment = await startTotpEnrolment(await s.session());
  expect(enrolment.qrCode).toMatch(/^data:image\/svg\+xml;base64,/);
  expect(enrolment.secret).toMatch(/^[A-Z2-7]{16,}$/);
  const code = await generate({ secret: enrolment.secret, epoch: Math.floor(at.getTime() / 1000) });
  const session = await s.session();
  const done = await confirmTotpEnrolment(session, enrolment.factorId, code, at);
  return { secret: enrolment.secret, ...(session.mfaPending ? await s.gave(done) : done) };
}

const rp = { origin: "http://console.test" };
const codeAt = (secret: string, at: Date) => generate({ secret, epoch: Math.floor(at.getTime() / 1000) });

/** Has the store refuse every insert, update and delete on `table` with `code` (57P01: shut down, as in a failover; XX000: broke). */
async function storeRefuses(table: string, code: "57P01" | "XX000"): Promise<void> {
  await gw().execute(sql.raw(`create or replace function zz_store_fails() returns trigger language plpgsql as $$ begin raise exception 'the disk broke' using errcode = '${code}'; end $$`));
  await gw().execute(sql.raw(`create or replace trigger zz_store_fails before insert or update or delete on ${table} for each statement execute function zz_store_fails()`));
}

async function storeRefusesNothing(table: string): Promise<void> {
  await gw().execute(sql.raw(`drop trigger if exists zz_store_fails on ${table}`));
}

async function messageOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof MfaError) return error.message;
    throw error;
  }
  return "ok";
}

describe("the WebAuthn relying party", () => {
  it("is the console's origin, and localhost for a console on a loopback address (browsers refuse an IP as RP ID)", () => {
    expect(relyingPartyOf("https://console.example.com")).toEqual({ origin: "https://console.example.com" });
    expect(relyingPartyOf("http://127.0.0.1:3100")).toEqual({ origin: "http://localhost:3100" });
    expect(relyingPartyOf("http://[::1]:3000")).toEqual({ origin: "http://localhost:3000" });
    expect(relyingPartyOf("http://10.0.0.5:3000")).toEqual({ origin: "http://10.0.0.5:3000" });
  });
});

describe("a sign-in where the organization requires MFA", () => {
  it("opens no session until a second factor is given: the BFF and the session check refuse it", async () => {
    expect((await (await signIn("member")).state()).status).toBe("active");
    await setMfaMethods(gw(), org(), ["totp"], new Date());
    const s = await signIn("member");
    expect(s.signedIn.mfaPending).toBe(true);
    expect((await s.state()).status).toBe("mfa");
    const refused = await s.call();
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ reason: "mfa_required" });

    const step = await mfaStepState(await s.session());
    expect(step).toMatchObject({ answer: [], enrol: ["totp"], postponeUntil: null, recoveryCodesLeft: 0 });
    expect(step.organizations).toEqual([{ name: "Acme AI Labs", methods: ["totp"], satisfied: false, graceUntil: null }]);
    // Grace is not granted: enrolment cannot wait.
    expect(await messageOf(postponeEnrolment(await s.session()))).toMatch(/requires a second factor now/);

    const now = new Date();
    const enrolled = await enrolTotp(s, now);
    expect(enrolled.satisfied).toBe(true);
    expect(enrolled.recoveryCodes).toHaveLength(10);
    expect(new Set(enrolled.recoveryCodes).size).toBe(10);
    // Satisfied, but pending until the step ends: then under a new id, and the pending one names nothing.
    expect((await s.state()).status).toBe("mfa");
    const pending = s.signedIn.sessionId;
    expect(await s.finish()).toBe(true);
    expect((await s.state()).status).toBe("active");
    expect((await s.session()).sessionId).not.toBe(pending);
    expect((await s.call()).status).toBe(200);
    expect((await s.session()).factors).toEqual(["api_key", "totp"]);
    expect((await s.state(pending)).status).toBe("expired");
    // Finished once: nothing more to finish.
    expect(await s.finish()).toBe(false);
  });

  it("asks an enrolled person for a code: a wrong one is refused, the right one lets them in, and the same code never twice", async () => {
    await setMfaMethods(gw(), org(), ["totp", "webauthn"], new Date());
    const now = new Date();
    const first = await signIn("owner");
    const { secret } = await enrolTotp(first, now);

    const second = await signIn("owner");
    expect(await mfaStepState(await second.session())).toMatchObject({ answer: ["totp"], enrol: [], recoveryCodesLeft: 10 });
    expect(await messageOf(answerWithTotp(await second.session(), "12345"))).toMatch(/6-digit/);
    const wrong = String((Number(await codeAt(secret, now)) + 1) % 1_000_000).padStart(6, "0");
    expect(await messageOf(answerWithTotp(await second.session(), wrong, now))).toMatch(/not valid/);
    // The code that confirmed the app is spent.
    expect(await messageOf(answerWithTotp(await second.session(), await codeAt(secret, now), now))).toMatch(/not valid/);
    expect((await second.state()).status).toBe("mfa");
    const next = new Date(now.getTime() + 30_000);
    expect(await second.gave(await answerWithTotp(await second.session(), await codeAt(secret, next), next))).toEqual({ satisfied: true });
    expect(await second.finish()).toBe(true);
    expect((await second.call()).status).toBe(200);
    expect((await second.session()).factors).toEqual(["api_key", "totp"]);

    // Another sign-in cannot reuse that step's code.
    const third = await signIn("owner");
    expect(await messageOf(answerWithTotp(await third.session(), await codeAt(secret, next), next))).toMatch(/not valid/);
    // Nor, on a replica whose clock is a minute behind (no step after the one taken is within its reach), any code: it
    // is refused as one, not failed as the console's own error.
    const behind = new Date(now.getTime() - 60_000);
    expect(await messageOf(answerWithTotp(await third.session(), await codeAt(secret, behind), behind))).toMatch(/not valid/);
    // Holding the key alone, nobody adds a factor of their own to get past the step.
    expect(await messageOf(startTotpEnrolment(await third.session()))).toMatch(/second factor you already have/);
    expect(await messageOf(passkeyRegistrationOptions(await third.session(), { origin: "http://console.test" }))).toMatch(/second factor you already have/);
    // No passkey yet: none can be asked for.
    expect(await messageOf(passkeyAssertionOptions(await third.session(), { origin: "http://console.test" }))).toMatch(/no passkey/);
  });

  it("takes each recovery code once, in place of the factor", async () => {
    await setMfaMethods(gw(), org(), ["webauthn", "totp"], new Date());
    const { recoveryCodes } = await enrolTotp(await signIn("auditor"), new Date());
    const code = recoveryCodes![3]!;
    const s = await signIn("auditor");
    expect(await messageOf(answerWithRecoveryCode(await s.session(), "not a code"))).toMatch(/recovery codes/);
    expect(await s.gave(await answerWithRecoveryCode(await s.session(), code.toLowerCase().replace("-", " ")))).toEqual({ satisfied: true, left: 9 });
    expect((await s.session()).factors).toEqual(["api_key", "recovery_code"]);
    const again = await signIn("auditor");
    expect(await messageOf(answerWithRecoveryCode(await again.session(), code))).toMatch(/already used/);
    expect((await again.state()).status).toBe("mfa");
  });

  it("gives a recovery code back when the sign-in it was spent for fails after it (the session's move alone refused)", async () => {
    await setMfaMethods(gw(), org(), ["totp"], new Date());
    const { recoveryCodes } = await enrolTotp(await signIn("auditor"), new Date());
    const code = recoveryCodes![5]!;
    const s = await signIn("auditor");
    await storeRefuses("console_sessions", "57P01");
    try {
      await expect(answerWithRecoveryCode(await s.session(), code)).rejects.toMatchObject({ cause: expect.objectContaining({ code: "57P01" }) });
    } finally {
      await storeRefusesNothing("console_sessions");
    }
    expect((await s.state()).status).toBe("mfa");
    // Still the person's: the same code signs the same sign-in in now, and is then spent.
    expect(await s.gave(await answerWithRecoveryCode(await s.session(), code))).toEqual({ satisfied: true, left: 9 });
  });

  it("enrols a first factor whose recovery codes cannot be made: the factor is given and the session moves; the codes are made later", async () => {
    await setMfaMethods(gw(), org(), ["totp"], new Date());
    const s = await signIn("member");
    const enrolment = await startTotpEnrolment(await s.session());
    const now = new Date();
    await storeRefuses("user_recovery_codes", "XX000");
    let enrolled: Awaited<ReturnType<typeof confirmTotpEnrolment>>;
    try {
      enrolled = await confirmTotpEnrolment(await s.session(), enrolment.factorId, await codeAt(enrolment.secret, now), now);
    } finally {
      await storeRefusesNothing("user_recovery_codes");
    }
    expect(enrolled).toMatchObject({ satisfied: true, recoveryCodes: null });
    // The answer carries the session's new id, for the cookie: the sign-in goes on.
    await s.gave(enrolled);
    expect(await s.finish()).toBe(true);
    expect((await ownFactors(bed.t.demo.member.user_id)).recoveryCodesLeft).toBe(0);
  });

  it("makes a person wait after five wrong codes, even with the right one", async () => {
    await setMfaMethods(gw(), org(), ["totp"], new Date());
    const now = new Date();
    const { secret } = await enrolTotp(await signIn("member"), now);
    const s = await signIn("member");
    for (let i = 0; i < 5; i++) expect(await messageOf(answerWithTotp(await s.session(), "000000", now))).toMatch(/not valid/);
    const later = new Date(now.getTime() + 30_000);
    expect(await messageOf(answerWithTotp(await s.session(), await codeAt(secret, later), later))).toMatch(/Too many wrong codes; try again in 15 minutes/);
    expect((await s.state()).status).toBe("mfa");
  });

  it("counts codes sent together: of twenty wrong ones at once, five at most are checked", async () => {
    await setMfaMethods(gw(), org(), ["totp"], new Date());
    const now = new Date();
    const { secret } = await enrolTotp(await signIn("member"), now);
    const s = await signIn("member");
    const session = await s.session();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => messageOf(answerWithTotp(session, String(100_000 + i), now))));
    const checked = answers.filter((m) => /not valid/.test(m)).length;
    expect(checked).toBeLessThanOrEqual(5);
    expect(answers.filter((m) => /Too many wrong codes/.test(m))).toHaveLength(20 - checked);
    // Each code checked holds its attempt, the refused ones none: five wrong codes in all, then even the right one waits.
    expect(await bed.db.select().from(signInAttempts)).toHaveLength(checked);
    for (let i = checked; i < 5; i++) expect(await messageOf(answerWithTotp(session, "000000", now))).toMatch(/not valid/);
    expect(await messageOf(answerWithTotp(await s.session(), await codeAt(secret, now), now))).toMatch(/Too many wrong codes/);
  });

  it("lets enrolment wait within the grace period the admin set, and not once it is over", async () => {
    await setMfaMethods(gw(), org(), ["webauthn"], new Date());
    await setMfaGraceDays(gw(), org(), 7);
    const s = await signIn("member");
    const step = await mfaStepState(await s.session());
    expect(step.enrol).toEqual(["webauthn"]);
    expect(Date.parse(step.postponeUntil!)).toBeGreaterThan(Date.now() + 6 * 86_400_000);
    expect(await s.gave(await postponeEnrolment(await s.session()))).toEqual({ satisfied: true });
    expect(await s.finish()).toBe(true);
    expect((await s.call()).status).toBe(200);
    expect((await s.session()).factors).toEqual(["api_key", "grace"]);

    // The grace outlasts the session's 12 hours: the session keeps its own end.
    const [whole] = await bed.db.select({ expiresAt: sessions.expiresAt }).from(sessions).where(eq(sessions.id, (await s.session()).sessionId));
    expect(whole!.expiresAt.getTime()).toBeLessThan(Date.now() + 86_400_000);

    const eightDaysOn = new Date(Date.now() + 8 * 86_400_000);
    const late = await signIn("member");
    expect((await mfaStepState(await late.session(), eightDaysOn)).postponeUntil).toBeNull();
    expect(await messageOf(postponeEnrolment(await late.session(), eightDaysOn))).toMatch(/requires a second factor now/);
  });

  it("a session that let enrolment wait ends when the grace does, not hours later", async () => {
    // Required six days and 23 hours ago, with a week's grace: an hour of it is left.
    await setMfaMethods(gw(), org(), ["webauthn"], new Date(Date.now() - 7 * 86_400_000 + 3_600_000));
    await setMfaGraceDays(gw(), org(), 7);
    const s = await signIn("member");
    const until = Date.parse((await mfaStepState(await s.session())).postponeUntil!);
    expect(until).toBeLessThan(Date.now() + 3_600_000 + 60_000);
    expect(await s.gave(await postponeEnrolment(await s.session()))).toEqual({ satisfied: true });
    expect(await s.finish()).toBe(true);
    const [row] = await bed.db.select({ expiresAt: sessions.expiresAt }).from(sessions).where(eq(sessions.id, (await s.session()).sessionId));
    expect(row!.expiresAt.getTime()).toBe(until);
  });

  it("counts the grace from when MFA was first required: a method swapped for another does not start it again", async () => {
    await setMfaMethods(gw(), org(), ["totp"], new Date(Date.now() - 8 * 86_400_000));
    await setMfaGraceDays(gw(), org(), 7);
    const over = async () => (await mfaStepState(await (await signIn("member")).session())).postponeUntil;
    expect(await over()).toBeNull();
    // An administrator without the owner's right to require none swaps the method, and back: the grace stays over.
    await setMfaMethods(gw(), org(), ["webauthn"], new Date());
    expect(await over()).toBeNull();
    await setMfaMethods(gw(), org(), ["totp", "webauthn"], new Date());
    await setMfaMethods(gw(), org(), ["totp"], new Date());
    expect(await over()).toBeNull();
    // Required anew after none was (an owner's decision): its grace is a new one.
    await setMfaMethods(gw(), org(), [], new Date());
    await setMfaMethods(gw(), org(), ["totp"], new Date());
    expect(Date.parse((await over())!)).toBeGreaterThan(Date.now() + 6 * 86_400_000);
  });

  it("lets enrolment wait only once a person who has a factor has proven it: the first factor alone never makes a whole session", async () => {
    const now = new Date();
    await setMfaMethods(gw(), org(), ["totp"], now);
    const { secret } = await enrolTotp(await signIn("member"), now);
    // The organization switches to passkeys, with a grace period: the app no longer answers for it.
    await setMfaMethods(gw(), org(), ["webauthn"], now);
    await setMfaGraceDays(gw(), org(), 7);
    const s = await signIn("member");
    expect(await mfaStepState(await s.session())).toMatchObject({ answer: ["totp"], enrol: ["webauthn"], proveFirst: true, postponeUntil: null });
    expect(await messageOf(postponeEnrolment(await s.session()))).toMatch(/second factor you already have/);
    expect((await s.state()).status).toBe("mfa");
    // The app proves it is the person: now the passkey may wait.
    const next = new Date(now.getTime() + 30_000);
    expect(await s.gave(await answerWithTotp(await s.session(), await codeAt(secret, next), next))).toEqual({ satisfied: false });
    expect(Date.parse((await mfaStepState(await s.session())).postponeUntil!)).toBeGreaterThan(Date.now() + 6 * 86_400_000);
    expect(await s.gave(await postponeEnrolment(await s.session()))).toEqual({ satisfied: true });
    expect(await s.finish()).toBe(true);
    expect((await s.session()).factors).toEqual(["api_key", "totp", "grace"]);
  });

  it("gives the id a session moves to only to the answer that moved it: a copy of the cookie from before cannot finish the step", async () => {
    const now = new Date();
    await setMfaMethods(gw(), org(), ["totp"], now);
    const { secret } = await enrolTotp(await signIn("owner"), now);
    const s = await signIn("owner");
    const copy = await s.session();
    const next = new Date(now.getTime() + 30_000);
    expect(await s.gave(await answerWithTotp(await s.session(), await codeAt(secret, next), next))).toEqual({ satisfied: true });
    // Whoever held the pending cookie, asking to finish the moment the answer was recorded, finds nothing to finish.
    expect(await finishSignIn({ ...copy, factors: ["api_key", "totp"] })).toBeNull();
    expect((await s.state(copy.sessionId)).status).toBe("expired");
    expect(await s.finish()).toBe(true);
    expect((await s.call()).status).toBe(200);
  });

  it("has a session signed in without a second factor confirm it is the person before it changes their factors", async () => {
    const now = new Date();
    // No organization asks: the person sets up an app in a whole session (their first factor, with codes).
    const first = await signIn("auditor");
    expect((await first.state()).status).toBe("active");
    expect(await messageOf(regenerateRecoveryCodes(await first.session()))).toMatch(/Set up an authenticator app or a passkey first/);
    const { secret, recoveryCodes } = await enrolTotp(first, now);
    expect(recoveryCodes).toHaveLength(10);
    // Setting it up proved it: the same session may change the factors on.
    expect((await first.session()).factors).toEqual(["api_key", "totp"]);
    expect(await regenerateRecoveryCodes(await first.session())).toHaveLength(10);

    // The next sign-in is asked for nothing: whoever holds the key alone changes nothing.
    const s = await signIn("auditor");
    expect((await s.state()).status).toBe("active");
    const factorId = (await ownFactors(bed.t.demo.auditor.user_id)).factors[0]!.id;
    const session = await s.session();
    for (const change of [() => startTotpEnrolment(session), () => passkeyRegistrationOptions(session, rp), () => regenerateRecoveryCodes(session), () => removeOwnFactor(session, factorId)]) {
      await expect(change()).rejects.toMatchObject({ field: "confirm", message: expect.stringMatching(/Confirm it's you/) });
    }
    expect((await ownFactors(bed.t.demo.auditor.user_id)).factors).toHaveLength(1);
    // The app's code confirms it: the session keeps its id (its other requests go on) and may change them now.
    const id = (await s.session()).sessionId;
    const next = new Date(now.getTime() + 30_000);
    expect(await answerWithTotp(await s.session(), await codeAt(secret, next), next)).toEqual({ satisfied: true });
    expect((await s.session()).sessionId).toBe(id);
    expect((await s.session()).factors).toEqual(["api_key", "totp"]);
    expect((await first.state()).status).toBe("active");
    expect(await regenerateRecoveryCodes(await s.session())).toHaveLength(10);
    // New codes end the person's other sessions, as a removal does: one that took a set of its own goes with it.
    expect((await first.state()).status).toBe("revoked");
    expect((await s.state()).status).toBe("active");
    await removeOwnFactor(await s.session(), factorId);
    expect((await ownFactors(bed.t.demo.auditor.user_id)).factors).toHaveLength(0);
  });

  it("nor clears the person's own factors through /api/cloud until it has: the account page's rule holds there too", async () => {
    const now = new Date();
    const owner = bed.t.demo.owner;
    const enroller = await signIn("owner");
    const { secret } = await enrolTotp(enroller, now);
    const s = await signIn("owner");
    expect((await s.state()).status).toBe("active");
    const reset = async (userId = owner.user_id) => {
      const path = `/api/cloud${operationPath("resetOrganizationPersonMfa", { org_id: org(), user_id: userId })}`;
      const cookie = (await s.request()).headers.get("cookie")!;
      const request = new Request(`http://console.test${path}`, { method: "DELETE", headers: { cookie, host: "console.test", origin: "http://console.test", "sec-fetch-site": "same-origin" } });
      return handleCloudRequest(request, { session: () => s.state(), fetch: cloudFetch, maxBodyBytes: 1 << 20, trustedProxyHops: 1 });
    };
    // The id as the gateway reads it (trimmed), however the path spells it.
    for (const userId of [owner.user_id, `${owner.user_id} `, `${owner.user_id}\t`, ` ${owner.user_id}`]) {
      const refused = await reset(userId);
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { message: string }).message).toMatch(/Confirm it's you/);
      expect((await ownFactors(owner.user_id)).factors).toHaveLength(1);
    }
    const next = new Date(now.getTime() + 30_000);
    expect(await answerWithTotp(await s.session(), await codeAt(secret, next), next)).toEqual({ satisfied: true });
    expect((await enroller.state()).status).toBe("active");
    expect((await reset()).status).toBe(200);
    expect((await ownFactors(owner.user_id)).factors).toHaveLength(0);
    // As removing one does, the reset ends the person's other sessions (one that planted a factor among them).
    expect((await enroller.state()).status).toBe("revoked");
    expect((await s.state()).status).toBe("active");
  });

  it("the step's end, while the store refuses the session's move, sends the person to sign in with a message, the session as it was; then finishes", async () => {
    await setMfaMethods(gw(), org(), ["totp"], new Date());
    const s = await signIn("member");
    expect((await enrolTotp(s, new Date())).satisfied).toBe(true);
    const { GET } = await import("@/app/(auth)/sign-in/finish/route");
    const finishRequest = async () => new NextRequest("http://console.test/sign-in/finish?callbackUrl=%2Forgs", { headers: (await s.request()).headers });
    await storeRefuses("console_sessions", "57P01");
    try {
      const refused = await GET(await finishRequest());
      expect(refused.status).toBe(303);
      expect(refused.headers.get("location")).toBe("/sign-in?error=gateway_unavailable");
      expect(refused.headers.get("set-cookie")).toBeNull();
    } finally {
      await storeRefusesNothing("console_sessions");
    }
    expect((await s.state()).status).toBe("mfa");
    const finished = await GET(await finishRequest());
    expect(finished.status).toBe(303);
    expect(finished.headers.get("location")).toBe("/orgs");
    expect(finished.headers.get("set-cookie")).toContain(sessionCookieName());
  });

  it("an admin's reset sent straight to the gateway (a script, the API) ends the person's console sessions too", async () => {
    const now = new Date();
    const member = bed.t.demo.member;
    const planted = await signIn("member");
    await enrolTotp(planted, now);
    const other = await signIn("member");
    const admin = await signIn("owner");
    expect((await other.state()).status).toBe("active");
    const reset = await bed.t.op("owner", "resetOrganizationPersonMfa", { params: { org_id: org(), user_id: member.user_id } });
    expect(reset.status).toBe(200);
    expect((await planted.state()).status).toBe("revoked");
    expect((await other.state()).status).toBe("revoked");
    expect((await admin.state()).status).toBe("active");
    // A sign-in after the reset is not ended by it.
    const after = await signIn("member");
    expect((await after.state()).status).not.toBe("revoked");
  });

  it("an admin's reset of a person's factors through /api/cloud ends that person's sessions, one that planted a factor included", async () => {
    const now = new Date();
    const member = bed.t.demo.member;
    const planted = await signIn("member");
    await enrolTotp(planted, now);
    const other = await signIn("member");
    const admin = await signIn("owner");
    const path = `/api/cloud${operationPath("resetOrganizationPersonMfa", { org_id: org(), user_id: member.user_id })}`;
    const cookie = (await admin.request()).headers.get("cookie")!;
    const request = new Request(`http://console.test${path}`, { method: "DELETE", headers: { cookie, host: "console.test", origin: "http://console.test", "sec-fetch-site": "same-origin" } });
    const reset = await handleCloudRequest(request, { session: () => admin.state(), fetch: cloudFetch, maxBodyBytes: 1 << 20, trustedProxyHops: 1 });
    expect(reset.status).toBe(200);
    expect((await ownFactors(member.user_id)).factors).toHaveLength(0);
    expect((await planted.state()).status).toBe("revoked");
    expect((await other.state()).status).toBe("revoked");
    expect((await admin.state()).status).toBe("active");
  });

  it("refuses a passkey name the API would not take, before the ceremony's challenge is spent", async () => {
    await setMfaMethods(gw(), org(), ["webauthn"], new Date());
    const s = await signIn("member");
    await passkeyRegistrationOptions(await s.session(), rp);
    const answer = { id: "x", rawId: "x", type: "public-key", response: {}, clientExtensionResults: {} } as unknown as RegistrationResponseJSON;
    // Half of a surrogate pair too: a server action's arguments travel as JSON, which can carry one, and it was stored as U+FFFD.
    for (const name of ["key\u0000", "key\u202eyek", "zero\u200bwidth", "Desk\ud800key"]) {
      const refused = registerPasskey(await s.session(), rp, answer, name);
      await expect(refused).rejects.toMatchObject({ field: "name", message: "A name without control characters or invisible formatting characters" });
    }
    // The challenge is still there: the same answer with a plain name reaches the check of the key's answer.
    expect(await messageOf(registerPasskey(await s.session(), rp, answer, "Desk key"))).toBe("The security key's answer could not be verified");
  });

  it("has a person with a factor the organization does not take prove it before adding one it does", async () => {
    const now = new Date();
    await setMfaMethods(gw(), org(), ["totp"], now);
    const { secret } = await enrolTotp(await signIn("member"), now);
    // The admin switches the organization to passkeys: the person's app no longer answers for it.
    await setMfaMethods(gw(), org(), ["webauthn"], now);
    const s = await signIn("member");
    expect(await mfaStepState(await s.session())).toMatchObject({ answer: ["totp"], enrol: ["webauthn"], proveFirst: true, recoveryCodesLeft: 10 });
    // Holding the key alone, nobody adds a passkey of their own to get past the step.
    expect(await messageOf(passkeyRegistrationOptions(await s.session(), rp))).toMatch(/second factor you already have/);
    expect(await messageOf(startTotpEnrolment(await s.session()))).toMatch(/second factor you already have/);

    // The app proves it is the person: the organization is not satisfied, but the passkey may now be added.
    const next = new Date(now.getTime() + 30_000);
    expect(await s.gave(await answerWithTotp(await s.session(), await codeAt(secret, next), next))).toEqual({ satisfied: false });
    expect(await s.finish()).toBe(false);
    expect((await s.state()).status).toBe("mfa");
    expect(await mfaStepState(await s.session())).toMatchObject({ answer: [], enrol: ["webauthn"], proveFirst: false });
    expect((await passkeyRegistrationOptions(await s.session(), rp)).challenge).toEqual(expect.any(String));
    // An authenticator app is still not the method asked for.
    expect(await messageOf(startTotpEnrolment(await s.session()))).toMatch(/second factor you already have/);
  });

  it("settles a session whose factors, given for two organizations, satisfy both; of two answers sent at once with one cookie, the second is refused", async () => {
    const now = new Date();
    const globex = await bed.t.outsiderOrganizationId();
    await gw().insert(memberships).values({ organizationId: globex, userId: bed.t.demo.member.user_id, relation: "member" });
    try {
      await setMfaMethods(gw(), org(), ["totp"], now);
      const { secret } = await enrolTotp(await signIn("member"), now);
      await setMfaMethods(gw(), globex, ["webauthn"], now);
      const s = await signIn("member");
      // Both answers read the session before either was recorded (two requests at once). The first moves
      // the session to an id only its answer's cookie names; the second, still on the old one, finds
      // nothing to record its factor on. (The passkey's own check is the browser's: granted here.)
      const before = await s.session();
      const next = new Date(now.getTime() + 30_000);
      expect(await s.gave(await answerWithTotp(before, await codeAt(secret, next), next))).toEqual({ satisfied: false });
      expect(await messageOf(grant(before, "webauthn"))).toMatch(/moved on or ended/);
      // On the step the first answer's cookie shows, the person gives the other: it sees the first's factor.
      expect(await mfaStepState(await s.session())).toMatchObject({ answer: [], enrol: ["webauthn"] });
      expect(await s.gave(await grant(await s.session(), "webauthn"))).toEqual({ satisfied: true });
      expect(await s.finish()).toBe(true);
      expect((await s.state()).status).toBe("active");
      expect((await s.session()).factors).toEqual(["api_key", "totp", "webauthn"]);
    } finally {
      await setMfaMethods(gw(), globex, [], now);
      await gw().delete(memberships).where(and(eq(memberships.organizationId, globex), eq(memberships.userId, bed.t.demo.member.user_id)));
    }
  });

  it("lets a session through once nothing is asked of it any more (the organization stopped requiring MFA while it waited)", async () => {
    await setMfaMethods(gw(), org(), ["totp"], new Date());
    const s = await signIn("member");
    expect(await s.finish()).toBe(false);
    expect((await s.state()).status).toBe("mfa");
    await setMfaMethods(gw(), org(), [], new Date());
    expect(await s.finish()).toBe(true);
    expect((await s.state()).status).toBe("active");
    expect((await s.call()).status).toBe(200);
  });

  it("asks nothing of people whose organizations require no MFA", async () => {
    const s = await signIn("owner");
    expect(s.signedIn.mfaPending).toBe(false);
    expect((await s.call()).status).toBe(200);
  });
});

describe("the person's other sessions when a factor goes", () => {
  it("ends every other session of theirs when they remove one: a session that confirmed with a phished code goes with the factor it planted", async () => {
    const t0 = new Date();
    const mine = await signIn("auditor");
    const y = await startTotpEnrolment(await mine.session());
    await confirmTotpEnrolment(await mine.session(), y.factorId, await codeAt(y.secret, t0), t0);
    // Another session, which gave one code of theirs (phished), and planted an authenticator of its own.
    const other = await signIn("auditor");
    const t1 = new Date(t0.getTime() + 30_000);
    const t2 = new Date(t0.getTime() + 60_000);
    await answerWithTotp(await other.session(), await codeAt(y.secret, t1), t1);
    const x = await startTotpEnrolment(await other.session());
    await confirmTotpEnrolment(await other.session(), x.factorId, await codeAt(x.secret, t2), t2);

    await removeOwnFactor(await mine.session(), x.factorId);
    expect((await other.state()).status).toBe("revoked");
    expect((await mine.state()).status).toBe("active");
    expect((await ownFactors(bed.t.demo.auditor.user_id)).factors.map((f) => f.id)).toEqual([y.factorId]);
  });
});

describe("answers that check nothing", () => {
  it("take none of the person's attempts: a passkey answer to no challenge", async () => {
    await setMfaMethods(gw(), org(), ["totp"], new Date());
    const t0 = new Date();
    const first = await signIn("member");
    const { secret } = await enrolTotp(first, t0);
    const s = await signIn("member");
    const none = { id: "x", rawId: "x", type: "public-key", response: {}, clientExtensionResults: {} } as never;
    for (let i = 0; i < 6; i++) expect(await messageOf(answerWithPasskey(await s.session(), rp, none))).toMatch(/Start again/);
    const t1 = new Date(t0.getTime() + 30_000);
    expect(await s.gave(await answerWithTotp(await s.session(), await codeAt(secret, t1), t1))).toMatchObject({ satisfied: true });
  });
});

describe("the MFA actions' frame", () => {
  it("answers a failure of the store with a message, logged without the statement's parameters, never a throw (a 500)", async () => {
    const s = await signIn("member");
    const lines: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    const failing = (code: "57P01" | "XX000") => async () => {
      await storeRefuses("console_sessions", code);
      try {
        await gw().execute(sql`update console_sessions set last_seen_at = now() where id = ${"private-session-id-4567"}`);
      } finally {
        await storeRefusesNothing("console_sessions");
      }
      return { ok: true as const };
    };
    process.stderr.write = ((chunk: string | Uint8Array) => (lines.push(String(chunk)), true)) as typeof process.stderr.write;
    let away: Awaited<ReturnType<typeof withSession>>;
    let broke: Awaited<ReturnType<typeof withSession>>;
    try {
      away = await withSession("either", failing("57P01"), () => s.state());
      broke = await withSession("either", failing("XX000"), () => s.state());
    } finally {
      process.stderr.write = write;
    }
    expect(away).toEqual({ ok: false, error: expect.stringMatching(/store is unavailable for a moment/) });
    expect(broke).toEqual({ ok: false, error: expect.stringMatching(/^The console could not complete the request; try again later \(error [0-9a-f-]{36}\)$/) });
    expect(lines.join("")).toContain("the disk broke");
    expect(lines.join("")).not.toContain("private-session-id");
    // The session's own refusals are still the action's answers.
    expect(await withSession("active", async () => ({ ok: true as const }), async () => ({ status: "none" }))).toMatchObject({ ok: false, field: "session" });
  });

  it("keeps of a passkey answer's transports only the names WebAuthn gives them (they are stored as sent), and refuses what is no list of names", () => {
    const answer = (transports: unknown) => ({ id: "a", rawId: "a", type: "public-key", response: { clientDataJSON: "x", transports } });
    const kept = (transports: unknown) => {
      const parsed = passkeyResponseSchema.safeParse(answer(transports));
      return parsed.success ? (parsed.data.response.transports ?? null) : "refused";
    };
    expect(kept(["usb", "nfc"])).toEqual(["usb", "nfc"]);
    expect(kept(undefined)).toBeNull();
    // A newer transport, or a name with a NUL in it, is dropped: the passkey is still taken.
    expect(kept(["usb", "carrier-pigeon", "usb\u0000"])).toEqual(["usb"]);
    for (const bad of ["usb", Array.from({ length: 17 }, () => "usb"), [{}], ["x".repeat(33)]]) expect(kept(bad), JSON.stringify(bad)).toBe("refused");
  });

  it("removes no factor that is not the person's, and ends no session for it", async () => {
    const now = new Date();
    const first = await signIn("auditor");
    await enrolTotp(first, now);
    const other = await signIn("auditor");
    await expect(removeOwnFactor(await first.session(), "00000000-0000-4000-8000-000000000000")).rejects.toMatchObject({ message: "No such factor" });
    expect((await other.state()).status).toBe("active");
    expect((await ownFactors(bed.t.demo.auditor.user_id)).factors).toHaveLength(1);
  });
});
