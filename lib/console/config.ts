import "server-only";
import { authSecret } from "@/lib/console/secret";
import { env } from "@/lib/env";
import type { SignInLimit } from "./rate-limit";
import { deriveVaultKey, type VaultLimits } from "./vault";

let key: { secret: string; key: Buffer } | undefined;

/** The vault's encryption key, derived (HKDF-SHA256) from AUTH_SECRET. */
export function vaultKey(): Buffer {
  const secret = authSecret();
  if (key?.secret !== secret) key = { secret, key: deriveVaultKey(secret) };
  return key.key;
}

export function vaultLimits(): VaultLimits {
  const config = env();
  return { idleMinutes: config.STRATUS_SESSION_IDLE_MINUTES, maxHours: config.STRATUS_SESSION_MAX_HOURS };
}

export function signInLimit(): SignInLimit {
  const config = env();
  return { maxFailures: config.STRATUS_SIGN_IN_MAX_FAILURES, windowMs: config.STRATUS_SIGN_IN_WINDOW_MINUTES * 60_000 };
}

/** True when the console talks to the gateway in its own process. */
export function gatewayIsEmbedded(): boolean {
  return !env().CLOUD_API_URL;
}
