import { operationPath } from "@/lib/contract/operations";
import { signedHeaders } from "@/lib/signing";
import { bffPath, expect, logEnd, logLinesUntilNow, orgUrl, readDemoCredentials, signInWithKey, test, type DemoCredentials } from "./fixtures";

/** What an independent attack on the production build found, each answered as it must be now. */

const SESSION_COOKIE = "next-auth.session-token";

test.describe("sign-in callback", () => {
  for (const callback of ["/%09/attacker.test/x", "/%0a/attacker.test/x", "/%5C/attacker.test", "//attacker.test", "https://attacker.test/", "/%E2%80%AE/attacker.test"]) {
    test(`a signed-in user is never sent off the site by callbackUrl=${callback}`, async ({ ownerPage }) => {
      const res = await ownerPage.request.get(`/sign-in?callbackUrl=${callback}`, { maxRedirects: 0 });
      expect(res.status()).toBe(307);
      expect(res.headers()["location"]).toBe("/");
    });
  }

  test("a CR or LF in callbackUrl is no server error", async ({ ownerPage, page }) => {
    for (const callback of ["/%0d%0aSet-Cookie:%20x=y", "%0d%0a", "/x%0d"]) {
      expect((await ownerPage.request.get(`/sign-in?callbackUrl=${callback}`, { maxRedirects: 0 })).status()).toBeLessThan(500);
      expect((await page.request.get(`/sign-in?callbackUrl=${callback}`)).status()).toBe(200);
    }
  });

  test("after a real sign-in through the form, the browser stays on the site", async ({ page }) => {
    const demo = await readDemoCredentials(page);
    await page.goto("/sign-in?callbackUrl=/%09/attacker.test/x");
    await signInWithKey(page, demo.member.access_key_id, demo.member.secret_key);
    await expect(page).toHaveURL((url) => url.origin === new URL(page.url()).origin && !url.pathname.includes("sign-in"));
    expect(new URL(page.url()).hostname).toBe("127.0.0.1");
  });
});

test.describe("sessions", () => {
  test("signing in again ends the browser's previous session; the session answer then says signed out", async ({ page, playwright, baseURL }) => {
    const demo = await readDemoCredentials(page);
    await signInWithKey(page, demo.owner.access_key_id, demo.owner.secret_key);
    await expect(page).toHaveURL(orgUrl(demo));
    const first = (await page.context().cookies()).find((c) => c.name === SESSION_COOKIE)!.value;

    // The same browser signs in as someone else, without signing out.
    await page.goto("/sign-in?reason=required");
    await signInWithKey(page, demo.member.access_key_id, demo.member.secret_key);
    await expect(page).toHaveURL(orgUrl(demo));
    const second = (await page.context().cookies()).find((c) => c.name === SESSION_COOKIE)!.value;
    expect(second).not.toBe(first);

    // Someone holding the first cookie holds nothing.
    const stolen = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { cookie: `${SESSION_COOKIE}=${first}` } });
    try {
      expect((await stolen.get(bffPath("listLocations"))).status()).toBe(401);
      const session = await stolen.get("/api/auth/session");
      expect(session.status()).toBe(200);
      const body = await session.text();
      expect(JSON.parse(body)).toEqual({});
      expect(body).not.toContain(demo.owner.email);
      expect(body).not.toContain(demo.owner.user_id);
      // No fresh cookie: at most one that clears it.
      for (const header of session.headersArray().filter((h) => h.name.toLowerCase() === "set-cookie" && h.value.startsWith(`${SESSION_COOKIE}=`))) {
        expect(header.value).toMatch(new RegExp(`^${SESSION_COOKIE}=;`));
      }
    } finally {
      await stolen.dispose();
    }
    // The second session is untouched.
    const current = await page.request.get("/api/auth/session");
    expect(await current.json()).toMatchObject({ user: { email: demo.member.email } });
  });
});

