import { eq, gt, max } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { neutralise } from "./audit";
import { auditLog, memberships } from "./store/schema";
import { createTestGateway, opPath, type TestGateway } from "./testing";

let t: TestGateway;
let globex: string;
beforeAll(async () => {
  t = await createTestGateway();
  const [m] = await t.gateway.store.db.select().from(memberships).where(eq(memberships.userId, t.demo.outsider.user_id));
  globex = m!.organizationId;
});
afterAll(() => t.close());

/** The entries a call filed, in every organization. */
async function filedBy(call: () => Promise<unknown>) {
  const db = t.gateway.store.db;
  const [before] = await db.select({ seq: max(auditLog.seq) }).from(auditLog);
  await call();
  return db.select().from(auditLog).where(gt(auditLog.seq, Number(before?.seq ?? 0)));
}

describe("an outsider's refused call", () => {
  it("is filed, but its entry carries nothing about another organization's people", async () => {
    const member = t.demo.member;
    const acmeOrg = t.demo.organization_id;
    const entries = await filedBy(() =>
      t.opJson("outsider", "applyRoleBindings", { params: { user_id: member.user_id },
        body: { bindings_to_create: [{ customer_id: member.user_id, role_id: "no-such-role", scope_type: "org", scope_object_id: acmeOrg }], bindings_to_delete: [] },
      }),
    );
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actorId: t.demo.outsider.user_id, organizationId: globex });
    expect(entries[0]!.result).not.toBe("OK");
    const text = JSON.stringify(entries);
    expect(text).not.toContain(member.email);
    expect(text).not.toContain("Milo Member");
  });

  it("is filed with the text it chose neutralised and bounded", async () => {
    const chosen = `\u202e${"x".repeat(120)}`;
    const entries = await filedBy(() => t.opJson("outsider", "applyRoleBindings", { params: { user_id: chosen }, body: { bindings_to_create: [], bindings_to_delete: [] } }));
    expect(entries).toHaveLength(1);
    const entry = entries[0]!;
    for (const text of [entry.errorMessage, ...entry.targetIds, ...entry.targetNames, entry.projectName ?? ""]) {
      expect(text).not.toMatch(/[\p{Cc}\p{Cf}]/u);
      expect(text.length).toBeLessThanOrEqual(256);
    }
  });
});

describe("a refused call with an org_id in its query", () => {
  it("is filed in the caller's organization when its operation takes no org_id there", async () => {
    const entries = await filedBy(() =>
      t.opJson("outsider", "createCcrToken", { query: { org_id: t.demo.organization_id }, rawBody: "{bad" }),
    );
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actorId: t.demo.outsider.user_id, organizationId: globex, result: "INVALID_ARGUMENT" });
  });

  it("is filed in the organization named there by the one operation that takes it so (updateOrganization)", async () => {
    const entries = await filedBy(() => t.opJson("owner", "updateOrganization", { query: { org_id: t.demo.organization_id }, rawBody: "{bad" }));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actorId: t.demo.owner.user_id, organizationId: t.demo.organization_id, result: "INVALID_ARGUMENT" });
  });
});

describe("a refused call naming its target with padding the gateway trims", () => {
  it("is filed under the target the gateway read: a search by the person's id finds it", async () => {
    const owner = t.demo.owner;
    const entries = await filedBy(() =>
      t.opJson("outsider", "resetOrganizationPersonMfa", { params: { org_id: t.demo.organization_id, user_id: ` ${owner.user_id}\t` } }),
    );
    expect(entries).toHaveLength(1);
    expect(entries[0]!.result).not.toBe("OK");
    expect(entries[0]!.targetIds).toEqual([owner.user_id]);
  });
});

describe("a refused call spelling a fixed segment of its path with a percent-escape", () => {
  it("is filed as the operation that ran: `%6Dfa` is routed as `mfa`, and its refusal is audited as the plain spelling's is", async () => {
    const owner = t.demo.owner;
    const path = `/organizations/${t.demo.organization_id}/users/${owner.user_id}/%6Dfa`;
    let status = 0;
    const entries = await filedBy(async () => (status = (await t.call("member", "DELETE", path)).status));
    expect(status).toBe(403);
    expect(entries.map((e) => [e.action, e.result, e.actionDetail, e.targetIds])).toEqual([["Delete", "PERMISSION_DENIED", "Reset MFA", [owner.user_id]]]);
  });

  it("keeps to the operation's declared statuses: a bad signature on listRoles (no 401 declared) is a 403 however the path is spelled", async () => {
    for (const path of [opPath("listRoles"), "/iam/%72oles"]) {
      // HEAD is the GET without its body, and answers as it does.
      for (const method of ["GET", "HEAD"]) {
        const res = await t.call("member", method, path, { headers: { Authorization: "SN-HMAC-SHA256 Credential=AKNOSUCHKEY, Signature=00" } });
        expect(res.status, `${method} ${path}`).toBe(403);
      }
    }
  });
});

describe("neutralise", () => {
  it("shows control and format characters as U+FFFD and bounds the length", () => {
    expect(neutralise("a\u202eb\u0000c\u200bd", 100)).toBe("a\uFFFDb\uFFFDc\uFFFDd");
    expect(neutralise("y".repeat(300), 256)).toHaveLength(256);
  });
});
