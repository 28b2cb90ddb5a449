import "server-only";
import { isPlainText } from "@/lib/contract/common";
import { emailDomainOf, ssoSignInSchema } from "@/lib/contract/sign-in";
import { SIGN_IN_ERROR } from "@/lib/contract/sign-in-messages";
import { decrypt } from "@/lib/gateway/crypto";
import { isPublicEmailDomain } from "@/lib/gateway/public-email-domains";
import { embeddedGateway } from "@/lib/gateway/runtime";
import type { Database } from "@/lib/gateway/store/client";
import { insertAuditEntry } from "@/lib/gateway/store/queries/audit-logs";
import { BASELINE_ROLE, findPerson, findUserByEmail, invitePerson, roleIdByName, UserNameTaken } from "@/lib/gateway/store/queries/people";
import { findSsoProviderById, linkSsoIdentity, MAX_SSO_SUBJECT, ssoIdentityLinks, ssoProvidersForDomain, type SsoProviderRow } from "@/lib/gateway/store/queries/sso";
import { gatewayIsEmbedded, vaultKey, vaultLimits } from "./config";
import { secondFactorOwed } from "./mfa";
import { mintSessionKey, revokeMintedKeys } from "./minted-keys";
import { SignInError } from "./sign-in";
import { consoleDb } from "./store/client";
import { createVaultSession, sessionEnd } from "./vault";

/**
 * Single sign-on: which provider an e-mail signs in with, the provider's settings for next-auth,
 * and what happens once next-auth has verified the provider's ID token (the person, just in time;
 * a key minted for the session; the vault session). Needs the embedded gateway's store.
 */

export interface SsoProviderConfig {
  id: string;
  organizationId: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  emailDomains: string[];
  /** Whether it signs in the organization's owners (an owner added it). */
  signsInOwners: boolean;
}

/** Claims of the verified ID token, completed from the provider's userinfo answer. */
export interface SsoClaims {
  /** The issuer that signed the ID token: openid-client held it to the issuer the discovery document names. */
  iss?: unknown;
  sub?: unknown;
  email?: unknown;
  email_verified?: unknown;
  /** Microsoft Entra ID's optional claim "e-mail domain owner verified": Entra ID sends no email_verified. */
  xms_edov?: unknown;
  /** Google's hosted domain: the Workspace (Cloud organization) that manages the account; absent for a personal account. */
  hd?: unknown;
  name?: unknown;
}

const isTrue = (value: unknown) => value === true || value === "true" || value === 1 || value === "1";

/** The provider vouches for the address: email_verified, or (only without it) Entra ID's xms_edov. */
function emailVerified(claims: SsoClaims): boolean {
  return claims.email_verified === undefined ? isTrue(claims.xms_edov) : isTrue(claims.email_verified);
}

/**
 * Whether the claims hold an address and say whether the provider vouches for it (email_verified, or Entra ID's
 * xms_edov): then the ID token is enough, and its provider's userinfo is not asked (Entra ID's ID token holds a
 * superset of its userinfo's answer, which may fail while the token is good).
 */
export function emailClaimsComplete(claims: SsoClaims): boolean {
  return typeof claims.email === "string" && (claims.email_verified !== undefined || claims.xms_edov !== undefined);
}

/** Google's issuer, where every Google account in the world signs in, personal ones included. */
const isGoogle = (issuer: string) => /^(https:\/\/)?accounts\.google\.com\/?$/.test(issuer);

/** Printable ASCII: what an address the console signs in with is written in. */
const ASCII_TEXT = /^[\x21-\x7e]+$/;

async function gateway() {
  if (!gatewayIsEmbedded()) throw new SignInError(SIGN_IN_ERROR.ssoUnavailable);
  return embeddedGateway();
}

/**
 * The providers serving this domain: none for a public e-mail service's, which the gateway lets no provider
 * claim (one that claimed it before that rule serves nobody there).
 */
async function providersServing(db: Database, domain: string): Promise<SsoProviderRow[]> {
  return isPublicEmailDomain(domain) ? [] : ssoProvidersForDomain(db, domain);
}

