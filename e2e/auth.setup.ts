import { mkdirSync } from "node:fs";
import path from "node:path";
import { test as setup } from "@playwright/test";
import { authFile, expect, orgUrl, readDemoCredentials, signInWithKey, type Who } from "./fixtures";

for (const who of ["owner", "member", "auditor"] as const satisfies readonly Who[]) {
  setup(`sign in as the demo ${who} with their API key`, async ({ page }) => {
    const demo = await readDemoCredentials(page);
    await signInWithKey(page, demo[who].access_key_id, demo[who].secret_key);
    await expect(page).toHaveURL(orgUrl(demo));
    mkdirSync(path.dirname(authFile(who)), { recursive: true });
    await page.context().storageState({ path: authFile(who) });
  });
}
