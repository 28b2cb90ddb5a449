import { bffPath, expect, test } from "./fixtures";

test.describe("reservations", () => {
  test("owner filters reservations by status in the URL and opens one", async ({ ownerPage: page, demo }) => {
    const base = `/orgs/${demo.organization_id}/reservations`;
    await page.goto(base);
    await expect(page.getByRole("heading", { level: 1, name: "Reservations" })).toBeVisible();
    const all = page.getByRole("table", { name: "Reservations", exact: true });
    await expect(all).toBeVisible();
    const allCount = await all.locator("tbody tr").count();
    expect(allCount).toBeGreaterThan(1);
    await expect(page.getByRole("link", { name: "GPU usage over time" })).toBeVisible();
    // Every status is told apart in the unfiltered list, the cancelled one included.
    for (const label of ["Effective", "Pending", "Expired", "Cancelled"]) await expect(all.getByText(label, { exact: true }).first()).toBeVisible();
    await expect(all.getByText("Cancelled", { exact: true })).toHaveCount(1);

    // Filtering puts the status in the URL and changes the rows: the demo has exactly one expired reservation.
    await page.getByLabel("Status").selectOption("expired");
    await expect(page).toHaveURL(/[?&]status=expired\b/);
    const expired = page.getByRole("table", { name: "Expired reservations" });
    await expect(expired.locator("tbody tr")).toHaveCount(1);
    await expect(expired).toContainText("CAPACITY_BLOCK");
    await expect(page.getByRole("status").filter({ hasText: "1 expired reservation" })).toBeVisible();

    // The filter survives a refresh, and back returns to every status.
    await page.reload();
    await expect(page.getByLabel("Status")).toHaveValue("expired");
    await expect(page.getByRole("table", { name: "Expired reservations" }).locator("tbody tr")).toHaveCount(1);
    await page.goBack();
    await expect(page).not.toHaveURL(/status=/);
    await expect(page.getByRole("table", { name: "Reservations", exact: true }).locator("tbody tr")).toHaveCount(allCount);

    await page.getByLabel("Status").selectOption("effective");
    await expect(page).toHaveURL(/[?&]status=effective\b/);
    const effective = page.getByRole("table", { name: "Effective reservations" });
    await expect(effective.locator("tbody tr").first()).toBeVisible();
    const effectiveCount = await effective.locator("tbody tr").count();
    expect(effectiveCount).toBeLessThan(allCount);

    // The detail page: contract, delivery, quantity used, project names resolved, VM ids.
    const link = effective.locator("tbody tr").first().getByRole("link");
    const line = (await link.textContent())?.trim() ?? "";
    await link.click();
    await expect(page).toHaveURL(new RegExp(`${base}/[0-9a-f-]{36}$`));
    await expect(page.getByRole("heading", { level: 1, name: `${line} reservation` })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Contract" })).toBeVisible();
    await expect(page.getByText("Delivery deadline")).toBeVisible();
    await expect(page.getByRole("meter", { name: "GPUs in use of this reservation" })).toBeVisible();
    const projects = page.getByRole("list", { name: "Projects of the reservation" }).getByRole("listitem");
    await expect(projects.first()).toBeVisible();
    await expect(projects.filter({ hasText: "not visible to you" })).toHaveCount(0);
    await expect(page.getByRole("list", { name: "VMs of the reservation" }).getByRole("listitem").first()).toBeVisible();

    await page.getByRole("link", { name: "All reservations" }).click();
    await expect(page).toHaveURL(new RegExp(`${base}$`));
  });

  test("an unknown reservation id says so", async ({ ownerPage: page, demo, browserErrors }) => {
    browserErrors.allow(/the server responded with a status of 404/, "an unknown reservation id is asked for: the browser logs the 404");
    await page.goto(`/orgs/${demo.organization_id}/reservations/00000000-0000-4000-8000-000000000000`);
    await expect(page.getByText("Reservation not found")).toBeVisible();
  });

  test("owner sees GPU tracking charts, the latest snapshot and ranges in the URL", async ({ ownerPage: page, demo }) => {
    await page.goto(`/orgs/${demo.organization_id}/reservations`);
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "GPU tracking" }).click();
    await expect(page).toHaveURL(/\/reservations\/gpu-tracking/);
    await expect(page.getByRole("heading", { level: 1, name: "GPU tracking" })).toBeVisible();

    const charts = page.getByRole("img", { name: /^GPU usage and reserved capacity of / });
    await expect(charts.first()).toBeVisible();
    // Each chart is drawn static first: its three lines and their legend.
    await expect(charts.first().locator("[data-static-chart] polyline")).toHaveCount(3);
    await expect(charts.first().locator("[data-static-chart] [data-legend] li")).toHaveText(["GPU usage", "On demand (over capacity)", "Reserved capacity"]);
    await expect(page.getByText("Last 7 days")).toBeVisible();
    // Pointing at a chart swaps in the interactive one (recharts), with the same lines and legend.
    const box = await charts.first().boundingBox();
    if (!box) throw new Error("chart has no box");
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await expect(charts.first().locator(".recharts-line-curve").first()).toBeVisible();
    await expect(page.locator(".recharts-legend-wrapper").first()).toContainText("GPU usage");
    await expect(page.locator(".recharts-legend-wrapper").first()).toContainText("Reserved capacity");
    // A tooltip names the sample's time and values.
    await page.mouse.move(box.x + box.width / 2 + 10, box.y + box.height / 2);
    await expect(page.locator(".recharts-tooltip-wrapper").first()).toContainText("UTC");
    // Focused from the keyboard, a chart swaps in the interactive one too, and the focus moves into it.
    if ((await charts.count()) > 1) {
      await charts.nth(1).focus();
      await expect(charts.nth(1).locator('svg.recharts-surface[role="application"]')).toBeFocused();
    }

    const latest = page.getByRole("region", { name: "Latest snapshot" });
    const cards = latest.getByRole("list", { name: "Latest GPU usage by product line and region" }).getByRole("listitem");
    await expect(cards.first()).toBeVisible();
    await expect(cards.first()).toContainText("Running GPUs");
    await expect(latest.getByRole("link").first()).toHaveAttribute("href", new RegExp(`/orgs/${demo.organization_id}/reservations/`));

    // Filtering by product line narrows the charts and the snapshot to it.
    const lineSelect = page.getByLabel("Product line", { exact: true });
    const line = await lineSelect.locator("option").nth(1).getAttribute("value");
    if (!line) throw new Error("no product line to filter by");
    await lineSelect.selectOption(line);
    await expect(page).toHaveURL(new RegExp(`[?&]product_line=${line}\\b`));
    await expect(charts.first()).toHaveAttribute("aria-label", new RegExp(`of ${line} in `));
    for (const name of await charts.evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") ?? ""))) expect(name).toContain(`of ${line} in `);
    await expect(cards.first().locator("h3")).toHaveText(new RegExp(`^${line} · `));
    for (const title of await cards.locator("h3").allTextContents()) expect(title.startsWith(`${line} · `)).toBe(true);
    await lineSelect.selectOption("");
    await expect(page).not.toHaveURL(/product_line=/);

    // A preset goes into the URL.
    await page.getByRole("button", { name: "24 hours" }).click();
    await expect(page).toHaveURL(/[?&]range=24h\b/);
    await expect(page.getByText("Last 24 hours")).toBeVisible();
    await expect(charts.first()).toBeVisible();

    // A custom range: validated in place, then applied as RFC 3339 timestamps.
    await page.getByRole("button", { name: "Custom" }).click();
    await page.getByLabel("From (UTC)").fill("2020-01-02T00:00");
    await page.getByLabel("To (UTC)").fill("2020-01-01T00:00");
    await page.getByRole("button", { name: "Apply range" }).click();
    await expect(page.getByText("must be after the start")).toBeVisible();
    await page.getByLabel("To (UTC)").fill("2020-01-03T00:00");
    await page.getByRole("button", { name: "Apply range" }).click();
    await expect(page).toHaveURL(/range=custom/);
    await expect(page).toHaveURL(/start=2020-01-02T00(%3A|:)00(%3A|:)00Z/);
    await expect(page.getByText("No GPU tracking data in this range")).toBeVisible();
    await page.reload();
    await expect(page.getByText("2020-01-02 00:00 UTC to 2020-01-03 00:00 UTC")).toBeVisible();
    await page.goBack();
    await expect(page).toHaveURL(/[?&]range=24h\b/);
    await expect(charts.first()).toBeVisible();
  });

  test("member sees reservations but no GPU tracking item, and its URL explains the missing feature", async ({ memberPage: page, demo }) => {
    await page.goto(`/orgs/${demo.organization_id}/reservations`);
    const nav = page.getByRole("navigation", { name: "Console" });
    await expect(nav.getByRole("link", { name: "Reservations" })).toBeVisible();
    await expect(nav.getByRole("link", { name: "GPU tracking" })).toHaveCount(0);
    await expect(page.getByRole("table", { name: "Reservations", exact: true }).locator("tbody tr").first()).toBeVisible();
    await expect(page.getByRole("link", { name: "GPU usage over time" })).toHaveCount(0);

    await page.goto(`/orgs/${demo.organization_id}/reservations/gpu-tracking`);
    const alert = page.getByRole("alert").filter({ hasText: "GPU tracking is not enabled for you" });
    await expect(alert).toBeVisible();
    await expect(alert).toContainText("reservations");
    await expect(page.getByRole("img", { name: /GPU usage and reserved capacity/ })).toHaveCount(0);
    await expect(alert.getByRole("link", { name: "See the organization's reservations" })).toBeVisible();

    // The gateway refuses the member as well: the page's explanation is not only cosmetic.
    const refused = await page.request.get(bffPath("getLatestGPUTracking", { organization_id: demo.organization_id }));
    expect(refused.status()).toBe(403);
  });
});
