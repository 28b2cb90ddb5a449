import { randomUUID } from "node:crypto";
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import path from "node:path";
import { test as base, expect, type APIRequestContext, type Browser, type BrowserContext, type Locator, type Page } from "@playwright/test";
import { operationPath, type OperationId, type OperationParams } from "@/lib/contract/operations";
import type { DemoCredentials, DemoUser } from "@/lib/gateway/seed";
import { signedHeaders } from "@/lib/signing";

/** The data dir the web server was started on (playwright.config.ts wipes it first). */
export const DATA_DIR = process.env.E2E_DATA_DIR ?? ".data-e2e";

/** Everything the server writes to stdout and stderr during the run (scanned for secrets afterwards). */
export const SERVER_LOG = `${DATA_DIR}.log`;

export type { DemoCredentials, DemoUser } from "@/lib/gateway/seed";

/** How long the server's log is now: where what is logged next begins. */
export const logEnd = (): number => statSync(SERVER_LOG).size;

/** The server's log from byte `from` on. */
function logSince(from: number): string {
  const fd = openSync(SERVER_LOG, "r");
  try {
    const bytes = Buffer.alloc(statSync(SERVER_LOG).size - from);
    readSync(fd, bytes, 0, bytes.length, from);
    return bytes.toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/**
 * The server's log lines from byte `from` on, up to a call of our own with an id of our own: the log is
 * written in batches, and every line logged before that call's is written before it.
 */
export async function logLinesUntilNow(request: APIRequestContext, from: number): Promise<string[]> {
  const fence = `fence-${randomUUID()}`;
  expect((await request.get("/v1/healthz", { headers: { "x-request-id": fence } })).status()).toBe(200);
  let lines: string[] = [];
  await expect.poll(() => (lines = logSince(from).split("\n")).findIndex((line) => line.includes(fence)), { message: "the fence's line is logged" }).toBeGreaterThanOrEqual(0);
  return lines.slice(0, lines.findIndex((line) => line.includes(fence)));
}

export type Who = "owner" | "member" | "auditor";

/**
 * An operation's path through the console's backend-for-frontend, from the operations table:
 * bffPath("getProject", { project_id }) is /api/cloud/v1/organizations/projects/<id>.
 */
export function bffPath<Id extends OperationId>(id: Id, ...[params]: keyof OperationParams<Id> extends never ? [] : [OperationParams<Id>]): string {
  const fill = operationPath as (id: OperationId, params?: Record<string, string>) => string;
  return `/api/cloud${fill(id, params)}`;
}

/**
 * The demo's last day of usage and cost (YYYY-MM-DD, UTC): the day the server seeded it. A run that
 * crosses midnight UTC after the seed is a day past it.
 */
export async function lastDayOfData(page: Page, orgId: string): Promise<string> {
  const res = await page.request.get(bffPath("getUsageOptions", { organization_id: orgId }));
  expect(res.status()).toBe(200);
  return ((await res.json()) as { end_date: string }).end_date;
}

export function authFile(who: Who): string {
  return path.resolve("e2e/.auth", `${who}.json`);
}

/**
 * The demo users' keys, as the embedded gateway wrote them into the server's data
 * dir when it seeded its store (on the first request that needed it).
 */
export async function readDemoCredentials(page?: Page): Promise<DemoCredentials> {
  const file = path.resolve(DATA_DIR, "demo-credentials.json");
  if (!existsSync(file) && page) await page.goto("/sign-in");
  await expect.poll(() => existsSync(file), { message: `${file} is written when the gateway seeds` }).toBe(true);
  return JSON.parse(readFileSync(file, "utf8")) as DemoCredentials;
}

export function signInForm(page: Page) {
  return {
    accessKeyId: page.getByLabel("Access key ID"),
    secretKey: page.getByLabel("Secret key"),
    submit: page.getByRole("button", { name: "Sign in", exact: true }),
    demo: (who: Who) => page.getByRole("button", { name: `Sign in as demo ${who}` }),
  };
}

/** Types the key pair into the sign-in page and submits it. */
export async function signInWithKey(page: Page, accessKeyId: string, secretKey: string): Promise<void> {
  if (!new URL(page.url(), "http://x").pathname.startsWith("/sign-in")) await page.goto("/sign-in");
  const form = signInForm(page);
  await form.accessKeyId.fill(accessKeyId);
  await form.secretKey.fill(secretKey);
  await form.submit.click();
}

/** Where a signed-in user lands: their first organization's overview. */
export function orgUrl(demo: DemoCredentials): RegExp {
  return new RegExp(`/orgs/${demo.organization_id}$`);
}

/**
 * What went wrong in the browser during a test: uncaught page errors (React's hydration errors
 * among them, #418…) and console errors. Every test fails on any of them (the auto fixture
 * `browserErrors` below), but for the console errors a test says it provokes on purpose:
 * `browserErrors.allow(/status of 403/, "why")` in the test (Chromium logs every 4xx answer to a
 * fetch, so a test of a refusal the gateway gives has one), or `test.use({ allowedConsoleErrors })`.
 */
interface BrowserErrors {
  seen: string[];
  allowed: RegExp[];
  /** A console error this test provokes on purpose; `why` is for the reader. */
  allow(pattern: RegExp, why: string): void;
}

function watchContext(context: BrowserContext, errors: BrowserErrors): void {
  const watch = (page: Page) => {
    page.on("pageerror", (error) => errors.seen.push(`page error on ${page.url()}: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") errors.seen.push(`console error on ${page.url()}: ${message.text()}`);
    });
  };
  context.pages().forEach(watch);
  context.on("page", watch);
}

async function pageAs(browser: Browser, who: Who, errors: BrowserErrors) {
  const context = await browser.newContext({ storageState: authFile(who) });
  watchContext(context, errors);
  return { context, page: await context.newPage() };
}

export const test = base.extend<{
  demo: DemoCredentials;
  ownerPage: Page;
  memberPage: Page;
  auditorPage: Page;
  allowedConsoleErrors: RegExp[];
  browserErrors: BrowserErrors;
}>({
  // Console errors a test provokes on purpose, each matched by one of these; none by default.
  allowedConsoleErrors: [[], { option: true }],
  browserErrors: [
    async ({ allowedConsoleErrors }, provide) => {
      const errors: BrowserErrors = { seen: [], allowed: [...allowedConsoleErrors], allow: (pattern) => void errors.allowed.push(pattern) };
      await provide(errors);
      const unexpected = errors.seen.filter((e) => !(e.startsWith("console error") && errors.allowed.some((allowed) => allowed.test(e))));
      expect(unexpected, "no page error and no console error in the browser").toEqual([]);
    },
    { auto: true },
  ],
  context: async ({ context, browserErrors }, provide) => {
    watchContext(context, browserErrors);
    await provide(context);
  },
  demo: async ({ page }, provide) => {
    await provide(await readDemoCredentials(page));
  },
  ownerPage: async ({ browser, browserErrors }, provide) => {
    const { context, page } = await pageAs(browser, "owner", browserErrors);
    try {
      await provide(page);
    } finally {
      await context.close();
    }
  },
  memberPage: async ({ browser, browserErrors }, provide) => {
    const { context, page } = await pageAs(browser, "member", browserErrors);
    try {
      await provide(page);
    } finally {
      await context.close();
    }
  },
  auditorPage: async ({ browser, browserErrors }, provide) => {
    const { context, page } = await pageAs(browser, "auditor", browserErrors);
    try {
      await provide(page);
    } finally {
      await context.close();
    }
  },
});

/**
 * Clicks until what it opens (a dialog, an in-place form) shows: a click that lands before React
 * has hydrated the server-rendered button does nothing, and the page cannot tell. Tables hydrate
 * after the rest of the page (components/ui/data-table.tsx), so their buttons most of all.
 */
export async function openWith(trigger: Locator, opened: Locator): Promise<void> {
  await expect(async () => {
    if (!(await opened.isVisible())) await trigger.click();
    await expect(opened).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
}

export { expect };

/**
 * Holds back the page's requests that `match`, then passes each on as sent (the answer is the
 * server's own) once `release()` is called: to see and act on a page while they are out. The route
 * stays after the release (removing it at once would race the held requests' handlers). `count()`
 * says how many were held, for a test that must know its requests were.
 */
export async function holdRequests(page: Page, match: (url: URL) => boolean): Promise<{ release: () => void; count: () => number }> {
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let count = 0;
  await page.route(match, async (route) => {
    count += 1;
    await held;
    await route.continue();
  });
  return { release, count: () => count };
}

/**
 * A call straight to the gateway signed with a demo user's own key (set-up and checks, never the browser's path);
 * fails the test on an answer that is no success. The JSON answer, or {} for none.
 */
export async function gatewayAs(
  request: APIRequestContext,
  baseURL: string,
  user: DemoUser,
  method: "GET" | "POST" | "PATCH" | "DELETE",
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const url = `${baseURL}${path}`;
  // Distinct timestamps: the gateway refuses a mutation's signature it has already seen.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const credentials = { accessKeyId: user.access_key_id, secretKey: user.secret_key };
  const res = await request.fetch(url, { method, headers: { ...signedHeaders(credentials, { method, url }), "content-type": "application/json" }, data: body });
  expect(res.status(), `${method} ${path}: ${await res.text()}`).toBeLessThan(300);
  return res.status() === 204 ? {} : ((await res.json()) as Record<string, unknown>);
}
