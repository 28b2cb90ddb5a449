import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { afterAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { migrateDatabase } from "@/lib/db/migrate";
import { freshStoreOptions } from "../testing";
import { MIGRATIONS_FOLDER, openStore, resultRows } from "./client";

/**
 * Migrations that change what a store already holds, applied to a store written before them:
 * 0012 makes SCIM names unique (a name a race doubled must keep its rows and still let the
 * indexes be created); 0013 gives every account its home organization; 0018 sums usage by product
 * line and renders each day; 0020 repairs the days a rolling deploy over 0018 summed without one;
 * 0021 deletes the role bindings of SCIM groups a deleted integration took with it; 0022 ends what people
 * removed or suspended made to act for the organization; 0023 drops the attributes two SCIM PATCH bugs stored;
 * 0024 deletes the SCIM tokens of makers who no longer hold scim.manage.
 */

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** The migrations folder as it was before the named migration. */
function migrationsBefore(tag: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), "stratus-migrations-"));
  dirs.push(dir);
  cpSync(MIGRATIONS_FOLDER, dir, { recursive: true });
  const journalPath = path.join(dir, "meta/_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: Array<{ tag: string }> };
  const at = journal.entries.findIndex((e) => e.tag === tag);
  expect(at).toBeGreaterThan(0);
  writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
  return dir;
}

/** A fresh PGlite migrated up to (not including) the named migration, given to `run` with the rest to apply; then closed. */
async function storeBefore(tag: string, run: (client: PGlite, migrateRest: () => Promise<void>) => Promise<void>): Promise<void> {
  const client = new PGlite();
  const db = drizzle({ client });
  try {
    await migrateDatabase(db, "pglite", { folder: migrationsBefore(tag), lockId: 1 });
    await run(client, () => migrateDatabase(db, "pglite", { folder: MIGRATIONS_FOLDER, lockId: 1 }));
  } finally {
    await client.close();
  }
}

describe("migration 0012: unique SCIM names", { timeout: 120_000 }, () => {
  it("keeps names a race doubled, each later holder with its id appended, and then refuses a clash", async () => {
    await storeBefore("0012_scim_names_unique", async (client, migrateRest) => {
      await client.exec(`
        INSERT INTO organizations (id, name) VALUES ('org-1', 'One');
        INSERT INTO scim_integrations (id, organization_id, name, identity_provider, created_by) VALUES ('int-1', 'org-1', 'Okta', 'okta', 'u-1');
        INSERT INTO users (id, email, name) VALUES ('u-1', 'a@x.example', 'A'), ('u-2', 'b@x.example', 'B'), ('u-3', 'c@x.example', 'C'), ('u-4', 'd@x.example', 'D'), ('u-5', 'e@x.example', 'E');
        INSERT INTO memberships (organization_id, user_id, relation, scim_user_name, created_at) VALUES
          ('org-1', 'u-2', 'member', 'racer', '2026-01-02'), ('org-1', 'u-1', 'member', 'Racer', '2026-01-01'), ('org-1', 'u-3', 'member', 'other', '2026-01-03'),
          ('org-1', 'u-4', 'member', repeat('L', 256), '2026-01-04'), ('org-1', 'u-5', 'member', repeat('l', 256), '2026-01-05');
        INSERT INTO scim_groups (id, organization_id, integration_id, display_name, created_at) VALUES
          ('g-1', 'org-1', 'int-1', 'Admins', '2026-01-01'), ('g-2', 'org-1', 'int-1', 'ADMINS', '2026-01-02');
      `);
      await migrateRest();
      const people = resultRows<{ user_id: string; scim_user_name: string }>(await client.query("SELECT user_id, scim_user_name FROM memberships ORDER BY user_id"));
      expect(people).toEqual([
        { user_id: "u-1", scim_user_name: "Racer" },
        { user_id: "u-2", scim_user_name: "racer (u-2)" },
        { user_id: "u-3", scim_user_name: "other" },
        { user_id: "u-4", scim_user_name: "L".repeat(256) },
        // Still within the service's 256 characters, so the person can be updated (and deprovisioned).
        { user_id: "u-5", scim_user_name: `${"l".repeat(250)} (u-5)` },
      ]);
      const groups = resultRows<{ id: string; display_name: string }>(await client.query("SELECT id, display_name FROM scim_groups ORDER BY id"));
      expect(groups).toEqual([
        { id: "g-1", display_name: "Admins" },
        { id: "g-2", display_name: "ADMINS (g-2)" },
      ]);
      await expect(client.query("UPDATE memberships SET scim_user_name = 'RACER' WHERE user_id = 'u-3'")).rejects.toMatchObject({ code: "23505", constraint: "memberships_scim_user_name_uq" });
      await expect(client.query("INSERT INTO scim_groups (id, organization_id, integration_id, display_name) VALUES ('g-3', 'org-1', 'int-1', 'admins')")).rejects.toMatchObject({
        code: "23505",
        constraint: "scim_groups_name_uq",
      });
    });
  });
});