/** One organization per domain: providers of two organizations claiming it make sign-in refuse it. */
function servingOrganization(rows: SsoProviderRow[]): SsoProviderRow {
  const [first] = rows;
  if (!first) throw new SignInError(SIGN_IN_ERROR.ssoNoProvider);
  if (rows.some((row) => row.organizationId !== first.organizationId)) throw new SignInError(SIGN_IN_ERROR.ssoDomainAmbiguous);
  return first;
}

/** The provider the typed e-mail's domain signs in with; throws SignInError. */
export async function ssoProviderForEmail(email: unknown): Promise<{ providerId: string; email: string }> {
  const parsed = ssoSignInSchema.safeParse({ email });
  if (!parsed.success) throw new SignInError(SIGN_IN_ERROR.ssoEmailInvalid);
  const { store } = await gateway();
  const provider = servingOrganization(await providersServing(store.db, emailDomainOf(parsed.data.email)));
  if (!provider.clientSecretCiphertext) throw new SignInError(SIGN_IN_ERROR.ssoNotReady);
  return { providerId: provider.id, email: parsed.data.email };
}

/** A provider's settings with its client secret decrypted, for next-auth; null when it is gone or has no secret. */
export async function loadSsoProvider(providerId: string): Promise<SsoProviderConfig | null> {
  const { store, deps } = await gateway();
  const row = await findSsoProviderById(store.db, providerId);
  if (!row?.clientSecretCiphertext) return null;
  return {
    id: row.id,
    organizationId: row.organizationId,
    issuer: row.issuerUri,
    clientId: row.clientId,
    clientSecret: decrypt(deps.masterKey, row.clientSecretCiphertext),
    emailDomains: row.emailDomains,
    signsInOwners: row.signsInOwners,
  };
}

/** The organization the provider serves, or null once it is deleted (read through the gateway's read cache: free while nothing changes). */
export async function ssoProviderOrganization(providerId: string): Promise<string | null> {
  const { store, deps } = await gateway();
  return deps.reads.get(`sso-provider:${providerId}`, async () => (await findSsoProviderById(store.db, providerId))?.organizationId ?? null);
}

/**
 * The person the verified claims name, in the provider's organization: found, or joined now with
 * the baseline role only (source "sso"), audited in the same transaction; active, an owner only
 * through a provider an owner added, and the subject the provider signed them in as before (linked
 * now at their first sign-in). Throws SignInError, and then nothing is written.
 */
async function personFor(provider: SsoProviderConfig, subject: string, email: string, name: string, clientIp: string): Promise<Person> {
  const { store } = await gateway();
  return store.db.transaction(async (txRaw) => {
    const tx = txRaw as unknown as Database;
    const account = await findUserByEmail(tx, email);
    await holdToIdentity(tx, provider, subject, account?.id);
    const person = await findOrJoin(tx, provider, account, email, name, clientIp);
    if (person.status !== "active") throw new SignInError(SIGN_IN_ERROR.ssoSuspended);
    // An owner is signed in only by a provider an owner added: otherwise whoever holds sso.manage could
    // add a provider of their own for the owners' domain and sign in as an owner (and link its subject).
    if (person.relation === "owner" && !provider.signsInOwners) throw new SignInError(SIGN_IN_ERROR.ssoOwnerUntrusted);
    await linkSsoIdentity(tx, provider.id, subject, person.userId);
    // A first sign-in of another subject or address may have linked them meanwhile.
    await holdToIdentity(tx, provider, subject, person.userId);
    return person;
  });
}

/**
 * The provider's subject signs in the account it signed in before, and the account only as that
 * subject (sso_identities). Otherwise the address has passed to another person at the provider (its
 * old holder is still a person here) or the subject's address has changed: either way not the person
 * this account is, until an administrator removes the old person from the organization.
 */
async function holdToIdentity(tx: Database, provider: SsoProviderConfig, subject: string, userId: string | undefined): Promise<void> {
  if ((await identityOf(tx, provider, subject, userId)) === "changed") throw new SignInError(SIGN_IN_ERROR.ssoIdentityChanged);
}

