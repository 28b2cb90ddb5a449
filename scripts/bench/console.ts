/**
 * The console in a browser: the production build (`next build`, then `next start`
 * on a fresh data dir) signed in as the demo owner the way the e2e fixtures do it
 * (the demo credentials file, the sign-in form). Two measurements:
 *
 * - First Load JS per route, as Next defines it: gzipped bytes of the scripts a
 *   route needs to load and hydrate, i.e. those its HTML names (script tags and the
 *   client references of the server payload), for a route opened in a fresh browser
 *   context (empty cache). Everything else the route fetches until the network is
 *   idle (and 1.5 s more) is reported beside it: code-split parts imported after
 *   hydration (charts). Next's <Link> prefetching of OTHER routes is no part of
 *   either: requests with Next's prefetch headers (`Next-Router-Prefetch`,
 *   `Next-Router-Segment-Prefetch`) are aborted.
 * - Lighthouse (performance, Total Blocking Time, accessibility; its default
 *   configuration decides) on every page of the demo organization, with the owner's
 *   session cookie sent as an extra header; and, in the same runs, on the stack's floor
 *   (scripts/bench/floor-app, one static page of a bare Next.js app), for what no page
 *   of this Next.js and React can go under on the machine measured.
 *
 * BENCH_SKIP_BUILD=1 measures the build already in .next (development only).
 * BENCH_CONSOLE_ONLY=bundles or =lighthouse runs one of the two (development only).
 * BENCH_LIGHTHOUSE_PAGES=usage,GPU tracking runs Lighthouse on those pages only, by their names in
 * LIGHTHOUSE_PAGES (development only).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { chromium, type Browser, type BrowserContext, type Page } from "@playwright/test";
import lighthouse, { desktopConfig } from "lighthouse";
import { operationPath } from "@/lib/contract/operations";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../../e2e/chromium";
import { markCompileHints } from "../compile-hints";
import type { DemoCredentials } from "@/lib/gateway/seed";
import { THEME_COOKIE } from "@/lib/theme";
import { freePort, stopChild } from "./children";
import { mainThreadTime, medianRuns, type Score, type TraceEventLike } from "./lighthouse-runs";
import type { Row } from "./report";
import { median } from "./stats";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BUNDLE_BUDGET_BYTES = 180 * 1024;
/**
 * The first page of a fresh start with the demo being written, against the same page of a fresh start
 * without a demo: a ratio measured in one run, as every budget is (an absolute 2 s moved with the machine:
 * a host of this kind twice as slow takes 2 s without any demo at all).
 */
const FIRST_PAGE_BUDGET = 1.25;
/** Lighthouse's default (mobile) configuration unless BENCH_LIGHTHOUSE_PRESET=desktop. */
const LIGHTHOUSE_PRESET = process.env.BENCH_LIGHTHOUSE_PRESET === "desktop" ? "desktop" : "mobile";
/** Every page of an organization (detail pages: the first project and reservation of the demo). */
const LIGHTHOUSE_PAGES = [
  ["overview", ""],
  ["projects", "/projects"],
  ["project", "/projects/{project}"],
  ["IAM", "/iam"],
  ["people", "/people"],
  ["SSO", "/security/sso"],
  ["MFA", "/security/mfa"],
  ["SCIM", "/security/scim"],
  ["storage", "/storage"],
  ["billing", "/billing"],
  ["usage", "/usage"],
  ["quotas", "/quotas"],
  ["audit logs", "/audit-logs"],
  ["reservations", "/reservations"],
  ["reservation", "/reservations/{reservation}"],
  ["GPU tracking", "/reservations/gpu-tracking"],
  ["settings", "/settings"],
] as const;
/** Lighthouse's own threshold for a good Total Blocking Time on mobile. */
const TBT_BUDGET_MS = 200;

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch {
      // not yet
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Every page route of the app, as a URL pattern: route groups dropped, [params] kept. */
export function pageRoutes(appDir: string): string[] {
  const routes: string[] = [];
  const walk = (dir: string, segments: string[]) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (entry.name.startsWith("_") || entry.name === "api") continue;
        walk(path.join(dir, entry.name), /^\(.*\)$/.test(entry.name) ? segments : [...segments, entry.name]);
      } else if (/^page\.(tsx|ts|jsx|js)$/.test(entry.name)) {
        routes.push(`/${segments.join("/")}`);
      }
    }
  };
  walk(appDir, []);
  return routes.sort();
}

