import { readFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { generate } from "otplib";
import { operationPath } from "@/lib/contract/operations";
import { FACTORS_MANAGED_ELSEWHERE } from "@/lib/contract/sign-in-messages";
import { signedHeaders } from "@/lib/signing";
import { bffPath, expect, gatewayAs, holdRequests, openWith, SERVER_LOG, test } from "./fixtures";
import { TEST_SSO_DOMAIN } from "./oidc-provider";
import { leaksOf, recordResponses } from "./secret-forms";
import { mintedSessionKey } from "./store-snapshot";

/**
 * Single sign-on against a real OpenID provider (oidc-provider, started by e2e/global-setup.ts on
 * loopback): the owner adds it on the SSO page, people sign in with it from a fresh browser. The
 * ID token checks themselves (signature, iss, aud, exp, nonce, state) are in lib/console/sso.test.ts,
 * which tampers with the provider's answers.
 */

const idp = () => {
  const issuer = process.env.E2E_OIDC_ISSUER;
  if (!issuer) throw new Error("the test OpenID provider is not running (e2e/global-setup.ts)");
  return { issuer, clientId: process.env.E2E_OIDC_CLIENT_ID ?? "", clientSecret: process.env.E2E_OIDC_CLIENT_SECRET ?? "" };
};

test.describe.configure({ mode: "serial" });
// The test provider's own login page asks for a web font and a favicon it cannot have here (no internet, no icon):
// the browser logs both on that page, which is the provider's (its /interaction/ path), not the console's.
test.use({ allowedConsoleErrors: [/^console error on http:\/\/127\.0\.0\.1:\d+\/interaction\/[\w-]+: Failed to load resource/] });

/** Signs in with SSO from the sign-in page of a fresh browser: the e-mail, then the provider's own login page. */
async function ssoSignIn(page: Page, email: string, login = email): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Work e-mail").fill(email);
  await page.getByRole("button", { name: "Sign in with SSO" }).click();
  // The provider's development login page: any password; the login name picks the account.
  await expect(page).toHaveURL(new RegExp(`^${idp().issuer}/interaction/`));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any password");
  await page.getByRole("button", { name: "Sign-in" }).click();
}

/** A signed call straight to the gateway with the given key: 200 while the key works, 401 once it is gone. */
async function gatewayStatus(page: Page, baseURL: string, credentials: { accessKeyId: string; secretKey: string }): Promise<number> {
  const url = `${baseURL}${operationPath("listLocations")}`;
  // Distinct timestamps: the gateway refuses a signature it has already seen.
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  const res = await page.request.get(url, { headers: signedHeaders(credentials, { method: "GET", url }) });
  return res.status();
}

/**
 * The SSO page's Test sign-in of the test provider: the button (clicked again until the table has
 * hydrated: only then does it open the popup and the panel), then the provider's own login page in
 * the popup as `login`. Answers the panel's status line and its list of steps.
 */
async function testSignIn(page: Page, login: string) {
  const { issuer } = idp();
  const row = page.getByRole("table", { name: "SSO providers" }).getByRole("row").filter({ hasText: issuer });
  const opened = page.waitForEvent("popup");
  const result = page.getByRole("status", { name: "Test sign-in result" });
  await openWith(row.getByRole("button", { name: `Test sign-in with ${issuer}` }), result);
  const popup = await opened;
  await expect(result).toContainText("Sign in at the provider in the popup window");
  await expect(popup).toHaveURL(new RegExp(`^${issuer}/interaction/`));
  await popup.locator('input[name="login"]').fill(login);
  await popup.locator('input[name="password"]').fill("any password");
  await popup.getByRole("button", { name: "Sign-in" }).click();
  return { popup, result, steps: page.getByRole("list", { name: "Test sign-in steps" }).getByRole("listitem") };
}

let providerId = "";

test("the owner adds an SSO provider with its client secret and sees the redirect URI to register", async ({ ownerPage: page, demo, baseURL }) => {
  const { issuer, clientId, clientSecret } = idp();
  await page.goto(`/orgs/${demo.organization_id}/security/sso`);
  const form = page.getByRole("dialog", { name: "Add an SSO provider" });
  await openWith(page.getByRole("button", { name: "Add provider" }), form);
  await form.getByLabel("Issuer URI").fill(issuer);
  await form.getByLabel("Client ID").fill(clientId);
  await form.getByLabel("Client secret").fill(clientSecret);
  await form.getByLabel("Email domains").fill(TEST_SSO_DOMAIN);
  await form.getByLabel("Email domains").press("Enter");
  await form.getByRole("button", { name: "Add provider" }).click();
  await expect(form).toBeHidden();

  const row = page.getByRole("table", { name: "SSO providers" }).getByRole("row").filter({ hasText: issuer });
  await expect(row).toContainText("Set");
  const redirect = await row.locator("code").filter({ hasText: "/api/auth/callback/" }).textContent();
  expect(redirect).toMatch(new RegExp(`^${baseURL}/api/auth/callback/[0-9a-f-]{36}$`));
  providerId = redirect!.split("/").pop()!;
  // Write-only: the secret is on no page.
  expect(await page.content()).not.toContain(clientSecret);
});