describe("migration 0013: the account's home", { timeout: 120_000 }, () => {
  it("makes the organization of an account's oldest membership its home, then the first to add a new account", async () => {
    await storeBefore("0013_account_home", async (client, migrateRest) => {
      await client.exec(`
        INSERT INTO organizations (id, name) VALUES ('org-a', 'A'), ('org-b', 'B');
        INSERT INTO users (id, email, name) VALUES ('u-1', 'one@x.example', 'One'), ('u-2', 'two@x.example', 'Two');
        INSERT INTO memberships (organization_id, user_id, relation, created_at) VALUES
          ('org-a', 'u-1', 'member', '2026-02-01'), ('org-b', 'u-1', 'member', '2026-01-01'), ('org-a', 'u-2', 'member', '2026-03-01');
      `);
      await migrateRest();
      const homes = async () => resultRows<{ id: string; home: string | null }>(await client.query("SELECT id, home_organization_id AS home FROM users ORDER BY id"));
      expect(await homes()).toEqual([
        { id: "u-1", home: "org-b" },
        { id: "u-2", home: "org-a" },
      ]);
      // A new account: its first membership makes its home; a later one, or leaving and coming back, does not move it.
      await client.exec(`
        INSERT INTO users (id, email, name) VALUES ('u-3', 'three@x.example', 'Three');
        INSERT INTO memberships (organization_id, user_id, relation) VALUES ('org-b', 'u-3', 'member');
        INSERT INTO memberships (organization_id, user_id, relation) VALUES ('org-a', 'u-3', 'member');
        DELETE FROM memberships WHERE organization_id = 'org-b' AND user_id = 'u-3';
        INSERT INTO memberships (organization_id, user_id, relation) VALUES ('org-b', 'u-3', 'member');
      `);
      expect((await homes()).find((u) => u.id === "u-3")).toEqual({ id: "u-3", home: "org-b" });
      // The home organization deleted: the account has none, and gets none from an organization adding it
      // while it is a person elsewhere (every organization it belongs to decides).
      await client.exec(`
        DELETE FROM organizations WHERE id = 'org-b';
        INSERT INTO organizations (id, name) VALUES ('org-c', 'C');
        INSERT INTO memberships (organization_id, user_id, relation) VALUES ('org-c', 'u-3', 'member');
      `);
      expect((await homes()).find((u) => u.id === "u-3")).toEqual({ id: "u-3", home: null });
    });
  });
});

/** The columns the usage tests below write records with. */
const USAGE_COLUMNS = "organization_id, project_id, project_name, usage_date, region, resource_type, product_line, resource_id, resource_name, billable_metric, quantity, unit_price, reservation_id";
/** One day of two GPU product lines of one project (2 and 3 GPU-hours). */
const GPU_DAY = `('org-a', 'p-1', 'One', '2026-01-01', 'r-1', 'gpu', 'h100', 'res-1', 'n', 'gpu-hours', 2, 1.5, NULL),
          ('org-a', 'p-1', 'One', '2026-01-01', 'r-1', 'gpu', 'h200', 'res-2', 'n', 'gpu-hours', 3, 1.5, NULL)`;

