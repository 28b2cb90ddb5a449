import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { addMember, bindRole, createApiKey, createOrganization, createUser } from "../admin";
import { decrypt } from "../crypto";
import type { Database } from "../store/client";
import { keyMadeWithOrganization, ownedOrganizationNamed } from "../store/queries/demo";
import { featureFlagRules, featureFlags, projects } from "../store/schema";
import { seedAccounting } from "./billing";
import { seedCatalog } from "./catalog";
import { seedLocations, seedVms } from "./compute";
import { noPause, type Pace } from "./pace";
import { rng } from "./random";
import { seedSecurity } from "./security";

export interface DemoUser {
  user_id: string;
  email: string;
  access_key_id: string;
  secret_key: string;
}

export interface DemoCredentials {
  organization_id: string;
  owner: DemoUser;
  member: DemoUser;
  /** A member holding Billing Viewer and Auditor across the organization (no project roles). */
  auditor: DemoUser;
  outsider: DemoUser;
}

/** The demo's people, by role in demo-credentials.json, and its organization's name (seedDemo writes them). */
const DEMO_EMAILS = { owner: "owner@acme.example", member: "member@acme.example", auditor: "auditor@acme.example", outsider: "outsider@globex.example" } as const;
const DEMO_ORGANIZATION = "Acme AI Labs";

const PROJECTS = [
  { name: "llm-training", vms: 6, member: "Project Admin" },
  { name: "inference-prod", vms: 5, member: "Project Member" },
  { name: "research-sandbox", vms: 4, member: "Project Member" },
  { name: "data-pipeline", vms: 3, member: null },
  { name: "eval-harness", vms: 2, member: null },
  { name: "staging", vms: 2, member: null },
] as const;

export interface SeedOptions {
  /** The moment the demo's history runs up to. */
  now?: Date;
  /** Repeats one set of ids (tests); by default every install draws its own. */
  idSalt?: string;
  /** Awaited between the seed's steps, to give way to requests answered meanwhile (lib/server-load.ts). */
  pace?: Pace;
}

/**
 * Writes the demo organization into an empty store and returns the demo users' credentials.
 * The data is the same everywhere, its ids are drawn afresh for every install (no two stores
 * share the demo's user, organization, project or resource ids); `idSalt` repeats one set.
 */
