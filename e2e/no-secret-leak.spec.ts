import type { Response } from "@playwright/test";
import { bffPath, expect, orgUrl, readDemoCredentials, signInWithKey, test } from "./fixtures";

/** Every way a secret could be written: as issued, its bytes in base64/base64url/hex, the string's own encodings. */
function secretForms(secret: string): Record<string, string> {
  const bytes = Buffer.from(secret, "base64url");
  const text = Buffer.from(secret, "utf8");
  return {
    raw: secret,
    "bytes base64": bytes.toString("base64"),
    "bytes base64 unpadded": bytes.toString("base64").replace(/=+$/, ""),
    "bytes base64url": bytes.toString("base64url"),
    "bytes hex": bytes.toString("hex"),
    "bytes HEX": bytes.toString("hex").toUpperCase(),
    "string base64": text.toString("base64").replace(/=+$/, ""),
    "string base64url": text.toString("base64url"),
    "string hex": text.toString("hex"),
    "url-encoded": encodeURIComponent(secret),
  };
}

test("no API secret reaches the browser: sign-in with typed keys and a tour of the console", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const seen: Array<{ where: string; text: string }> = [];
  const reads: Promise<void>[] = [];
  const record = (response: Response) => {
    reads.push(
      (async () => {
        const where = `${response.request().method()} ${response.url()} (${response.status()})`;
        seen.push({ where: `${where} headers`, text: JSON.stringify(await response.allHeaders()) });
        try {
          seen.push({ where: `${where} body`, text: (await response.body()).toString("utf8") });
        } catch {
          // redirects and aborted requests have no body
        }
      })(),
    );
  };
  page.on("response", record);

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
  await Promise.all(reads);
  seen.push({ where: "cookies", text: JSON.stringify(await context.cookies()) });
  seen.push({
    where: "storage",
    text: await page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie })),
  });

  // The recorder really sees what the browser got: the pages name the signed-in user.
  expect(seen.length).toBeGreaterThan(20);
  expect(seen.some((s) => s.text.includes(demo.owner.email))).toBe(true);

  const leaks: string[] = [];
  for (const who of ["owner", "member", "outsider"] as const) {
    for (const [form, value] of Object.entries(secretForms(demo[who].secret_key))) {
      for (const s of seen) if (s.text.includes(value)) leaks.push(`${who}'s secret (${form}) in ${s.where}`);
    }
  }
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