describe("migration 0018: usage options per day", { timeout: 120_000 }, () => {
  it("sums the usage already recorded by product line and recorded name, and renders each day's options", async () => {
    await storeBefore("0018_usage_options_per_day", async (client, migrateRest) => {
      await client.exec(`
        INSERT INTO usage_records (${USAGE_COLUMNS}) VALUES
          ${GPU_DAY},
          ('org-a', 'p-2', 'Two', '2026-01-02', 'r-2', 'disk', 'ssd', 'res-3', 'n', 'gib-months', 4, 0.5, 'res-x');
      `);
      await migrateRest();
      const daily = resultRows<{ day: string; product_line: string; project_name: string; quantity: string }>(
        await client.query("SELECT usage_date::text AS day, product_line, project_name, quantity::text FROM usage_daily ORDER BY 1, 2"),
      );
      expect(daily).toEqual([
        { day: "2026-01-01", product_line: "h100", project_name: "One", quantity: "2.000000" },
        { day: "2026-01-01", product_line: "h200", project_name: "One", quantity: "3.000000" },
        { day: "2026-01-02", product_line: "ssd", project_name: "Two", quantity: "4.000000" },
      ]);
      const days = resultRows<{ day: string; options: string; usage: string }>(await client.query("SELECT usage_date::text AS day, options, usage FROM usage_day_json ORDER BY 1"));
      expect(days.map((d) => [d.day, JSON.parse(d.options)])).toEqual([
        ["2026-01-01", { all: { projects: { "p-1": "One" }, resource_types: ["gpu"], product_lines: ["h100", "h200"], regions: ["r-1"] }, on_demand: { projects: { "p-1": "One" }, resource_types: ["gpu"], product_lines: ["h100", "h200"], regions: ["r-1"] } }],
        ["2026-01-02", { all: { projects: { "p-2": "Two" }, resource_types: ["disk"], product_lines: ["ssd"], regions: ["r-2"] }, on_demand: { projects: {}, resource_types: [], product_lines: [], regions: [] } }],
      ]);
      // One chart point for the two product lines of a group.
      expect(JSON.parse(`[${days[0]!.usage}]`)).toEqual([
        { billable_metric: "gpu-hours", date: "2026-01-01", project_id: "p-1", quantity: 5, region: "r-1", reservation_id: "", resource_type: "gpu" },
      ]);
    });
  });
});

describe("migration 0020: usage sums a rolling deploy left without product line", { timeout: 120_000 }, () => {
  it("sums each such day again from its records and renders it, and leaves the other days as they are", async () => {
    await storeBefore("0020_usage_daily_repair", async (client, migrateRest) => {
      await client.exec(`
        INSERT INTO usage_records (${USAGE_COLUMNS}) VALUES
          ${GPU_DAY},
          ('org-a', 'p-2', 'Two', '2026-01-02', 'r-2', 'disk', 'ssd', 'res-3', 'n', 'gib-months', 4, 0.5, NULL);
        -- What the trigger of the version before 0018 wrote for a record 0018's rebuild did not see:
        -- its sums without a product line, and no rendering of the day.
        ALTER TABLE usage_records DISABLE TRIGGER USER;
        INSERT INTO usage_records (${USAGE_COLUMNS}) VALUES
          ('org-a', 'p-1', 'One', '2026-01-01', 'r-1', 'gpu', 'h100', 'res-4', 'n', 'gpu-hours', 7, 1.5, NULL);
        ALTER TABLE usage_records ENABLE TRIGGER USER;
        INSERT INTO usage_daily (organization_id, usage_date, project_id, resource_type, region, billable_metric, reservation_id, product_line, project_name, quantity, cost, min_unit_price, max_unit_price, records, recorded_at)
          VALUES ('org-a', '2026-01-01', 'p-1', 'gpu', 'r-1', 'gpu-hours', '', '', 'One', 7, 10.5, 1.5, 1.5, 1, now());
        -- A day without such rows: the repair must not read its records (its sum, made wrong here, stays).
        UPDATE usage_daily SET quantity = 40 WHERE usage_date = '2026-01-02';
      `);
      await migrateRest();
      const daily = resultRows<{ day: string; product_line: string; quantity: string; records: number }>(
        await client.query("SELECT usage_date::text AS day, product_line, quantity::text, records FROM usage_daily ORDER BY 1, 2"),
      );
      expect(daily).toEqual([
        { day: "2026-01-01", product_line: "h100", quantity: "9.000000", records: 2 },
        { day: "2026-01-01", product_line: "h200", quantity: "3.000000", records: 1 },
        { day: "2026-01-02", product_line: "ssd", quantity: "40", records: 1 },
      ]);
      const day = resultRows<{ options: string; usage: string }>(await client.query("SELECT options, usage FROM usage_day_json WHERE usage_date = '2026-01-01'"));
      expect(JSON.parse(day[0]!.options).all.product_lines).toEqual(["h100", "h200"]);
      expect(JSON.parse(`[${day[0]!.usage}]`)).toEqual([
        { billable_metric: "gpu-hours", date: "2026-01-01", project_id: "p-1", quantity: 12, region: "r-1", reservation_id: "", resource_type: "gpu" },
      ]);
    });
  });
});

