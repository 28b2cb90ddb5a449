import { createDecipheriv, hkdfSync } from "node:crypto";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { E2E_AUTH_SECRET } from "./env";
import { DATA_DIR } from "./fixtures";

/**
 * What the server holds and never sends: the key the console minted for a person's SSO session,
 * read from a copy of the running server's store (one process owns a PGlite data dir, so the copy
 * is opened, not the original) and unsealed as the vault does (AES-256-GCM, key derived from
 * AUTH_SECRET, the session id as associated data). The specs need it to look for it where it must
 * not be, and to show it stops working.
 */
export async function mintedSessionKey(email: string): Promise<{ accessKeyId: string; secretKey: string }> {
  const copy = mkdtempSync(path.join(tmpdir(), "stratus-e2e-store-"));
  cpSync(path.join(DATA_DIR, "pgdata"), copy, { recursive: true });
  const db = await PGlite.create(copy);
  try {
    const { rows } = await db.query<{ id: string; access_key_id: string; secret_ciphertext: string }>(
      `select id, access_key_id, secret_ciphertext from console_sessions
       where email = $1 and sso_provider_id is not null and ended_reason is null order by created_at desc limit 1`,
      [email],
    );
    const row = rows[0];
    if (!row) throw new Error(`no SSO session of ${email} in the store`);
    return { accessKeyId: row.access_key_id, secretKey: unseal(row.id, row.secret_ciphertext) };
  } finally {
    await db.close();
    rmSync(copy, { recursive: true, force: true });
  }
}

function unseal(sessionId: string, sealed: string): string {
  const key = Buffer.from(hkdfSync("sha256", E2E_AUTH_SECRET, "stratus-console", "stratus console key vault v1", 32));
  const [, iv, tag, body] = sealed.split(".");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv ?? "", "base64url"), { authTagLength: 16 });
  decipher.setAAD(Buffer.from(sessionId, "utf8"));
  decipher.setAuthTag(Buffer.from(tag ?? "", "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(body ?? "", "base64url")), decipher.final()]).toString("utf8");
}
