import { bffPath, expect, holdRequests, test } from "./fixtures";

test.describe("catalog", () => {
  test("owner narrows capacity with a product filter kept in the URL", async ({ ownerPage: page }) => {
    await page.goto("/catalog");
    await expect(page.getByRole("heading", { level: 1, name: "Catalog" })).toBeVisible();
    const table = page.getByRole("table", { name: "Capacity by product and location" });
    const rows = table.locator("tbody tr");
    await expect(rows.first()).toBeVisible();
    const allCount = await rows.count();

    const picker = page.getByLabel("Add a product filter");
    const product = await picker.locator("option").nth(1).getAttribute("value");
    if (!product) throw new Error("no product to filter by");
    await picker.selectOption(product);
    await expect(page).toHaveURL(new RegExp(`[?&]product_name=${product.replace(/\./g, "\\.")}`));
    await expect(page.getByRole("button", { name: `Remove product filter ${product}` })).toBeVisible();
    await expect.poll(() => rows.count()).toBeLessThan(allCount);
    for (const cell of await rows.locator("td:first-child").allTextContents()) expect(cell.trim()).toBe(product);

    await page.reload();
    await expect(page.getByRole("button", { name: `Remove product filter ${product}` })).toBeVisible();
    await expect.poll(() => rows.count()).toBeLessThan(allCount);

    await page.getByRole("button", { name: "Clear filters" }).click();
    await expect(page).not.toHaveURL(/product_name=/);
    await expect(rows).toHaveCount(allCount);

    // A location from the locations list filters the table too.
    const locations = page.getByRole("region", { name: "Locations" });
    await locations.getByRole("button", { name: /^Show capacity in / }).first().click();
    await expect(page).toHaveURL(/[?&]location=/);
    const location = new URL(page.url()).searchParams.get("location") ?? "";
    for (const cell of await rows.locator("td:nth-child(3)").allTextContents()) expect(cell.trim()).toBe(location);
  });

  test("images filter by product group, and an image's detail page opens", async ({ ownerPage: page, browserErrors }) => {
    browserErrors.allow(/the server responded with a status of 404/, "an unknown image id is asked for at the end: the browser logs the 404");
    await page.goto("/catalog");
    await page.getByRole("navigation", { name: "Catalog sections" }).getByRole("link", { name: "Images" }).click();
    await expect(page).toHaveURL(/\/catalog\/images$/);
    const table = page.getByRole("table", { name: "Images" });
    await expect(table.getByRole("link", { name: "jax", exact: true })).toBeVisible();

    await page.getByLabel("Product group").selectOption("l40s");
    await expect(page).toHaveURL(/[?&]product_group=l40s\b/);
    await expect(table.getByRole("link", { name: "debian", exact: true })).toBeVisible();
    await expect(table.getByRole("link", { name: "jax", exact: true })).toHaveCount(0);

    await table.getByRole("link", { name: "pytorch", exact: true }).click();
    await expect(page).toHaveURL(/\/catalog\/images\/[0-9a-f-]{36}$/);
    await expect(page.getByRole("heading", { level: 1, name: "pytorch" })).toBeVisible();
    await expect(page.getByText("PyTorch 2.4 with CUDA 12.4")).toBeVisible();
    await expect(page.getByRole("list", { name: "Locations of the image" }).getByRole("listitem").first()).toBeVisible();

    await page.goto("/catalog/images/00000000-0000-4000-8000-000000000000");
    await expect(page.getByText("Image not found")).toBeVisible();
  });

  test("a registry token is shown once, cannot be dismissed unsaved, and is gone afterwards", async ({ ownerPage: page, demo }) => {
    const alias = `e2e-ccr-${Date.now().toString(36)}`;
    await page.goto("/catalog");
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Registry tokens" }).click();
    await expect(page).toHaveURL(/\/catalog\/registry$/);
    await expect(page.getByRole("region", { name: "Supported locations" }).getByRole("listitem").first()).toBeVisible();
    await expect(page.getByRole("region", { name: "Pull-through cache providers" })).toContainText("docker-hub");

    const form = page.getByRole("form", { name: "Create a registry token" });
    // A past expiry is refused in place, before any request.
    await form.getByLabel("Alias").fill(alias);
    await form.getByLabel("Expires").selectOption("custom");
    await form.getByLabel("Expiry date and time (UTC)").fill("2020-01-01T00:00");
    await form.getByRole("button", { name: "Create token" }).click();
    await expect(form.getByText("must be in the future")).toBeVisible();
    await expect(page.getByRole("dialog")).toHaveCount(0);

    await form.getByLabel("Expires").selectOption("30d");
    await form.getByRole("button", { name: "Create token" }).click();
    const dialog = page.getByRole("dialog", { name: `Registry token “${alias}”` });
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText("shown only once");
    const token = ((await dialog.locator("code[data-secret]").textContent()) ?? "").trim();
    expect(token).toMatch(/^ccr_.{16,}/);
    await expect(page.getByText(`Registry token “${alias}” created`)).toBeVisible();

    // Neither Escape nor "Done" closes it before the user confirms they saved it.
    await page.keyboard.press("Escape");
    await expect(dialog).toBeVisible();
    const done = dialog.getByRole("button", { name: "Done" });
    await expect(done).toBeDisabled();
    await dialog.getByLabel("I have saved this secret somewhere safe").check();
    await done.click();
    await expect(dialog).toHaveCount(0);

    expect(await page.content()).not.toContain(token);
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
    expect(stored).not.toContain(token);
    await expect(form.getByLabel("Alias")).toHaveValue("");

    // It landed in the audit log, without the token.
    const audit = await page.request.get(`${bffPath("getAuditLogs", { organization_id: demo.organization_id })}?target_names=${alias}`);
    expect(audit.status()).toBe(200);
    const text = await audit.text();
    expect(text).toContain("Create Container Registry Token");
    expect(text).not.toContain(token);
  });

  test("a double click on Create token while the form's rules load creates one token", async ({ ownerPage: page }) => {
    const created: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST" && new URL(request.url()).pathname === bffPath("createCcrToken")) created.push(request.url());
    });
    // Reached by the console's navigation, so the page is hydrated before the form's rules are first asked for.
    await page.goto("/catalog");
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Registry tokens" }).click();
    await expect(page).toHaveURL(/\/catalog\/registry$/);
    const form = page.getByRole("form", { name: "Create a registry token" });
    await expect(form).toBeVisible();
    await page.waitForLoadState("networkidle");

    // The script of the rules (fetched when the form is first focused) is held back, then passed on as is,
    // so that both clicks land while it loads.
    const held = await holdRequests(page, (url) => url.pathname.startsWith("/_next/static/"));
    const alias = `e2e-ccr-twice-${Date.now().toString(36)}`;
    await form.getByLabel("Alias").fill(alias);
    await form.getByRole("button", { name: "Create token" }).dblclick();
    // Both clicks landed while the rules' script was held (else the first submit could end before the second).
    expect(held.count(), "scripts held while the form's rules load").toBeGreaterThan(0);
    held.release();

    const dialog = page.getByRole("dialog", { name: `Registry token “${alias}”` });
    await expect(dialog).toBeVisible();
    expect(created, "registry tokens created").toHaveLength(1);
    await dialog.getByLabel("I have saved this secret somewhere safe").check();
    await dialog.getByRole("button", { name: "Done" }).click();
    await expect(dialog).toHaveCount(0);
  });

  test("member browses the catalog in the shell, without the GPU tracking item", async ({ memberPage: page }) => {
    await page.goto("/catalog");
    const nav = page.getByRole("navigation", { name: "Console" });
    await expect(nav.getByRole("link", { name: "Catalog" })).toHaveAttribute("aria-current", "page");
    await expect(nav.getByRole("link", { name: "GPU tracking" })).toHaveCount(0);
    await expect(page.getByRole("table", { name: "Capacity by product and location" }).locator("tbody tr").first()).toBeVisible();
    await page.goto("/catalog/registry");
    await expect(page.getByRole("form", { name: "Create a registry token" }).getByRole("button", { name: "Create token" })).toBeEnabled();
  });
});
