import { expect, lastDayOfData, test } from "./fixtures";

const dollars = (text: string) => Number(text.replace(/[^0-9.-]/g, ""));

test.describe("organization overview", () => {
  test("month-to-date spend is the sum of the sparkline's days, one day per column", async ({ ownerPage: page, demo }) => {
    await page.goto(`/orgs/${demo.organization_id}`);
    await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
    const widget = page.locator("section").filter({ has: page.getByRole("heading", { name: "Month-to-date spend" }) });
    // A run that crosses into a new month (UTC) after the demo was seeded has no spend this month yet.
    if ((await lastDayOfData(page, demo.organization_id)).slice(0, 7) !== new Date().toISOString().slice(0, 7)) {
      await expect(widget.getByText("No spend yet this month")).toBeVisible();
      return;
    }
    const sparkline = widget.getByRole("img", { name: /^Daily spend over \d+ days, highest \$[\d,]+\.\d{2} on \d{4}-\d{2}-\d{2}$/ });
    await expect(sparkline).toBeVisible();

    const label = (await sparkline.getAttribute("aria-label")) ?? "";
    const days = Number(/over (\d+) days/.exec(label)?.[1]);
    const titles = await sparkline.locator("title").allTextContents();
    expect(titles).toHaveLength(days);
    // Days in order, one per date of this month.
    const dates = titles.map((t) => t.slice(0, 10));
    expect([...dates].sort()).toEqual(dates);
    expect(new Set(dates.map((d) => d.slice(0, 7))).size).toBe(1);

    const sum = titles.reduce((n, t) => n + dollars(t.slice(12)), 0);
    const shown = dollars(await widget.locator("p", { hasText: /^\$[\d,]+$/ }).innerText());
    // The total is shown in whole dollars.
    expect(Math.abs(shown - sum)).toBeLessThanOrEqual(0.5);
    expect(label).toContain(`highest $${Math.max(...titles.map((t) => dollars(t.slice(12)))).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`);
  });
});

test("on a phone, the navigation drawer takes the user to another area and is gone with the page it was opened on", async ({ ownerPage: page, demo }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/orgs/${demo.organization_id}`);
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  const drawer = page.getByRole("dialog", { name: "Navigation" });
  await expect(async () => {
    await page.getByRole("button", { name: "Open navigation" }).click();
    await expect(drawer).toBeVisible({ timeout: 1000 });
  }).toPass();
  await drawer.getByRole("link", { name: "Billing" }).click();
  await expect(page).toHaveURL(new RegExp(`/orgs/${demo.organization_id}/billing$`));
  await expect(page.getByRole("heading", { level: 1, name: "Billing" })).toBeVisible();
  await expect(drawer).toBeHidden();
});
