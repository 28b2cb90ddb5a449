import { operationPath } from "@/lib/contract/operations";
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
