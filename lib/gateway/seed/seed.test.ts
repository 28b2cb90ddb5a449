import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetEnvCache } from "@/lib/env";
import { createApiKey } from "../admin";
import { createLogger } from "../logger";
import { startGateway } from "../runtime";
import { openStore, resultRows } from "../store/client";
import { apiKeys, disks, memberships, networkInterfaces, organizations, projects, roleBindings, roles, vms } from "../store/schema";
import { createTestGateway, type TestGateway } from "../testing";
import { seedDemo, writeDemoCredentials } from "./index";

/** A fresh store with the whole demo seeded; slow on a busy machine. */
const SETUP_MS = 180_000;

let t: TestGateway;
beforeAll(async () => {
  t = await createTestGateway();
}, SETUP_MS);
afterAll(() => t.close());

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "stratus-seed-"));
  dirs.push(dir);
  return dir;
};

const db = () => t.gateway.store.db;

function expectCredentialsShape(value: unknown) {
  const c = value as Record<string, Record<string, string>>;
  expect(Object.keys(c).sort()).toEqual(["auditor", "member", "organization_id", "outsider", "owner"]);
  expect(typeof c.organization_id).toBe("string");
  for (const who of ["owner", "member", "auditor", "outsider"]) {
    expect(Object.keys(c[who]!).sort()).toEqual(["access_key_id", "email", "secret_key", "user_id"]);
    expect(Object.values(c[who]!).every((v) => typeof v === "string" && v !== "")).toBe(true);
    expect(c[who]!.secret_key).toMatch(/^[A-Za-z0-9_-]{43}$/);
  }
}

