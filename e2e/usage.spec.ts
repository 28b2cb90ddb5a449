import type { Page } from "@playwright/test";
import { bffPath, expect, holdRequests, lastDayOfData, openWith, test } from "./fixtures";

async function openUsage(page: Page, orgId: string, query = "") {
  await page.goto(`/orgs/${orgId}/usage${query}`);
  await expect(page.getByRole("heading", { name: "Usage", level: 1 })).toBeVisible();
}

/**
 * The rows of the usage table over its default range (the last 30 days, through today UTC): one per
 * day through the demo's last day of usage, the day it was seeded. A run that crosses midnight UTC
 * after the seed shows one day fewer.
 */
async function defaultRangeRows(page: Page, orgId: string): Promise<number> {
  const last = await lastDayOfData(page, orgId);
  const behind = Math.round((Date.parse(new Date().toISOString().slice(0, 10)) - Date.parse(last)) / 86_400_000);
  expect(behind, "days from the demo's last day of usage to today").toBeGreaterThanOrEqual(0);
  return 30 - behind;
}

test.describe("usage", () => {
  test("the first load's usage comes with the page (its summary, not the report's rows); a range chosen later is fetched", async ({ ownerPage: page, demo }) => {
    const reports: string[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname === bffPath("getUsage", { org_id: demo.organization_id })) reports.push(url.search);
    });
    const response = await page.goto(`/orgs/${demo.organization_id}/usage`);
    const html = await response!.text();
    // The days' rows are in the server's HTML: the table of periods has a row per day of the range.
    await expect(page.getByRole("table", { name: "Usage by period" }).locator("tbody tr")).toHaveCount(await defaultRangeRows(page, demo.organization_id));
    expect(html).toContain('aria-label="Usage by period"');
    // A month of the report's rows is over a megabyte; the page with its summary is far less.
    expect(html.length).toBeLessThan(400_000);
    await page.waitForLoadState("networkidle");
    expect(reports, "usage reports the browser asked for on the first load").toEqual([]);

    await page.getByRole("group", { name: "Interval" }).getByRole("button", { name: "Monthly" }).click();
    await expect(page.getByRole("img", { name: /gpu-hours per month by resource type/ })).toBeVisible();
    expect(reports.filter((q) => q.includes("interval=monthly"))).toHaveLength(1);
  });

  test("daily usage has a row per day; monthly has fewer, and the interval is in the URL", async ({ ownerPage: page, demo }) => {
    await openUsage(page, demo.organization_id);
    const chart = page.getByRole("img", { name: /gpu-hours per day by resource type/ });
    await expect(chart).toBeVisible();
    const periods = page.getByRole("table", { name: "Usage by period" }).locator("tbody tr");
    const days = await defaultRangeRows(page, demo.organization_id);
    await expect(periods).toHaveCount(days);
    // The chart is drawn static first, a legend entry per resource type (the table's columns but date and total).
    const typeColumns = (await page.getByRole("table", { name: "Usage by period" }).locator("thead th").count()) - 2;
    expect(typeColumns).toBeGreaterThan(0);
    await expect(chart.locator("[data-static-chart] [data-legend] li")).toHaveCount(typeColumns);
    await expect(chart.locator("[data-static-chart] rect").first()).toBeVisible();
    // Focused from the keyboard, it swaps in the interactive chart and moves the focus into it; the arrow keys show a day's quantities.
    await chart.focus();
    const surface = chart.locator('svg.recharts-surface[role="application"]');
    await expect(surface).toBeFocused();
    await page.keyboard.press("ArrowRight");
    await expect(chart.locator(".recharts-tooltip-wrapper")).toContainText("gpu-hours");
    await expect(page.getByRole("table", { name: "Usage per project and resource type" }).getByRole("cell", { name: "llm-training" }).first()).toBeVisible();

    await page.getByRole("group", { name: "Interval" }).getByRole("button", { name: "Monthly" }).click();
    await expect(page).toHaveURL(/[?&]interval=monthly/);
    await expect(page.getByRole("img", { name: /gpu-hours per month by resource type/ })).toBeVisible();
    // The chart's title and the table are of the same data: once the title says months, so do the rows
    // (one per month, shown as YYYY-MM), never the days still loaded under a month's heading.
    const months = await periods.evaluateAll((rows) => rows.map((r) => r.querySelector("td")?.textContent ?? ""));
    expect(months.length).toBeGreaterThanOrEqual(1);
    expect(months.length).toBeLessThan(days);
    expect(new Set(months).size, `the months shown: ${months.join(", ")}`).toBe(months.length);
    for (const month of months) expect(month).toMatch(/^\d{4}-\d{2}$/);
    // The chart's bars are named as the rows are: by month, not by the first day of a month the range may start after.
    // Read from the chart the page is served with (drawn static, as the first load above), not the interactive one the
    // focus swapped in, whose axis is drawn once it has measured itself.
    await page.reload();
    const ticks = page.getByRole("img", { name: /gpu-hours per month by resource type/ }).locator('[data-static-chart] text[text-anchor="middle"]');
    await expect(ticks.first()).toBeVisible();
    expect((await ticks.allTextContents()).map((t) => t.trim()).sort()).toEqual([...months].sort());

    await page.goBack();
    await expect(page).not.toHaveURL(/interval=monthly/);
    await expect(periods).toHaveCount(days);
  });

  test("by month the chart takes five years; by day a year, and a longer range says to choose months", async ({ ownerPage: page, demo }) => {
    const today = new Date().toISOString().slice(0, 10);
    // Five years through today, less a day (1,830 days is the gateway's limit by month).
    const from = new Date(Date.parse(`${today}T00:00:00Z`) - 1_800 * 86_400_000).toISOString().slice(0, 10);
    await openUsage(page, demo.organization_id, "?interval=monthly");
    await page.getByRole("button", { name: "Custom" }).click();
    await page.getByLabel("From", { exact: true }).fill(from);
    await page.getByLabel("To", { exact: true }).fill(today);
    await page.getByRole("button", { name: "Apply range" }).click();
    await expect(page).toHaveURL(new RegExp(`from=${from}`));
    const limit = page.getByRole("alert").filter({ hasText: "Choose at most" });
    await expect(limit).toHaveCount(0);
    await expect(page.getByRole("img", { name: /gpu-hours per month by resource type/ })).toBeVisible();
    // The demo's half year of usage, a row per month.
    const periods = page.getByRole("table", { name: "Usage by period" }).locator("tbody tr");
    await expect.poll(() => periods.count()).toBeGreaterThanOrEqual(6);
    for (const month of await periods.evaluateAll((rows) => rows.map((r) => r.querySelector("td")?.textContent ?? ""))) expect(month).toMatch(/^\d{4}-\d{2}$/);

    await page.getByRole("group", { name: "Interval" }).getByRole("button", { name: "Daily" }).click();
    await expect(page).not.toHaveURL(/interval=monthly/);
    await expect(limit).toHaveText("Choose at most 366 days, or the monthly interval for up to five years.");
    // The picker holds a new range to the same limit before it is applied.
    await page.getByLabel("From", { exact: true }).fill(from);
    await page.getByRole("button", { name: "Apply range" }).click();
    await expect(limit).toHaveText("Choose at most 366 days, or the monthly interval for up to five years.");
    // Both bounds name the message and are marked invalid while it shows.
    for (const bound of ["From", "To"]) {
      const field = page.getByLabel(bound, { exact: true });
      await expect(field).toHaveAttribute("aria-invalid", "true");
      await expect(field).toHaveAccessibleDescription("Choose at most 366 days, or the monthly interval for up to five years.");
    }
  });

  test("resource-type filters repeat in the URL and narrow the data", async ({ ownerPage: page, demo }) => {
    await openUsage(page, demo.organization_id, "?range=30d");
    await page.getByRole("button", { name: /^Resource types/ }).click();
    const types = page.getByRole("group", { name: "Resource types", exact: true });
    await types.getByText("persistent-ssd").click();
    await types.getByText("network-egress").click();
    await page.keyboard.press("Escape");
    await expect(page).toHaveURL(/resource_types=persistent-ssd/);
    await expect(page).toHaveURL(/resource_types=network-egress/);
    // No GPU product left: the chart offers the remaining metrics only.
    const metrics = page.getByRole("group", { name: "Metric" });
    await expect(metrics.getByRole("button", { name: "gib-months" })).toBeVisible();
    await expect(metrics.getByRole("button")).toHaveText(["gb", "gib-months"]);
    const totals = page.getByRole("table", { name: "Usage per project and resource type" });
    await expect.poll(async () => new Set(await totals.locator("tbody tr td:nth-child(2)").allInnerTexts())).toEqual(new Set(["persistent-ssd", "network-egress"]));

    await page.getByRole("group", { name: "Metric" }).getByRole("button", { name: "gib-months" }).click();
    await expect(page).toHaveURL(/[?&]metric=gib-months/);
    await expect(page.getByRole("img", { name: /^gib-months per day/ })).toBeVisible();

    await page.reload();
    await expect(page.getByRole("button", { name: /^Resource types 2 selected/ })).toBeVisible();
  });

  test("the usage export needs no resource IDs, and says so when the selection holds no usage", async ({ ownerPage: page, demo }) => {
    await openUsage(page, demo.organization_id, "?range=30d");
    const dialog = page.getByRole("dialog", { name: "Export usage as CSV" });
    await openWith(page.getByRole("button", { name: "Export CSV" }), dialog);
    await expect(dialog.getByLabel("Resource IDs")).toHaveCount(0);
    await dialog.getByLabel("Start date").fill("1990-01-01");
    await dialog.getByLabel("End date").fill("1990-01-31");
    await dialog.getByRole("button", { name: "Download CSV" }).click();
    await expect(dialog.getByRole("alert")).toHaveText(/No usage in this selection/);
  });

  test("Download CSV waits while the export lists the selection's resources, and Cancel then starts no download", async ({ ownerPage: page, demo }) => {
    const res = await page.request.get(bffPath("getUsageOptions", { organization_id: demo.organization_id }));
    expect(res.status()).toBe(200);
    const { end_date: last } = (await res.json()) as { end_date: string };
    const downloads: string[] = [];
    page.on("download", (d) => downloads.push(d.suggestedFilename()));
    await openUsage(page, demo.organization_id, "?range=30d");
    const dialog = page.getByRole("dialog", { name: "Export usage as CSV" });
    await openWith(page.getByRole("button", { name: "Export CSV" }), dialog);
    // The demo's last day of usage: a selection that downloads.
    await dialog.getByLabel("Start date").fill(last);
    await dialog.getByLabel("End date").fill(last);

    // The listing of the selection's resources is held back (then passed on as is) to act while it is out.
    const listing = (url: URL) =>
      url.pathname === bffPath("getUsageOptions", { organization_id: demo.organization_id }) && url.searchParams.get("with_resources") === "true";
    const { release } = await holdRequests(page, listing);
    const download = dialog.getByRole("button", { name: "Download CSV" });
    await download.click();
    await expect(dialog.getByRole("status")).toHaveText("Listing the selection's resources…");
    await expect(download).toBeDisabled();
    const answered = page.waitForResponse((r) => listing(new URL(r.url())));
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();
    release();
    await answered;
    await page.unroute(listing);

    // A later export runs to its end (nothing to export): by then the cancelled one would have started its download.
    await openWith(page.getByRole("button", { name: "Export CSV" }), dialog);
    await expect(dialog.getByRole("status")).toHaveCount(0);
    await dialog.getByLabel("Start date").fill("1990-01-01");
    await dialog.getByLabel("End date").fill("1990-01-31");
    await dialog.getByRole("button", { name: "Download CSV" }).click();
    await expect(dialog.getByRole("alert")).toHaveText(/No usage in this selection/);
    await expect(page.getByText(/^Usage export of .* started/)).toHaveCount(0);
    expect(downloads).toEqual([]);
  });

  test("on a phone the page does not scroll sideways", async ({ ownerPage: page, demo }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await openUsage(page, demo.organization_id);
    await expect(page.getByRole("table", { name: "Usage per project and resource type" })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await page.goto(`/orgs/${demo.organization_id}/quotas`);
    await expect(page.getByRole("table", { name: "Organization quotas" })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
  });

  test("the auditor (billing.read) sees usage too", async ({ auditorPage: page, demo }) => {
    await openUsage(page, demo.organization_id);
    await expect(page.getByRole("table", { name: "Usage by period" }).locator("tbody tr")).toHaveCount(await defaultRangeRows(page, demo.organization_id));
  });
});

