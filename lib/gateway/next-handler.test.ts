import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "@/lib/env";
import { gatewayRouteHandlers } from "./next-handler";

/** The API the console serves (app/v1, app/v1alpha5, app/scim/v2) when its embedded gateway cannot start. */

const SAVED = ["DATABASE_URL", "STRATUS_DATA_DIR", "STRATUS_MASTER_KEY", "CLOUD_API_URL"] as const;
let saved: Record<string, string | undefined>;
let dir: string;

beforeEach(() => {
  saved = Object.fromEntries(SAVED.map((name) => [name, process.env[name]]));
  dir = mkdtempSync(path.join(tmpdir(), "stratus-next-handler-"));
  delete process.env.CLOUD_API_URL;
  process.env.STRATUS_DATA_DIR = dir;
  resetEnvCache();
});

afterEach(() => {
  for (const name of SAVED) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  resetEnvCache();
  rmSync(dir, { recursive: true, force: true });
});

describe("the embedded gateway's route handlers", () => {
  it("answer 503 with Retry-After while the gateway's database cannot be reached, in the gateway's error shape or a SCIM error", async () => {
    // Nothing listens on the discard port of loopback: the connection is refused.
    process.env.DATABASE_URL = "postgres://stratus@127.0.0.1:9/stratus";
    resetEnvCache();
    const api = await gatewayRouteHandlers.GET(new Request("http://console.test/v1/locations"));
    expect(api.status).toBe(503);
    expect(api.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await api.json()).toMatchObject({ code: "503", reason: "unavailable", message: expect.stringMatching(/try again/) });
    const scim = await gatewayRouteHandlers.GET(new Request("http://console.test/scim/v2/Users"));
    expect(scim.status).toBe(503);
    expect(scim.headers.get("content-type")).toBe("application/scim+json");
    expect(await scim.json()).toEqual({ schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"], status: "503", detail: expect.stringMatching(/try again/) });
  });

  it("answer 500 with an error id when the gateway cannot start for another reason (a master key that is none)", async () => {
    delete process.env.DATABASE_URL;
    process.env.STRATUS_MASTER_KEY = "not a key";
    resetEnvCache();
    const res = await gatewayRouteHandlers.POST(new Request("http://console.test/v1/organizations/projects", { method: "POST", body: "{}" }));
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ code: "internal_error", reason: "internal", error_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });
});
