import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { THEME_COOKIE } from "@/lib/theme";
import { expect, test } from "./fixtures";
import { pagesOf } from "./org-pages";

type Theme = "light" | "dark";

/** Opens the page in the theme, waits for its data, and returns axe's serious and critical findings (WCAG 2 A and AA). */
async function seriousViolations(page: Page, url: string) {
  await page.goto(url);
  await expect(page.locator("main h1").first()).toBeVisible();
  // Skeletons gone: the page's data is drawn.
  await expect(page.getByRole("status", { name: /^Loading/ })).toHaveCount(0);
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.map((n) => `${url} ${v.id} (${v.impact}): ${n.target.join(" ")}: ${n.failureSummary?.split("\n").slice(1, 2).join("") ?? ""}`));
}

for (const who of ["owner", "member"] as const) {
  for (const theme of ["light", "dark"] as const satisfies readonly Theme[]) {
    test(`every organization page passes axe (WCAG AA) for the ${who} in the ${theme} theme`, async ({ ownerPage, memberPage, demo, browserErrors, baseURL }) => {
      test.setTimeout(180_000);
      // The member opens every page, those their role does not grant too (each explains the 403 in place).
      if (who === "member") browserErrors.allow(/the server responded with a status of 403/, "the member opens pages their role does not grant: each explains the 403 in place");
      const page = who === "owner" ? ownerPage : memberPage;
      await page.emulateMedia({ colorScheme: theme });
      // The console follows the system theme until one is chosen; choose it outright.
      await page.context().addCookies([{ name: THEME_COOKIE, value: theme, url: baseURL ?? "" }]);
      const found: string[] = [];
      for (const url of await pagesOf(page, demo.organization_id, who)) {
        found.push(...(await seriousViolations(page, url)));
        await expect(page.locator("html")).toHaveClass(new RegExp(`\\b${theme}\\b`));
      }
      expect(found).toEqual([]);
    });
  }
}