test.describe("quotas", () => {
  test("each quota shows used against maximum, as the gateway counts them", async ({ ownerPage: page, demo }) => {
    // A project made now counts at once.
    const created = await page.request.post(bffPath("createProject"), {
      data: { organization_id: demo.organization_id, name: `e2e-quota-${Date.now().toString(36)}` },
    });
    expect(created.status()).toBe(200);
    const api = await page.request.get(bffPath("listOrgQuotas", { organization_id: demo.organization_id }));
    const { quotas } = (await api.json()) as { quotas: Array<{ programmatic_name: string; description: string; used: number; max: number }> };
    const projects = quotas.find((q) => q.programmatic_name === "projects");
    expect(projects?.used).toBeGreaterThanOrEqual(7);

    await page.goto(`/orgs/${demo.organization_id}/quotas`);
    await expect(page.getByRole("heading", { name: "Quotas", level: 1 })).toBeVisible();
    for (const q of quotas) {
      const item = page.getByTestId(`quota-${q.programmatic_name}`);
      await expect(item).toContainText(q.description);
      await expect(item).toContainText(`${q.used.toLocaleString("en-US")} / ${q.max.toLocaleString("en-US")}`);
      await expect(item.getByRole("meter", { name: q.description })).toHaveAttribute("aria-valuemax", String(q.max));
    }
    // The level is said in words, not only in colour.
    await expect(page.getByTestId("quota-projects")).toContainText(/Within limit|Near limit|At limit/);
    await expect(page.getByRole("table", { name: "Organization quotas" }).locator("tbody tr")).toHaveCount(quotas.length);
  });

  test("the auditor sees the quotas too; the member is told why not", async ({ auditorPage: page, memberPage, demo, browserErrors }) => {
    browserErrors.allow(/the server responded with a status of 403/, "the member opens a page their role does not grant on purpose: the browser logs the 403 the page then explains");
    await page.goto(`/orgs/${demo.organization_id}/quotas`);
    await expect(page.getByTestId("quota-vms")).toContainText(/\d+ \/ \d+/);
    await memberPage.goto(`/orgs/${demo.organization_id}/quotas`);
    await expect(memberPage.getByRole("alert").filter({ hasText: "You don't have access" }).first()).toContainText("billing.read");
  });
});
