import { bffPath, expect, orgUrl, signInForm, signInWithKey, test } from "./fixtures";

test.describe("sign-in", () => {
  test("wrong keys show the message and keep the user on sign-in", async ({ page, demo, browserErrors }) => {
    browserErrors.allow(/the server responded with a status of 401/, "the sign-in with a wrong secret is refused: the browser logs the 401");
    await page.goto("/sign-in");
    // A real key id with a wrong (well-formed) secret.
    await signInWithKey(page, demo.owner.access_key_id, "A".repeat(43));
    await expect(page.getByText("The access key or secret is not valid")).toBeVisible();
    await expect(page).toHaveURL(/\/sign-in/);
    await expect(signInForm(page).secretKey).toHaveValue("");
  });

  test("the form says what is missing before asking the server", async ({ page }) => {
    await page.goto("/sign-in");
    await signInForm(page).submit.click();
    await expect(page.getByText("Enter the access key ID")).toBeVisible();
    await expect(page.getByText("Enter the secret key")).toBeVisible();
    await expect(signInForm(page).accessKeyId).toHaveAttribute("aria-invalid", "true");
  });

  test("demo sign-in lands on the organization and the backend answers for the session", async ({ page, demo }) => {
    await page.goto("/sign-in");
    await signInForm(page).demo("member").click();
    await expect(page).toHaveURL(orgUrl(demo));
    const entities = await page.request.get(bffPath("getOrganizations"));
    expect(entities.status()).toBe(200);
    expect((await entities.json()).items.map((o: { id: string }) => o.id)).toContain(demo.organization_id);
    const session = await (await page.request.get("/api/auth/session")).json();
    expect(session.user.email).toBe(demo.member.email);
  });

  test("console pages send a visitor without a session to sign-in", async ({ page }) => {
    await page.goto("/orgs");
    await expect(page).toHaveURL(/\/sign-in\?reason=required/);
    await expect(page.getByText("Sign in to continue")).toBeVisible();
    const api = await page.request.get(bffPath("getOrganizations"));
    expect(api.status()).toBe(401);
  });

  test("a signed-in user visiting sign-in goes on to the console", async ({ ownerPage, demo }) => {
    await ownerPage.goto("/sign-in");
    await expect(ownerPage).toHaveURL(orgUrl(demo));
  });
});

test.describe("sign-out", () => {
  test("returns to sign-in, and the old session cookie no longer works", async ({ page, demo }) => {
    await page.goto("/sign-in");
    await signInForm(page).demo("owner").click();
    await expect(page).toHaveURL(orgUrl(demo));
    const before = await page.context().cookies();
    expect(before.some((c) => c.name.endsWith("next-auth.session-token"))).toBe(true);

    const signOut = page.getByRole("menuitem", { name: "Sign out" });
    // The menu opens once the page has hydrated; a click before that does nothing.
    await expect(async () => {
      if (!(await signOut.isVisible())) await page.getByRole("button", { name: `Account menu for ${demo.owner.email}` }).click();
      await expect(signOut).toBeVisible({ timeout: 1_000 });
    }).toPass();
    await signOut.click();
    await expect(page).toHaveURL(/\/sign-in\?reason=signed-out/);
    await expect(page.getByText("You have signed out")).toBeVisible();

    // Replay the cookie the browser held before signing out.
    await page.context().addCookies(before);
    const api = await page.request.get(bffPath("getOrganizations"));
    expect(api.status()).toBe(401);
    await page.goto("/orgs");
    await expect(page).toHaveURL(/\/sign-in\?reason=expired/);
  });
});

test.describe("cross-site protection", () => {
  test("a mutation from another origin is refused even with the session cookie", async ({ ownerPage, demo }) => {
    await ownerPage.goto("/orgs");
    const res = await ownerPage.request.post(bffPath("createProject"), {
      data: { organization_id: demo.organization_id, name: "cross-site" },
      headers: { origin: "https://evil.example" },
    });
    expect(res.status()).toBe(403);
  });
});