test("the owner's Test sign-in runs the flow in a popup, reports every step with the claims, and signs nobody in", async ({ ownerPage: page, demo }) => {
  expect(providerId, "the provider of the first test").not.toBe("");
  await page.goto(`/orgs/${demo.organization_id}/security/sso`);
  const sessionCookie = async () => (await page.context().cookies()).find((c) => c.name === "next-auth.session-token")?.value;
  const before = await sessionCookie();
  expect(before).toBeTruthy();

  const { popup, result, steps } = await testSignIn(page, "grace@sso.example");

  // The report, in the page that opened the popup.
  await expect(result).toHaveText("Every step passed: this provider signs people in.");
  await expect(steps).toHaveCount(5);
  await expect.poll(() => popup.isClosed(), { message: "the popup closes itself once it has reported" }).toBe(true);
  for (const [index, name] of ["Discovery", "Redirect", "Token", "ID token", "E-mail domain"].entries()) {
    await expect(steps.nth(index)).toContainText(name);
    await expect(steps.nth(index)).toContainText("Passed");
  }
  await expect(steps.nth(3)).toContainText("Signature verified against the issuer's JWKS; iss, aud, exp and nonce as expected");
  await expect(page.locator('dl[aria-label="ID token claims"] dt')).toHaveText(["sub", "email", "email_verified", "name"]);
  await expect(page.locator('dl[aria-label="ID token claims"] dd')).toHaveText(["grace@sso.example", "grace@sso.example", "true", "Grace Hopper"]);
  const axe = await new AxeBuilder({ page }).include('section[aria-label="Test sign-in"]').withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);

  // Nobody signed in: the owner's session cookie is the same, no SSO session of Grace exists, and she is no person here.
  expect(await sessionCookie()).toBe(before);
  const names = (await page.context().cookies()).map((c) => c.name);
  expect(names.filter((name) => name.includes("session-token"))).toEqual(["next-auth.session-token"]);
  expect(names, "the test's cookie is gone once it is over").not.toContain("stratus.sso-test");
  await expect(mintedSessionKey("grace@sso.example")).rejects.toThrow(/no SSO session of grace@sso.example/);
  await page.goto(`/orgs/${demo.organization_id}/people`);
  const people = page.getByRole("table", { name: "People" });
  await expect(people.getByRole("row").filter({ hasText: demo.owner.email })).toHaveCount(1);
  await expect(people.getByRole("row").filter({ hasText: "grace@sso.example" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: `Account menu for ${demo.owner.email}` })).toBeVisible();
});

test("Test sign-in names the step that fails: an address outside the provider's domains", async ({ ownerPage: page, demo }) => {
  await page.goto(`/orgs/${demo.organization_id}/security/sso`);
  const { result, steps } = await testSignIn(page, "eve@elsewhere.example");
  await expect(result).toHaveText("The test sign-in failed at the step E-mail domain.");
  for (const index of [0, 1, 2, 3]) await expect(steps.nth(index)).toContainText("Passed");
  await expect(steps.nth(4)).toContainText("Failed");
  await expect(steps.nth(4)).toContainText(`elsewhere.example is not one of the provider's e-mail domains (${TEST_SSO_DOMAIN})`);
  await expect(page.locator('dl[aria-label="ID token claims"] dd').nth(1)).toHaveText("eve@elsewhere.example");
});

