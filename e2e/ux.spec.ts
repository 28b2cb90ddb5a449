import { readFileSync } from "node:fs";
import type { Page } from "@playwright/test";
import Papa from "papaparse";
import { operationPath } from "@/lib/contract/operations";
import { USAGE_EXPORT_COLUMNS } from "@/lib/contract/usage";
import { expect, openWith, test } from "./fixtures";
import { api, pagesOf } from "./org-pages";

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1440, height: 900 };

/** How far the page scrolls sideways (0 when it fits the viewport). */
const sideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** The elements that reach past the viewport's right edge, innermost first: what makes a page scroll sideways. */
const offenders = (page: Page) =>
  page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out: string[] = [];
    for (const el of Array.from(document.body.querySelectorAll<HTMLElement>("*"))) {
      const r = el.getBoundingClientRect();
      if (r.right <= width + 0.5 || r.width === 0) continue;
      // Inside a box that scrolls or clips sideways, it does not widen the page.
      let clipped = false;
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const o = getComputedStyle(p).overflowX;
        if (o !== "visible" && p.getBoundingClientRect().right <= width + 0.5) {
          clipped = true;
          break;
        }
      }
      if (clipped) continue;
      const inner = Array.from(el.children).some((c) => c.getBoundingClientRect().right > width + 0.5);
      if (!inner) out.push(`${el.tagName.toLowerCase()}.${String(el.className).slice(0, 80)} right=${Math.round(r.right)} "${(el.textContent ?? "").slice(0, 30)}"`);
    }
    return out.slice(0, 8);
  });

async function firstProject(page: Page, orgId: string): Promise<{ id: string; name: string }> {
  const { items } = await api<{ items: Array<{ id: string; name: string; organization_id: string }> }>(page, operationPath("listProjects"));
  const project = items.find((p) => p.organization_id === orgId);
  expect(project).toBeTruthy();
  return project!;
}

test.describe("phone layout (390 px)", () => {
  for (const who of ["owner", "member"] as const) {
    test(`the overview, projects and IAM do not scroll sideways for the ${who}`, async ({ ownerPage, memberPage, demo }) => {
      const page = who === "owner" ? ownerPage : memberPage;
      await page.setViewportSize(PHONE);
      for (const [path, heading] of [
        ["", "Overview"],
        ["/projects", "Projects"],
        ["/iam", "Identity and access"],
      ] as const) {
        await page.goto(`/orgs/${demo.organization_id}${path}`);
        await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
        await expect(page.getByRole("status", { name: /^Loading/ })).toHaveCount(0);
        const over = await sideways(page);
        expect(over, `${path || "/"} fits 390 px; past the edge: ${over > 0 ? (await offenders(page)).join(" | ") : ""}`).toBeLessThanOrEqual(0);
      }
    });
  }

  test("the navigation drawer takes the focus, keeps Tab inside, closes on Escape and gives the focus back", async ({ ownerPage: page, demo }) => {
    await page.setViewportSize(PHONE);
    await page.goto(`/orgs/${demo.organization_id}`);
    const opener = page.getByRole("button", { name: "Open navigation" });
    const drawer = page.getByRole("dialog", { name: "Navigation" });
    await openWith(opener, drawer);
    // Focus moved into the drawer.
    await expect.poll(() => page.evaluate(() => Boolean(document.activeElement?.closest("dialog")))).toBe(true);
    // Tab goes round the drawer's own controls, never to the page behind.
    for (let i = 0; i < 25; i++) {
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => Boolean(document.activeElement?.closest("dialog")))).toBe(true);
    }
    await page.keyboard.press("Shift+Tab");
    expect(await page.evaluate(() => Boolean(document.activeElement?.closest("dialog")))).toBe(true);
    await page.keyboard.press("Escape");
    await expect(drawer).toBeHidden();
    await expect(opener).toBeFocused();
  });

  test("the demo sign-in buttons keep their text inside", async ({ browser }) => {
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    await page.goto("/sign-in");
    for (const who of ["owner", "member"]) {
      const button = page.getByRole("button", { name: `Sign in as demo ${who}` });
      await expect(button).toBeVisible();
      expect(await button.evaluate((b) => b.scrollWidth - b.clientWidth)).toBeLessThanOrEqual(0);
    }
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    await context.close();
  });
});

