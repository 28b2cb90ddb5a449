import "server-only";
import { createApiKey } from "@/lib/gateway/admin";
import { embeddedGateway } from "@/lib/gateway/runtime";
import { deleteApiKeys } from "@/lib/gateway/store/queries/api-keys";
import { gatewayIsEmbedded } from "./config";
import type { Credentials } from "./vault";
import { errorDetail } from "@/lib/error-detail";

/**
 * API keys the console mints for the sessions SSO signs in: one per session, owned by the person,
 * expiring with the session's absolute end, held only in the vault, deleted when the session ends.
 * Only an embedded gateway's store can mint them (SSO sign-in needs it).
 */

export const MINTED_KEY_NAME = "Console SSO session";

/** A key for one session of the person, tied to the provider that signed it in (deleting the provider deletes it). */
export async function mintSessionKey(userId: string, expiresAt: Date, ssoProviderId: string): Promise<Credentials> {
  const { store, deps } = await embeddedGateway();
  return createApiKey(store.db, deps.masterKey, userId, MINTED_KEY_NAME, expiresAt, ssoProviderId);
}

/**
 * Deletes the keys of ended sessions. A failure is logged (ids only) and not thrown: ending the
 * session must not fail with it, and the key expires with the session anyway. A console that now
 * uses a remote gateway has no embedded store to delete them from (nor starts one for it).
 */
export async function revokeMintedKeys(accessKeyIds: string[]): Promise<void> {
  if (accessKeyIds.length === 0 || !gatewayIsEmbedded()) return;
  try {
    const { store } = await embeddedGateway();
    await deleteApiKeys(store.db, accessKeyIds);
  } catch (error) {
    process.stderr.write(`${JSON.stringify({ level: "error", msg: "could not delete minted session keys", component: "auth", access_key_ids: accessKeyIds, error: errorDetail(error) })}\n`);
  }
}
