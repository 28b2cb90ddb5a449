import "server-only";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { env } from "@/lib/env";

const MIN_PRODUCTION_LENGTH = 32;

let cached: string | undefined;

/**
 * The secret that encrypts the session cookie and keys the console's vault.
 * AUTH_SECRET (or NEXTAUTH_SECRET) in production, at least 32 characters. In
 * development and tests, when neither is set, one is generated once into
 * `${STRATUS_DATA_DIR}/auth.secret` (mode 0600) so sessions survive restarts;
 * deleting that file signs everyone out.
 */
export function authSecret(): string {
  if (cached) return cached;
  const config = env();
  const configured = config.AUTH_SECRET ?? config.NEXTAUTH_SECRET;
  if (configured) {
    if (config.NODE_ENV === "production" && configured.length < MIN_PRODUCTION_LENGTH) {
      throw new Error(`AUTH_SECRET must be at least ${MIN_PRODUCTION_LENGTH} characters (e.g. \`openssl rand -hex 32\`)`);
    }
    cached = configured;
    return cached;
  }
  if (config.NODE_ENV === "production") {
    throw new Error("AUTH_SECRET (or NEXTAUTH_SECRET) must be set in production (e.g. `openssl rand -hex 32`)");
  }
  cached = developmentSecret(config.STRATUS_DATA_DIR);
  return cached;
}

function developmentSecret(dataDir: string): string {
  const dir = path.resolve(dataDir);
  const file = path.join(dir, "auth.secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dir, { recursive: true });
  const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  try {
    writeFileSync(file, secret, { mode: 0o600, flag: "wx" });
    chmodSync(file, 0o600);
    return secret;
  } catch (error) {
    // Another worker wrote it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return readFileSync(file, "utf8").trim();
    throw error;
  }
}

/** Tests change the environment between cases. */
export function resetAuthSecretCache(): void {
  cached = undefined;
}
