import { randomBytes } from "node:crypto";
import { hashSecret, newSecret } from "../crypto";
import type { Database } from "../store/client";
import { s3Keys, scimIntegrations, scimTokens, ssoProviders } from "../store/schema";
import { rng, type Rng } from "./random";

const DAY = 86_400_000;

// Secrets of demo tokens and keys are random (never derived from the PRNG): nobody
// must be able to recompute them from this file; only their hashes are stored.
const tokenKeyId = () => randomBytes(16).toString("base64url");
const s3AccessKeyId = (r: Rng) => `S3U_${r.uuid().replace(/-/g, "")}`;

interface SecurityInput {
  organizationId: string;
  otherOrganizationId: string;
  ownerId: string;
  memberId: string;
  outsiderId: string;
  now: Date;
  /** The install's id salt: ids differ between installs. */
  idSalt: string;
}

/**
 * SCIM integrations with tokens, SSO providers and S3 keys for the demo organization (and one of each
 * for the other one, to prove isolation). No MFA requirement: the console enforces one, and the demo
 * people have no second factor to give.
 * Draws from its own PRNG stream so other areas' demo data stays the same.
 */
export async function seedSecurity(db: Database, input: SecurityInput): Promise<void> {
  const r = rng(20_260_211, input.idSalt);
  const { now } = input;
  const ago = (days: number) => new Date(now.getTime() - days * DAY);

  const okta = r.uuid();
  const entra = r.uuid();
  const globexScim = r.uuid();
  await db.insert(scimIntegrations).values([
    {
      id: okta,
      organizationId: input.organizationId,
      name: "Okta SCIM Integration",
      identityProvider: "okta",
      status: "active",
      createdBy: input.ownerId,
      createdAt: ago(120),
      updatedAt: ago(30),
    },
    {
      id: entra,
      organizationId: input.organizationId,
      name: "Entra ID (staging)",
      identityProvider: "azure-ad",
      status: "inactive",
      createdBy: input.ownerId,
      createdAt: ago(45),
      updatedAt: ago(44),
    },
    {
      id: globexScim,
      organizationId: input.otherOrganizationId,
      name: "Globex OneLogin",
      identityProvider: "onelogin",
      createdBy: input.outsiderId,
      createdAt: ago(60),
      updatedAt: ago(60),
    },
  ]);
  await db.insert(scimTokens).values([
    { id: tokenKeyId(), organizationId: input.organizationId, integrationId: okta, alias: "okta-2025", secretHash: hashSecret(newSecret()), userId: input.ownerId, createdAt: ago(120), expiresAt: new Date(now.getTime() + 12 * DAY) },
    { id: tokenKeyId(), organizationId: input.organizationId, integrationId: okta, alias: "okta-rotation", secretHash: hashSecret(newSecret()), userId: input.ownerId, createdAt: ago(3), expiresAt: new Date(now.getTime() + 180 * DAY) },
    { id: tokenKeyId(), organizationId: input.otherOrganizationId, integrationId: globexScim, alias: "globex", secretHash: hashSecret(newSecret()), userId: input.outsiderId, createdAt: ago(60), expiresAt: new Date(now.getTime() + 300 * DAY) },
  ]);

  await db.insert(ssoProviders).values([
    {
      id: r.uuid(),
      organizationId: input.organizationId,
      clientId: "0oa8f3k2l1acmeSSO697",
      issuerUri: "https://acme.okta.example/oauth2/default",
      emailDomains: ["acme.example", "acme-ai.example"],
      signsInOwners: true,
      createdAt: ago(100),
    },
    {
      id: r.uuid(),
      organizationId: input.otherOrganizationId,
      clientId: "globex-console",
      issuerUri: "https://login.globex.example",
      emailDomains: ["globex.example"],
      signsInOwners: true,
      createdAt: ago(50),
    },
  ]);


  const s3 = (userId: string, organizationId: string, alias: string, createdDaysAgo: number, expireAt: Date | null) => ({
    id: r.uuid(),
    organizationId,
    userId,
    accessKeyId: s3AccessKeyId(r),
    secretHash: hashSecret(newSecret()),
    alias,
    createdAt: ago(createdDaysAgo),
    expireAt,
  });
  await db.insert(s3Keys).values([
    s3(input.ownerId, input.organizationId, "training-checkpoints", 150, null),
    s3(input.ownerId, input.organizationId, "dataset-import-2024", 400, ago(30)),
    s3(input.memberId, input.organizationId, "eval-results", 20, new Date(now.getTime() + 90 * DAY)),
    s3(input.outsiderId, input.otherOrganizationId, "globex-backups", 40, null),
  ]);
}
