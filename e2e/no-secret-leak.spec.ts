import { bffPath, expect, orgUrl, readDemoCredentials, signInWithKey, test } from "./fixtures";
import { leaksOf, recordResponses, secretForms } from "./secret-forms";

test("no API secret reaches the browser: sign-in with typed keys and a tour of the console", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const { seen, settled } = recordResponses(page);

  const demo = await readDemoCredentials(page);
  await page.goto("/");
  await page.goto("/sign-in");
  await signInWithKey(page, demo.owner.access_key_id, demo.owner.secret_key);
  await expect(page).toHaveURL(orgUrl(demo));
  await page.waitForLoadState("networkidle");

  // The tour: every page the console has, found from its navigation, plus what the browser may fetch itself.
  const links = await page.locator('a[href^="/orgs/"], a[href^="/catalog"]').evaluateAll((as) => [...new Set(as.map((a) => a.getAttribute("href") ?? ""))]);
  for (const href of ["/", "/orgs", ...links.filter(Boolean)]) {
    await page.goto(href);
    await page.waitForLoadState("networkidle");
  }
  for (const path of ["/api/auth/session", "/api/auth/csrf", "/api/auth/providers", bffPath("getOrganizations"), bffPath("listProjects")]) {
    const r = await page.goto(path);
    expect(r?.status(), path).toBeLessThan(400);
  }
  // Storage is read on a page of the console: an answer of /api/cloud is opened sandboxed (no storage of the origin).
  await page.goto(`/orgs/${demo.organization_id}`);
  await page.waitForLoadState("networkidle");
  await settled();
  seen.push({ where: "cookies", text: JSON.stringify(await context.cookies()) });
  seen.push({
    where: "storage",
    text: await page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie })),
  });

  // The recorder really sees what the browser got: the pages name the signed-in user.
  expect(seen.length).toBeGreaterThan(20);
  expect(seen.some((s) => s.text.includes(demo.owner.email))).toBe(true);

  const leaks = (["owner", "member", "outsider"] as const).flatMap((who) => leaksOf(`${who}'s secret`, demo[who].secret_key, seen));
  expect(leaks).toEqual([]);
  await context.close();
});

test("the signed-in session cookie does not hold the key", async () => {
  const demo = await readDemoCredentials();
  const { readFileSync } = await import("node:fs");
  const { authFile } = await import("./fixtures");
  const state = readFileSync(authFile("owner"), "utf8");
  expect(state).toContain("next-auth.session-token");
  for (const value of Object.values(secretForms(demo.owner.secret_key))) expect(state).not.toContain(value);
  expect(state).not.toContain(demo.owner.access_key_id);
});