interface RouteWeight {
  route: string;
  url: string | null;
  /** Every script the route loaded, code-split parts included. */
  gzipBytes: number;
  /** The scripts its HTML names: Next's "First Load JS". */
  firstLoadBytes: number;
  scripts: number;
}

/** Opens a URL in a fresh context and sums the gzipped size of every script it loaded. */
async function scriptWeight(browser: Browser, storageState: Awaited<ReturnType<BrowserContext["storageState"]>> | undefined, url: string) {
  const context = await browser.newContext({ storageState });
  try {
    // Prefetches of other routes (the sidebar's links) are not this route's first load.
    await context.route("**/*", (route) => {
      const headers = route.request().headers();
      return headers["next-router-prefetch"] || headers["next-router-segment-prefetch"] ? route.abort() : route.fallback();
    });
    const page = await context.newPage();
    const bodies = new Map<string, Promise<Buffer | null>>();
    // The HTML of the document the route ends on (after any redirect): the scripts it names are its first load.
    let documentHtml: Promise<string> = Promise.resolve("");
    page.on("response", (response) => {
      if (response.request().isNavigationRequest() && response.request().frame() === page.mainFrame() && response.status() === 200) {
        documentHtml = response.text().catch(() => "");
      }
      if (response.request().resourceType() !== "script" || bodies.has(response.url())) return;
      // A body the browser no longer holds (the page went on to another document, as a redirect after
      // streaming does) is fetched again: the static chunk is the same bytes.
      bodies.set(
        response.url(),
        response.body().catch(() =>
          context.request
            .get(response.url())
            .then((r) => r.body())
            .catch(() => null),
        ),
      );
    });
    await page.goto(url, { waitUntil: "networkidle", timeout: 90_000 });
    // Code-split parts (charts) are fetched once the page has hydrated and has its data: give them time.
    await page.waitForTimeout(1500);
    await page.waitForLoadState("networkidle");
    const hrefs = await page.$$eval("a[href]", (anchors) => anchors.map((a) => a.getAttribute("href") ?? ""));
    const html = await documentHtml;
    if (!html) throw new Error(`no document HTML for ${url}`);
    let gzipBytes = 0;
    let firstLoadBytes = 0;
    const detail: string[] = [];
    for (const [scriptUrl, body] of bodies) {
      const bytes = await body;
      if (!bytes) throw new Error(`could not read ${scriptUrl} loaded by ${url}`);
      const size = gzipSync(bytes).length;
      const pathname = new URL(scriptUrl).pathname;
      // Named by the HTML (script tags, or the server payload's client references hydration loads): first load.
      // Anything else was imported later by code on the page (charts, dialogs opened on demand).
      const firstLoad = html.includes(pathname) || html.includes(decodeURIComponent(pathname));
      gzipBytes += size;
      if (firstLoad) firstLoadBytes += size;
      detail.push(`    ${(size / 1024).toFixed(1).padStart(6)} KB  ${firstLoad ? "first " : "later "} ${pathname}`);
    }
    // BENCH_CONSOLE_DETAIL=1 lists every script of every route: where to look when a route is heavy.
    if (process.env.BENCH_CONSOLE_DETAIL === "1") process.stderr.write(`  ${url}\n${detail.sort().reverse().join("\n")}\n`);
    return { gzipBytes, firstLoadBytes, scripts: bodies.size, hrefs, finalUrl: page.url() };
  } finally {
    await context.close();
  }
}

/** Fills a route pattern: [orgId] from the demo, other params from the first matching link on the parent page. */
async function resolveRoute(
  route: string,
  known: ReadonlySet<string>,
  orgId: string,
  linksOf: (url: string) => Promise<string[]>,
): Promise<string | null> {
  let url = route.replace("[orgId]", orgId);
  while (/\[[^\]]+\]/.test(url)) {
    const at = url.search(/\/\[[^\]]+\]/);
    const parent = url.slice(0, at) || "/";
    const rest = url.slice(at).replace(/^\/\[[^\]]+\]/, "");
    const statics = new Set([...known].map((r) => r.replace("[orgId]", orgId)));
    const pattern = new RegExp(`^${parent.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/[^/?#]+$`);
    const found = (await linksOf(parent)).find((href) => pattern.test(href) && !statics.has(href));
    if (!found) return null;
    url = found + rest;
  }
  return url;
}


