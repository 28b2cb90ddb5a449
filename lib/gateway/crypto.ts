import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/** A fresh API or S3 secret: 32 random bytes, raw URL-safe base64. */
export function newSecret(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

/** An access key id: readable prefix plus 20 random characters. */
export function newAccessKeyId(prefix = "AK"): string {
  return `${prefix}${randomBytes(15).toString("base64url").replace(/[-_]/g, "X").toUpperCase()}`;
}

/** SHA-256 of a one-time secret, for secrets we only ever compare (S3, SCIM, registry). */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** Parses a 32-byte key written as base64, base64url or hex. */
export function parseMasterKey(value: string): Buffer {
  const trimmed = value.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, "hex") : Buffer.from(trimmed, "base64");
  if (key.length !== 32) throw new Error("STRATUS_MASTER_KEY must be 32 bytes (64 hex characters or base64)");
  return key;
}

/** The key from STRATUS_MASTER_KEY, or one generated once into the data dir (mode 0600). */
export function loadMasterKey(configured: string | undefined, dataDir: string): Buffer {
  if (configured) return parseMasterKey(configured);
  const dir = path.resolve(dataDir);
  const file = path.join(dir, "master.key");
  if (existsSync(file)) return parseMasterKey(readFileSync(file, "utf8"));
  mkdirSync(dir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString("base64"), { mode: 0o600, flag: "wx" });
  chmodSync(file, 0o600);
  return key;
}

/** AES-256-GCM; output is v1.<iv>.<tag>.<ciphertext>, each base64url. */
export function encrypt(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(".");
}

export function decrypt(key: Buffer, sealed: string): string {
  const [version, iv, tag, body] = sealed.split(".");
  if (version !== "v1" || !iv || !tag || body === undefined) throw new Error("unreadable ciphertext");
  // A fixed tag length: GCM would otherwise accept a truncated tag, which is far easier to forge.
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"), { authTagLength: 16 });
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
}