describe("migration 0021: bindings of SCIM groups that are gone", { timeout: 120_000 }, () => {
  it("deletes the bindings granted through a group no longer stored, and keeps direct ones and those of existing groups", async () => {
    await storeBefore("0021_orphan_group_bindings", async (client, migrateRest) => {
      await client.exec(`
        INSERT INTO organizations (id, name) VALUES ('org-1', 'One');
        INSERT INTO users (id, email, name) VALUES ('u-1', 'a@x.example', 'A');
        INSERT INTO roles (id, organization_id, role_name, allowed_scopes, permissions) VALUES ('r-1', 'org-1', 'Auditor', '{org}', '{audit.read}');
        INSERT INTO scim_integrations (id, organization_id, name, identity_provider, created_by) VALUES ('int-1', 'org-1', 'Okta', 'okta', 'u-1');
        INSERT INTO scim_groups (id, organization_id, integration_id, display_name) VALUES ('g-kept', 'org-1', 'int-1', 'Kept');
        INSERT INTO role_bindings (id, organization_id, user_id, role_id, scope_type, scope_object_id, via_group_id) VALUES
          ('b-direct', 'org-1', 'u-1', 'r-1', 'org', 'org-1', ''),
          ('b-kept', 'org-1', 'u-1', 'r-1', 'org', 'org-1', 'g-kept'),
          -- What deleting an integration left: the binding of a group its deletion took by cascade.
          ('b-orphan', 'org-1', 'u-1', 'r-1', 'org', 'org-1', 'g-gone');
      `);
      await migrateRest();
      const bindings = resultRows<{ id: string }>(await client.query("SELECT id FROM role_bindings ORDER BY id"));
      expect(bindings.map((b) => b.id)).toEqual(["b-direct", "b-kept"]);
    });
  });
});

/** Three people of org-1: one active, one suspended, and one who left it and is active in org-2 only. */
const PEOPLE_ACTIVE_SUSPENDED_AND_GONE = `
  INSERT INTO organizations (id, name) VALUES ('org-1', 'One'), ('org-2', 'Two');
  INSERT INTO users (id, email, name) VALUES ('u-active', 'a@x.example', 'A'), ('u-suspended', 's@x.example', 'S'), ('u-gone', 'g@x.example', 'G');
  INSERT INTO memberships (organization_id, user_id, relation, status) VALUES
    ('org-1', 'u-active', 'owner', 'active'), ('org-1', 'u-suspended', 'member', 'suspended'), ('org-2', 'u-gone', 'owner', 'active');
`;