test.describe("overview", () => {
  test("reserved-GPU utilisation counts effective reservations only, on the overview and the reservations page", async ({ ownerPage: page, demo }) => {
    const all = await api<{ items: Array<{ quantity: number; used_quantity: number }> }>(page, operationPath("getReservations", { organization_id: demo.organization_id }));
    const effective = await api<{ items: Array<{ quantity: number; used_quantity: number }> }>(
      page,
      `${operationPath("getReservations", { organization_id: demo.organization_id })}?status=effective`,
    );
    const used = effective.items.reduce((n, r) => n + r.used_quantity, 0);
    const reserved = effective.items.reduce((n, r) => n + r.quantity, 0);
    // The demo has reservations that are not effective: counting them would give another total.
    expect(all.items.reduce((n, r) => n + r.quantity, 0)).toBeGreaterThan(reserved);

    await page.goto(`/orgs/${demo.organization_id}/reservations`);
    await expect(page.getByText(`${used} of ${reserved} reserved GPUs in use`)).toBeVisible();
    await page.goto(`/orgs/${demo.organization_id}`);
    const widget = page.locator("section").filter({ has: page.getByRole("heading", { name: "Reservations" }) });
    await expect(widget.getByText(`${used} / ${reserved}`, { exact: true })).toBeVisible();
  });

  test("cards and latest activity link to their pages and objects", async ({ ownerPage: page, demo }) => {
    await page.goto(`/orgs/${demo.organization_id}`);
    await expect(page.getByRole("link", { name: "All projects" })).toHaveAttribute("href", `/orgs/${demo.organization_id}/projects`);
    await expect(page.getByRole("link", { name: "Audit logs", exact: true }).last()).toHaveAttribute("href", `/orgs/${demo.organization_id}/audit-logs`);
    const activity = page.locator("section").filter({ has: page.getByRole("heading", { name: "Latest activity" }) });
    await expect(activity.locator("li a").first()).toHaveAttribute("href", new RegExp(`^(/orgs/${demo.organization_id}/|/catalog/)`));
  });
});

