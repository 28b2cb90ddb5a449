import type { APIRequestContext } from "@playwright/test";
import { operationPath } from "@/lib/contract/operations";
import { expect, logEnd, logLinesUntilNow, test } from "./fixtures";
import { pagesOf } from "./org-pages";

/** The embedded gateway's calls (its request lines in the server's log: method and path) while `view` runs. */
async function gatewayCallsDuring(request: APIRequestContext, view: () => Promise<void>): Promise<string[]> {
  const from = logEnd();
  await view();
  return (await logLinesUntilNow(request, from))
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