test("Cancel while the test sign-in starts holds: the server's later answer neither reopens the panel nor sends the popup on", async ({ ownerPage: page, demo }) => {
  expect(providerId, "the provider of the first test").not.toBe("");
  const { issuer } = idp();
  await page.goto(`/orgs/${demo.organization_id}/security/sso`);
  // The start of the test is held back (then passed on as the server answers) to cancel while it is out.
  const starts = (url: URL) => url.pathname === "/api/sso-test";
  const { release } = await holdRequests(page, starts);
  const row = page.getByRole("table", { name: "SSO providers" }).getByRole("row").filter({ hasText: issuer });
  const result = page.getByRole("status", { name: "Test sign-in result" });
  const opened = page.waitForEvent("popup");
  await openWith(row.getByRole("button", { name: `Test sign-in with ${issuer}` }), result);
  const popup = await opened;
  await expect(result).toHaveText("Starting the test sign-in…");
  await page.getByRole("region", { name: "Test sign-in", exact: true }).getByRole("button", { name: "Cancel" }).click();
  await expect(result).toHaveCount(0);
  await expect.poll(() => popup.isClosed(), { message: "Cancel closes the popup" }).toBe(true);

  const answered = page.waitForResponse((r) => starts(new URL(r.url())));
  release();
  await (await answered).finished();
  await page.unroute(starts);
  // Two frames after the answer: the page has handled it by then.
  await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
  await expect(result).toHaveCount(0);
  await expect(page.getByRole("region", { name: "Test sign-in", exact: true })).toHaveCount(0);
});

test("a member without sso.manage cannot start a test sign-in", async ({ memberPage: page, demo }) => {
  const { issuer } = idp();
  await page.goto(`/orgs/${demo.organization_id}/security/sso`);
  await expect(page.getByRole("button", { name: `Test sign-in with ${issuer}` })).toBeDisabled();
  const res = await page.request.post("/api/sso-test", { data: { organization_id: demo.organization_id, provider_id: providerId }, headers: { origin: new URL(page.url()).origin } });
  expect(res.status()).toBe(403);
});

test("a new person signs in with SSO, lands in the console and is a person of the organization (source SSO)", async ({ page, context, ownerPage, demo, baseURL }) => {
  // `page` is a fresh browser (no session): the person's own.
  expect(providerId, "the provider of the first test").not.toBe("");
  const { seen, settled } = recordResponses(page);
  await ssoSignIn(page, "ada@sso.example");
  await expect(page).toHaveURL(new RegExp(`/orgs/${demo.organization_id}$`));
  await expect(page.getByRole("button", { name: "Account menu for ada@sso.example" })).toBeVisible();

  // The minted key works, as the person's, and never reached the browser (nor the server's log).
  const minted = await mintedSessionKey("ada@sso.example");
  expect(await gatewayStatus(page, baseURL!, minted)).toBe(200);
  await page.goto(`/orgs/${demo.organization_id}/projects`);
  await page.waitForLoadState("networkidle");
  await page.goto("/api/auth/session");
  await settled();
  seen.push({ where: "cookies", text: JSON.stringify(await context.cookies()) });
  expect(seen.some((s) => s.text.includes("ada@sso.example")), "the recorder sees what the browser got").toBe(true);
  expect(leaksOf("the minted secret", minted.secretKey, seen)).toEqual([]);
  expect(seen.some((s) => s.text.includes(minted.accessKeyId))).toBe(false);
  expect(leaksOf("the minted secret", minted.secretKey, [{ where: "the server's log", text: readFileSync(SERVER_LOG, "utf8") }])).toEqual([]);

  // In People, with the baseline role only, brought by SSO.
  await ownerPage.goto(`/orgs/${demo.organization_id}/people`);
  const row = ownerPage.getByRole("table", { name: "People" }).getByRole("row").filter({ hasText: "ada@sso.example" });
  await expect(row).toContainText("SSO");
  await expect(row).toContainText("Ada Lovelace");

  // Signing out deletes the minted key: a signed call with it is refused.
  const signOut = page.getByRole("menuitem", { name: "Sign out" });
  await page.goto(`/orgs/${demo.organization_id}`);
  await expect(async () => {
    if (!(await signOut.isVisible())) await page.getByRole("button", { name: "Account menu for ada@sso.example" }).click();
    await expect(signOut).toBeVisible({ timeout: 1_000 });
  }).toPass();
  await signOut.click();
  await expect(page).toHaveURL(/\/sign-in\?reason=signed-out/);
  expect(await gatewayStatus(page, baseURL!, minted)).toBe(401);
});

