import { readFileSync } from "node:fs";
import type { Page } from "@playwright/test";
import Papa from "papaparse";
import { bffPath, expect, holdRequests, test } from "./fixtures";

function entries(page: Page) {
  return page.getByRole("table", { name: "Audit-log entries" }).locator("tbody tr");
}

async function openAudit(page: Page, orgId: string, query = "") {
  await page.goto(`/orgs/${orgId}/audit-logs${query}`);
  await expect(page.getByRole("heading", { name: "Audit logs", level: 1 })).toBeVisible();
}

/** The text of each row: enough to tell pages apart. */
async function rowTexts(page: Page): Promise<string[]> {
  return entries(page).evaluateAll((rows) => rows.map((r) => (r as HTMLElement).innerText));
}

test.describe("audit logs", () => {
  test("opens on the last day, newest first", async ({ ownerPage: page, demo }) => {
    await openAudit(page, demo.organization_id);
    await expect(page.getByLabel("Time window", { exact: true })).toHaveValue("1d");
    await expect(entries(page).first()).toBeVisible();
    const count = await entries(page).count();
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThanOrEqual(20);
    const times = await entries(page).locator("time").evaluateAll((ts) => ts.map((t) => Date.parse(t.getAttribute("datetime") ?? "")));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(Date.now() - Math.min(...times)).toBeLessThanOrEqual(86_400_000 + 60_000);
  });

  test("a mutation made now is in the log, with who, what and from where", async ({ ownerPage: page, demo }) => {
    const name = `e2e-audit-${Date.now().toString(36)}`;
    const created = await page.request.post(bffPath("createProject"), { data: { organization_id: demo.organization_id, name } });
    expect(created.status()).toBe(200);

    await openAudit(page, demo.organization_id);
    await page.getByLabel("Target names").fill(name);
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page).toHaveURL(new RegExp(`[?&]target_names=${name}`));
    await expect(entries(page)).toHaveCount(1);
    const row = entries(page).first();
    await expect(row).toContainText("Create Project");
    await expect(row).toContainText(demo.owner.email);
    await expect(row).toContainText("OK");
    await expect(row).toContainText("console");

    // The drawer holds every field and the raw JSON of the entry.
    await row.getByRole("button", { name: /^Details of Create Project/ }).click();
    const sheet = page.getByRole("dialog", { name: "Create Project" });
    await expect(sheet).toBeVisible();
    const raw = JSON.parse(await sheet.getByTestId("raw-json").innerText()) as Record<string, unknown>;
    expect(raw).toMatchObject({ action: "Create", action_detail: "Create Project", actor_email: demo.owner.email, result: "OK", target_names: [name], surface: "console" });
    await expect(sheet.locator("dt", { hasText: "organization_name" })).toBeVisible();
    await expect(sheet.getByText("Acme AI Labs").first()).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(sheet).toBeHidden();
    // Focus goes back to the button that opened it: the table kept that button through the page's re-render.
    await expect(row.getByRole("button", { name: /^Details of Create Project/ })).toBeFocused();
  });

  test("results and actor e-mail filters narrow the entries and live in the URL", async ({ ownerPage: page, memberPage, demo }) => {
    // The member may not create projects: a refused call, filed under the member.
    const refused = await memberPage.request.post(bffPath("createProject"), {
      data: { organization_id: demo.organization_id, name: `e2e-denied-${Date.now().toString(36)}` },
    });
    expect(refused.status()).toBe(403);

    await openAudit(page, demo.organization_id, "?window=7d");
    await page.getByRole("button", { name: /^Results Any/ }).click();
    await page.getByRole("group", { name: "Results", exact: true }).getByText("PERMISSION_DENIED", { exact: true }).click();
    await page.keyboard.press("Escape");
    await page.getByLabel("Actor e-mails").fill(demo.member.email);
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page).toHaveURL(/[?&]results=PERMISSION_DENIED/);
    await expect(page).toHaveURL(/[?&]actor_emails=member(%40|@)acme\.example/);
    // The previous page stays on screen (dimmed) until the filtered one arrives.
    const matching = (t: string) => t.includes("PERMISSION_DENIED") && t.includes(demo.member.email);
    await expect.poll(async () => (await rowTexts(page)).filter((t) => !matching(t))).toEqual([]);
    await expect(page.getByTestId("audit-results")).toHaveAttribute("aria-busy", "false");
    const texts = await rowTexts(page);
    expect(texts.length).toBeGreaterThan(0);
    expect(texts.every(matching)).toBe(true);
    expect(texts[0]).toContain("Create Project");

    // Refresh keeps the filters, in the form too.
    await page.reload();
    await expect(page.getByLabel("Actor e-mails")).toHaveValue(demo.member.email);
    await expect(page.getByRole("button", { name: /^Results PERMISSION_DENIED/ })).toBeVisible();
    // The same entries; from the server's render, or fetched by the browser if that call did not make it.
    await expect.poll(() => rowTexts(page)).toEqual(texts);

    // An address that is not one is refused in the form, with the field named.
    await page.getByLabel("Actor e-mails").fill("not-an-address");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect(page.getByText(/Actor e-mails: each must be an e-mail address/)).toBeVisible();
  });

  test("next then previous returns the first page, with the tokens in the URL", async ({ ownerPage: page, demo }) => {
    await openAudit(page, demo.organization_id, "?window=30d&limit=10");
    await expect(entries(page)).toHaveCount(10);
    const first = await rowTexts(page);

    await page.getByRole("button", { name: "Next page" }).click();
    await expect(page).toHaveURL(/[?&]next=/);
    await expect.poll(() => rowTexts(page)).not.toEqual(first);
    await expect(entries(page)).toHaveCount(10);
    const second = await rowTexts(page);
    expect(second.some((t) => first.includes(t))).toBe(false);

    await page.getByRole("button", { name: "Previous page" }).click();
    await expect(page).toHaveURL(/[?&]prev=/);
    await expect.poll(() => rowTexts(page)).toEqual(first);
    await expect(page.getByRole("button", { name: "Previous page" })).toBeDisabled();

    // Back in the browser is the second page again, from its token in the URL.
    await page.goBack();
    await expect(page).toHaveURL(/[?&]next=/);
    await expect.poll(() => rowTexts(page)).toEqual(second);
  });

  test("while new filters' entries load, the previous page's pager and exports are disabled", async ({ ownerPage: page, demo }) => {
    await openAudit(page, demo.organization_id, "?window=30d&limit=10");
    await expect(entries(page)).toHaveCount(10);
    const next = page.getByRole("button", { name: "Next page" });
    await expect(next).toBeEnabled();
    await expect(page.getByTestId("audit-results")).toHaveAttribute("aria-busy", "false");

    // The new filters' page is held back (then passed on as the gateway sent it) to see the page while it comes:
    // the previous filters' entries stay on screen, but their token would skip the new filters' first page.
    const auditPages = (url: URL) => url.pathname === bffPath("getAuditLogs", { organization_id: demo.organization_id });
    const { release } = await holdRequests(page, auditPages);
    await page.getByLabel("Page size").selectOption("50");
    await expect(page).toHaveURL(/[?&]limit=50/);
    await expect(page.getByTestId("audit-results")).toHaveAttribute("aria-busy", "true");
    await expect(entries(page)).toHaveCount(10);
    await expect(next).toBeDisabled();
    await expect(page.getByRole("button", { name: "Previous page" })).toBeDisabled();
    await expect(page.getByRole("button", { name: "Export CSV" })).toBeDisabled();
    await expect(page.getByRole("button", { name: "Export JSON" })).toBeDisabled();
    release();
    await expect(page.getByTestId("audit-results")).toHaveAttribute("aria-busy", "false");
    await expect.poll(() => entries(page).count()).toBeGreaterThan(10);
    await expect(page.getByRole("button", { name: "Export CSV" })).toBeEnabled();
  });

  test("every entry the filters match exports as CSV and JSON, not only the page on screen", async ({ ownerPage: page, demo }) => {
    await openAudit(page, demo.organization_id, "?window=7d&limit=10");
    await expect(entries(page)).toHaveCount(10);
    const walk = (r: { url: () => string }) => r.url().includes("/audit-logs?") && new URL(r.url()).searchParams.get("limit") === "1000";
    const [csv, request] = await Promise.all([page.waitForEvent("download"), page.waitForRequest(walk), page.getByRole("button", { name: "Export CSV" }).click()]);
    // The range the export fixed as it began, as the file's name says it.
    const sent = new URL(request.url()).searchParams;
    const [start, end] = [sent.get("start_time")!, sent.get("end_time")!];
    const safe = (instant: string) => instant.replace(/[:.]/g, "-");
    expect(csv.suggestedFilename()).toBe(`audit-log-${safe(start)}--${safe(end)}.csv`);
    // What the gateway holds in that range, walked here page by page.
    const expected: Array<{ start_time: string; action: string }> = [];
    for (let next = ""; ; ) {
      const res = await page.request.get(bffPath("getAuditLogs", { organization_id: demo.organization_id }), {
        params: { start_time: start, end_time: end, limit: "1000", ...(next ? { next_token: next } : {}) },
      });
      expect(res.status()).toBe(200);
      const body = (await res.json()) as { items: Array<{ start_time: string; action: string }>; next_page_token: string };
      expected.push(...body.items);
      if (!body.next_page_token) break;
      next = body.next_page_token;
    }
    expect(expected.length).toBeGreaterThan(10);
    const [header, ...rows] = Papa.parse<string[]>(readFileSync(await csv.path(), "utf8").trim()).data;
    expect(header?.slice(0, 4)).toEqual(["start_time", "end_time", "action", "action_detail"]);
    expect(header).toContain("actor_email");
    expect(rows.map((r) => [r[0], r[2]])).toEqual(expected.map((e) => [e.start_time, e.action]));
    await expect(page.getByRole("status").filter({ hasText: `Exported ${expected.length.toLocaleString("en-US")} entries.` })).toBeVisible();
    const [json] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export JSON" }).click()]);
    const parsed = JSON.parse(readFileSync(await json.path(), "utf8")) as Array<Record<string, unknown>>;
    expect(parsed.length).toBeGreaterThanOrEqual(expected.length);
    expect(parsed[0]).toHaveProperty("target_ids");
  });

  test("an absolute range entered in the user's zone is sent with its offset", async ({ ownerPage: page, demo }) => {
    await openAudit(page, demo.organization_id);
    // A choice made before the form has hydrated is undone by hydration (the server's window kept): chosen until it holds.
    await expect(async () => {
      await page.getByLabel("Time window", { exact: true }).selectOption("custom");
      await expect(page.getByLabel("From", { exact: true })).toBeVisible({ timeout: 1_000 });
    }).toPass();
    const day = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel("From", { exact: true }).fill(`${day}T00:00`);
    await page.getByLabel("To", { exact: true }).fill(`${day}T23:59`);
    const [request] = await Promise.all([
      page.waitForRequest((r) => r.url().includes("/audit-logs?") && r.url().includes("end_time=")),
      page.getByRole("button", { name: "Apply filters" }).click(),
    ]);
    await expect(page).toHaveURL(/[?&]window=custom/);
    const sent = new URL(request.url()).searchParams;
    expect(sent.get("start_time")).toMatch(new RegExp(`^${day}T00:00:00([+-]\\d{2}:\\d{2}|Z)$`));
    // The end is included to the last moment of its minute: "23:59" finds what happened at 23:59:30.
    expect(sent.get("end_time")).toMatch(new RegExp(`^${day}T23:59:59\\.999999([+-]\\d{2}:\\d{2}|Z)$`));
    await expect(entries(page).first()).toBeVisible();
  });

  test("the auditor (audit.read) can search the log as well; the member is told why not", async ({ auditorPage: page, memberPage, demo, browserErrors }) => {
    browserErrors.allow(/the server responded with a status of 403/, "the member opens a page their role does not grant on purpose: the browser logs the 403 the page then explains");
    await openAudit(page, demo.organization_id);
    await expect(entries(page).first()).toBeVisible();
    await expect(page.getByText("You don't have access")).toHaveCount(0);
    await memberPage.goto(`/orgs/${demo.organization_id}/audit-logs`);
    await expect(memberPage.getByRole("alert").filter({ hasText: "You don't have access" }).first()).toContainText("audit.read");
  });

  test("on a phone the page does not scroll sideways", async ({ ownerPage: page, demo }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await openAudit(page, demo.organization_id);
    await expect(entries(page).first()).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
  });
});

test.describe("audit logs read in a browser whose zone is not the server's", () => {
  // Tokyo: no daylight saving, so its offset is always +09:00 (the server runs in UTC, as CI does, or in its own zone).
  test.use({ timezoneId: "Asia/Tokyo" });

  test("a link to a custom range names the browser's zone, and the entries' times are in it", async ({ ownerPage: page, demo }) => {
    const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const from = encodeURIComponent(`${day}T00:00:00+09:00`);
    const to = encodeURIComponent(new Date().toISOString());
    // Loaded whole from the server (a link, a reload): what it wrote is made the browser's once hydrated.
    await openAudit(page, demo.organization_id, `?window=custom&from=${from}&to=${to}`);
    await expect(page.getByText("In Asia/Tokyo (UTC+09:00)")).toBeVisible();
    await expect(page.getByLabel("From", { exact: true })).toHaveValue(`${day}T00:00`);
    await expect(entries(page).first()).toBeVisible();
    const times = await entries(page).locator("time").allInnerTexts();
    expect(times.length).toBeGreaterThan(0);
    for (const time of times) expect(time).toMatch(/\+09:00$/);
  });
});