describe("migration 0022: what people gone made to act for the organization", { timeout: 120_000 }, () => {
  it("deletes the SCIM tokens and disables the S3 keys of people removed or suspended, and keeps those of active people", async () => {
    await storeBefore("0022_credentials_of_people_gone", async (client, migrateRest) => {
      await client.exec(`
        ${PEOPLE_ACTIVE_SUSPENDED_AND_GONE}
        INSERT INTO scim_integrations (id, organization_id, name, identity_provider, created_by) VALUES ('int-1', 'org-1', 'Okta', 'okta', 'u-active');
        INSERT INTO scim_tokens (id, organization_id, integration_id, alias, secret_hash, user_id, expires_at) VALUES
          ('t-active', 'org-1', 'int-1', 'a', 'h-a', 'u-active', now() + interval '1 day'),
          ('t-suspended', 'org-1', 'int-1', 's', 'h-s', 'u-suspended', now() + interval '1 day'),
          ('t-gone', 'org-1', 'int-1', 'g', 'h-g', 'u-gone', now() + interval '1 day');
        INSERT INTO s3_keys (id, organization_id, user_id, access_key_id, secret_hash) VALUES
          ('k-active', 'org-1', 'u-active', 'S3U_a', 'h'), ('k-suspended', 'org-1', 'u-suspended', 'S3U_s', 'h'),
          ('k-gone', 'org-1', 'u-gone', 'S3U_g', 'h'), ('k-gone-elsewhere', 'org-2', 'u-gone', 'S3U_e', 'h');
      `);
      await migrateRest();
      const tokens = resultRows<{ id: string }>(await client.query("SELECT id FROM scim_tokens ORDER BY id"));
      expect(tokens.map((t) => t.id)).toEqual(["t-active"]);
      const keys = resultRows<{ id: string; enabled: boolean }>(await client.query("SELECT id, enabled FROM s3_keys ORDER BY id"));
      expect(keys).toEqual([
        { id: "k-active", enabled: true },
        { id: "k-gone", enabled: false },
        { id: "k-gone-elsewhere", enabled: true },
        { id: "k-suspended", enabled: false },
      ]);
    });
  });
});

describe("migration 0023: attributes stored by two SCIM PATCH bugs", { timeout: 120_000 }, () => {
  it("drops the names the two bugs made (a filter's, and urn:…:enterprise:2.0), and keeps every other as it was", async () => {
    const enterprise = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
    // Extensions this service does not know are stored as sent, whatever their URN's characters or case.
    const kept = {
      name: { givenName: "G" },
      emails: [{ type: "work", value: "j@x.example", primary: true }],
      [enterprise]: { department: "Eng" },
      "urn:scim:schemas:extension:enterprise:1.0": { division: "R&D" },
      "URN:example:acme:2.0:User": { badge: "7" },
      "urn:example:ext/User": { x: 1 },
      "x-custom_1": 1,
    };
    const junk = { 'emails[type eq "work"]': { value: "new@x.example" }, "urn:ietf:params:scim:schemas:extension:enterprise:2.0": { User: { department: "Ops" } } };
    await storeBefore("0023_scim_junk_attributes", async (client, migrateRest) => {
      await client.exec(`
        INSERT INTO organizations (id, name) VALUES ('org-1', 'One');
        INSERT INTO users (id, email, name) VALUES ('u-junk', 'j@x.example', 'J'), ('u-clean', 'c@x.example', 'C'), ('u-none', 'n@x.example', 'N');
        INSERT INTO memberships (organization_id, user_id, relation, status) VALUES ('org-1', 'u-junk', 'member', 'active'), ('org-1', 'u-clean', 'member', 'active'), ('org-1', 'u-none', 'member', 'active');
      `);
      await client.query("UPDATE memberships SET scim_attributes = $1::jsonb WHERE user_id = 'u-junk'", [JSON.stringify({ ...kept, ...junk })]);
      await client.query("UPDATE memberships SET scim_attributes = $1::jsonb WHERE user_id = 'u-clean'", [JSON.stringify(kept)]);
      await migrateRest();
      const rows = resultRows<{ user_id: string; scim_attributes: unknown }>(await client.query("SELECT user_id, scim_attributes FROM memberships ORDER BY user_id"));
      expect(rows).toEqual([
        { user_id: "u-clean", scim_attributes: kept },
        { user_id: "u-junk", scim_attributes: kept },
        { user_id: "u-none", scim_attributes: null },
      ]);
    });
  });
});