test.describe("methods and headers", () => {
  for (const path of ["/sign-in", "/orgs", bffPath("listLocations"), operationPath("listLocations"), "/api/auth/session"]) {
    test(`TRACE ${path} is 405, not a server error`, async ({ request }) => {
      const res = await request.fetch(path, { method: "TRACE" });
      expect(res.status()).toBe(405);
    });
  }

  test("next-auth's endpoints answer what they cannot take with a 4xx or the sign-in page, never a server error", async ({ request }) => {
    const json = { "content-type": "application/json" };
    for (const [path, body] of [
      ["/api/auth/signout", "{"],
      ["/api/auth/signout", JSON.stringify({ callbackUrl: 1 })],
      ["/api/auth/callback/api-key", JSON.stringify({ access_key_id: [], secret_key: {} })],
      ["/api/auth/signin/sso", JSON.stringify({ email: "ada@sso.example" })],
    ] as const) {
      const res = await request.post(path, { headers: json, data: body, maxRedirects: 0 });
      expect(res.status(), `POST ${path} ${body}`).toBe(415);
      expect(await res.json()).toEqual({ message: "send a form: Content-Type application/x-www-form-urlencoded" });
    }
    // next-auth's error page put the code into its redirect unencoded: a character past Latin-1 or a line break threw.
    for (const code of ["€", "a\rb", "x&reason=revoked"]) {
      const res = await request.get(`/api/auth/error?error=${encodeURIComponent(code)}`, { maxRedirects: 0 });
      expect(res.status(), code).toBe(302);
      expect(res.headers().location).toBe(`/sign-in?error=${encodeURIComponent(code)}`);
    }
    // next-auth's client logger endpoint wrote whatever anyone posted as the console's own error lines.
    const from = logEnd();
    const forged = `forged-${Date.now()}`;
    const logged = await request.post("/api/auth/_log", { form: { level: "error", code: forged, metadata: "{}" }, maxRedirects: 0 });
    expect(logged.status()).toBe(404);
    expect((await logLinesUntilNow(request, from)).filter((line) => line.includes(forged))).toEqual([]);
    // The key and demo sign-ins' callbacks take POST only.
    for (const provider of ["api-key", "demo"]) {
      const res = await request.get(`/api/auth/callback/${provider}`, { maxRedirects: 0 });
      expect(res.status(), provider).toBe(302);
      expect(res.headers().location).toBe("/sign-in");
    }
  });

  test("the pages' CSP is also on prefetches and on next-auth's own pages", async ({ ownerPage }) => {
    for (const [path, headers] of [
      ["/orgs", { "next-router-prefetch": "1", rsc: "1" }],
      ["/orgs", { "next-router-prefetch": "1" }],
      ["/api/auth/signout", {}],
      ["/api/auth/signin", {}],
    ] as const) {
      const res = await ownerPage.request.get(path, { headers, maxRedirects: 0 });
      const csp = res.headers()["content-security-policy"] ?? "";
      expect(csp, `${path} ${JSON.stringify(headers)}`).toContain("frame-ancestors 'none'");
      expect(csp).toMatch(/script-src [^;]*'nonce-/);
    }
  });
});

test.describe("the gateway behind the console", () => {
  async function signedPost(request: import("@playwright/test").APIRequestContext, demo: DemoCredentials, url: string, body: unknown, extra: Record<string, string> = {}) {
    const headers = { ...signedHeaders({ accessKeyId: demo.owner.access_key_id, secretKey: demo.owner.secret_key }, { method: "POST", url }), "content-type": "application/json", ...extra };
    return { headers, send: (h = headers, b = body) => request.post(url, { headers: h, data: JSON.stringify(b) }) };
  }

  test("files a direct call as the API's, at the socket's address, whatever its headers claim", async ({ request, baseURL, page }) => {
    const demo = await readDemoCredentials(page);
    const url = `${baseURL}${operationPath("createProject")}`;
    const name = `direct-${Date.now()}`;
    const call = await signedPost(request, demo, url, { organization_id: demo.organization_id, name }, { "x-forwarded-for": "6.6.6.6", "x-stratus-surface": "console", "x-stratus-peer-address": "6.6.6.8" });
    expect((await call.send()).status()).toBe(200);
    // Under /v1alpha5 by hand: the older prefix, as the upstream's clients still call it.
    const logsUrl = `${baseURL}/v1alpha5/organizations/${demo.organization_id}/audit-logs?target_names=${name}`;
    const logs = await request.get(logsUrl, { headers: signedHeaders({ accessKeyId: demo.owner.access_key_id, secretKey: demo.owner.secret_key }, { method: "GET", url: logsUrl }) });
    expect(logs.status()).toBe(200);
    const entries = ((await logs.json()) as { items?: Array<{ client_ip: string; surface: string }>; logs?: Array<{ client_ip: string; surface: string }> });
    const entry = (entries.items ?? entries.logs ?? [])[0];
    expect(entry).toMatchObject({ client_ip: "127.0.0.1", surface: "api" });
  });

  test("refuses a replayed mutation, even with another body", async ({ request, baseURL, page }) => {
    const demo = await readDemoCredentials(page);
    const url = `${baseURL}${operationPath("createProject")}`;
    const call = await signedPost(request, demo, url, { organization_id: demo.organization_id, name: `replay-${Date.now()}` });
    expect((await call.send()).status()).toBe(200);
    const replay = await call.send(call.headers, { organization_id: demo.organization_id, name: `replayed-${Date.now()}` });
    expect(replay.status()).toBe(401);
  });
});