/** Whether the subject and the account are linked to each other, not linked yet, or either linked elsewhere (changed). */
async function identityOf(db: Database, provider: SsoProviderConfig, subject: string, userId: string | undefined): Promise<SsoIdentity> {
  const { subjectsAccount, accountsSubject } = await ssoIdentityLinks(db, provider.id, subject, userId);
  if ((subjectsAccount !== undefined && subjectsAccount !== userId) || (accountsSubject !== undefined && accountsSubject !== subject)) return "changed";
  return subjectsAccount === undefined ? "unlinked" : "linked";
}

export type SsoIdentity = "linked" | "unlinked" | "changed";

/** What a sign-in of this subject with this (checked) address would find, for the admin's test sign-in: it links nothing. */
export async function ssoIdentityOf(provider: SsoProviderConfig, subject: unknown, email: string): Promise<SsoIdentity> {
  if (typeof subject !== "string") return "changed";
  const { store } = await gateway();
  const account = await findUserByEmail(store.db, email);
  return identityOf(store.db, provider, subject, account?.id);
}

type Person = { userId: string; status: string; relation: string };

async function findOrJoin(tx: Database, provider: SsoProviderConfig, account: { id: string } | undefined, email: string, name: string, clientIp: string): Promise<Person> {
  // Held until the sign-in commits its link: a removal meanwhile forgets the link after it, not before.
  const existing = account ? await findPerson(tx, provider.organizationId, account.id, "share") : undefined;
  if (existing) return { userId: existing.id, status: existing.status, relation: existing.relation };
  const baseline = await roleIdByName(tx, provider.organizationId, BASELINE_ROLE);
  const startTime = new Date();
  const made = await invitePerson(tx, { organizationId: provider.organizationId, email, name: name || undefined, roleIds: baseline ? [baseline] : [], source: "sso" }).catch(
    (error: unknown) => {
      throw error instanceof UserNameTaken ? new SignInError(SIGN_IN_ERROR.ssoUserNameTaken) : error;
    },
  );
  if (!made) {
    // Joined meanwhile by a sign-in of theirs in another tab (it committed first): that person it is.
    const joined = await findUserByEmail(tx, email);
    const person = joined ? await findPerson(tx, provider.organizationId, joined.id) : undefined;
    if (!person) throw new Error("the person could not be joined");
    return { userId: person.id, status: person.status, relation: person.relation };
  }
  await insertAuditEntry(tx, {
    organizationId: provider.organizationId,
    projectId: null,
    projectName: null,
    action: "Create",
    actionDetail: "Create Person (first SSO sign-in)",
    actorId: made.id,
    actorEmail: email,
    actorType: "user",
    clientIp,
    startTime,
    endTime: new Date(),
    result: "OK",
    errorMessage: "",
    surface: "console",
    locations: [],
    targetIds: [made.id],
    targetNames: [email],
    targetType: "User",
  });
  return { userId: made.id, status: made.status, relation: made.relation };
}

const withoutSlash = (uri: string) => uri.replace(/\/+$/, "");

/** Where the provider's discovery document is: under its issuer (OpenID Connect Discovery 1.0 §4). */
export function wellKnownOf(provider: SsoProviderConfig): string {
  return `${withoutSlash(provider.issuer)}/.well-known/openid-configuration`;
}

/**
 * Whether `named` (a discovery document's issuer, an ID token's iss) is the issuer configured for the
 * provider, a trailing slash aside. OpenID Connect Discovery 1.0 §4.3: a document that names another
 * issuer than the one its URL was built from must not be used, so the answers it vouches for may not
 * sign anyone in either. Sign-in and the admin's test sign-in check alike.
 */
export function sameIssuer(provider: SsoProviderConfig, named: unknown): boolean {
  return typeof named === "string" && withoutSlash(named) === withoutSlash(provider.issuer);
}

/**
 * The address the verified claims sign in with at this provider: one the provider vouches for
 * (email_verified), at one of its domains, a domain no other organization's provider claims.
 * Throws SignInError. Sign-in and the admin's test sign-in check alike.
 */