describe("migration 0024: SCIM tokens of makers without scim.manage", { timeout: 120_000 }, () => {
  it("keeps the tokens of owners and of people an organization-wide role grants it to, and deletes the rest", async () => {
    await storeBefore("0024_scim_tokens_without_permission", async (client, migrateRest) => {
      await client.exec(`
        INSERT INTO organizations (id, name) VALUES ('org-1', 'One'), ('org-2', 'Two');
        INSERT INTO users (id, email, name) VALUES ('u-owner', 'o@x.example', 'O'), ('u-admin', 'a@x.example', 'A'), ('u-project', 'p@x.example', 'P'),
          ('u-demoted', 'd@x.example', 'D'), ('u-elsewhere', 'e@x.example', 'E');
        INSERT INTO memberships (organization_id, user_id, relation, status) VALUES
          ('org-1', 'u-owner', 'owner', 'active'), ('org-1', 'u-admin', 'member', 'active'), ('org-1', 'u-project', 'member', 'active'),
          ('org-1', 'u-demoted', 'member', 'active'), ('org-1', 'u-elsewhere', 'member', 'active'), ('org-2', 'u-elsewhere', 'member', 'active');
        INSERT INTO roles (id, organization_id, role_name, allowed_scopes, permissions) VALUES
          ('r-admin', 'org-1', 'Organization Admin', '{org}', '{iam.write,scim.manage}'), ('r-auditor', 'org-1', 'Auditor', '{org}', '{audit.read}'),
          ('r-admin-2', 'org-2', 'Organization Admin', '{org}', '{iam.write,scim.manage}');
        -- u-project holds it on a project only; u-demoted only what grants no scim.manage; u-elsewhere in the other organization.
        INSERT INTO role_bindings (id, organization_id, user_id, role_id, scope_type, scope_object_id) VALUES
          ('b-admin', 'org-1', 'u-admin', 'r-admin', 'org', 'org-1'), ('b-project', 'org-1', 'u-project', 'r-admin', 'project', 'p-1'),
          ('b-demoted', 'org-1', 'u-demoted', 'r-auditor', 'org', 'org-1'), ('b-elsewhere', 'org-2', 'u-elsewhere', 'r-admin-2', 'org', 'org-2');
        INSERT INTO scim_integrations (id, organization_id, name, identity_provider, created_by) VALUES ('int-1', 'org-1', 'Okta', 'okta', 'u-owner');
        INSERT INTO scim_tokens (id, organization_id, integration_id, alias, secret_hash, user_id, expires_at) VALUES
          ('t-owner', 'org-1', 'int-1', 'o', 'h-o', 'u-owner', now() + interval '1 day'),
          ('t-admin', 'org-1', 'int-1', 'a', 'h-a', 'u-admin', now() + interval '1 day'),
          ('t-project', 'org-1', 'int-1', 'p', 'h-p', 'u-project', now() + interval '1 day'),
          ('t-demoted', 'org-1', 'int-1', 'd', 'h-d', 'u-demoted', now() + interval '1 day'),
          ('t-elsewhere', 'org-1', 'int-1', 'e', 'h-e', 'u-elsewhere', now() + interval '1 day');
      `);
      await migrateRest();
      const tokens = resultRows<{ id: string }>(await client.query("SELECT id FROM scim_tokens ORDER BY id"));
      expect(tokens.map((t) => t.id)).toEqual(["t-admin", "t-owner"]);
    });
  });
});

