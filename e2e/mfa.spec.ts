import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, BrowserContext, Page } from "@playwright/test";
import { generate } from "otplib";
import { operationPath } from "@/lib/contract/operations";
import { bffPath, expect, gatewayAs, openWith, readDemoCredentials, signInWithKey, test, type DemoCredentials } from "./fixtures";

/**
 * MFA enforced in a real browser, on the other demo organization (Globex, whose only person is the
 * "outsider", its owner), so that no other spec's sign-ins are asked for a second factor. The TOTP
 * codes are computed here as an authenticator app computes them; passkeys are made and used by
 * Chromium's virtual WebAuthn authenticator (DevTools protocol). Browsers take no IP address as a
 * WebAuthn RP ID, so this spec reaches the console as localhost (lib/console/mfa-passkeys.ts relyingPartyOf).
 */

test.describe.configure({ mode: "serial" });

const local = (baseURL: string) => baseURL.replace("127.0.0.1", "localhost");
test.use({ baseURL: local(`http://127.0.0.1:${process.env.E2E_PORT ?? 3100}`) });

let demo: DemoCredentials;
let orgId = "";
let totpSecret = "";
let recoveryCode = "";

/** A call straight to the gateway, signed with the outsider's own key (set-up and checks, never the browser's path). */
const gateway = (request: APIRequestContext, baseURL: string, method: "GET" | "PATCH" | "DELETE", path: string, body?: unknown) =>
  gatewayAs(request, baseURL, demo.outsider, method, path, body);

/** The last 30-second step a code was used for: the console never takes a step twice. */
let lastStep = 0;

/**
 * A code the console takes now: the app's code for a step after the last one used, within the
 * console's tolerance of one step either way (the earliest such step, so later calls find one too;
 * waiting for the next step only when none is left).
 */
async function nextCode(page: Page): Promise<string> {
  for (;;) {
    const now = Math.floor(Date.now() / 1000);
    for (const offset of [-25, 0, 25]) {
      const step = Math.floor((now + offset) / 30);
      if (step > lastStep) {
        lastStep = step;
        return generate({ secret: totpSecret, epoch: now + offset });
      }
    }
    await page.waitForTimeout(1_000);
  }
}

/** axe's serious and critical findings (WCAG 2.1 A and AA) on the page as it is. */
async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return results.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** An alert with this text (the page has others: Next.js announces route changes in one). */
const alertWith = (page: Page, text: string) => page.getByRole("alert").filter({ hasText: text });

async function signInAsOutsider(page: Page) {
  await page.goto("/sign-in");
  await signInWithKey(page, demo.outsider.access_key_id, demo.outsider.secret_key);
}

async function signOut(page: Page) {
  await page.context().clearCookies();
}

/** A browser call of the console's backend, as the page makes them. */
const bffStatus = async (page: Page) => (await page.request.get(bffPath("getOrganizations"))).status();

const SESSION_COOKIE = "next-auth.session-token";
const sessionCookie = async (page: Page) => (await page.context().cookies()).find((c) => c.name === SESSION_COOKIE)?.value;
/** The same call from another client, carrying only the given session cookie. */
const bffStatusWith = async (request: APIRequestContext, cookie: string) =>
  (await request.get(bffPath("getOrganizations"), { headers: { cookie: `${SESSION_COOKIE}=${cookie}` } })).status();

/**
 * A USB security key without a PIN in the browser: its answers say the person was present, never that
 * they were verified (the console asks for verification as "preferred" and must take them).
 */
async function withSecurityKey(context: BrowserContext, page: Page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "usb", hasResidentKey: false, hasUserVerification: false, isUserVerified: false, automaticPresenceSimulation: true },
  });
}