export async function ssoEmailOf(provider: SsoProviderConfig, claims: SsoClaims): Promise<string> {
  const sent = typeof claims.email === "string" ? claims.email.trim() : "";
  if (!sent) throw new SignInError(SIGN_IN_ERROR.ssoEmailMissing);
  // Only an address the provider vouches for: anyone can type any address into their own profile.
  if (!emailVerified(claims)) throw new SignInError(SIGN_IN_ERROR.ssoEmailUnverified);
  // An address as the sign-in form takes one (one @, no spaces, controls or invisible formatting), which
  // the person is stored and shown under, and whose domain every check reads alike. Judged as sent, in
  // ASCII: lower-casing some other letters makes ASCII ones (U+212A KELVIN SIGN is "k"), and the address
  // vouched for would become another person's.
  if (!ASCII_TEXT.test(sent) || !ssoSignInSchema.safeParse({ email: sent }).success) throw new SignInError(SIGN_IN_ERROR.ssoEmailUnusable);
  const email = sent.toLowerCase();
  const domain = emailDomainOf(email);
  if (!provider.emailDomains.includes(domain)) throw new SignInError(SIGN_IN_ERROR.ssoWrongDomain);
  // Google vouches for the address of a personal account too, one at the organization's domain among them.
  // Only an account a Workspace manages (hd) is the organization's: no other Workspace may hold its domain.
  if (isGoogle(provider.issuer) && (typeof claims.hd !== "string" || claims.hd === "")) throw new SignInError(SIGN_IN_ERROR.ssoAccountUnmanaged);
  const { store } = await gateway();
  servingOrganization(await providersServing(store.db, domain));
  return email;
}

/**
 * The name the provider gave, as the person's display name where they have none: at most 200 characters, never half
 * of one (an emoji's surrogate pair), and only as the API would take it as a name (no control or format characters,
 * whole UTF-16). A name that is not goes unused, not cleaned: nothing stores a name other than the one sent, and a
 * NUL, which PostgreSQL refuses, failed the person's first sign-in as if the platform were down.
 */
function ssoName(claim: unknown): string {
  if (typeof claim !== "string") return "";
  const name = Array.from(claim.trim()).slice(0, 200).join("").trim();
  return isPlainText(name) ? name : "";
}

/**
 * After next-auth verified the provider's answer (state, PKCE, the ID token's signature, iss, aud,
 * exp and nonce): checks the e-mail, finds or creates the person, mints a key for this session
 * alone (expiring with the session) and opens the vault session. Throws SignInError.
 */
export async function signInWithSso(
  provider: SsoProviderConfig,
  claims: SsoClaims,
  clientIp: string,
  now = new Date(),
): Promise<{ sessionId: string; userId: string; email: string }> {
  if (!sameIssuer(provider, claims.iss)) throw new SignInError(SIGN_IN_ERROR.ssoIssuerMismatch);
  // openid-client refuses an ID token without one; a subject longer than the standard's is no one's.
  const subject = claims.sub;
  if (typeof subject !== "string" || subject === "" || subject.length > MAX_SSO_SUBJECT) throw new SignInError(SIGN_IN_ERROR.ssoCallbackFailed);
  const email = await ssoEmailOf(provider, claims);
  const name = ssoName(claims.name);
  const person = await personFor(provider, subject, email, name, clientIp);

  const limits = vaultLimits();
  const credentials = await mintSessionKey(person.userId, sessionEnd(limits, now), provider.id);
  try {
    const identity = { userId: person.userId, email };
    // SSO is the first factor: an organization that requires MFA still asks for the second.
    const mfaPending = await secondFactorOwed(person.userId);
    const sessionId = await createVaultSession(await consoleDb(), vaultKey(), { ...identity, ...credentials, ssoProviderId: provider.id, mfaPending }, limits, now);
    return { sessionId, ...identity };
  } catch (error) {
    await revokeMintedKeys([credentials.accessKeyId]);
    throw error;
  }
}