describe("the demo organization", () => {
  it("returns the demo credentials in exactly the documented shape, each key usable", async () => {
    expectCredentialsShape(t.demo);
    for (const who of ["owner", "member", "auditor", "outsider"] as const) {
      expect((await t.op(who, "getOrganizations")).status).toBe(200);
    }
    const ids = [t.demo.owner, t.demo.member, t.demo.auditor, t.demo.outsider];
    expect(new Set(ids.map((u) => u.user_id)).size).toBe(4);
    expect(new Set(ids.map((u) => u.access_key_id)).size).toBe(4);
  });

  it("has at least five projects and twenty VMs of realistic types in several states", async () => {
    const orgProjects = await db().select().from(projects).where(eq(projects.organizationId, t.demo.organization_id));
    expect(orgProjects.length).toBeGreaterThanOrEqual(5);
    const orgVms = await db().select().from(vms).where(eq(vms.organizationId, t.demo.organization_id));
    expect(orgVms.length).toBeGreaterThanOrEqual(20);
    for (const vm of orgVms) {
      expect(vm.type).toMatch(/^[a-z0-9-]+\.\d+x$/);
      expect(vm.state).toMatch(/^STATE_[A-Z_]+$/);
      expect(vm.name).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(orgProjects.some((p) => p.id === vm.projectId)).toBe(true);
    }
    expect(new Set(orgVms.map((v) => v.type)).size).toBeGreaterThanOrEqual(3);
    const states = new Set(orgVms.map((v) => v.state));
    expect(states.has("STATE_RUNNING")).toBe(true);
    expect(states.size).toBeGreaterThanOrEqual(3);
    expect(new Set(orgVms.map((v) => v.location)).size).toBeGreaterThanOrEqual(2);

    // Every VM has exactly one OS disk and at least one network interface.
    const vmIds = orgVms.map((v) => v.id);
    const vmDisks = await db().select().from(disks).where(inArray(disks.vmId, vmIds));
    const nics = await db().select().from(networkInterfaces).where(inArray(networkInterfaces.vmId, vmIds));
    for (const id of vmIds) {
      expect(vmDisks.filter((d) => d.vmId === id && d.attachmentType === "os")).toHaveLength(1);
      expect(nics.filter((n) => n.vmId === id).length).toBeGreaterThanOrEqual(1);
    }
  });

  it("binds the member to some projects and not to at least one", async () => {
    const orgProjects = await db().select({ id: projects.id }).from(projects).where(eq(projects.organizationId, t.demo.organization_id));
    const bindings = await db()
      .select({ scopeType: roleBindings.scopeType, scopeObjectId: roleBindings.scopeObjectId, roleName: roles.roleName, org: roleBindings.organizationId })
      .from(roleBindings)
      .innerJoin(roles, eq(roles.id, roleBindings.roleId))
      .where(eq(roleBindings.userId, t.demo.member.user_id));
    expect(bindings.every((b) => b.org === t.demo.organization_id)).toBe(true);
    // No organization-wide permission: the member's reach is their project bindings.
    expect(bindings.filter((b) => b.scopeType === "org").map((b) => b.roleName)).toEqual(["Organization Member"]);
    const bound = new Set(bindings.filter((b) => b.scopeType === "project").map((b) => b.scopeObjectId));
    expect(bound.size).toBeGreaterThan(0);
    expect(orgProjects.filter((p) => !bound.has(p.id)).length).toBeGreaterThanOrEqual(1);

    const [membership] = await db().select().from(memberships).where(eq(memberships.userId, t.demo.member.user_id));
    expect(membership).toMatchObject({ organizationId: t.demo.organization_id, relation: "member" });
  });

  it("keeps the outsider in another organization only", async () => {
    const theirs = await db().select().from(memberships).where(eq(memberships.userId, t.demo.outsider.user_id));
    expect(theirs).toHaveLength(1);
    expect(theirs[0]!.organizationId).not.toBe(t.demo.organization_id);
    expect(theirs[0]!.relation).toBe("owner");
    const bindings = await db().select().from(roleBindings).where(eq(roleBindings.userId, t.demo.outsider.user_id));
    expect(bindings.every((b) => b.organizationId === theirs[0]!.organizationId)).toBe(true);
    const [other] = await db().select().from(organizations).where(eq(organizations.id, theirs[0]!.organizationId));
    expect(other?.name).not.toBe("");
    const demoMembers = await db().select().from(memberships).where(eq(memberships.organizationId, t.demo.organization_id));
    expect(demoMembers.map((m) => [m.userId, m.relation]).sort()).toEqual(
      [
        [t.demo.owner.user_id, "owner"],
        [t.demo.member.user_id, "member"],
        [t.demo.auditor.user_id, "member"],
      ].sort(),
    );
  });

  it("draws new ids for every install (no two stores share the demo's ids), the same data otherwise", { timeout: 180_000 }, async () => {
    const store = await openStore({ kind: "memory" });
    try {
      const again = await seedDemo(store.db, randomBytes(32));
      expect(again.organization_id).not.toBe(t.demo.organization_id);
      for (const who of ["owner", "member", "auditor", "outsider"] as const) {
        expect(again[who].user_id).not.toBe(t.demo[who].user_id);
        expect(again[who].email).toBe(t.demo[who].email);
        expect(again[who].secret_key).not.toBe(t.demo[who].secret_key);
      }
      const projectRows = (d: typeof store.db) => d.select({ id: projects.id, name: projects.name }).from(projects);
      const [mine, theirs] = [await projectRows(db()), await projectRows(store.db)];
      expect(theirs.map((p) => p.name).sort()).toEqual(mine.map((p) => p.name).sort());
      const ids = new Set(mine.map((p) => p.id));
      expect(theirs.filter((p) => ids.has(p.id))).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe("demo credentials file", { timeout: 180_000 }, () => {
  it("is written with mode 0600 in exactly the documented shape, even over a file left with another mode", () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, "data"));
    writeFileSync(path.join(dir, "data", "demo-credentials.json"), "{}", { mode: 0o666 });
    chmodSync(path.join(dir, "data", "demo-credentials.json"), 0o666);
    const file = writeDemoCredentials(path.join(dir, "data"), t.demo);
    expect(file).toBe(path.join(dir, "data", "demo-credentials.json"));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const parsed = JSON.parse(readFileSync(file, "utf8")) as unknown;
    expectCredentialsShape(parsed);
    expect(parsed).toEqual(t.demo);
  });

  it("is written by the first start on an empty store, not rewritten on the next, written again from the store once gone; that start leaves the demo's tables analyzed", async () => {
    const dataDir = tempDir();
    const options = { store: { kind: "pglite" as const, dataDir }, dataDir, seed: true, logger: createLogger("silent") };
    const first = await startGateway(options);
    const file = path.join(dataDir, "demo-credentials.json");
    let written: string;
    try {
      written = readFileSync(file, "utf8");
      expectCredentialsShape(JSON.parse(written));
      expect(statSync(path.join(dataDir, "master.key")).mode & 0o777).toBe(0o600);
      // PGlite has no autovacuum: the start itself gave the planner its statistics (lib/db/autovacuum.ts).
      const analyzed = resultRows<{ reltuples: number; rows: number }>(
        await first.store.db.execute(
          sql`select c.reltuples::float8 as reltuples, (select count(*)::int from usage_records) as rows from pg_class c where c.oid = 'usage_records'::regclass`,
        ),
      );
      expect(analyzed[0]!.rows).toBeGreaterThan(1000);
      // Never analyzed, it would read -1.
      expect(analyzed[0]!.reltuples).toBeGreaterThan(analyzed[0]!.rows * 0.9);
    } finally {
      await first.close();
    }
    const second = await startGateway(options);
    try {
      expect(readFileSync(file, "utf8")).toBe(written);
      expect(await second.store.db.select().from(organizations)).toHaveLength(2);
      // The key in the file still signs against the restarted gateway (same master key).
      const creds = JSON.parse(written) as { owner: { access_key_id: string; secret_key: string } };
      const { signedHeaders } = await import("@/lib/signing");
      const url = "http://gateway.test/v1/organizations/entities";
      const headers = signedHeaders({ accessKeyId: creds.owner.access_key_id, secretKey: creds.owner.secret_key }, { method: "GET", url });
      expect((await second.app.request(url, { headers })).status).toBe(200);
    } finally {
      await second.close();
    }

    // The file gone (the process ended between the seed's commit and the file, or someone deleted it): the next start
    // writes it again from the store, the same keys as before.
    rmSync(file);
    const third = await startGateway(options);
    try {
      expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(JSON.parse(written));
      expect(statSync(file).mode & 0o777).toBe(0o600);
      // A demo key revoked since, and another of the same name made for the person later: nothing of the seed's to
      // offer, so no file (the later key is not the demo's to hand out), and the start goes on.
      const creds = JSON.parse(written) as { owner: { access_key_id: string; user_id: string } };
      await third.store.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, creds.owner.access_key_id));
      await createApiKey(third.store.db, third.deps.masterKey, creds.owner.user_id, "demo");
    } finally {
      await third.close();
    }
    rmSync(file);
    const fourth = await startGateway(options);
    await fourth.close();
    expect(existsSync(file)).toBe(false);
  });
});

