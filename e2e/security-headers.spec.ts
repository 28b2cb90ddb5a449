import { bffPath, expect, test } from "./fixtures";

test.describe("security headers", () => {
  test("pages carry a nonce CSP without unsafe-inline scripts, and the hardening headers", async ({ page }) => {
    const response = await page.goto("/sign-in");
    expect(response?.status()).toBe(200);
    const headers = response!.headers();
    const csp = headers["content-security-policy"] ?? "";
    const scriptSrc = csp.split(";").find((d) => d.trim().startsWith("script-src")) ?? "";
    expect(scriptSrc).toMatch(/'nonce-[A-Za-z0-9+/=]+'/);
    expect(scriptSrc).not.toContain("'unsafe-inline'");
    expect(scriptSrc).not.toContain("'unsafe-eval'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["x-powered-by"]).toBeUndefined();
    // Served over plain HTTP here: no HSTS.
    expect(headers["strict-transport-security"]).toBeUndefined();
  });

  test("each page view gets a fresh nonce", async ({ request }) => {
    const nonceOf = async () => /'nonce-([^']+)'/.exec((await request.get("/sign-in")).headers()["content-security-policy"] ?? "")?.[1];
    const [a, b] = [await nonceOf(), await nonceOf()];
    expect(a).toBeTruthy();
    expect(a).not.toBe(b);
  });

  test("the page still hydrates under the policy, with no CSP violations", async ({ page }) => {
    const violations: string[] = [];
    page.on("console", (msg) => {
      if (/Content Security Policy/i.test(msg.text())) violations.push(msg.text());
    });
    await page.goto("/sign-in");
    // A client-side validation message proves the form's JavaScript runs.
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.getByText(/required|enter/i).first()).toBeVisible();
    expect(violations).toEqual([]);
  });

  test("route handlers and the gateway carry the static headers too", async ({ request }) => {
    const api = await request.get(bffPath("listLocations"));
    expect(api.headers()["x-content-type-options"]).toBe("nosniff");
    expect(api.headers()["x-powered-by"]).toBeUndefined();
    const gateway = await request.get("/v1/healthz");
    expect(gateway.headers()["x-frame-options"]).toBe("DENY");
  });
});
