import type { Page } from "@playwright/test";
import { bffPath, expect, test } from "./fixtures";

/**
 * An organization with more people than the console's directory holds (one page of 500, by e-mail):
 * the people past it are found by the person picker (asked of the gateway, not filtered in the browser)
 * and named wherever their id appears (looked up by id). The people are added through the console's own
 * API and removed again, so the specs after this one see the demo organization as it was.
 */

const COUNT = 505;
const email = (n: number) => `zz-scale-${String(n).padStart(4, "0")}@scale.example`;
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

test("people past the directory's one page are found by search and named by their id", async ({ ownerPage: page, demo }) => {
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
    await picker.getByRole("combobox", { name: "Person" }).fill(`zed scale ${LAST}`);
    await picker.getByRole("option", { name: new RegExp(email(LAST)) }).click();
    await picker.getByRole("button", { name: "Edit bindings" }).click();
    await expect(page.getByText("Editing the bindings of")).toContainText(`Zed Scale ${LAST}`);
    await expect(page.getByText("Editing the bindings of")).toContainText(email(LAST));
  } finally {
    await removeAll(page, orgId, [...ids.values()]);
  }
});