describe("demo seeding by default", { timeout: 180_000 }, () => {
  async function startWith(vars: Record<string, string | undefined>): Promise<{ orgs: number; file: boolean }> {
    const saved = { ...process.env };
    const dataDir = tempDir();
    Object.assign(process.env, { STRATUS_DATA_DIR: dataDir });
    for (const [k, v] of Object.entries(vars)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    resetEnvCache();
    try {
      const gateway = await startGateway({ store: { kind: "memory" }, dataDir, masterKey: randomBytes(32), logger: createLogger("silent") });
      try {
        return { orgs: (await gateway.store.db.select().from(organizations)).length, file: existsSync(path.join(dataDir, "demo-credentials.json")) };
      } finally {
        await gateway.close();
      }
    } finally {
      process.env = saved;
      resetEnvCache();
    }
  }

  it("is off in production unless asked for, and on elsewhere unless turned off", async () => {
    expect(await startWith({ NODE_ENV: "production", STRATUS_SEED_DEMO: undefined })).toEqual({ orgs: 0, file: false });
    expect(await startWith({ NODE_ENV: "production", STRATUS_SEED_DEMO: "1" })).toEqual({ orgs: 2, file: true });
    expect(await startWith({ NODE_ENV: "development", STRATUS_SEED_DEMO: undefined })).toEqual({ orgs: 2, file: true });
    expect(await startWith({ NODE_ENV: "development", STRATUS_SEED_DEMO: "0" })).toEqual({ orgs: 0, file: false });
  });
});
