import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { DATA_DIR, SERVER_LOG } from "./fixtures";

/** A secret as written, and as it would read after the usual re-encodings. */
function encodings(secret: string): string[] {
  const bytes = Buffer.from(secret, "base64url");
  return [secret, Buffer.from(secret).toString("base64"), bytes.toString("base64"), bytes.toString("hex"), encodeURIComponent(secret)];
}

/**
 * No log line of the console's server (the embedded gateway's included), at debug level for the
 * whole run, carries a secret: the demo users' API-key secrets, the master key, the auth secret or
 * the SSO client secret.
 */
export default async function globalTeardown(): Promise<void> {
  if (!existsSync(SERVER_LOG)) throw new Error(`${SERVER_LOG}: the server's log was not written`);
  const log = readFileSync(SERVER_LOG, "utf8");
  const secrets: Array<[string, string]> = [];
  const credentials = path.join(DATA_DIR, "demo-credentials.json");
  if (existsSync(credentials)) {
    const demo = JSON.parse(readFileSync(credentials, "utf8")) as Record<string, { secret_key?: string }>;
    for (const who of ["owner", "member", "outsider"]) if (demo[who]?.secret_key) secrets.push([`${who}'s secret key`, demo[who].secret_key]);
  }
  const masterKey = path.join(DATA_DIR, "master.key");
  if (existsSync(masterKey)) secrets.push(["the master key", readFileSync(masterKey, "utf8").trim()]);
  if (process.env.AUTH_SECRET) secrets.push(["the auth secret", process.env.AUTH_SECRET]);
  // Set by e2e/global-setup.ts: the test OpenID provider's client secret, which the SSO spec gives the console.
  if (process.env.E2E_OIDC_CLIENT_SECRET) secrets.push(["the SSO client secret", process.env.E2E_OIDC_CLIENT_SECRET]);
  const leaked = secrets.filter(([, secret]) => encodings(secret).some((form) => log.includes(form))).map(([name]) => name);
  if (leaked.length > 0) throw new Error(`the server's log holds ${leaked.join(", ")}`);
}
