import "server-only";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { resetAuthSecretCache } from "@/lib/console/secret";
import { resetEnvCache } from "@/lib/env";
import { startTestOidcProvider, TEST_SSO_DOMAIN, type TestOidcProvider } from "@/e2e/oidc-provider";
import { createTestGateway, type TestGateway } from "@/lib/gateway/testing";
import { consoleDb, setConsoleDbForTests, type ConsoleDb } from "./store/client";

export const TEST_AUTH_SECRET = "console-tests-auth-secret-0123456789abcdef";

const GATEWAY_KEY = Symbol.for("stratus.embeddedGateway");
type GlobalWithGateway = typeof globalThis & { [GATEWAY_KEY]?: Promise<TestGateway["gateway"]> };

export interface ConsoleTestbed {
  t: TestGateway;
  db: ConsoleDb;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * A test gateway (fresh store, demo organization) installed as this process's
 * embedded gateway, and the console's tables migrated into its store: the very
 * path a console server takes, without a server.
 */
export async function createConsoleTestbed(env: Record<string, string> = {}): Promise<ConsoleTestbed> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "stratus-console-"));
  const saved = { ...process.env };
  Object.assign(process.env, { AUTH_SECRET: TEST_AUTH_SECRET, STRATUS_DATA_DIR: dataDir, STRATUS_LOG_LEVEL: "silent", ...env });
  delete process.env.CLOUD_API_URL;
  resetEnvCache();
  resetAuthSecretCache();
  const t = await createTestGateway();
  const g = globalThis as GlobalWithGateway;
  g[GATEWAY_KEY] = Promise.resolve(t.gateway);
  setConsoleDbForTests(undefined);
  const db = await consoleDb();
  return {
    t,
    db,
    dataDir,
    close: async () => {
      setConsoleDbForTests(undefined);
      delete g[GATEWAY_KEY];
      await t.close();
      process.env = saved;
      resetEnvCache();
      resetAuthSecretCache();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface SsoTestbed {
  bed: ConsoleTestbed;
  /** A real OpenID provider on loopback (oidc-provider), its callbacks under `consoleOrigin`. */
  idp: TestOidcProvider;
  /** The demo organization's SSO provider for it (its domain TEST_SSO_DOMAIN). */
  providerId: string;
  close(): Promise<void>;
}

/** A console testbed at `consoleOrigin` whose demo organization signs in through a real OpenID provider. */
export async function createSsoTestbed(consoleOrigin: string): Promise<SsoTestbed> {
  const bed = await createConsoleTestbed({ STRATUS_SSO_LOOPBACK_ISSUERS: "1", NEXTAUTH_URL: consoleOrigin });
  const idp = await startTestOidcProvider({ callbackBase: `${consoleOrigin}/api/auth/callback/` });
  const created = await bed.t.opJson<{ id: string }>("owner", "createSSOProvider", {
    params: { organization_id: bed.t.demo.organization_id },
    body: { issuer_uri: idp.issuer, client_id: idp.clientId, client_secret: idp.clientSecret, email_domains: [TEST_SSO_DOMAIN] },
  });
  if (created.status !== 200) throw new Error(`createSSOProvider answered ${created.status}`);
  return {
    bed,
    idp,
    providerId: created.body.id,
    close: async () => {
      await idp.close();
      await bed.close();
    },
  };
}
