import { randomUUID } from "node:crypto";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import type { APIRequestContext } from "@playwright/test";
import { operationPath } from "@/lib/contract/operations";
import { expect, SERVER_LOG, test } from "./fixtures";
import { pagesOf } from "./org-pages";

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
 * The embedded gateway's calls (its request lines in the server's log: method and path) while `view`
 * runs. The log is written in batches, so a call of our own with an id of our own closes the window:
 * every call made before it is logged before it.
 */
async function gatewayCallsDuring(request: APIRequestContext, view: () => Promise<void>): Promise<string[]> {
  const from = statSync(SERVER_LOG).size;
  await view();
  const fence = `fence-${randomUUID()}`;
  expect((await request.get("/v1/healthz", { headers: { "x-request-id": fence } })).status()).toBe(200);
  let lines: string[] = [];
  await expect.poll(() => (lines = logSince(from).split("\n")).findIndex((line) => line.includes(fence)), { message: "the fence's line is logged" }).toBeGreaterThanOrEqual(0);
  return lines
    .slice(0, lines.findIndex((line) => line.includes(fence)))
    .flatMap((line) => {
      if (!line.startsWith("{")) return [];
      const entry = JSON.parse(line) as { msg?: string; method?: string; path?: string };
      return entry.msg === "request" ? [`${entry.method} ${entry.path}`] : [];
    });
}

test("a server render asks the gateway for the organization list once, though its layout and its page both read it", async ({ ownerPage, demo }) => {
  const entities = `GET ${operationPath("getOrganizations")}`;
  for (const url of await pagesOf(ownerPage, demo.organization_id, "owner")) {
    // The page's HTML only, as the server renders it: no script runs, so the browser asks nothing more.
    const calls = await gatewayCallsDuring(ownerPage.request, async () => {
      const response = await ownerPage.request.get(url);
      expect(response.status(), url).toBe(200);
    });
    expect(calls.length, `${url} is rendered with the gateway's answers`).toBeGreaterThan(0);
    expect(calls.filter((call) => call === entities).length, `${url}: ${calls.join(", ")}`).toBeLessThanOrEqual(1);
  }
});