export async function seedDemo(db: Database, masterKey: Buffer, options: SeedOptions = {}): Promise<DemoCredentials> {
  const { now = new Date(), idSalt = randomBytes(16).toString("hex"), pace = noPause } = options;
  const r = rng(20_260_101, idSalt);
  const credentials = await db.transaction(async (txRaw) => {
    const tx = txRaw as unknown as Database;
    await seedLocations(tx);
    const owner = await createUser(tx, { id: r.uuid(), email: DEMO_EMAILS.owner, name: "Olivia Owner" });
    const member = await createUser(tx, { id: r.uuid(), email: DEMO_EMAILS.member, name: "Milo Member" });
    const outsider = await createUser(tx, { id: r.uuid(), email: DEMO_EMAILS.outsider, name: "Oscar Outsider" });
    // From a stream of its own, so every other id stays what it was for a given salt.
    const auditor = await createUser(tx, { id: rng(20_260_102, idSalt).uuid(), email: DEMO_EMAILS.auditor, name: "Ada Auditor" });
    const org = await createOrganization(tx, {
      id: r.uuid(),
      name: DEMO_ORGANIZATION,
      companyName: "Acme AI Labs, Inc.",
      ownerId: owner.id,
      organizationType: "enterprise",
    });
    await addMember(tx, org.id, member.id, "member");
    await addMember(tx, org.id, auditor.id, "member");
    for (const roleName of ["Billing Viewer", "Auditor"]) {
      await bindRole(tx, { organizationId: org.id, userId: auditor.id, roleName, scopeType: "org", scopeObjectId: org.id });
    }
    const other = await createOrganization(tx, { id: r.uuid(), name: "Globex Research", companyName: "Globex Corp.", ownerId: outsider.id });
    await pace();

    const network = r.uuid();
    const projectIds: string[] = [];
    for (const [i, p] of PROJECTS.entries()) {
      const id = r.uuid();
      projectIds.push(id);
      const created = new Date(now.getTime() - (180 - i * 7) * 86_400_000);
      await tx.insert(projects).values({ id, organizationId: org.id, name: p.name, createdAt: created, updatedAt: created });
      await seedVms(tx, r, { organizationId: org.id, projectId: id, count: p.vms, namePrefix: p.name.split("-")[0] ?? "vm", network, subnet: r.uuid(), now });
      if (p.member) await bindRole(tx, { organizationId: org.id, userId: member.id, roleName: p.member, scopeType: "project", scopeObjectId: id });
      await pace();
    }
    const globexProject = r.uuid();
    await tx.insert(projects).values({ id: globexProject, organizationId: other.id, name: "globex-default" });
    await seedVms(tx, r, { organizationId: other.id, projectId: globexProject, count: 2, namePrefix: "globex", network: r.uuid(), subnet: r.uuid(), now });

    await tx.insert(featureFlags).values([
      { key: "reservations", description: "Reserved capacity and GPU tracking", defaultValue: false },
      { key: "usage_dashboard", description: "Usage charts in the console", defaultValue: true },
      { key: "audit_log_export", description: "Export of audit-log searches", defaultValue: true },
      { key: "image_catalog_v2", description: "Second version of the image catalog", defaultValue: false },
      { key: "max_vms_per_request", description: "Largest VM count of one create request", defaultValue: 8 },
    ]);
    await tx.insert(featureFlagRules).values([
      { id: r.uuid(), flagKey: "reservations", targetType: "user", targetId: owner.id, value: true },
      { id: r.uuid(), flagKey: "max_vms_per_request", targetType: "organization", targetId: org.id, value: 32 },
      { id: r.uuid(), flagKey: "image_catalog_v2", targetType: "project", targetId: projectIds[2]!, value: true },
    ]);

    await pace();
    await seedSecurity(tx, { organizationId: org.id, otherOrganizationId: other.id, ownerId: owner.id, memberId: member.id, outsiderId: outsider.id, now, idSalt });
    await pace();
    await seedCatalog(tx, now);
    await pace();

    await seedAccounting(tx, { organizationId: org.id, otherOrganizationId: other.id, owner, member, outsider, now, idSalt, pace });
    await pace();

    const key = async (u: { id: string; email: string }) => {
      const k = await createApiKey(tx, masterKey, u.id, "demo");
      return { user_id: u.id, email: u.email, access_key_id: k.accessKeyId, secret_key: k.secretKey };
    };
    const result: DemoCredentials = {
      organization_id: org.id,
      owner: await key(owner),
      member: await key(member),
      auditor: await key(auditor),
      outsider: await key(outsider),
    };
    return result;
  });
  return credentials;
}

/**
 * The demo's credentials as the store still holds them: the organization its owner owns, and each demo person's key the
 * seed made with it, unsealed; null unless all of it is there (a key revoked, a person removed: nothing to offer; a
 * key of the same name made since is not the demo's).
 * For a start that finds the demo seeded but its credentials file gone (the process ended between the seed's commit
 * and the file, or the file was deleted): the one-click sign-in comes back instead of staying away for good.
 */
export async function recoverDemoCredentials(db: Database, masterKey: Buffer, now = new Date()): Promise<DemoCredentials | null> {
  const organizationId = await ownedOrganizationNamed(db, DEMO_EMAILS.owner, DEMO_ORGANIZATION);
  if (!organizationId) return null;
  const users: Partial<Record<keyof typeof DEMO_EMAILS, DemoUser>> = {};
  for (const [role, email] of Object.entries(DEMO_EMAILS) as Array<[keyof typeof DEMO_EMAILS, string]>) {
    // The seed's own key: made in the transaction that made the organization.
    const key = await keyMadeWithOrganization(db, organizationId, email, "demo", now);
    if (!key) return null;
    users[role] = { user_id: key.userId, email: key.email, access_key_id: key.accessKeyId, secret_key: decrypt(masterKey, key.secretCiphertext) };
  }
  const { owner, member, auditor, outsider } = users;
  return owner && member && auditor && outsider ? { organization_id: organizationId, owner, member, auditor, outsider } : null;
}

export function demoCredentialsFile(dataDir: string): string {
  return path.join(path.resolve(dataDir), "demo-credentials.json");
}

export function writeDemoCredentials(dataDir: string, credentials: DemoCredentials): string {
  mkdirSync(path.resolve(dataDir), { recursive: true });
  const file = demoCredentialsFile(dataDir);
  // Whole or not at all, as a reader (the sign-in page) sees it: written beside, mode 0600 from the start, then renamed
  // over whatever was there (one left from an earlier install, with its own mode, included).
  const next = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  writeFileSync(next, JSON.stringify(credentials, null, 2) + "\n", { mode: 0o600, flag: "wx" });
  chmodSync(next, 0o600);
  renameSync(next, file);
  return file;
}