describe("migration 0025: when each organization began requiring MFA", { timeout: 120_000 }, () => {
  it("is the earliest of the methods it requires now, and none where it requires none", async () => {
    await storeBefore("0025_mfa_required_since", async (client, migrateRest) => {
      await client.exec(`
        INSERT INTO organizations (id, name) VALUES ('org-1', 'One'), ('org-2', 'Two');
        INSERT INTO organization_mfa_methods (organization_id, method, created_at) VALUES
          ('org-1', 'webauthn', '2026-03-02T10:00:00Z'), ('org-1', 'totp', '2026-01-05T09:00:00Z');
      `);
      await migrateRest();
      const rows = resultRows<{ id: string; since: string | null }>(
        await client.query(`SELECT id, to_char("mfa_required_since" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI') AS since FROM organizations ORDER BY id`),
      );
      expect(rows).toEqual([
        { id: "org-1", since: "2026-01-05T09:00" },
        { id: "org-2", since: null },
      ]);
    });
  });
});

describe("migration 0026: container registry tokens of people gone", { timeout: 120_000 }, () => {
  it("deletes the tokens of people removed or suspended, and keeps those of active people", async () => {
    await storeBefore("0026_registry_tokens_of_people_gone", async (client, migrateRest) => {
      await client.exec(`
        ${PEOPLE_ACTIVE_SUSPENDED_AND_GONE}
        INSERT INTO registry_tokens (id, organization_id, user_id, token_hash) VALUES
          ('r-active', 'org-1', 'u-active', 'h-a'), ('r-suspended', 'org-1', 'u-suspended', 'h-s'),
          ('r-gone', 'org-1', 'u-gone', 'h-g'), ('r-gone-elsewhere', 'org-2', 'u-gone', 'h-e');
      `);
      await migrateRest();
      const tokens = resultRows<{ id: string }>(await client.query("SELECT id FROM registry_tokens ORDER BY id"));
      expect(tokens.map((t) => t.id)).toEqual(["r-active", "r-gone-elsewhere"]);
    });
  });
});

describe("migration 0027: core User attributes kept under their fully qualified names", { timeout: 120_000 }, () => {
  it("drops them (a password among them), and keeps every other attribute and every other row as it was", async () => {
    await storeBefore("0027_scim_qualified_core_names", async (client, migrateRest) => {
      await client.exec(`
        ${PEOPLE_ACTIVE_SUSPENDED_AND_GONE}
        UPDATE memberships SET scim_attributes = '{"displayName": "A", "urn:ietf:params:scim:schemas:core:2.0:User:password": "pw-1", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": {"department": "R&D"}}'
         WHERE user_id = 'u-active';
        UPDATE memberships SET scim_attributes = '{"URN:IETF:PARAMS:SCIM:SCHEMAS:CORE:2.0:USER": {"password": "pw-2"}}' WHERE user_id = 'u-suspended';
        UPDATE memberships SET scim_attributes = '{"title": "Engineer"}' WHERE user_id = 'u-gone';
      `);
      await migrateRest();
      const rows = resultRows<{ user_id: string; scim_attributes: unknown }>(await client.query("SELECT user_id, scim_attributes FROM memberships ORDER BY user_id"));
      expect(rows).toEqual([
        { user_id: "u-active", scim_attributes: { displayName: "A", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { department: "R&D" } } },
        { user_id: "u-gone", scim_attributes: { title: "Engineer" } },
        { user_id: "u-suspended", scim_attributes: {} },
      ]);
    });
  });
});

describe("online indexes (migrations/online/)", { timeout: 120_000 }, () => {
  it("exist and are valid once the store is open (this run's engine)", async () => {
    const fresh = await freshStoreOptions();
    const store = await openStore(fresh.store);
    try {
      await store.onlineIndexes;
      const rows = resultRows<{ name: string; valid: boolean }>(
        await store.db.execute(sql`select c.relname as name, i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
          where c.relname in ('audit_action_idx', 'audit_actor_type_idx', 'audit_target_type_idx', 'audit_result_idx', 'audit_surface_idx') order by 1`),
      );
      expect(rows).toEqual(
        ["audit_action_idx", "audit_actor_type_idx", "audit_result_idx", "audit_surface_idx", "audit_target_type_idx"].map((name) => ({ name, valid: true })),
      );
    } finally {
      await store.close();
      await fresh.drop();
    }
  });
});