test("where the organization requires MFA, SSO is the first factor only: the person enrols an authenticator app before anything answers", async ({ page, ownerPage, demo }) => {
  const mfa = bffPath("OrganizationsMFAService_UpdateOrganizationMFA", { organization_id: demo.organization_id });
  expect((await ownerPage.request.patch(mfa, { data: { intended_methods: ["totp"] } })).status()).toBe(200);
  try {
    await ssoSignIn(page, "ada@sso.example");
    await expect(page).toHaveURL(/\/sign-in\/mfa/);
    expect((await page.request.get(bffPath("getOrganizations"))).status()).toBe(401);
    await page.getByRole("button", { name: "Set up an authenticator app" }).click();
    const secret = (await page.getByTestId("totp-secret").getAttribute("data-secret"))!;
    await page.getByLabel("Code from the app").fill(await generate({ secret }));
    await page.getByRole("button", { name: "Confirm and turn on" }).click();
    await page.getByLabel("I have saved these codes somewhere safe").check();
    await page.getByRole("button", { name: "Continue to the console" }).click();
    await expect(page).toHaveURL(new RegExp(`/orgs/${demo.organization_id}`));
    expect((await page.request.get(bffPath("getOrganizations"))).status()).toBe(200);
    await page.goto("/account/security");
    await expect(page.getByTestId("session-factors")).toHaveText("Single sign-on + Authenticator app");
    // Her account is this organization's alone: her SSO session manages her factors.
    await expect(page.getByRole("button", { name: "Add an authenticator app" })).toBeVisible();
    await expect(page.getByRole("note")).toHaveCount(0);
  } finally {
    await ownerPage.request.patch(mfa, { data: { intended_methods: [] } });
  }
});

test("a person another organization had first sees their second factors read-only in a session of this one's SSO", async ({ page, demo, baseURL }) => {
  // Globex's owner adds Hedy before her first SSO sign-in here: Globex is her account's home organization.
  const asOutsider = (method: "GET" | "POST" | "DELETE", path: string, body?: unknown) => gatewayAs(page.request, baseURL!, demo.outsider, method, path, body);
  const globex = ((await asOutsider("GET", operationPath("getOrganizations"))).items as Array<{ id: string }>).find((o) => o.id !== demo.organization_id)!.id;
  const hedy = (await asOutsider("POST", operationPath("inviteOrganizationPerson", { org_id: globex }), { email: "hedy@sso.example" })) as { id: string };
  try {
    await ssoSignIn(page, "hedy@sso.example");
    await expect(page).toHaveURL(/\/orgs/);
    await page.goto("/account/security");
    await expect(page.getByRole("note")).toHaveText(`${FACTORS_MANAGED_ELSEWHERE}.`);
    await expect(page.getByRole("button", { name: "Add an authenticator app" })).toBeHidden();
    await expect(page.getByRole("button", { name: "Generate new codes" })).toBeHidden();
  } finally {
    await asOutsider("DELETE", operationPath("removeOrganizationPerson", { org_id: globex, user_id: hedy.id }));
  }
});