/**
 * Runs Lighthouse takes per page for the judged pass. Its documentation on variability
 * (docs/variability.md) finds the median of five runs about twice as stable as one; on this
 * 2-core host three runs of the same page still spanned 83 to 96.
 */
const LIGHTHOUSE_RUNS = Math.max(1, Number(process.env.BENCH_LIGHTHOUSE_RUNS ?? 5));


/**
 * Lighthouse on each of `urls`, the categories asked (accessibility alone skips the performance
 * trace: its audits read the page as rendered, and do not vary between runs).
 */
async function lighthouseScores(
  baseUrl: string,
  cookie: string,
  urls: Array<[string, string]>,
  onlyCategories: string[] = ["performance", "accessibility"],
): Promise<Score[]> {
  const profile = mkdtempSync(path.join(tmpdir(), "stratus-bench-chromium-"));
  // The end-to-end tests' Chromium and flags (e2e/chromium.ts), headless: Playwright does not start this one.
  const browser = spawn(CHROMIUM_PATH, ["--headless", ...CHROMIUM_ARGS, "--remote-debugging-port=0", `--user-data-dir=${profile}`, "about:blank"], {
    stdio: ["ignore", "ignore", "pipe"],
    // Its own process group: Chromium's helper processes go with it.
    detached: true,
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let seen = "";
      const timer = setTimeout(() => reject(new Error(`Chromium did not start: ${seen.slice(-500)}`)), 60_000);
      browser.stderr?.on("data", (chunk: Buffer) => {
        seen += chunk.toString();
        const match = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(seen);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      });
      browser.once("exit", (code) => reject(new Error(`Chromium exited (${code}): ${seen.slice(-500)}`)));
    });
    const scores: Score[] = [];
    for (const [name, url] of urls) {
      const audit = () =>
        lighthouse(
          `${baseUrl}${url}`,
          {
            port,
            output: "json",
            logLevel: "error",
            onlyCategories,
            ...(cookie ? { extraHeaders: { Cookie: cookie } } : {}),
          },
          LIGHTHOUSE_PRESET === "desktop" ? desktopConfig : undefined,
        );
      let result = await audit();
      // A run Lighthouse itself could not finish (no paint seen, page hung) is retried once.
      if (result?.lhr.runtimeError) {
        process.stderr.write(`  lighthouse ${url}: ${result.lhr.runtimeError.code}, once more\n`);
        result = await audit();
      }
      if (result?.lhr.runtimeError) throw new Error(`Lighthouse on ${url}: ${result.lhr.runtimeError.code} ${result.lhr.runtimeError.message}`);
      const categories = result?.lhr.categories;
      if (!result || !categories) throw new Error(`Lighthouse returned nothing for ${url}`);
      const landed = new URL(result.lhr.finalDisplayedUrl).pathname;
      if (landed !== url.split("?")[0]) throw new Error(`Lighthouse on ${url} ended on ${landed}: not signed in?`);
      const audits = result.lhr.audits;
      const metric = (id: string) => audits[id]?.displayValue?.replace(/\s+/g, " ") ?? "?";
      scores.push({
        name,
        performance: Math.round((categories.performance?.score ?? 0) * 100),
        accessibility: Math.round((categories.accessibility?.score ?? 0) * 100),
        metrics: `FCP ${metric("first-contentful-paint")}, LCP ${metric("largest-contentful-paint")}, TBT ${metric("total-blocking-time")}, CLS ${metric("cumulative-layout-shift")}`,
        tbtMs: Math.round(audits["total-blocking-time"]?.numericValue ?? Number.NaN),
        benchmarkIndex: Math.round(result.lhr.environment.benchmarkIndex),
        // The trace of the load the simulation starts from (the performance category's; none for accessibility alone).
        mainThread: mainThreadTime((result.artifacts.Trace?.traceEvents ?? []) as unknown as TraceEventLike[]),
      });
      // Lighthouse's defaults decide: a run at any other CPU slowdown would not count.
      if (LIGHTHOUSE_PRESET === "mobile" && result.lhr.configSettings.throttling.cpuSlowdownMultiplier !== 4) {
        throw new Error(`Lighthouse ran with CPU slowdown ${result.lhr.configSettings.throttling.cpuSlowdownMultiplier}, not its default 4`);
      }
      if (process.env.BENCH_CONSOLE_DETAIL === "1") {
        const failing = Object.values(audits).filter((a) => a.score !== null && a.score < 0.9 && a.scoreDisplayMode !== "informative");
        process.stderr.write(`  lighthouse ${url}: ${failing.map((a) => `${a.id} ${a.displayValue ?? a.score}`).join("; ")}\n`);
        const lcp = JSON.stringify(audits["largest-contentful-paint-element"]?.details ?? {}).match(/"snippet":"((?:[^"\\]|\\.)*)"/);
        if (lcp?.[1]) process.stderr.write(`  lighthouse ${url}: LCP element ${lcp[1].slice(0, 200)}\n`);
        // What the unthrottled load showed (observed*), which Lighthouse's simulation starts from.
        const observed = (audits.metrics?.details as { items?: Array<Record<string, number>> } | undefined)?.items?.[0] ?? {};
        const marks = Object.entries(observed).filter(([k]) => k.startsWith("observed") && !k.endsWith("Ts"));
        process.stderr.write(`  lighthouse ${url}: ${marks.map(([k, v]) => `${k.slice(8)} ${Math.round(v)}`).join(", ")}\n`);
        for (const id of ["long-tasks", "bootup-time", "mainthread-work-breakdown"]) {
          const items = (audits[id]?.details as { items?: Array<Record<string, unknown>> } | undefined)?.items ?? [];
          process.stderr.write(`  lighthouse ${url}: ${id}: ${items.slice(0, 12).map((i) => JSON.stringify(i)).join(" | ")}\n`);
        }
      }
    }
    return scores;
  } finally {
    await stopGroup(browser);
    // Helpers may still be writing the profile for a moment after the browser exits.
    rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }
}