test.beforeAll(async ({ request, baseURL }) => {
  demo = await readDemoCredentials();
  const base = baseURL!.replace("localhost", "127.0.0.1");
  const orgs = (await gateway(request, base, "GET", operationPath("getOrganizations"))) as { items: Array<{ id: string; name: string }> };
  orgId = orgs.items.find((o) => o.name === "Globex Research")!.id;
  // From a known start, a retry included: nothing required, no factor enrolled.
  await gateway(request, base, "PATCH", operationPath("OrganizationsMFAService_UpdateOrganizationMFA", { organization_id: orgId }), { intended_methods: [], enrollment_grace_days: 0 });
  await gateway(request, base, "DELETE", operationPath("resetOrganizationPersonMfa", { org_id: orgId, user_id: demo.outsider.user_id }));
});

test("the owner sees who has enrolled, then requires an authenticator app or a passkey", async ({ page }) => {
  await signInAsOutsider(page);
  await expect(page).toHaveURL(new RegExp(`/orgs/${orgId}$`));
  await page.goto(`/orgs/${orgId}/security/mfa`);
  await expect(page.getByTestId("mfa-enrollment")).toContainText("0 of 1 people");

  for (const [name, short] of [
    ["Authenticator app (TOTP)", "TOTP"],
    ["Security key or passkey (WebAuthn)", "WebAuthn"],
  ] as const) {
    const dialog = page.getByRole("dialog", { name: `Require ${short}?` });
    await openWith(page.getByRole("switch", { name }), dialog);
    await expect(dialog).toContainText("1 of 1 people will be asked to enroll");
    await dialog.getByRole("button", { name: `Require ${short}` }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole("switch", { name })).toHaveAttribute("aria-checked", "true");
  }
  // The session that turned it on was signed in before: it goes on.
  expect(await bffStatus(page)).toBe(200);
});

