import { readFileSync } from "node:fs";
import { operationPath } from "@/lib/contract/operations";
import { COMPILE_HINT } from "../scripts/compile-hints";
import { expect, test } from "./fixtures";

test("the home page loads and links to sign-in", async ({ page }) => {
  const response = await page.goto("/");
  expect(response?.status()).toBe(200);
  await expect(page.getByRole("heading", { name: "Stratus" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Sign in" })).toHaveAttribute("href", "/sign-in");
});

test("the embedded gateway answers under /v1 and refuses unsigned calls", async ({ request }) => {
  const health = await request.get("/v1/healthz");
  expect(health.status()).toBe(200);
  const unsigned = await request.get(operationPath("listLocations"));
  expect(unsigned.status()).toBe(401);
  expect(await unsigned.json()).toMatchObject({ code: "401", reason: "unauthenticated" });
});

test("the scripts every page runs at load are served marked for eager compilation, the page's own are not", async ({ page }) => {
  // npm run build marks the build manifest's root main files (scripts/compile-hints.ts).
  const rootMainFiles = (JSON.parse(readFileSync(".next/build-manifest.json", "utf8")) as { rootMainFiles: string[] }).rootMainFiles;
  const served = new Map<string, string>();
  page.on("response", async (response) => {
    const { pathname } = new URL(response.url());
    if (pathname.startsWith("/_next/static/") && pathname.endsWith(".js")) served.set(pathname.slice("/_next/".length), await response.text());
  });
  await page.goto("/sign-in");
  await expect(page.getByRole("heading", { name: "Sign in to Stratus" })).toBeVisible();
  await expect.poll(() => rootMainFiles.filter((file) => served.has(file)).length).toBe(rootMainFiles.length);
  for (const file of rootMainFiles) expect(served.get(file)?.startsWith(`${COMPILE_HINT}\n`), file).toBe(true);
  const others = () => [...served].filter(([file]) => !rootMainFiles.includes(file));
  await expect.poll(() => others().length).toBeGreaterThan(0);
  for (const [file, text] of others()) expect(text.startsWith(COMPILE_HINT), file).toBe(false);
});