/** Stops a child started in a process group of its own (Chromium's helpers, next start's server under it), and waits for it. */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.pid && child.exitCode === null) {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
  await stopChild(child);
}

/** The project's next, for the console's build and the floor app's. */
const NEXT = path.join(ROOT, "node_modules/.bin/next");

function nextBuild(cwd: string, env: NodeJS.ProcessEnv, what: string): void {
  const result = spawnSync(NEXT, ["build"], { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, env: { ...env, NEXT_TELEMETRY_DISABLED: "1" } });
  if (result.status !== 0) throw new Error(`next build of ${what} failed (${result.status}):\n${`${result.stdout}\n${result.stderr}`.slice(-4000)}`);
}

function build(): void {
  if (process.env.BENCH_SKIP_BUILD === "1" && existsSync(path.join(ROOT, ".next/BUILD_ID"))) return;
  process.stderr.write("  next build…\n");
  nextBuild(ROOT, process.env, "the console");
  // What `npm run build` does after next build (the floor app stays as next build leaves it).
  markCompileHints(path.join(ROOT, ".next"));
}

/**
 * The stack's floor: scripts/bench/floor-app (a root layout and one static page, nothing of the
 * console) built by the same next, with the project's node_modules, in a directory of its own,
 * and started, as next build leaves it (without the console's compile hints, scripts/compile-hints.ts).
 * Lighthouse runs it beside the console's pages: what any page of this Next.js and React costs the
 * main thread on the machine measured, unless its framework's scripts are compiled off it.
 */
