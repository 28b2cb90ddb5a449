import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addMember, createApiKey, createOrganization, createUser, DEFAULT_ROLES, findUser, listApiKeys, revokeApiKey } from "./admin";
import { PERMISSIONS } from "./authz";
import { decrypt } from "./crypto";
import { createLogger } from "./logger";
import { startGateway } from "./runtime";
import { apiKeys, memberships, roleBindings, roles } from "./store/schema";
import { createTestGateway, type TestGateway } from "./testing";

/** A fresh store with the whole demo seeded; slow on a busy machine. */
const SETUP_MS = 180_000;

let t: TestGateway;
beforeAll(async () => {
  t = await createTestGateway();
}, SETUP_MS);
afterAll(() => t.close());

const db = () => t.gateway.store.db;
const as = (key: { accessKeyId: string; secretKey: string }) => ({ credentials: key });

describe("admin functions", () => {
  it("gives the Organization Admin role every permission there is", () => {
    const admin = DEFAULT_ROLES.find((r) => r.name === "Organization Admin")!;
    expect([...admin.permissions].sort()).toEqual([...PERMISSIONS].sort());
    for (const r of DEFAULT_ROLES) for (const p of r.permissions) expect(PERMISSIONS).toContain(p);
  });

  it("creates a user (e-mail lowercased) and finds them by id or e-mail", async () => {
    const user = await createUser(db(), { email: "Dana@Initech.Example", name: "Dana" });
    expect(user).toMatchObject({ email: "dana@initech.example", name: "Dana" });
    expect((await findUser(db(), user.id))?.id).toBe(user.id);
    expect((await findUser(db(), "DANA@initech.example"))?.id).toBe(user.id);
    expect(await findUser(db(), "nobody@initech.example")).toBeUndefined();
    await expect(createUser(db(), { email: "dana@initech.example" })).rejects.toThrow();
  });

  it("creates an organization with the default roles and its owner, usable through a new API key", async () => {
    const owner = await createUser(db(), { email: "erin@initech.example" });
    const org = await createOrganization(db(), { name: "Initech", ownerId: owner.id, companyName: "Initech LLC" });
    const orgRoles = await db().select().from(roles).where(eq(roles.organizationId, org.id));
    expect(orgRoles.map((r) => r.roleName).sort()).toEqual(DEFAULT_ROLES.map((r) => r.name).sort());
    expect(await db().select().from(memberships).where(eq(memberships.organizationId, org.id))).toMatchObject([{ userId: owner.id, relation: "owner" }]);
    const bindings = await db().select().from(roleBindings).where(eq(roleBindings.organizationId, org.id));
    expect(bindings.map((b) => [b.userId, orgRoles.find((r) => r.id === b.roleId)?.roleName, b.scopeType, b.scopeObjectId])).toEqual([
      [owner.id, "Organization Admin", "org", org.id],
    ]);

    const key = await createApiKey(db(), t.gateway.deps.masterKey, owner.id, "laptop");
    const res = await t.opJson<{ items: Array<{ id: string; relation: string; company_name: string }> }>("owner", "getOrganizations", as(key));
    expect(res.status).toBe(200);
    expect(res.body.items).toMatchObject([{ id: org.id, relation: "owner", company_name: "Initech LLC" }]);

    const worker = await createUser(db(), { email: "peter@initech.example" });
    await addMember(db(), org.id, worker.id, "member");
    const workerKey = await createApiKey(db(), t.gateway.deps.masterKey, worker.id);
    const seen = await t.opJson<{ items: Array<{ id: string; relation: string }> }>("owner", "getOrganizations", as(workerKey));
    expect(seen.body.items).toEqual([expect.objectContaining({ id: org.id, relation: "member" })]);
    expect((await t.opJson("owner", "createProject", { ...as(workerKey), body: { organization_id: org.id, name: "p" } })).status).toBe(403);
  });

  it("stores API-key secrets only encrypted", async () => {
    const user = await createUser(db(), { email: "frank@initech.example" });
    const key = await createApiKey(db(), t.gateway.deps.masterKey, user.id);
    expect(key.secretKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [row] = await db().select().from(apiKeys).where(eq(apiKeys.id, key.accessKeyId));
    expect(row!.secretCiphertext).not.toContain(key.secretKey);
    expect(row!.secretCiphertext).not.toContain(Buffer.from(key.secretKey, "base64url").toString("base64"));
    expect(row!.secretCiphertext).not.toContain(Buffer.from(key.secretKey, "base64url").toString("hex"));
    expect(decrypt(t.gateway.deps.masterKey, row!.secretCiphertext)).toBe(key.secretKey);
    expect(JSON.stringify(await listApiKeys(db(), user.id))).not.toContain(key.secretKey);
  });

  it("revokes a key: it then gets 401, other keys keep working, and it shows as revoked", async () => {
    const user = await createUser(db(), { email: "gina@initech.example" });
    await addMember(db(), t.demo.organization_id, user.id, "member");
    const kept = await createApiKey(db(), t.gateway.deps.masterKey, user.id, "kept");
    const revoked = await createApiKey(db(), t.gateway.deps.masterKey, user.id, "revoked");
    expect((await t.op("owner", "getOrganizations", as(revoked))).status).toBe(200);

    expect((await listApiKeys(db(), user.id)).map((k) => [k.id, k.email, k.revokedAt])).toEqual(
      expect.arrayContaining([
        [kept.accessKeyId, "gina@initech.example", null],
        [revoked.accessKeyId, "gina@initech.example", null],
      ]),
    );
    expect(await revokeApiKey(db(), revoked.accessKeyId)).toBe(true);
    expect(await revokeApiKey(db(), revoked.accessKeyId)).toBe(false);
    expect(await revokeApiKey(db(), "AKNOSUCHKEY")).toBe(false);

    const refused = await t.opJson<{ code: string; reason: string }>("owner", "getOrganizations", as(revoked));
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ code: "401", reason: "unauthenticated" });
    expect((await t.op("owner", "createProject", { ...as(revoked), body: { organization_id: t.demo.organization_id, name: "z" } })).status).toBe(401);
    expect((await t.op("owner", "getOrganizations", as(kept))).status).toBe(200);

    const listed = await listApiKeys(db(), user.id);
    expect(listed.find((k) => k.id === revoked.accessKeyId)?.revokedAt).toBeInstanceOf(Date);
    expect(listed.find((k) => k.id === kept.accessKeyId)?.revokedAt).toBeNull();
    const [row] = await db()
      .select({ revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, revoked.accessKeyId), eq(apiKeys.userId, user.id)));
    expect(row?.revokedAt).toBeInstanceOf(Date);
  });
});

