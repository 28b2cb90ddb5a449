import type { Page } from "@playwright/test";
import { bffPath, expect, test } from "./fixtures";

/**
 * An organization with more people than the console's directory holds (one page of 500, by e-mail):
 * the people past it are found by the person picker (asked of the gateway, not filtered in the browser)
 * and named wherever their id appears (looked up by id). The people are added through the console's own
 * API and removed again, so the specs after this one see the demo organization as it was. Their e-mails
 * sort first, so the demo's own people are past the directory too.
 */

const COUNT = 505;
const email = (n: number) => `aa-scale-${String(n).padStart(4, "0")}@scale.example`;
const LAST = COUNT;

/** Runs `each` over 1..count, ten at a time; every call is settled before a failure is thrown. */
async function inTens(count: number, each: (n: number) => Promise<void>): Promise<void> {
  const failures: unknown[] = [];
  for (let start = 1; start <= count; start += 10) {
    const settled = await Promise.allSettled(Array.from({ length: Math.min(10, count - start + 1) }, (_, i) => each(start + i)));
    failures.push(...settled.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason));
  }
  if (failures.length > 0) throw failures[0];
}

/** The ids of this spec's people in the organization (any a failed run left behind included). */
async function scalePeople(page: Page, orgId: string): Promise<string[]> {
  const res = await page.request.get(bffPath("listOrganizationPeople", { org_id: orgId }), { params: { q: "@scale.example", limit: "500" } });
  expect(res.ok(), await res.text()).toBe(true);
  return ((await res.json()) as { items: Array<{ id: string }> }).items.map((p) => p.id);
}

async function removeAll(page: Page, orgId: string, ids: string[]): Promise<void> {
  await inTens(ids.length, async (n) => {
    const res = await page.request.delete(bffPath("removeOrganizationPerson", { org_id: orgId, user_id: ids[n - 1]! }));
    expect(res.status()).toBe(204);
  });
}

/** Grants `userId` the Organization Admin role, as the owner; `revoke` takes it back. */
async function grantOrganizationAdmin(page: Page, orgId: string, userId: string): Promise<{ revoke: () => Promise<void> }> {
  const roles = await page.request.get(bffPath("listRoles"));
  expect(roles.ok(), await roles.text()).toBe(true);
  const role = ((await roles.json()) as { roles: Array<{ id: string; org_id: string; role_name: string }> }).roles.find((r) => r.org_id === orgId && r.role_name === "Organization Admin")!;
  const apply = (data: unknown) => page.request.post(bffPath("applyRoleBindings", { user_id: userId }), { data });
  const granted = await apply({ bindings_to_create: [{ customer_id: userId, role_id: role.id, scope_type: "org", scope_object_id: orgId }], bindings_to_delete: [] });
  expect(granted.ok(), await granted.text()).toBe(true);
  return {
    revoke: async () => {
      const res = await page.request.get(bffPath("listRoleBindings"), { params: { user_id: userId } });
      const ids = ((await res.json()) as { role_bindings: Array<{ id: string; role_id: string }> }).role_bindings.filter((b) => b.role_id === role.id).map((b) => b.id);
      const revoked = await apply({ bindings_to_create: [], bindings_to_delete: ids });
      expect(revoked.ok(), await revoked.text()).toBe(true);
    },
  };
}

test("people past the directory's one page are found by search and named by their id", async ({ ownerPage: page, auditorPage, demo }) => {
  test.setTimeout(300_000);
  const orgId = demo.organization_id;
  // A run that failed before its cleanup (a retry follows it at once) leaves its people: they go first.
  await removeAll(page, orgId, await scalePeople(page, orgId));
  const ids = new Map<number, string>();
  try {
    await inTens(COUNT, async (n) => {
      const res = await page.request.post(bffPath("inviteOrganizationPerson", { org_id: orgId }), { data: { email: email(n), name: `Zed Scale ${n}` } });
      expect(res.status(), await res.text()).toBe(201);
      ids.set(n, ((await res.json()) as { id: string }).id);
    });
    const last = ids.get(LAST)!;

    // Named by id: the bindings of the last of them, asked for in the URL.
    await page.goto(`/orgs/${orgId}/iam?user_id=${last}`);
    const table = page.getByRole("table", { name: "Role bindings" });
    await expect(table.getByRole("row").filter({ hasText: "Organization Member" }).first()).toContainText(`Zed Scale ${LAST}`);
    await expect(page.getByRole("form", { name: "Filter role bindings" }).getByRole("combobox", { name: "Person" })).toHaveValue(`Zed Scale ${LAST} <${email(LAST)}>`);

    // Found by search: typed into the picker, asked of the gateway. A search that matches no one says so.
    const picker = page.getByRole("form", { name: "Pick a person" });
    await picker.getByRole("combobox", { name: "Person" }).fill("no-such-person-anywhere");
    await expect(picker.getByText("No one in this organization matches “no-such-person-anywhere”.")).toBeVisible();
    await expect(picker.getByRole("status")).toHaveText("No results.");
    await picker.getByRole("combobox", { name: "Person" }).fill(`zed scale ${LAST}`);
    await expect(picker.getByRole("status")).toHaveText("1 result.");
    await picker.getByRole("option", { name: new RegExp(email(LAST)) }).click();
    await picker.getByRole("button", { name: "Edit bindings" }).click();
    await expect(page.getByText("Editing the bindings of")).toContainText(`Zed Scale ${LAST}`);
    await expect(page.getByText("Editing the bindings of")).toContainText(email(LAST));

    // An Organization Admin who is not an owner sees an owner past the directory locked before any click.
    const admin = await grantOrganizationAdmin(page, orgId, demo.auditor.user_id);
    try {
      await auditorPage.goto(`/orgs/${orgId}/iam?user_id=${demo.owner.user_id}`);
      const rows = auditorPage.getByRole("table", { name: "Role bindings" }).getByRole("row");
      await expect(rows.filter({ hasText: "Organization Admin" })).toContainText("Olivia Owner");
      const remove = rows.filter({ hasText: "Organization Admin" }).getByRole("button", { name: /^Stage removal/ });
      await expect(remove).toBeDisabled();
      await expect(remove).toHaveAccessibleDescription("Only an owner of the organization can change the role bindings of an owner.");
    } finally {
      await admin.revoke();
    }
  } finally {
    await removeAll(page, orgId, [...ids.values()]);
  }
});