test("a key sign-in gets no page and no API answer before the second factor; TOTP enrolment shows a QR code, the secret and recovery codes once, and the session goes on under a new cookie", async ({
  page,
  request,
}) => {
  await signInAsOutsider(page);
  await expect(page).toHaveURL(/\/sign-in\/mfa/);
  await expect(page.getByRole("heading", { name: "Verify it's you" })).toBeVisible();
  await expect(page.getByText("Globex Research requires a second factor")).toBeVisible();

  // Nothing answers yet: the console's backend refuses, and every page sends back here.
  const refused = await page.request.get(bffPath("getOrganizations"));
  expect(refused.status()).toBe(401);
  expect(await refused.json()).toMatchObject({ reason: "mfa_required" });
  for (const path of [`/orgs/${orgId}`, `/orgs/${orgId}/people`, "/account/security", "/catalog"]) {
    await page.goto(path);
    await expect(page).toHaveURL(/\/sign-in\/mfa/);
  }

  expect(await seriousViolations(page)).toEqual([]);
  await page.getByRole("button", { name: "Set up an authenticator app" }).click();
  await expect(page.getByRole("img", { name: "QR code for your authenticator app" })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  totpSecret = (await page.getByTestId("totp-secret").getAttribute("data-secret"))!;
  expect(totpSecret).toMatch(/^[A-Z2-7]{16,}$/);
  // The key as shown, in groups of four, is the same secret.
  expect((await page.getByTestId("totp-secret").innerText()).replace(/\s/g, "")).toBe(totpSecret);

  await page.getByLabel("Code from the app").fill("000000");
  await page.getByRole("button", { name: "Confirm and turn on" }).click();
  await expect(alertWith(page, "does not match")).toBeVisible();
  const pending = await sessionCookie(page);
  await page.getByLabel("Code from the app").fill(await nextCode(page));
  await page.getByRole("button", { name: "Confirm and turn on" }).click();

  const codes = page.getByRole("list", { name: "Recovery codes" }).getByRole("listitem");
  await expect(codes).toHaveCount(10);
  // The answer moved the session to a new id, in the cookie of its own response: the pending cookie,
  // used the moment the factor is given, finishes nothing (no cookie comes back; sign-in again).
  const answered = await sessionCookie(page);
  expect(answered).toBeTruthy();
  expect(answered).not.toBe(pending);
  const copy = await request.get("/sign-in/finish", { headers: { cookie: `${SESSION_COOKIE}=${pending}` }, maxRedirects: 0 });
  expect(copy.status()).toBe(303);
  expect(copy.headers()["location"]).toMatch(/^\/sign-in/);
  expect(copy.headers()["location"]).not.toMatch(/^\/sign-in\/mfa/);
  expect(copy.headers()["set-cookie"]).toBeUndefined();
  recoveryCode = await codes.nth(2).innerText();
  expect(recoveryCode).toMatch(/^[A-Z0-9]{5}-[A-Z0-9]{5}$/);
  const go = page.getByRole("button", { name: "Continue to the console" });
  await expect(go).toBeDisabled();
  await page.getByLabel("I have saved these codes somewhere safe").check();
  await go.click();
  await expect(page).toHaveURL(new RegExp(`/orgs/${orgId}$`));
  expect(await bffStatus(page)).toBe(200);
  await page.goto("/account/security");
  await expect(page.getByTestId("session-factors")).toHaveText("API key + Authenticator app");
  // The cookie the pending session had (which someone could have seen, or planted here) names nothing now.
  const active = await sessionCookie(page);
  expect(active).toBeTruthy();
  expect(active).not.toBe(pending);
  expect(await bffStatusWith(request, active!)).toBe(200);
  expect(await bffStatusWith(request, pending!)).toBe(401);
});

test("a security key without a PIN added on Sign-in security signs in through the browser; a wrong code is refused", async ({ browser, baseURL }) => {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await withSecurityKey(context, page);
  await signInAsOutsider(page);
  await page.getByLabel("Authentication code").fill(await nextCode(page));
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page).toHaveURL(new RegExp(`/orgs/${orgId}$`));

  await page.goto("/account/security");
  await page.getByRole("button", { name: "Add a passkey or security key" }).click();
  await page.getByLabel("Name (optional)").fill("Test key");
  await page.getByRole("button", { name: "Register a passkey or security key" }).click();
  const factors = page.getByRole("list", { name: "Your second factors" });
  await expect(factors.getByRole("listitem")).toHaveCount(2);
  await expect(factors).toContainText("Test key");
  await expect(page.getByTestId("recovery-codes-left")).toContainText("10 of 10 left");

  await signOut(page);
  await signInAsOutsider(page);
  await expect(page).toHaveURL(/\/sign-in\/mfa/);
  await page.getByLabel("Authentication code").fill("123456");
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(alertWith(page, "not valid")).toBeVisible();
  expect(await bffStatus(page)).toBe(401);

  await page.getByRole("button", { name: "Use a passkey or security key" }).click();
  await expect(page).toHaveURL(new RegExp(`/orgs/${orgId}$`));
  await page.goto("/account/security");
  await expect(page.getByTestId("session-factors")).toHaveText("API key + Passkey or security key");
  await context.close();
});

test("a recovery code signs in once", async ({ page }) => {
  await signInAsOutsider(page);
  await page.getByRole("button", { name: "Use a recovery code" }).click();
  await page.getByLabel("Recovery code").fill(recoveryCode.toLowerCase());
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page).toHaveURL(new RegExp(`/orgs/${orgId}$`));
  await page.goto("/account/security");
  await expect(page.getByTestId("session-factors")).toHaveText("API key + Recovery code");
  await expect(page.getByTestId("recovery-codes-left")).toContainText("9 of 10 left");

  await signOut(page);
  await signInAsOutsider(page);
  await page.getByRole("button", { name: "Use a recovery code" }).click();
  await page.getByLabel("Recovery code").fill(recoveryCode);
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(alertWith(page, "already used")).toBeVisible();
  expect(await bffStatus(page)).toBe(401);
});