/** Runs the command-line tool on a data dir; the parent's store settings are not inherited. */
function cli(dataDir: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, STRATUS_DATA_DIR: dataDir, STRATUS_LOG_LEVEL: "silent" };
  delete env.DATABASE_URL;
  delete env.STRATUS_MASTER_KEY;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "lib/gateway/cli.ts", ...args], { cwd: process.cwd(), env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the command-line tool", { timeout: 300_000 }, () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "stratus-cli-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("creates a user, an organization and a key the gateway then accepts", async () => {
    const user = await cli(dataDir, "create-user", "--email", "Hank@Umbrella.Example", "--name", "Hank");
    expect(user.code, user.stderr).toBe(0);
    const created = JSON.parse(user.stdout) as { user_id: string; email: string };
    expect(created.email).toBe("hank@umbrella.example");

    const org = await cli(dataDir, "create-org", "--name", "Umbrella", "--owner", "hank@umbrella.example");
    expect(org.code, org.stderr).toBe(0);
    const { organization_id: orgId } = JSON.parse(org.stdout) as { organization_id: string };

    const key = await cli(dataDir, "create-key", "--user", created.user_id, "--name", "ci");
    expect(key.code, key.stderr).toBe(0);
    const printed = JSON.parse(key.stdout) as { access_key_id: string; secret_key: string };
    expect(statSync(path.join(dataDir, "master.key")).mode & 0o777).toBe(0o600);

    const missing = await cli(dataDir, "create-key", "--user", "nobody@umbrella.example");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no user nobody@umbrella.example");

    const gateway = await startGateway({ store: { kind: "pglite", dataDir }, dataDir, seed: false, logger: createLogger("silent") });
    try {
      const url = "http://gateway.test/v1/organizations/entities";
      const { signedHeaders } = await import("@/lib/signing");
      const headers = signedHeaders({ accessKeyId: printed.access_key_id, secretKey: printed.secret_key }, { method: "GET", url });
      const res = await gateway.app.request(url, { headers });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { items: Array<{ id: string; relation: string }> }).items).toMatchObject([{ id: orgId, relation: "owner" }]);
      const [row] = await gateway.store.db.select().from(apiKeys).where(eq(apiKeys.id, printed.access_key_id));
      expect(row?.secretCiphertext).not.toContain(printed.secret_key);
    } finally {
      await gateway.close();
    }
  });
});