test.describe("way-finding", () => {
  test("a page prefetches no other page until a link to it is reached for, by pointer or keyboard, and then opens it", async ({ ownerPage: page, demo }) => {
    await page.setViewportSize(DESKTOP);
    // Next's prefetches are the requests for a page's server payload that no navigation made.
    const prefetched: string[] = [];
    page.on("request", (request) => {
      if (request.headers()["next-router-prefetch"] || request.headers()["next-router-segment-prefetch"]) prefetched.push(new URL(request.url()).pathname);
    });
    const base = `/orgs/${demo.organization_id}`;
    await page.goto(`${base}/projects`);
    const nav = page.getByRole("navigation", { name: "Console" });
    await expect(nav.getByRole("link", { name: "Quotas" })).toBeVisible();
    // The sidebar's areas and the table's projects are all in view, hydrated, and given time to prefetch.
    await expect(page.getByRole("table", { name: "Projects" }).getByRole("link").first()).toBeVisible();
    await page.waitForLoadState("networkidle");
    await page.waitForTimeout(1_000);
    expect(prefetched, "pages prefetched before any link was reached for").toEqual([]);

    await nav.getByRole("link", { name: "Quotas" }).hover();
    await expect.poll(() => prefetched.filter((p) => p === `${base}/quotas`).length, { message: "the hovered link's page is prefetched" }).toBeGreaterThan(0);
    await nav.getByRole("link", { name: "Billing" }).focus();
    await expect.poll(() => prefetched.filter((p) => p === `${base}/billing`).length, { message: "the focused link's page is prefetched" }).toBeGreaterThan(0);
    expect(prefetched.filter((p) => p !== `${base}/quotas` && p !== `${base}/billing`), "only the pages reached for").toEqual([]);

    await nav.getByRole("link", { name: "Quotas" }).click();
    await expect(page).toHaveURL(`${base}/quotas`);
    await expect(page.getByRole("heading", { name: "Quotas", level: 1 })).toBeVisible();
  });

  test("breadcrumbs name the project, spell SSO, MFA and SCIM, and each security section has its own heading", async ({ ownerPage: page, demo }) => {
    await page.setViewportSize(DESKTOP);
    const project = await firstProject(page, demo.organization_id);
    await page.goto(`/orgs/${demo.organization_id}/projects/${project.id}`);
    const crumbs = page.getByRole("navigation", { name: "Breadcrumb" });
    await expect(crumbs.locator('[aria-current="page"]')).toHaveText(project.name);
    await expect(crumbs).not.toContainText(project.id.slice(0, 8));

    for (const [segment, crumb, heading] of [
      ["sso", "SSO", "Single sign-on"],
      ["mfa", "MFA", "Multi-factor authentication"],
      ["scim", "SCIM", "SCIM provisioning"],
    ] as const) {
      await page.goto(`/orgs/${demo.organization_id}/security/${segment}`);
      await expect(crumbs.locator('[aria-current="page"]')).toHaveText(crumb);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(heading);
    }
  });

  test("every page arrives with the data it shows: opened directly, it asks the backend-for-frontend for nothing", async ({ ownerPage: page, demo }) => {
    test.setTimeout(120_000);
    const asked: string[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith("/api/")) asked.push(`${new URL(page.url()).pathname}: ${url.pathname}${url.search}`);
    });
    for (const url of await pagesOf(page, demo.organization_id, "owner")) {
      await page.goto(url);
      await expect(page.locator("main h1").first()).toBeVisible();
      // A fetch after the load would be a second render of the page after it hydrated, and a round trip.
      await page.waitForLoadState("networkidle");
    }
    expect(asked, "what pages asked for after they loaded").toEqual([]);
  });

  test("a detail page arrives whole from the server: its object's name is a heading of the server's HTML, and opened directly it hydrates without a mismatch", async ({ ownerPage: page, demo }) => {
    const base = `/orgs/${demo.organization_id}`;
    const project = await firstProject(page, demo.organization_id);
    const reservations = await api<{ items: Array<{ id: string; product_line: string }> }>(page, operationPath("getReservations", { organization_id: demo.organization_id }));
    const { integrations } = await api<{ integrations: Array<{ id: string; name: string }> }>(page, operationPath("listSCIMIntegrations", { org_id: demo.organization_id }));
    const reservation = reservations.items[0];
    const integration = integrations[0];
    expect(reservation, "the demo has a reservation").toBeTruthy();
    expect(integration, "the demo has a SCIM integration").toBeTruthy();
    for (const [url, heading] of [
      [`${base}/projects/${project.id}`, project.name],
      [`${base}/reservations/${reservation!.id}`, `${reservation!.product_line} reservation`],
      [`${base}/security/scim/${integration!.id}`, integration!.name],
    ] as const) {
      // The shell (its breadcrumb reads the object's name) renders before the page: were the shell to make
      // the page's query first, the page would hydrate its data only after commit and render its
      // loading state on the server.
      const html = await (await page.request.get(url)).text();
      expect(/aria-label="Loading the (project|reservation|SCIM integration)"/.test(html), `${url}: the page's loading state in the server's HTML`).toBe(false);
      const headings = [...html.matchAll(/<h([1-3])[^>]*>([^]*?)<\/h\1>/g)].map((m) => m[2]!.replace(/<[^>]+>/g, ""));
      expect(headings, `the headings of ${url} in the server's HTML`).toContain(heading.replace(/&/g, "&amp;").replace(/</g, "&lt;"));
      // Opened directly (the fixture fails the test on a hydration error, such as text the browser renders
      // differently from the server), with the breadcrumb naming the object once hydrated.
      await page.goto(url);
      await expect(page.getByRole("heading", { name: heading, exact: true })).toBeVisible();
      await expect(page.getByRole("navigation", { name: "Breadcrumb" }).locator('[aria-current="page"]')).toHaveText(url.includes("/scim/") ? integration!.name : url.includes("/reservations/") ? reservation!.product_line : project.name);
    }
  });

  test("audit-log targets link to their objects, and the result column is in view at 1440 px", async ({ ownerPage: page, demo }) => {
    await page.setViewportSize(DESKTOP);
    await page.goto(`/orgs/${demo.organization_id}/audit-logs`);
    const table = page.getByRole("table", { name: "Audit-log entries" });
    await expect(table.locator("tbody tr").first()).toBeVisible();
    await expect(table.locator("tbody a").first()).toHaveAttribute("href", new RegExp(`^(/orgs/${demo.organization_id}/|/catalog/)`));
    const box = await table.evaluate((t) => t.parentElement!.getBoundingClientRect().right);
    for (const name of ["Result", "Details"]) {
      const header = table.locator("th", { hasText: name }).first();
      const right = await header.evaluate((h) => h.getBoundingClientRect().right);
      expect(right, `${name} column in view`).toBeLessThanOrEqual(box + 1);
    }
  });
});