async function startFloorApp(): Promise<{ baseUrl: string; stop: () => Promise<void> }> {
  const dir = mkdtempSync(path.join(tmpdir(), "stratus-bench-floor-"));
  let server: ChildProcess | undefined;
  const stop = async () => {
    if (server) await stopGroup(server);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    cpSync(path.join(ROOT, "scripts/bench/floor-app/app"), path.join(dir, "app"), { recursive: true });
    symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
    writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "stratus-bench-floor", private: true }));
    // Turbopack resolves only under its root: the common ancestor of this directory and the project's node_modules.
    writeFileSync(path.join(dir, "next.config.mjs"), `export default ${JSON.stringify({ turbopack: { root: commonAncestor(dir, ROOT) } })};\n`);
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" };
    nextBuild(dir, env, "the floor app");
    const port = await freePort();
    server = spawn(NEXT, ["start", "-p", String(port), "-H", "127.0.0.1"], { cwd: dir, stdio: ["ignore", "ignore", "inherit"], detached: true, env });
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitFor("the floor app", async () => ((await fetch(baseUrl).catch(() => undefined))?.ok ? true : undefined));
    return { baseUrl, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function commonAncestor(a: string, b: string): string {
  const left = path.resolve(a).split(path.sep);
  const right = path.resolve(b).split(path.sep);
  let i = 0;
  while (i < left.length && i < right.length && left[i] === right[i]) i++;
  return left.slice(0, i).join(path.sep) || path.sep;
}

/**
 * Fresh starts of each kind for the first-page row: with the demo being written, and without a demo.
 * Three of each left a 25 % budget to the host's noise (0.92 × in one full run, 1.31 × in the next,
 * with nothing changed on that path); each start costs about fifteen seconds.
 */
const FRESH_STARTS = 5;

interface Started {
  server: ChildProcess;
  dir: string;
  baseUrl: string;
  spawnedAt: number;
  listeningAt: number;
}

/** `next start` of the built app on an empty data dir, answering `/healthz`; `demo` asks for the demo organization. */
async function startFresh(demo: boolean, secret: string): Promise<Started> {
  const dir = mkdtempSync(path.join(tmpdir(), "stratus-bench-console-"));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const spawnedAt = Date.now();
  const server = spawn("npx", ["next", "start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
    env: {
      ...process.env,
      NODE_ENV: "production",
      STRATUS_DATA_DIR: dir,
      AUTH_SECRET: secret,
      NEXTAUTH_SECRET: secret,
      NEXTAUTH_URL: baseUrl,
      STRATUS_DEMO: demo ? "1" : "0",
      // next start runs in production mode, where the demo organization is seeded only when asked for.
      STRATUS_SEED_DEMO: demo ? "1" : "0",
      STRATUS_LOG_LEVEL: "warn",
      NEXT_TELEMETRY_DISABLED: "1",
    },
  });
  await waitFor("next start", async () => ((await fetch(`${baseUrl}/healthz`)).ok ? true : undefined));
  return { server, dir, baseUrl, spawnedAt, listeningAt: Date.now() };
}

async function stopStarted(started: Started | undefined): Promise<void> {
  if (!started) return;
  if (started.server.pid) {
    // next start runs node under npx: stop the whole group this section started.
    try {
      process.kill(-started.server.pid, "SIGTERM");
    } catch {
      // already gone
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  rmSync(started.dir, { recursive: true, force: true });
}

/** The sign-in page opened in a new browser as soon as a fresh start answers, timed until its heading shows. */
async function firstPage(started: Started): Promise<{ browser: Browser; context: BrowserContext; page: Page; ms: number }> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const context = await browser.newContext();
  const page = await context.newPage();
  const t0 = Date.now();
  await page.goto(`${started.baseUrl}/sign-in`);
  await page.getByRole("heading", { name: "Sign in to Stratus" }).waitFor();
  return { browser, context, page, ms: Date.now() - t0 };
}

export async function run(): Promise<Row[]> {
  const t0 = Date.now();
  build();
  const builtIn = (Date.now() - t0) / 1000;
  const secret = randomBytes(32).toString("base64url");
  let started: Started | undefined;
  let browser: Browser | undefined;
  try {
    // The first page of a fresh start, with the demo organization being written meanwhile and without a demo, in turns;
    // the last start with the demo serves the rest of the section.
    const withDemo: number[] = [];
    const withoutDemo: number[] = [];
    let firstPageFromSpawnS = 0;
    let last: Awaited<ReturnType<typeof firstPage>> | undefined;
    const timePlain = async () => {
      const plain = await startFresh(false, secret);
      try {
        const first = await firstPage(plain);
        withoutDemo.push(first.ms);
        await first.browser.close();
      } finally {
        await stopStarted(plain);
      }
    };
    for (let i = 0; i < FRESH_STARTS; i++) {
      // Which kind goes first alternates, so neither always starts right after the other stopped;
      // the last pair ends with the demo's start, which stays up.
      const plainFirst = (FRESH_STARTS - 1 - i) % 2 === 0;
      if (plainFirst) await timePlain();
      started = await startFresh(true, secret);
      const first = await firstPage(started);
      withDemo.push(first.ms);
      firstPageFromSpawnS = (Date.now() - started.spawnedAt) / 1000;
      if (i < FRESH_STARTS - 1) {
        await first.browser.close();
        await stopStarted(started);
        started = undefined;
        if (!plainFirst) await timePlain();
      } else {
        last = first;
        browser = first.browser;
      }
    }
    if (!started || !last || !browser) throw new Error("no fresh start with the demo");
    const { baseUrl, dir, spawnedAt, listeningAt } = started;
    const firstWithDemo = median(withDemo);
    const firstWithoutDemo = median(withoutDemo);
    const firstRatio = firstWithDemo / firstWithoutDemo;
    // Sign in as the demo owner with the key, as e2e/auth.setup.ts does, in the browser of the last start.
    const { context: signIn, page } = last;
    const credentialsFile = path.join(dir, "demo-credentials.json");
    const demo = await waitFor("the demo credentials", async () =>
      existsSync(credentialsFile) ? (JSON.parse(readFileSync(credentialsFile, "utf8")) as DemoCredentials) : undefined,
    );
    // The demo is ready when the sign-in page offers its buttons (the page polls while it prepares).
    await page.getByRole("button", { name: "Sign in as demo owner" }).and(page.locator(":enabled")).waitFor({ timeout: 120_000 });
    const demoReadyS = (Date.now() - spawnedAt) / 1000;
    await page.getByLabel("Access key ID").fill(demo.owner.access_key_id);
    await page.getByLabel("Secret key").fill(demo.owner.secret_key);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(new RegExp(`/orgs/${demo.organization_id}$`), { timeout: 90_000 });
    const storageState = await signIn.storageState();
    await signIn.close();
    const session = storageState.cookies.find((c) => c.name.endsWith("next-auth.session-token"));
    if (!session) throw new Error("no session cookie after signing in");
    const cookie = `${session.name}=${session.value}`;

    const routes = pageRoutes(path.join(ROOT, "app"));
    const known = new Set(routes);
    const publicRoute = (route: string) => route === "/" || route.startsWith("/sign-in");
    const links = new Map<string, string[]>();
    const weights: RouteWeight[] = [];
    const measure = async (route: string, url: string) => {
      const w = await scriptWeight(browser!, publicRoute(route) ? undefined : storageState, `${baseUrl}${url}`);
      links.set(url, w.hrefs.map((h) => new URL(h, baseUrl)).filter((u) => u.origin === baseUrl).map((u) => u.pathname));
      return w;
    };
    const only = process.env.BENCH_CONSOLE_ONLY;
    for (const route of only === "lighthouse" ? [] : routes) {
      const url = await resolveRoute(route, known, demo.organization_id, async (parent) => {
        if (!links.has(parent)) await measure(parent, parent);
        return links.get(parent) ?? [];
      });
      if (!url) {
        weights.push({ route, url: null, gzipBytes: 0, firstLoadBytes: 0, scripts: 0 });
        continue;
      }
      const w = await measure(route, url);
      weights.push({ route, url, gzipBytes: w.gzipBytes, firstLoadBytes: w.firstLoadBytes, scripts: w.scripts });
    }
    await browser.close();
    browser = undefined;

    const orgBase = `/orgs/${demo.organization_id}`;
    // The detail pages' ids: the demo's first project and reservation, read through the console's backend.
    const bff = async <T,>(gatewayPath: string): Promise<T> => {
      const res = await fetch(`${baseUrl}/api/cloud${gatewayPath}`, { headers: { cookie } });
      if (!res.ok) throw new Error(`GET ${gatewayPath} through the console answered ${res.status}`);
      return (await res.json()) as T;
    };
    const projects = await bff<{ items: Array<{ id: string; organization_id: string }> }>(operationPath("listProjects"));
    const reservations = await bff<{ items: Array<{ id: string }> }>(operationPath("getReservations", { organization_id: demo.organization_id }));
    const ids: Record<string, string | undefined> = {
      project: projects.items.find((p) => p.organization_id === demo.organization_id)?.id,
      reservation: reservations.items[0]?.id,
    };
    const chosen = process.env.BENCH_LIGHTHOUSE_PAGES?.split(",").map((name) => name.trim());
    const unknownPages = chosen?.filter((name) => !LIGHTHOUSE_PAGES.some(([known]) => known === name)) ?? [];
    if (unknownPages.length) throw new Error(`BENCH_LIGHTHOUSE_PAGES: no page named ${unknownPages.join(", ")}`);
    const pages = LIGHTHOUSE_PAGES.filter(([name]) => !chosen || chosen.includes(name)).map(([name, suffix]): [string, string] => {
      const url = `${orgBase}${suffix}`.replace(/\{(\w+)\}/g, (_, key: string) => {
        const id = ids[key];
        if (!id) throw new Error(`the demo has no ${key} for the ${name} page`);
        return id;
      });
      return [name, url];
    });
    // Lighthouse's defaults (mobile, simulated throttling at 4x CPU), each page the median of LIGHTHOUSE_RUNS runs.
    const runs: Score[][] = [];
    const floorRuns: Score[][] = [];
    const darkRuns: Score[] = [];
    if (only !== "bundles") {
      const floorApp = await startFloorApp();
      try {
        // The floor in the same runs as the pages, so that a machine whose speed drifts affects both.
        for (let i = 0; i < LIGHTHOUSE_RUNS; i++) {
          runs.push(await lighthouseScores(baseUrl, cookie, pages));
          floorRuns.push(await lighthouseScores(floorApp.baseUrl, "", [["floor", "/"]]));
        }
      } finally {
        await floorApp.stop();
      }
      // The runs above show each page in the system's theme, light in headless Chromium; the dark
      // theme is the theme cookie's other choice, rendered by the server (lib/theme.ts).
      const darkCookie = `${cookie}; ${THEME_COOKIE}=dark`;
      const html = await (await fetch(`${baseUrl}${pages[0]![1]}`, { headers: { cookie: darkCookie } })).text();
      if (!/<html[^>]*class="[^"]*\bdark\b/.test(html)) throw new Error("the console did not render the dark theme for the theme cookie");
      darkRuns.push(...(await lighthouseScores(baseUrl, darkCookie, pages, ["accessibility"])));
    }
    const scores = runs.length ? medianRuns(runs) : [];
    const [floor] = floorRuns.length ? medianRuns(floorRuns) : [];
    const indexes = runs.flat().map((s) => s.benchmarkIndex).sort((a, b) => a - b);
    const benchmarkIndex = indexes[Math.floor(indexes.length / 2)] ?? 0;
    const list = (of: Score[]) =>
      of
        .map(
          (s) =>
            `${s.name}: performance ${s.performance}${s.spread ? ` [runs ${s.spread[0]}-${s.spread[1]}]` : ""} (${s.metrics}${onCore(s)}), accessibility ${s.accessibility}` +
            (darkOf.has(s.name) ? ` (dark ${darkOf.get(s.name)})` : ""),
        )
        .join("; ");
    const darkOf = new Map(darkRuns.map((s) => [s.name, s.accessibility]));
    // How much of the main thread's task time was the page's own work (the rest: waiting for a core, or on the browser process).
    const onCore = ({ mainThread: t }: Score) =>
      t && t.wallMs > 0 ? `; main-thread tasks ${Math.round(t.wallMs).toLocaleString("en-US")} ms, ${Math.round((100 * t.cpuMs) / t.wallMs)} % of it on a core` : "";
    const failing = scores
      .filter((s) => s.performance < 90 || !(s.tbtMs <= TBT_BUDGET_MS) || s.accessibility < 100 || darkOf.get(s.name) !== 100)
      .map((s) => s.name);

    const measuredRoutes = weights.filter((w) => w.url);
    const heaviest = measuredRoutes.reduce<RouteWeight | undefined>((a, b) => (!a || b.firstLoadBytes > a.firstLoadBytes ? b : a), undefined);
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
    const over = measuredRoutes.filter((w) => w.firstLoadBytes > BUNDLE_BUDGET_BYTES);
    const unresolved = weights.filter((w) => !w.url).map((w) => w.route);
    const rows: Row[] = [
      {
        what: "first page after a fresh start",
        how: `next start of the production build on an empty data dir, ${FRESH_STARTS} times with the demo asked for (STRATUS_SEED_DEMO=1: the store is opened and migrated before the server answers, instrumentation.ts, and the demo organization is written afterwards, in the background) and ${FRESH_STARTS} times without a demo, in turns (alternating which kind goes first); each time a new Chromium opens the sign-in page as soon as /healthz answers, timed until its heading shows; medians`,
        measured: `with the demo being written ${firstWithDemo} ms (runs ${withDemo.join(", ")}) vs without a demo ${firstWithoutDemo} ms (runs ${withoutDemo.join(", ")}) = ${firstRatio.toFixed(2)} ×; the last start answered /healthz ${((listeningAt - spawnedAt) / 1000).toFixed(1)} s after the spawn, showed its first page ${firstPageFromSpawnS.toFixed(1)} s after it, and had the demo ready (its sign-in buttons enabled) ${demoReadyS.toFixed(1)} s after it`,
        budget: `first page ≤ ${FIRST_PAGE_BUDGET} × the same page of a fresh start without a demo (it does not wait for the demo data)`,
        pass: firstRatio <= FIRST_PAGE_BUDGET,
      },
      {
        what: "console bundles",
        how: `production build (next build in ${builtIn.toFixed(0)} s), next start; ${measuredRoutes.length} page routes opened signed in as the demo owner (sign-in and home signed out) in Chromium with an empty cache, until the network is idle plus 1.5 s, Next's prefetches of other routes (Next-Router-Prefetch / Next-Router-Segment-Prefetch) aborted; First Load JS as Next defines it: gzipped bytes of the scripts the route's HTML names (its script tags and the client references hydration loads); in brackets, everything the route fetched, code-split parts loaded after hydration (charts) included${unresolved.length ? `; not reached (no link to follow): ${unresolved.join(", ")}` : ""}`,
        measured: `heaviest ${heaviest?.route} ${kb(heaviest?.firstLoadBytes ?? 0)}; ${measuredRoutes.map((w) => `${w.route.replace("/orgs/[orgId]", "…")} ${kb(w.firstLoadBytes)} (${kb(w.gzipBytes)})`).join(", ")}${over.length ? `; over: ${over.map((w) => w.route).join(", ")}` : ""}`,
        budget: `≤ ${kb(BUNDLE_BUDGET_BYTES)} gzipped for every route`,
        pass: over.length === 0 && unresolved.length === 0,
      },
      {
        what: "console pages",
        how:
          `Lighthouse 12 (${LIGHTHOUSE_PRESET === "desktop" ? "desktop preset" : "its default configuration: mobile, simulated throttling, 4x CPU"}), Chromium headless, the owner's session cookie as an extra header, every page of the organization (${pages.length}); each page is the median of ${LIGHTHOUSE_RUNS} runs by performance score (the runs' range in brackets), as Lighthouse's documentation on variability advises, in the system's theme (light); then accessibility alone once more in the dark theme (the theme cookie), in brackets; beside each page's metrics, its main thread's tasks in the median run's trace: their length, which the simulation scales, and the share of it the thread ran on a core (its thread time; the rest it waited, for a core the browser, Lighthouse and the server share on this host, or on the browser process); benchmarkIndex ${benchmarkIndex || "?"} (median over the runs)`,
        measured:
          list(scores) +
          (failing.length ? `; over budget: ${failing.join(", ")}` : "") +
          (floor
            ? `; the stack's floor in the same runs (scripts/bench/floor-app: one static page of a bare Next.js app, same next and React, no code of the console): performance ${floor.performance}${floor.spread ? ` [runs ${floor.spread[0]}-${floor.spread[1]}]` : ""} (${floor.metrics}${onCore(floor)})`
            : ""),
        budget: `every page: performance ≥ 90, Total Blocking Time ≤ ${TBT_BUDGET_MS} ms, accessibility 100 in both themes`,
        pass: scores.length === pages.length && darkRuns.length === pages.length && failing.length === 0,
      },
    ];
    return rows.filter((r) => (only === "bundles" ? r.what !== "console pages" : only === "lighthouse" ? r.what !== "console bundles" : true));

  } finally {
    await browser?.close().catch(() => undefined);
    await stopStarted(started);
  }
}
