import { createHmac, timingSafeEqual } from "node:crypto";
import { decrypt } from "./crypto";
import type { Database } from "./store/client";
import { readMasterKeyCheck, recordMasterKeyCheck, sealedSecrets } from "./store/queries/master-key";

/** The label whose HMAC under the master key is kept in the store: it tells whether a key is the store's, not the key. */
const CHECK_LABEL = "stratus master key check v1";

export function masterKeyCheckValue(key: Buffer): string {
  return createHmac("sha256", key).update(CHECK_LABEL).digest("base64url");
}

export const MASTER_KEY_MISMATCH =
  "STRATUS_MASTER_KEY is not the key this store's secrets are sealed with: give every gateway and console of the store the same STRATUS_MASTER_KEY (without it, each makes its own in its data dir)";

/**
 * Refuses a master key other than the one the store's secrets are sealed with (throws, naming the variable). A store
 * that has no check value yet gets this key's, once most of its sealed secrets (from before the check existed) open
 * under it; another replica's, written first, is then compared instead. Reads only when the value is there, so a
 * replica starting on a read-only standby does not fail on it.
 */
export async function confirmMasterKey(db: Database, key: Buffer): Promise<void> {
  const ours = masterKeyCheckValue(key);
  let kept = await readMasterKeyCheck(db);
  if (kept === null) {
    // A store from before the check: the key is its own if it opens most of the secrets sealed there (a few sealed
    // under a stray key, by mistake, do not make the right key look wrong; the wrong one opens none of the others).
    const sealed = await sealedSecrets(db);
    if (sealed.length > 0 && sealed.filter((each) => opens(key, each)).length * 2 <= sealed.length) throw new Error(MASTER_KEY_MISMATCH);
    kept = await recordMasterKeyCheck(db, ours);
  }
  const a = Buffer.from(kept);
  const b = Buffer.from(ours);
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw new Error(MASTER_KEY_MISMATCH);
}

function opens(key: Buffer, sealed: string): boolean {
  try {
    decrypt(key, sealed);
    return true;
  } catch {
    return false;
  }
}