test.describe("wide tables at 1440 px", () => {
  test("the S3 key table keeps its owner and Delete in view, and the VM table its last column", async ({ ownerPage: page, demo }) => {
    await page.setViewportSize(DESKTOP);
    // A key with a long alias, so the table is as wide as it gets.
    const created = await page.request.post(`/api/cloud${operationPath("createS3Key", { org_id: demo.organization_id })}`, {
      data: { alias: `wide-${Date.now().toString(36)}-${"x".repeat(40)}` },
    });
    expect(created.status()).toBe(200);
    await page.goto(`/orgs/${demo.organization_id}/storage`);
    const table = page.getByRole("table", { name: "S3 access keys" });
    const row = table.locator("tbody tr").first();
    const inView = async (locator: ReturnType<Page["locator"]>) => {
      const right = await locator.evaluate((el) => el.getBoundingClientRect().right);
      const box = await table.evaluate((t) => t.parentElement!.getBoundingClientRect().right);
      return right <= Math.min(box, DESKTOP.width) + 1;
    };
    await expect(row.getByRole("button", { name: /^Delete S3 key/ })).toBeVisible();
    expect(await inView(row.getByRole("button", { name: /^Delete S3 key/ }))).toBe(true);
    expect(await sideways(page)).toBeLessThanOrEqual(0);

    const project = await firstProject(page, demo.organization_id);
    await page.goto(`/orgs/${demo.organization_id}/projects/${project.id}`);
    const vms = page.getByRole("table").first();
    await expect(vms.locator("tbody tr").first()).toBeVisible();
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    // The VM table fits its box at this width: nothing of it is clipped.
    expect(await vms.evaluate((t) => t.parentElement!.scrollWidth - t.parentElement!.clientWidth), "VM table fits").toBeLessThanOrEqual(0);

    await page.goto("/catalog/images");
    const images = page.getByRole("table").first();
    await expect(images.locator("tbody tr").first()).toBeVisible();
    expect(await images.evaluate((t) => t.parentElement!.scrollWidth - t.parentElement!.clientWidth), "image table fits").toBeLessThanOrEqual(0);
  });
});

test.describe("dialogs", () => {
  test("focus returns to Create project after the dialog closes", async ({ ownerPage: page, demo }) => {
    await page.goto(`/orgs/${demo.organization_id}/projects`);
    const create = page.getByRole("button", { name: "Create project" });
    const dialog = page.getByRole("dialog", { name: "Create project" });
    await openWith(create, dialog);
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(page.getByRole("button", { name: "Create project" })).toBeFocused();
  });

  test("the S3 secret dialog and its .env hold the endpoint and region; copying is announced; focus returns to New key", async ({ ownerPage: page, demo }) => {
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.goto(`/orgs/${demo.organization_id}/storage`);
    const form = page.getByRole("dialog", { name: "New S3 access key" });
    await openWith(page.getByRole("button", { name: "New key" }), form);
    await form.getByLabel("Alias").fill(`e2e-endpoint-${Date.now().toString(36)}`);
    await form.getByRole("button", { name: "Create key" }).click();
    const secret = page.getByRole("dialog", { name: /^S3 key .* created$/ });
    await expect(secret).toBeVisible();
    await expect(secret).toContainText("Endpoint");
    await expect(secret).toContainText("Region");
    const [download] = await Promise.all([page.waitForEvent("download"), secret.getByRole("button", { name: "Download .env" }).click()]);
    const env = readFileSync(await download.path(), "utf8");
    expect(env).toMatch(/^AWS_ENDPOINT_URL=https?:\/\/\S+$/m);
    expect(env).toMatch(/^AWS_REGION=\S+$/m);
    expect(env).toMatch(/^AWS_SECRET_ACCESS_KEY=\S+$/m);

    await secret.getByRole("button", { name: "Copy Access key ID" }).click();
    await expect(secret.getByRole("status").filter({ hasText: "Access key ID copied" })).toBeAttached();

    await secret.getByLabel("I have saved this secret somewhere safe").check();
    await secret.getByRole("button", { name: "Done" }).click();
    await expect(secret).toBeHidden();
    await expect(page.getByRole("button", { name: "New key" })).toBeFocused();
  });

  test("a new registry token shows a docker login line that reads the token from the environment", async ({ ownerPage: page }) => {
    await page.goto("/catalog/registry");
    const card = page.getByRole("region", { name: "Create a registry token" }).or(page.locator('[aria-label="Create a registry token"]')).first();
    await card.getByLabel("Alias").fill(`e2e-docker-${Date.now().toString(36)}`);
    await card.getByRole("button", { name: "Create token" }).click();
    const secret = page.getByRole("dialog", { name: /^Registry token/ });
    await expect(secret).toBeVisible();
    await expect(secret).toContainText(/echo "\$CCR_TOKEN" \| docker login \S+ --username \S+ --password-stdin/);
    await secret.getByLabel("I have saved this secret somewhere safe").check();
    await secret.getByRole("button", { name: "Done" }).click();
  });
});