test("a sign-in no organization asked a second factor of confirms it's the person before changing their factors", async ({ page, request, baseURL }) => {
  const base = baseURL!.replace("localhost", "127.0.0.1");
  const mfa = operationPath("OrganizationsMFAService_UpdateOrganizationMFA", { organization_id: orgId });
  await gateway(request, base, "PATCH", mfa, { intended_methods: [] });
  try {
    await signInAsOutsider(page);
    await expect(page).toHaveURL(new RegExp(`/orgs/${orgId}$`));
    await page.goto("/account/security");
    await expect(page.getByTestId("session-factors")).toHaveText("API key");
    // The key alone adds nothing, removes nothing and takes no new codes: the page asks for a factor first.
    await expect(page.getByRole("heading", { name: "Confirm it's you" })).toBeVisible();
    await expect(page.getByRole("list", { name: "Your second factors" }).getByRole("listitem")).toHaveCount(2);
    await expect(page.getByRole("button", { name: "Add an authenticator app" })).toBeHidden();
    await expect(page.getByRole("button", { name: /^Remove / })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Generate new codes" })).toHaveCount(0);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel("Authentication code").fill("12345");
    await page.getByRole("button", { name: "Verify" }).click();
    await expect(alertWith(page, "6-digit")).toBeVisible();

    await page.getByLabel("Authentication code").fill(await nextCode(page));
    await page.getByRole("button", { name: "Verify" }).click();
    await expect(page.getByTestId("session-factors")).toHaveText("API key + Authenticator app");
    await expect(page.getByRole("heading", { name: "Confirm it's you" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Add an authenticator app" })).toBeVisible();
    await expect(page.getByRole("button", { name: "Generate new codes" })).toBeEnabled();
    // New codes void the old ones and sign out the other sessions: asked first (cancelled here, the old ones are used later).
    const renew = page.getByRole("dialog", { name: "Generate new recovery codes?" });
    await openWith(page.getByRole("button", { name: "Generate new codes" }), renew);
    await expect(renew).toContainText("your other console sessions are signed out");
    await renew.getByRole("button", { name: "Cancel" }).click();
    await expect(renew).toBeHidden();
    // The session went on under its id: its calls still answer.
    expect(await bffStatus(page)).toBe(200);
  } finally {
    await gateway(request, base, "PATCH", mfa, { intended_methods: ["totp", "webauthn"] });
  }
});

test("the admin resets the person's factors from People (audited), and the next sign-in asks to enrol again", async ({ page, request, baseURL }) => {
  await signInAsOutsider(page);
  await page.getByLabel("Authentication code").fill(await nextCode(page));
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page).toHaveURL(new RegExp(`/orgs/${orgId}$`));

  await page.goto(`/orgs/${orgId}/people`);
  const row = page.getByRole("row", { name: new RegExp(demo.outsider.email) });
  await expect(row.getByRole("list", { name: `Second factors of ${demo.outsider.email}` })).toHaveText(/Authenticator app\s*Passkey/);
  const dialog = page.getByRole("dialog", { name: `Reset the second factors of ${demo.outsider.email}?` });
  await openWith(row.getByRole("button", { name: `Reset the second factors of ${demo.outsider.email}` }), dialog);
  await dialog.getByRole("button", { name: "Reset MFA" }).click();
  await expect(dialog).toBeHidden();
  await expect(row).toContainText("Not enrolled");

  const base = baseURL!.replace("localhost", "127.0.0.1");
  // The newest entry of the organization's audit log.
  const log = await gateway(request, base, "GET", operationPath("getAuditLogs", { organization_id: orgId }));
  expect(JSON.stringify(log)).toContain("Reset MFA");

  await signOut(page);
  await signInAsOutsider(page);
  await expect(page).toHaveURL(/\/sign-in\/mfa/);
  await expect(page.getByRole("button", { name: "Set up an authenticator app" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Use a recovery code" })).toHaveCount(0);
  expect(await bffStatus(page)).toBe(401);
});

test.afterAll(async ({ request, baseURL }) => {
  // Globex requires nothing again, whatever happened above.
  const base = baseURL!.replace("localhost", "127.0.0.1");
  await gateway(request, base, "PATCH", operationPath("OrganizationsMFAService_UpdateOrganizationMFA", { organization_id: orgId }), { intended_methods: [] });
});
