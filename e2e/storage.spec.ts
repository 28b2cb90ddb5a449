import { readFileSync } from "node:fs";
import type { Locator, Page } from "@playwright/test";
import { expect, openWith, test } from "./fixtures";

const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

/**
 * Creates a key through the page and returns what the one-time dialog showed,
 * after proving the dialog cannot be dismissed before the user confirms.
 */
async function createKey(page: Page, alias: string) {
  const form = page.getByRole("dialog", { name: "New S3 access key" });
  await openWith(page.getByRole("button", { name: "New key" }), form);
  await form.getByLabel("Alias").fill(alias);
  await form.getByRole("button", { name: "30 days" }).click();
  await form.getByRole("button", { name: "Create key" }).click();

  const secretDialog = page.getByRole("dialog", { name: `S3 key ${alias} created` });
  await expect(secretDialog).toBeVisible();
  await expect(secretDialog).toContainText("This secret is shown only once");
  await expect(secretDialog.getByRole("button", { name: "Copy Secret access key" })).toBeVisible();
  const accessKeyId = (await secretDialog.locator("code").first().textContent())?.trim() ?? "";
  const secret = (await secretDialog.locator('code[data-secret="true"]').textContent())?.trim() ?? "";
  expect(accessKeyId).toMatch(/^S3U_[0-9a-f]{32}$/);
  expect(secret.length).toBeGreaterThan(20);

  // Not closable before confirming: no close button, Escape does nothing, Done is disabled.
  await expect(secretDialog.getByRole("button", { name: "Close" })).toHaveCount(0);
  await page.keyboard.press("Escape");
  await expect(secretDialog).toBeVisible();
  const done = secretDialog.getByRole("button", { name: "Done" });
  await expect(done).toBeDisabled();
  return { secretDialog, accessKeyId, secret, done };
}

async function closeSecret(dialog: Locator, done: Locator) {
  await dialog.getByLabel("I have saved this secret somewhere safe").check();
  await expect(done).toBeEnabled();
  await done.click();
  await expect(dialog).toBeHidden();
}

async function deleteKey(page: Page, alias: string) {
  await page.getByRole("button", { name: `Delete S3 key ${alias}` }).click();
  const confirm = page.getByRole("dialog", { name: `Delete S3 key ${alias}?` });
  const button = confirm.getByRole("button", { name: "Delete key" });
  await expect(button).toBeDisabled();
  await confirm.getByLabel(`Type ${alias} to confirm`).fill(alias);
  await button.click();
  await expect(confirm).toBeHidden();
  await expect(page.getByRole("table", { name: "S3 access keys" }).getByRole("row", { name: new RegExp(alias) })).toHaveCount(0);
}

test("owner creates an S3 key, sees its secret once, then only its id, and deletes it", async ({ ownerPage: page, demo }) => {
  await page.goto(`/orgs/${demo.organization_id}/storage`);
  await expect(page.getByRole("heading", { level: 1, name: "Object storage keys" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Object storage keys" })).toHaveAttribute("aria-current", "page");
  const table = page.getByRole("table", { name: "S3 access keys" });
  await expect(table.getByRole("row", { name: /training-checkpoints/ })).toContainText("you");
  // The member's seeded key is listed too, under their user id.
  await expect(table.getByRole("row", { name: /eval-results/ })).toContainText("Milo Member");
  await expect(table.getByRole("row", { name: /eval-results/ })).toContainText(demo.member.email);

  const alias = unique("e2e-owner-key");
  const { secretDialog, accessKeyId, secret, done } = await createKey(page, alias);

  const download = page.waitForEvent("download");
  await secretDialog.getByRole("button", { name: "Download .env" }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe(`s3-key-${alias}.env`);
  const env = readFileSync(await file.path(), "utf8");
  expect(env).toContain(`AWS_ACCESS_KEY_ID=${accessKeyId}`);
  expect(env).toContain(`AWS_SECRET_ACCESS_KEY=${secret}`);

  await closeSecret(secretDialog, done);

  const row = table.getByRole("row", { name: new RegExp(alias) });
  await expect(row).toContainText(accessKeyId);
  await expect(row).toContainText("you");
  await expect(row).toContainText("Enabled");
  await expect(page.locator("body")).not.toContainText(secret);
  expect(await page.content()).not.toContain(secret);
  await page.reload();
  await expect(row).toContainText(accessKeyId);
  expect(await page.content()).not.toContain(secret);

  await deleteKey(page, alias);
  await expect(page.getByText(`S3 key ${alias} deleted`)).toBeVisible();
});

test("member creates and deletes a key of their own, filters to their keys, and may not delete others'", async ({ memberPage: page, demo }) => {
  await page.goto(`/orgs/${demo.organization_id}/storage`);
  const table = page.getByRole("table", { name: "S3 access keys" });
  await expect(table.getByRole("row", { name: /eval-results/ })).toContainText("you");
  const othersDelete = page.getByRole("button", { name: "Delete S3 key training-checkpoints" });
  await expect(othersDelete).toBeDisabled();
  await expect(othersDelete).toHaveAttribute("title", /s3\.manage/);
  await expect(page.getByText("You can delete only your own")).toBeVisible();

  const alias = unique("e2e-member-key");
  const { secretDialog, secret, done } = await createKey(page, alias);
  await closeSecret(secretDialog, done);
  await expect(table.getByRole("row", { name: new RegExp(alias) })).toContainText("you");
  expect(await page.content()).not.toContain(secret);

  // The "my keys" filter lives in the URL and survives a reload.
  await page.getByRole("button", { name: "My keys" }).click();
  await expect(page).toHaveURL(/[?&]owner=mine/);
  await expect(table.getByRole("row", { name: /training-checkpoints/ })).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole("button", { name: "My keys" })).toHaveAttribute("aria-pressed", "true");
  await expect(table.getByRole("row", { name: /training-checkpoints/ })).toHaveCount(0);
  await expect(table.getByRole("row", { name: new RegExp(alias) })).toBeVisible();

  await deleteKey(page, alias);
});

test("on a phone the keys table scrolls inside its box, not the page", async ({ ownerPage: page, demo }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/orgs/${demo.organization_id}/storage`);
  await expect(page.getByRole("table", { name: "S3 access keys" })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});
