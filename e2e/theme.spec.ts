import type { Page } from "@playwright/test";
import { THEME_COOKIE } from "@/lib/theme";
import { authFile, expect, test } from "./fixtures";

/** The page's background, as painted: white in the light theme, slate-950 in the dark. */
const background = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
const WHITE = "rgb(255, 255, 255)";
/** The theme cookie of the page's browser context. */
const themeCookie = async (page: Page) => (await page.context().cookies()).find((c) => c.name === THEME_COOKIE);

test.describe("theme", () => {
  test("follows the system until one is chosen, and a choice is rendered by the server, with no script before the first paint", async ({
    ownerPage: page,
    demo,
    browser,
    baseURL,
  }) => {
    const overview = `/orgs/${demo.organization_id}`;

    // No choice yet: the system's preference decides, by CSS alone.
    await page.emulateMedia({ colorScheme: "dark" });
    await page.goto(overview);
    await expect(page.locator("html")).not.toHaveClass(/\b(light|dark)\b/);
    await expect.poll(() => background(page)).not.toBe(WHITE);
    await page.emulateMedia({ colorScheme: "light" });
    await expect.poll(() => background(page)).toBe(WHITE);

    // The toggle goes light, dark, system; dark holds against a light system.
    const toggle = (current: string) => page.getByRole("button", { name: new RegExp(`^Theme: ${current}\\.`) });
    await toggle("system").click();
    await expect(page.locator("html")).toHaveClass(/\blight\b/);
    await toggle("light").click();
    await expect(page.locator("html")).toHaveClass(/\bdark\b/);
    await expect.poll(() => background(page)).not.toBe(WHITE);
    const chosen = await themeCookie(page);
    expect(chosen?.value).toBe("dark");

    // The server renders the choice: the page's HTML carries it, and no inline theme script.
    const html = await (await page.request.get(overview)).text();
    expect(html).toMatch(/<html[^>]*class="dark"/);
    expect(html).not.toMatch(/localStorage/);

    // Without JavaScript at all, the page still opens in the theme chosen.
    const noScript = await browser.newContext({ storageState: authFile("owner"), javaScriptEnabled: false, colorScheme: "light", baseURL });
    try {
      await noScript.addCookies([chosen!]);
      const plain = await noScript.newPage();
      await plain.goto(overview);
      await expect(plain.locator("html")).toHaveClass(/\bdark\b/);
      expect(await background(plain)).not.toBe(WHITE);
    } finally {
      await noScript.close();
    }

    // Back to the system's: the class goes, and the choice is kept as such.
    await page.reload();
    await toggle("dark").click();
    await expect(page.locator("html")).not.toHaveClass(/\b(light|dark)\b/);
    await expect.poll(() => background(page)).toBe(WHITE);
    expect((await themeCookie(page))?.value).toBe("system");
  });
});
