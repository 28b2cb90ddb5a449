import { defineConfig, devices } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./e2e/chromium";
import { E2E_AUTH_SECRET } from "./e2e/env";

const PORT = Number(process.env.E2E_PORT ?? 3100);
const DATA_DIR = process.env.E2E_DATA_DIR ?? ".data-e2e";
// What the server logs, every line, for e2e/global-teardown.ts to scan for secrets.
const SERVER_LOG = `${DATA_DIR}.log`;

/**
 * End-to-end tests drive the production build (`next start`) in Debian's Chromium
 * against the embedded gateway on a fresh data dir (wiped before the server starts).
 */
export default defineConfig({
  testDir: "e2e",
  fullyParallel: false,
  workers: 1,
  forbidOnly: !!process.env.CI,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [["list"]],
  globalSetup: "./e2e/global-setup.ts",
  globalTeardown: "./e2e/global-teardown.ts",
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    trace: "on-first-retry",
    launchOptions: {
      executablePath: CHROMIUM_PATH,
      args: CHROMIUM_ARGS,
    },
  },
  projects: [
    // Signs in as the demo owner and member through the UI; specs reuse e2e/.auth/<who>.json.
    { name: "setup", testMatch: /.*\.setup\.ts/, use: { ...devices["Desktop Chrome"], channel: undefined } },
    { name: "chromium", use: { ...devices["Desktop Chrome"], channel: undefined }, dependencies: ["setup"] },
  ],
  webServer: {
    command: `rm -rf ${DATA_DIR} ${SERVER_LOG} && npx next start -p ${PORT} -H 127.0.0.1 2>&1 | tee ${SERVER_LOG}`,
    url: `http://127.0.0.1:${PORT}/healthz`,
    reuseExistingServer: false,
    timeout: 120_000,
    env: {
      STRATUS_DATA_DIR: DATA_DIR,
      AUTH_SECRET: E2E_AUTH_SECRET,
      NEXTAUTH_SECRET: E2E_AUTH_SECRET,
      NEXTAUTH_URL: `http://127.0.0.1:${PORT}`,
      // Everything is logged (to SERVER_LOG), so that the scan for secrets sees every line there is.
      STRATUS_LOG_LEVEL: "debug",
      // next start runs in production mode: the demo organization and its sign-in must be asked for.
      STRATUS_SEED_DEMO: "1",
      STRATUS_DEMO: "1",
      // The SSO specs' OpenID provider (e2e/global-setup.ts) listens on http://127.0.0.1:<port>.
      STRATUS_SSO_LOOPBACK_ISSUERS: "1",
    },
  },
});
