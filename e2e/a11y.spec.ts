import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { operationPath } from "@/lib/contract/operations";
import { THEME_COOKIE } from "@/lib/theme";
import { expect, test, type Who } from "./fixtures";

type Theme = "light" | "dark";

/** A backend-for-frontend GET of one operation, as the signed-in browser makes it. */
async function api<T>(page: Page, path: string): Promise<T> {
  const res = await page.request.get(`/api/cloud${path}`);
  expect(res.status(), path).toBe(200);
  return (await res.json()) as T;
}

/** Every page of an organization the person can open, with real ids for the detail pages. */
async function pagesOf(page: Page, orgId: string, who: Who): Promise<string[]> {
  const base = `/orgs/${orgId}`;
  const projects = await api<{ items: Array<{ id: string; organization_id: string }> }>(page, operationPath("listProjects"));
  const project = projects.items.find((p) => p.organization_id === orgId);
  const reservations = await api<{ items: Array<{ id: string }> }>(page, operationPath("getReservations", { organization_id: orgId }));
  const images = await api<{ items: Array<{ id: string }> }>(page, operationPath("listImages"));
  // Those whose role does not grant SCIM integrations see none to open.
  const scim = await page.request.get(`/api/cloud${operationPath("listSCIMIntegrations", { org_id: orgId })}`);
  const integration = scim.ok() ? ((await scim.json()) as { integrations: Array<{ id: string }> }).integrations[0] : undefined;
  const pages = [
    base,
    `${base}/projects`,
    ...(project ? [`${base}/projects/${project.id}`] : []),
    `${base}/iam`,
    `${base}/people`,
    `${base}/security/sso`,
    `${base}/security/mfa`,
    `${base}/security/scim`,
    ...(integration ? [`${base}/security/scim/${integration.id}`] : []),
    `${base}/storage`,
    `${base}/billing`,
    `${base}/usage`,
    `${base}/quotas`,
    `${base}/audit-logs`,
    `${base}/reservations`,
    ...(reservations.items[0] ? [`${base}/reservations/${reservations.items[0].id}`] : []),
    `${base}/settings`,
    "/catalog",
    ...(images.items[0] ? [`/catalog/images/${images.items[0].id}`] : []),
    "/catalog/registry",
    "/account/security",
  ];
  // GPU tracking is offered to holders of the reservations feature only (the demo owner).
  if (who === "owner") pages.push(`${base}/reservations/gpu-tracking`);
  return pages;
}

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
