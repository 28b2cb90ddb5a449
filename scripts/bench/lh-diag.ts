// TEMP diagnostic (not committed)
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "@playwright/test";
import lighthouse from "lighthouse";

const CH = "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run"];
async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), "lhd-"));
  const port = 3977;
  const base = `http://127.0.0.1:${port}`;
  const server = spawn("npx", ["next", "start", "-p", String(port), "-H", "127.0.0.1"], { stdio: "ignore", detached: true, env: { ...process.env, NODE_ENV: "production", STRATUS_DATA_DIR: dir, AUTH_SECRET: "x".repeat(40), NEXTAUTH_URL: base, STRATUS_DEMO: "1", STRATUS_LOG_LEVEL: "warn" } });
  try {
    for (;;) { try { if ((await fetch(`${base}/healthz`)).ok) break; } catch {} await new Promise((r) => setTimeout(r, 300)); }
    const browser = await chromium.launch({ executablePath: CH, args: FLAGS.filter((f) => f !== "--headless") });
    const ctx = await browser.newContext(); const page = await ctx.newPage();
    await page.goto(`${base}/sign-in`);
    const f = path.join(dir, "demo-credentials.json");
    while (!existsSync(f)) await new Promise((r) => setTimeout(r, 300));
    const demo = JSON.parse(readFileSync(f, "utf8"));
    await page.getByLabel("Access key ID").fill(demo.owner.access_key_id);
    await page.getByLabel("Secret key").fill(demo.owner.secret_key);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(/\/orgs\/[^/]+$/, { timeout: 90000 });
    const cookie = (await ctx.cookies()).find((c) => c.name.endsWith("next-auth.session-token"))!;
    await browser.close();
    const lp = 9555;
    const chrome = spawn(CH, [...FLAGS, `--remote-debugging-port=${lp}`, `--user-data-dir=${mkdtempSync(path.join(tmpdir(), "lhp-"))}`, "about:blank"], { stdio: "ignore", detached: true });
    await new Promise((r) => setTimeout(r, 2000));
    for (const suffix of ["", "/billing"]) {
      const html = await (await fetch(`${base}/orgs/${demo.organization_id}${suffix}`, { headers: { Cookie: `${cookie.name}=${cookie.value}` } })).text();
      const inline = [...html.matchAll(/<script[^>]*>([\s\S]*?)<\/script>/g)].reduce((n, m) => n + (m[1]?.length ?? 0), 0);
      console.log(`html ${suffix || "/"}: ${html.length} bytes, inline scripts ${inline}`);
      if (process.env.DUMP) (await import("node:fs")).writeFileSync(`/tmp/page${suffix.replace("/", "-") || "-overview"}.html`, html);
    }
    if (process.env.ONLY_HTML) return;
    for (const suffix of (process.env.PAGES ?? ",/billing,/audit-logs").split(",")) {
      const url = `${base}/orgs/${demo.organization_id}${suffix}`;
      const r = await lighthouse(url, { port: lp, output: "json", logLevel: "error", onlyCategories: ["performance"], extraHeaders: { Cookie: `${cookie.name}=${cookie.value}` } });
      const a = r!.lhr.audits;
      if (r!.lhr.runtimeError) console.log("runtimeError", JSON.stringify(r!.lhr.runtimeError));
      console.log(`\n== ${suffix || "/"} perf ${Math.round((r!.lhr.categories.performance!.score ?? 0) * 100)} TBT ${a["total-blocking-time"]?.displayValue} LCP ${a["largest-contentful-paint"]?.displayValue} bi ${r!.lhr.environment.benchmarkIndex}`);
      const boot = (a["bootup-time"]?.details as { items?: Array<{ url: string; total: number; scripting: number; scriptParseCompile: number }> })?.items ?? [];
      for (const i of boot.slice(0, 8)) console.log(`  boot ${i.total.toFixed(0)}ms script ${i.scripting.toFixed(0)} parse ${i.scriptParseCompile.toFixed(0)} ${i.url.replace(base, "")}`);
      const lt = (a["long-tasks"]?.details as { items?: Array<{ url: string; duration: number; startTime: number }> })?.items ?? [];
      for (const i of lt.slice(0, 12)) console.log(`  long ${i.duration.toFixed(0)}ms at ${i.startTime.toFixed(0)} ${i.url.replace(base, "")}`);
      const mw = (a["mainthread-work-breakdown"]?.details as { items?: Array<{ groupLabel: string; duration: number }> })?.items ?? [];
      console.log("  main: " + mw.map((i) => `${i.groupLabel} ${i.duration.toFixed(0)}`).join(", "));
    }
    try { process.kill(-chrome.pid!, "SIGTERM"); } catch {}
  } finally {
    try { process.kill(-server.pid!, "SIGTERM"); } catch {}
  }
}
void main().then(() => process.exit(0));