test.describe("exports", () => {
  test("the usage CSV exports the page's selection from its filters alone, with the rows the page shows", async ({ ownerPage: page, demo }) => {
    await page.goto(`/orgs/${demo.organization_id}/usage?range=30d&resource_types=persistent-ssd&resource_types=network-egress`);
    const totals = page.getByRole("table", { name: "Usage per project and resource type" });
    await expect(totals.locator("tbody tr").first()).toBeVisible();
    const shownTypes = new Set(await totals.locator("tbody tr td:nth-child(2)").allInnerTexts());
    const shownRows = await totals.locator("tbody tr").count();

    const dialog = page.getByRole("dialog", { name: "Export usage as CSV" });
    await openWith(page.getByRole("button", { name: "Export CSV" }), dialog);
    await expect(dialog.getByLabel("Resource IDs")).toHaveCount(0);
    const [download] = await Promise.all([page.waitForEvent("download"), dialog.getByRole("button", { name: "Download CSV" }).click()]);
    const [header, ...rows] = Papa.parse<string[]>(readFileSync(await download.path(), "utf8").trim()).data;
    expect(header).toEqual([...USAGE_EXPORT_COLUMNS]);
    expect(rows.length).toBeGreaterThan(0);
    const col = (name: (typeof USAGE_EXPORT_COLUMNS)[number]) => USAGE_EXPORT_COLUMNS.indexOf(name);
    expect(new Set(rows.map((r) => r[col("resource_type")]))).toEqual(shownTypes);
    // One line of the page's table per project and resource type in the file.
    expect(new Set(rows.map((r) => `${r[col("project_id")]}|${r[col("resource_type")]}`)).size).toBe(shownRows);
  });
});

test.describe("details", () => {
  test("a favicon is served and named by every page", async ({ ownerPage: page, demo }) => {
    expect((await page.request.get("/favicon.ico")).status()).toBe(200);
    await page.goto(`/orgs/${demo.organization_id}`);
    const icon = page.locator('link[rel="icon"]').first();
    const href = await icon.getAttribute("href");
    expect(href).toBeTruthy();
    expect((await page.request.get(href!)).status()).toBe(200);
  });

  test("the shell's icons are drawn from one cached sprite, in the sidebar and in the phone's drawer", async ({ ownerPage: page, demo }) => {
    const sprites: string[] = [];
    page.on("response", (response) => {
      if (new URL(response.url()).pathname === "/icons.svg") sprites.push(response.headers()["cache-control"] ?? "");
    });
    const html = await (await page.request.get(`/orgs/${demo.organization_id}/people`)).text();
    // The page holds references to the icons, not their shapes.
    const shell = html.slice(0, html.indexOf('id="main"'));
    expect(shell).toContain('<use href="/icons.svg?v=');
    expect(shell).not.toMatch(/<path /);

    // Every icon shown has a size: its symbol was found and drawn.
    const drawn = (scope: string) =>
      page.locator(`${scope} svg:visible use`).evaluateAll((uses) => uses.map((use) => [use.getAttribute("href"), (use as SVGGraphicsElement).getBBox().width] as const));
    await page.setViewportSize(DESKTOP);
    await page.goto(`/orgs/${demo.organization_id}/people`);
    await expect.poll(async () => (await drawn("aside")).filter(([, width]) => width > 0).length).toBeGreaterThan(10);
    expect((await drawn("aside")).filter(([, width]) => width === 0)).toEqual([]);
    expect((await drawn("header")).filter(([, width]) => width === 0)).toEqual([]);

    await page.setViewportSize(PHONE);
    await page.getByRole("button", { name: "Open navigation" }).click();
    await expect(page.getByRole("dialog", { name: "Navigation" })).toBeVisible();
    expect((await drawn("dialog")).filter(([, width]) => width === 0)).toEqual([]);
    expect((await drawn("dialog")).length).toBeGreaterThan(10);
    // Fetched once by the page (and kept by the browser for good: its address changes with its content).
    expect(sprites.length).toBeGreaterThanOrEqual(1);
    expect(sprites[0]).toBe("public, max-age=31536000, immutable");
  });

  test("dates read alike across pages: YYYY-MM-DD and YYYY-MM-DD HH:mm UTC", async ({ ownerPage: page, demo }) => {
    await page.goto(`/orgs/${demo.organization_id}/billing?range=30d`);
    await expect(page.getByText(/^Costs recorded up to \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/)).toBeVisible();
    const project = await firstProject(page, demo.organization_id);
    await page.goto(`/orgs/${demo.organization_id}/projects/${project.id}`);
    await expect(page.locator("tbody time").first()).toHaveText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
  });
});
