import type { Page } from "@playwright/test";
import { bffPath, expect, test } from "./fixtures";

interface ApiEntity {
  id: string;
  name: string;
  company_name?: string;
  billing_addr?: Record<string, string>;
}

async function entity(page: Page, orgId: string): Promise<ApiEntity> {
  const res = await page.request.get(bffPath("getOrganizations"));
  expect(res.ok()).toBe(true);
  const found = ((await res.json()) as { items: ApiEntity[] }).items.find((o) => o.id === orgId);
  expect(found).toBeDefined();
  return found!;
}

test.describe("organization settings", () => {
  test("the owner changes the company name and it is saved", async ({ ownerPage: page, demo }) => {
    const before = await entity(page, demo.organization_id);
    const next = `Acme AI Labs, Inc. (e2e ${Date.now().toString(36)})`;
    try {
      await page.goto(`/orgs/${demo.organization_id}/settings`);
      await expect(page.getByRole("heading", { level: 1, name: "Organization settings" })).toBeVisible();
      const company = page.getByLabel("Company name");
      await expect(company).toHaveValue(before.company_name ?? "");
      await expect(company).toBeEditable();
      await company.fill(next);
      await page.getByRole("button", { name: "Save changes" }).click();
      await expect(page.getByText(`Settings of ${before.name} saved`)).toBeVisible();

      await page.reload();
      await expect(page.getByLabel("Company name")).toHaveValue(next);
      expect((await entity(page, demo.organization_id)).company_name).toBe(next);
    } finally {
      await page.request.put(`${bffPath("updateOrganization")}?org_id=${demo.organization_id}`, { data: { company_name: before.company_name ?? "" } });
    }
  });

  test("a bad postal code is refused in place, and nothing is saved", async ({ ownerPage: page, demo }) => {
    const before = await entity(page, demo.organization_id);
    await page.goto(`/orgs/${demo.organization_id}/settings`);
    await page.getByLabel("Address line 1").fill("1 Main Street");
    await page.getByLabel("City").fill("Springfield");
    await page.getByLabel("State or region").fill("IL");
    const postal = page.getByLabel("Postal code");
    await postal.fill("62#701");
    await page.getByLabel("Country (two-letter code)").fill("US");
    await page.getByRole("button", { name: "Save changes" }).click();

    await expect(page.getByRole("alert").filter({ hasText: "must hold only letters, digits, spaces and dashes" })).toBeVisible();
    await expect(postal).toHaveAttribute("aria-invalid", "true");
    await expect(postal).toHaveAccessibleDescription(/must hold only letters, digits, spaces and dashes/);
    await expect(page.getByText(/saved$/)).toHaveCount(0);

    // Fixing it clears the message.
    await postal.fill("62701");
    await expect(page.getByRole("alert").filter({ hasText: "must hold only letters" })).toHaveCount(0);
    expect((await entity(page, demo.organization_id)).billing_addr).toEqual(before.billing_addr);
  });

  test("the member sees the settings read-only, with the reason", async ({ memberPage: page, demo }) => {
    await page.goto(`/orgs/${demo.organization_id}/settings`);
    await expect(page.getByRole("note")).toContainText("Read-only: only owners of Acme AI Labs can change these settings");
    await expect(page.getByLabel("Organization name")).toHaveValue("Acme AI Labs");
    await expect(page.getByLabel("Organization name")).toBeDisabled();
    await expect(page.getByLabel("Company name")).toBeDisabled();
    await expect(page.getByLabel("Postal code")).toBeDisabled();
    await expect(page.getByRole("button", { name: "Save changes" })).toBeDisabled();
  });
});
