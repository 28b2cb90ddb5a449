import { readFileSync } from "node:fs";
import type { Locator, Page } from "@playwright/test";
import Papa from "papaparse";
import { BILLING_EXPORT_COLUMNS } from "@/lib/contract/billing";
import { bffPath, expect, holdRequests, test } from "./fixtures";

const money = (text: string) => Number(text.replace(/[^0-9.-]/g, ""));

function spendInPeriod(page: Page): Locator {
  return page.locator("section", { has: page.getByRole("heading", { name: "Spend in period" }) }).locator("p").first();
}

async function openBilling(page: Page, orgId: string, query = "") {
  await page.goto(`/orgs/${orgId}/billing${query}`);
  await expect(page.getByRole("heading", { name: "Billing", level: 1 })).toBeVisible();
}

test.describe("billing", () => {
  test("the owner sees daily spend as a chart and a table, and totals per project and product line", async ({ ownerPage: page, demo }) => {
    await openBilling(page, demo.organization_id, "?range=30d");
    const chart = page.getByRole("img", { name: /Daily spend by project from/ });
    await expect(chart).toBeVisible();
    // The chart is drawn static first: bars, and a legend entry per project.
    await expect(chart.locator("[data-static-chart] rect").first()).toBeVisible();
    await expect(chart.locator("[data-static-chart] [data-legend] li")).toHaveCount(6);
    await expect(chart.locator("[data-static-chart] [data-legend] li").first()).toBeVisible();
    // Pointing at it swaps in the interactive chart (recharts renders bars as paths), whose tooltip names the amounts.
    await chart.hover();
    await expect(chart.locator(".recharts-bar-rectangle").first()).toBeVisible();
    const box = await chart.boundingBox();
    if (!box) throw new Error("the chart has no box");
    await page.mouse.move(box.x + box.width - 40, box.y + 100);
    await expect(chart.locator(".recharts-tooltip-wrapper")).toContainText("$");
    // The table beside it has one row per day.
    const daily = page.getByRole("table", { name: "Daily spend by project" });
    await expect(daily.locator("tbody tr")).toHaveCount(30);
    const perProject = page.getByRole("table", { name: "Spend per project" });
    await expect(perProject.getByRole("cell", { name: "llm-training" })).toBeVisible();
    await expect(perProject.locator("tbody tr")).toHaveCount(6);
    const perProduct = page.getByRole("table", { name: "Spend per product line" });
    await expect(perProduct.getByRole("cell", { name: "h100-80gb-sxm-ib.8x" })).toBeVisible();
    await expect(perProduct.getByText(/gpu-hours/).first()).toBeVisible();
    // The headline total is the sum of the per-project totals.
    const total = money(await spendInPeriod(page).innerText());
    expect(total).toBeGreaterThan(0);
    const cells = await perProject.locator("tbody tr td:nth-child(2)").allInnerTexts();
    const centsSum = cells.reduce((sum, c) => sum + Math.round(money(c) * 100), 0);
    expect(centsSum).toBe(Math.round(total * 100));
    await expect(page.getByRole("heading", { name: /^Forecast for / })).toBeVisible();
  });

  test("the first load's spend comes with the page (its summary, not the cost rows); a filter chosen later fetches the rows once", async ({ ownerPage: page, demo }) => {
    const costs: string[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname === bffPath("getBillingCosts", { organization_id: demo.organization_id })) costs.push(url.search);
    });
    const response = await page.goto(`/orgs/${demo.organization_id}/billing?range=30d`);
    const html = await response!.text();
    // The days' totals are in the server's HTML: the daily table has a row per day of the range.
    await expect(page.getByRole("table", { name: "Daily spend by project" }).locator("tbody tr")).toHaveCount(30);
    expect(html).toContain('aria-label="Daily spend by project"');
    expect(html).toContain('aria-label="Spend per product line"');
    // A month of cost rows is about a megabyte; the page with its two summaries (the range's, the month to date's) is far less.
    expect(html.length).toBeLessThan(400_000);
    const all = money(await spendInPeriod(page).innerText());
    expect(all).toBeGreaterThan(0);
    const [start] = (await page.getByRole("table", { name: "Daily spend by project" }).locator("tbody tr td:first-child").allInnerTexts()).sort();
    await page.waitForLoadState("networkidle");
    // Neither the period's rows nor the month to date's (a second summary, this range not being the month).
    expect(costs, "cost rows the browser asked for on the first load").toEqual([]);

    // A filter the operation does not take: the browser fetches the period's rows and filters them.
    // The rows are held back (then passed on as the gateway sent them) to see the page while they come:
    // the previous numbers stay, dimmed, marked busy, and the page says it is updating.
    const costRows = (url: URL) => url.pathname === bffPath("getBillingCosts", { organization_id: demo.organization_id });
    const { release } = await holdRequests(page, costRows);
    const spend = page.getByTestId("spend");
    await expect(spend).toHaveAttribute("aria-busy", "false");
    await page.getByRole("button", { name: /^Projects/ }).first().click();
    await page.getByRole("group", { name: "Projects", exact: true }).getByText("inference-prod").click();
    await page.keyboard.press("Escape");
    await expect(spend).toHaveAttribute("aria-busy", "true");
    await expect(page.getByRole("status").filter({ hasText: "updating for the new filters" })).toBeVisible();
    expect(money(await spendInPeriod(page).innerText())).toBe(all);
    release();
    await expect(spend).toHaveAttribute("aria-busy", "false");
    await expect(page.getByRole("status").filter({ hasText: "updating" })).toHaveCount(0);
    await page.unroute(costRows);
    await expect(page.getByRole("table", { name: "Spend per project" }).locator("tbody tr")).toHaveCount(1);
    await expect.poll(async () => money(await spendInPeriod(page).innerText())).toBeLessThan(all);
    // A second filter computes from the rows already fetched.
    await page.getByRole("button", { name: /^Regions/ }).first().click();
    await page.getByRole("group", { name: "Regions", exact: true }).getByText("us-east1").click();
    await page.keyboard.press("Escape");
    await expect(page).toHaveURL(/[?&]regions=us-east1/);
    await page.waitForLoadState("networkidle");
    expect(costs.filter((q) => q.includes(`start_date=${start}`)), "requests for the period's rows").toHaveLength(1);
  });

  test("changing the range changes the URL and the totals, and Back restores them", async ({ ownerPage: page, demo }) => {
    await openBilling(page, demo.organization_id);
    await expect(page.getByRole("button", { name: "Month to date", pressed: true })).toBeVisible();
    const mtd = money(await spendInPeriod(page).innerText());

    await page.getByRole("button", { name: "Last 90 days" }).click();
    await expect(page).toHaveURL(/[?&]range=90d/);
    await expect(page.getByRole("table", { name: "Daily spend by project" }).locator("tbody tr")).toHaveCount(90);
    await expect.poll(async () => money(await spendInPeriod(page).innerText())).toBeGreaterThan(mtd);

    await page.getByRole("button", { name: "Custom" }).click();
    await page.getByLabel("From", { exact: true }).fill("2020-01-01");
    await page.getByLabel("To", { exact: true }).fill("2020-01-31");
    await page.getByRole("button", { name: "Apply range" }).click();
    await expect(page).toHaveURL(/range=custom/);
    await expect(page).toHaveURL(/from=2020-01-01/);
    // Long before the demo data: nothing to bill, said plainly.
    await expect(page.getByText("No spend in this period")).toBeVisible();
    await expect(spendInPeriod(page)).toHaveText("$0.00");

    await page.goBack();
    await expect(page).toHaveURL(/[?&]range=90d/);
    await expect.poll(async () => money(await spendInPeriod(page).innerText())).toBeGreaterThan(mtd);
    // A refresh keeps the range.
    await page.reload();
    await expect(page.getByRole("button", { name: "Last 90 days", pressed: true })).toBeVisible();
  });

  test("while a new range's spend is computed, the daily rows stay the shown totals' days", async ({ ownerPage: page, demo }) => {
    await openBilling(page, demo.organization_id, "?range=30d");
    const daily = page.getByRole("table", { name: "Daily spend by project" }).locator("tbody tr");
    await expect(daily).toHaveCount(30);
    const thirty = await spendInPeriod(page).innerText();
    // Every state the page goes through: the daily table's rows beside the period's total.
    await page.evaluate(() => {
      const seen: Array<{ rows: number; spend: string }> = [];
      Object.assign(window, { spendStates: seen });
      const record = () => {
        const table = document.querySelector('table[aria-label="Daily spend by project"]');
        const card = [...document.querySelectorAll("section")].find((s) => s.querySelector("h2, h3")?.textContent === "Spend in period");
        if (table) seen.push({ rows: table.querySelectorAll("tbody tr").length, spend: card?.querySelector("p")?.textContent ?? "" });
      };
      new MutationObserver(record).observe(document.body, { subtree: true, childList: true, characterData: true });
    });

    await page.getByRole("button", { name: "Last 90 days" }).click();
    await expect(daily).toHaveCount(90);
    await expect.poll(async () => money(await spendInPeriod(page).innerText())).toBeGreaterThan(money(thirty));
    const states = await page.evaluate(() => (window as unknown as { spendStates: Array<{ rows: number; spend: string }> }).spendStates);
    expect(states.length).toBeGreaterThan(0);
    // Never the 30 days' total spread over 90 rows, 60 of them shown as $0.00.
    expect(states.filter((s) => s.rows === 90 && s.spend === thirty)).toEqual([]);
  });

  test("a project filter is kept in the URL and narrows the totals", async ({ ownerPage: page, demo }) => {
    await openBilling(page, demo.organization_id, "?range=30d");
    const all = money(await spendInPeriod(page).innerText());
    await page.getByRole("button", { name: /^Projects/ }).first().click();
    await page.getByRole("group", { name: "Projects", exact: true }).getByText("inference-prod").click();
    await page.keyboard.press("Escape");
    await expect(page).toHaveURL(/[?&]projects=/);
    const perProject = page.getByRole("table", { name: "Spend per project" });
    await expect(perProject.locator("tbody tr")).toHaveCount(1);
    await expect(perProject.getByRole("cell", { name: "inference-prod" })).toBeVisible();
    const one = money(await spendInPeriod(page).innerText());
    expect(one).toBeGreaterThan(0);
    expect(one).toBeLessThan(all);
    await page.reload();
    await expect(page.getByRole("table", { name: "Spend per project" }).locator("tbody tr")).toHaveCount(1);
  });

  test("the CSV export downloads the product-line costs with a header and rows", async ({ ownerPage: page, demo }) => {
    await openBilling(page, demo.organization_id, "?range=30d");
    await page.getByRole("button", { name: "Export CSV" }).click();
    const dialog = page.getByRole("dialog", { name: "Export costs as CSV" });
    await expect(dialog.getByLabel("Start date")).not.toHaveValue("");
    // A reversed range is refused in the form, with the field named.
    const start = await dialog.getByLabel("Start date").inputValue();
    const end = await dialog.getByLabel("End date").inputValue();
    await dialog.getByLabel("Start date").fill(end);
    await dialog.getByLabel("End date").fill(start);
    await dialog.getByRole("button", { name: "Download CSV" }).click();
    await expect(dialog.getByText("Start date must not be after end_date")).toBeVisible();
    // Any period, as the export operation takes it (it streams; only a chart is held to 366 days): here 401 days.
    const from = new Date(Date.parse(`${end}T00:00:00Z`) - 400 * 86_400_000).toISOString().slice(0, 10);
    await dialog.getByLabel("Start date").fill(from);
    await dialog.getByLabel("End date").fill(end);

    await dialog.getByRole("button", { name: /^Regions/ }).click();
    await page.getByRole("group", { name: "Regions", exact: true }).getByText("us-east1").click();
    await page.keyboard.press("Escape");
    const [download] = await Promise.all([page.waitForEvent("download"), dialog.getByRole("button", { name: "Download CSV" }).click()]);
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
    const text = readFileSync(await download.path(), "utf8");
    const [header, ...rows] = Papa.parse<string[]>(text.trim()).data;
    expect(header).toEqual([...BILLING_EXPORT_COLUMNS]);
    expect(rows.length).toBeGreaterThan(0);
    const region = BILLING_EXPORT_COLUMNS.indexOf("region");
    const date = BILLING_EXPORT_COLUMNS.indexOf("usage_date");
    expect(new Set(rows.map((r) => r[region]))).toEqual(new Set(["us-east1"]));
    const dates = new Set(rows.map((r) => r[date] ?? ""));
    // The rows reach the range's end: its last day, or the day before when the demo data was seeded before
    // midnight (UTC) and this runs after it (the seed writes days up to the one it ran on).
    const dayBefore = new Date(Date.parse(`${end}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    expect(dates.has(end) || dates.has(dayBefore), `rows end on ${[...dates].sort().at(-1)}, the range on ${end}`).toBe(true);
    expect([...dates].filter((d) => d < from || d > end)).toEqual([]);
    expect(dates.size).toBeGreaterThan(1);
  });

  test("Export CSV waits for the new range's filter values, then starts from the page's product lines", async ({ ownerPage: page, demo }) => {
    await openBilling(page, demo.organization_id, "?range=30d&resource_types=h100-80gb-sxm-ib.8x");
    const exportButton = page.getByRole("button", { name: "Export CSV" });
    await expect(exportButton).toBeEnabled();

    // The new range's filter values are held back (then passed on as the gateway sent them) to see the page while they come.
    const options = (url: URL) => url.pathname === bffPath("getBillingOptions", { organization_id: demo.organization_id });
    const { release } = await holdRequests(page, options);
    await page.getByRole("button", { name: "Last 90 days" }).click();
    await expect(page).toHaveURL(/[?&]range=90d/);
    // Without them the dialog would start from "All product lines" while the page shows one.
    await expect(exportButton).toBeDisabled();
    release();
    await expect(exportButton).toBeEnabled();
    await exportButton.click();
    const dialog = page.getByRole("dialog", { name: "Export costs as CSV" });
    await expect(dialog.getByRole("button", { name: /^Product lines/ })).toBeVisible();
    await expect(dialog.getByRole("button", { name: /^Product lines/ })).not.toContainText("All product lines");
    // The page shows one resource type; the export, by product line, covers its siblings too, and says so.
    await expect(dialog.getByRole("note")).toContainText("The page shows h100-80gb-sxm-ib.8x; the export filters by product line, and h100 covers every resource type");
  });

  test("billing needs billing.read: the auditor sees every project by the name its CSV gives, the member is told why not", async ({ auditorPage: page, memberPage, demo, browserErrors }) => {
    browserErrors.allow(/the server responded with a status of 403/, "the member opens a page their role does not grant on purpose: the browser logs the 403 the page then explains");
    await openBilling(page, demo.organization_id, "?range=30d");
    await expect(page.getByRole("img", { name: /Daily spend by project from/ })).toBeVisible();
    await expect(page.getByRole("table", { name: "Spend per project" }).locator("tbody tr")).toHaveCount(6);
    // The auditor holds no project role, yet every project is named, as in the CSV: never masked.
    await expect(page.getByRole("table", { name: "Spend per project" }).getByRole("cell", { name: "llm-training" })).toBeVisible();
    await expect(page.getByRole("table", { name: "Spend per project" }).getByRole("cell", { name: "staging" })).toBeVisible();
    await expect(page.getByRole("table", { name: "Spend per project" }).getByRole("cell", { name: /^Project [0-9a-f]{8}$/ })).toHaveCount(0);
    expect(money(await spendInPeriod(page).innerText())).toBeGreaterThan(0);

    await memberPage.goto(`/orgs/${demo.organization_id}/billing?range=30d`);
    await expect(memberPage.getByRole("alert").filter({ hasText: "You don't have access" }).first()).toContainText("billing.read");
    const csv = await memberPage.request.get(`${bffPath("getBillingExportProductline", { organization_id: demo.organization_id })}?start_date=2026-01-01&end_date=2026-01-31`);
    expect(csv.status()).toBe(403);
  });

  test("on a phone the page does not scroll sideways: wide tables scroll in their own box", async ({ ownerPage: page, demo }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await openBilling(page, demo.organization_id, "?range=30d");
    await expect(page.getByRole("table", { name: "Spend per product line" })).toBeVisible();
    // Below the fold on a phone, the chart is drawn once it is scrolled near; a tap on it swaps in the interactive one.
    await page.getByRole("heading", { name: "Daily spend by project" }).scrollIntoViewIfNeeded();
    const chart = page.getByRole("img", { name: /Daily spend by project from/ });
    await expect(chart.locator("[data-static-chart] rect").first()).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await chart.hover();
    await expect(page.locator(".recharts-bar-rectangle").first()).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
  });
});
