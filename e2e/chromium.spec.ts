import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { OMNIBOX_POPUP_FEATURES } from "./chromium";

// The browser itself, as e2e/chromium.ts launches it: no page of the console is needed.
test("Chromium keeps Playwright's disabled features and ours: the last --disable-features, the one it honours, holds them all", async ({ browser }) => {
  const cdp = await browser.newBrowserCDPSession();
  const { processInfo } = await cdp.send("SystemInfo.getProcessInfo");
  const main = processInfo.find((p) => p.type === "browser");
  expect(main, "the browser process").toBeTruthy();
  // Its command line as the kernel holds it (Chromium may rewrite it into one string: split on spaces too).
  const args = readFileSync(`/proc/${main!.id}/cmdline`, "utf8").split(/[\0 ]/);
  const lists = args.filter((a) => a.startsWith("--disable-features=")).map((a) => a.slice("--disable-features=".length).split(","));
  expect(lists.length, "Playwright's list and ours").toBeGreaterThanOrEqual(2);
  const honoured = lists.at(-1)!;
  expect(honoured).toEqual(expect.arrayContaining([...new Set(lists.flat())]));
  expect(honoured).toEqual(expect.arrayContaining(OMNIBOX_POPUP_FEATURES));
});

test("a new window builds no address-bar popup: no renderer of the browser's own WebUI runs beside the page", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto("data:text/html,<title>t</title><h1>page</h1>");
  await expect(page.getByRole("heading", { name: "page" })).toBeVisible();
  const cdp = await browser.newBrowserCDPSession();
  const { processInfo } = await cdp.send("SystemInfo.getProcessInfo");
  const renderers = processInfo.filter((p) => p.type === "renderer");
  expect(renderers.length, "the page's renderer at least").toBeGreaterThan(0);
  const commandLines = renderers.map((p) => readFileSync(`/proc/${p.id}/cmdline`, "utf8"));
  expect(commandLines.filter((c) => c.includes("--top-chrome-webui"))).toEqual([]);
  await context.close();
});