test.describe("refusals", () => {
  test("an e-mail the provider has not verified", async ({ page }) => {
    await ssoSignIn(page, "unverified@sso.example");
    await expect(page).toHaveURL(/\/sign-in\?error=sso_email_unverified/);
    await expect(page.getByText("Your identity provider has not verified your e-mail address, so it cannot sign you in here")).toBeVisible();
  });

  test("a domain no organization signs in with", async ({ page }) => {
    await page.goto("/sign-in");
    await page.getByLabel("Work e-mail").fill("eve@elsewhere.example");
    await page.getByRole("button", { name: "Sign in with SSO" }).click();
    await expect(page.getByText("No organization signs in with SSO for that e-mail domain")).toBeVisible();
    await expect(page).toHaveURL(/\/sign-in$/);
  });

  test("an ID token whose signature does not verify", async ({ page, request }) => {
    const control = (mode: "signature" | "off") =>
      request.post(`${idp().issuer}/test-control/tamper-id-tokens?mode=${mode}`, { headers: { authorization: `Bearer ${process.env.E2E_OIDC_CONTROL_TOKEN ?? ""}` } });
    expect((await control("signature")).status()).toBe(204);
    try {
      await ssoSignIn(page, "grace@sso.example");
      await expect(page).toHaveURL(/\/sign-in\?.*error=OAuthCallback/);
      await expect(page.getByText("The SSO provider's answer could not be verified; sign in again")).toBeVisible();
      expect((await page.request.get(bffPath("getOrganizations"))).status()).toBe(401);
    } finally {
      expect((await control("off")).status()).toBe(204);
    }
  });

  test("a token endpoint in the operator's network, which the console's server never connects to", async ({ page, request }) => {
    // The provider's discovery document names a token endpoint at another loopback address (as a
    // provider could name 169.254.169.254 or 10.…): a TCP trap there counts every connection.
    const trap = createServer((socket) => (connections++, socket.destroy()));
    let connections = 0;
    await new Promise<void>((resolve) => trap.listen(0, "127.0.0.2", resolve));
    const control = (url: string | null) =>
      request.post(`${idp().issuer}/test-control/token-endpoint${url ? `?url=${encodeURIComponent(url)}` : ""}`, {
        headers: { authorization: `Bearer ${process.env.E2E_OIDC_CONTROL_TOKEN ?? ""}` },
      });
    expect((await control(`https://127.0.0.2:${(trap.address() as AddressInfo).port}/token`)).status()).toBe(204);
    try {
      await ssoSignIn(page, "grace@sso.example");
      await expect(page).toHaveURL(/\/sign-in\?.*error=OAuthCallback/);
      expect((await page.request.get(bffPath("getOrganizations"))).status()).toBe(401);
      expect(connections).toBe(0);
    } finally {
      expect((await control(null)).status()).toBe(204);
      trap.close();
    }
  });

  test("an address another person of the organization answers to as their SCIM user name", async ({ page, ownerPage, demo }) => {
    // The directory provisions a person whose user name is that address and whose mailbox is elsewhere: an SSO
    // sign-in making a new person of it would give an identity provider's `userName eq` two people.
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const created = await ownerPage.request.post(bffPath("createSCIMIntegration", { org_id: demo.organization_id }), {
      data: { name: "Directory", identity_provider: "okta", token: { alias: "directory-token", expires_at: expiresAt } },
    });
    expect(created.status()).toBe(200);
    const { integration, api_key_info } = (await created.json()) as { integration: { id: string }; api_key_info: { api_key: string } };
    const headers = { Authorization: `Bearer ${api_key_info.api_key}`, "Content-Type": "application/scim+json" };
    let userId = "";
    try {
      const user = await page.request.post("/scim/v2/Users", {
        headers,
        data: {
          schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
          userName: "katherine@sso.example",
          name: { givenName: "Katherine", familyName: "Johnson" },
          emails: [{ value: "katherine@directory.example", primary: true }],
        },
      });
      expect(user.status()).toBe(201);
      userId = ((await user.json()) as { id: string }).id;

      await ssoSignIn(page, "katherine@sso.example");
      await expect(page).toHaveURL(/\/sign-in\?error=sso_user_name_taken/);
      await expect(page.getByText("already has your e-mail address as their user name in its directory")).toBeVisible();
      expect((await page.request.get(bffPath("getOrganizations"))).status()).toBe(401);
      // Nobody was made: the directory's person is still the only one answering to the name.
      const found = await page.request.get(`/scim/v2/Users?filter=${encodeURIComponent('userName eq "katherine@sso.example"')}`, { headers });
      expect(((await found.json()) as { totalResults: number }).totalResults).toBe(1);
    } finally {
      if (userId) expect((await page.request.delete(`/scim/v2/Users/${userId}`, { headers })).status()).toBe(204);
      expect((await ownerPage.request.delete(bffPath("deleteSCIMIntegration", { org_id: demo.organization_id, integration_id: integration.id }))).status()).toBeLessThan(300);
    }
  });

  test("an address outside the provider's domains, as the provider answers it", async ({ page }) => {
    await ssoSignIn(page, "grace@sso.example", "eve@elsewhere.example");
    await expect(page).toHaveURL(/\/sign-in\?error=sso_wrong_domain/);
    await expect(page.getByText("outside your organization's SSO domains")).toBeVisible();
  });
});

test("deleting the provider ends the sessions it signed in", async ({ page, ownerPage, demo, baseURL }) => {
  await ssoSignIn(page, "grace@sso.example");
  await expect(page).toHaveURL(new RegExp(`/orgs/${demo.organization_id}$`));
  const minted = await mintedSessionKey("grace@sso.example");

  const { issuer } = idp();
  await ownerPage.goto(`/orgs/${demo.organization_id}/security/sso`);
  const confirm = ownerPage.getByRole("dialog", { name: "Delete this SSO provider?" });
  // Clicked again until the dialog opens: a click before the page has hydrated does nothing.
  await openWith(ownerPage.getByRole("button", { name: `Delete SSO provider ${issuer}` }), confirm);
  await confirm.getByLabel(`Type ${new URL(issuer).host} to confirm`).fill(new URL(issuer).host);
  await confirm.getByRole("button", { name: "Delete provider" }).click();
  await expect(confirm).toBeHidden();

  await page.goto(`/orgs/${demo.organization_id}/projects`);
  await expect(page).toHaveURL(/\/sign-in\?reason=revoked/);
  expect(await gatewayStatus(page, baseURL!, minted)).toBe(401);
});
