import type { FullConfig } from "@playwright/test";
import { startTestOidcProvider } from "./oidc-provider";

/**
 * A real OpenID provider on a free loopback port for the SSO specs (e2e/sso.spec.ts), which read
 * where it is and its client's credentials from the environment set here; stopped after the run.
 */
export default async function globalSetup(config: FullConfig): Promise<() => Promise<void>> {
  const baseURL = config.projects[0]?.use.baseURL;
  if (!baseURL) throw new Error("playwright.config.ts names no baseURL");
  const idp = await startTestOidcProvider({ callbackBase: `${baseURL}/api/auth/callback/` });
  process.env.E2E_OIDC_ISSUER = idp.issuer;
  process.env.E2E_OIDC_CLIENT_ID = idp.clientId;
  process.env.E2E_OIDC_CLIENT_SECRET = idp.clientSecret;
  process.env.E2E_OIDC_CONTROL_TOKEN = idp.controlToken;
  return () => idp.close();
}