describe("the command-line tool's refusals", { timeout: 300_000 }, () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "stratus-cli-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("writes nothing when an argument is wrong, so the corrected command then succeeds", async () => {
    const owner = await cli(dataDir, "create-user", "--email", "ada@initech.example");
    expect(owner.code, owner.stderr).toBe(0);
    const org = await cli(dataDir, "create-org", "--name", "Initech", "--owner", "ada@initech.example");
    const { organization_id: orgId } = JSON.parse(org.stdout) as { organization_id: string };

    const badRelation = await cli(dataDir, "create-user", "--email", "bob@initech.example", "--org", orgId, "--relation", "admin");
    expect(badRelation.code).toBe(1);
    expect(badRelation.stderr).toContain("--relation must be owner or member");
    const noOrg = await cli(dataDir, "create-user", "--email", "bob@initech.example", "--org", "00000000-0000-4000-8000-000000000000");
    expect(noOrg.code).toBe(1);
    expect(noOrg.stderr).toContain("no organization 00000000-0000-4000-8000-000000000000");
    const listed = await cli(dataDir, "list-keys", "--user", "bob@initech.example");
    expect(listed.stderr).toContain("no user bob@initech.example");

    const bob = await cli(dataDir, "create-user", "--email", "bob@initech.example", "--org", orgId, "--relation", "member");
    expect(bob.code, bob.stderr).toBe(0);
    const again = await cli(dataDir, "add-member", "--org", orgId, "--user", "bob@initech.example", "--relation", "owner");
    expect(again.code).toBe(1);
    // The store's reason, not the statement with its parameters.
    expect(again.stderr).toMatch(/duplicate key|unique/);
    expect(again.stderr).not.toContain("Failed query");
  });
});

describe("a standalone gateway that cannot listen", { timeout: 300_000 }, () => {
  it("says so (the address taken), exits 1 and leaves the data dir unlocked", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "stratus-listen-"));
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    try {
      const port = String((taken.address() as AddressInfo).port);
      const env: NodeJS.ProcessEnv = { ...process.env, STRATUS_DATA_DIR: dataDir, STRATUS_LOG_LEVEL: "info", STRATUS_SEED_DEMO: "0", PORT: port, HOST: "127.0.0.1" };
      delete env.DATABASE_URL;
      delete env.STRATUS_MASTER_KEY;
      const run = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
        const child = spawn(process.execPath, ["--import", "tsx", "lib/gateway/cli.ts", "serve"], { cwd: process.cwd(), env });
        let output = "";
        child.stdout.on("data", (d: Buffer) => (output += d.toString()));
        child.stderr.on("data", (d: Buffer) => (output += d.toString()));
        child.on("error", reject);
        child.on("close", (code) => resolve({ code, output }));
      });
      expect(run.code, run.output).toBe(1);
      expect(run.output).toContain("the gateway cannot listen");
      expect(run.output).toContain("EADDRINUSE");
      expect(run.output).not.toMatch(/\n\s+at /);
      expect(existsSync(path.join(dataDir, "stratus.lock"))).toBe(false);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("a start that fails once the store is open", () => {
  it("closes the store again: the data dir is not left held, and the next start opens it", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "stratus-failed-start-"));
    try {
      const options = { store: { kind: "pglite" as const, dataDir }, dataDir, seed: false, logger: createLogger("silent") };
      await expect(
        startGateway({
          ...options,
          onStoreOpen: () => {
            throw new Error("the start failed after the store opened");
          },
        }),
      ).rejects.toThrow("the start failed after the store opened");
      const gateway = await startGateway(options);
      await gateway.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
