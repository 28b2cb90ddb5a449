import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decrypt, encrypt, hashSecret, loadMasterKey, newAccessKeyId, newSecret, parseMasterKey } from "./crypto";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "stratus-crypto-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Flips one bit of a base64url part of a sealed value. */
function tamper(sealed: string, part: number): string {
  const parts = sealed.split(".");
  const bytes = Buffer.from(parts[part]!, "base64url");
  bytes[0]! ^= 0x01;
  parts[part] = bytes.toString("base64url");
  return parts.join(".");
}

describe("encrypt / decrypt", () => {
  const key = randomBytes(32);

  it.each(["", "secret", newSecret(), "ünïcødé ☁ ".repeat(50)])("round-trips %j", (plaintext) => {
    expect(decrypt(key, encrypt(key, plaintext))).toBe(plaintext);
  });

  it("seals the same plaintext differently each time and never shows it", () => {
    const secret = newSecret();
    const a = encrypt(key, secret);
    const b = encrypt(key, secret);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(a).not.toContain(secret);
    expect(Buffer.from(a.split(".")[3]!, "base64url").toString("utf8")).not.toContain(secret);
  });

  it.each([
    ["the iv", 1],
    ["the tag", 2],
    ["the ciphertext", 3],
  ])("throws when %s is tampered with", (_what, part) => {
    const sealed = encrypt(key, "the secret");
    expect(() => decrypt(key, tamper(sealed, part))).toThrow();
  });

  it("throws under another key, and on malformed input", () => {
    const sealed = encrypt(key, "the secret");
    expect(() => decrypt(randomBytes(32), sealed)).toThrow();
    expect(() => decrypt(key, sealed.replace(/^v1/, "v2"))).toThrow(/unreadable/);
    expect(() => decrypt(key, "v1.abc")).toThrow(/unreadable/);
    expect(() => decrypt(key, "")).toThrow();
    const [v, iv, tag, body] = sealed.split(".");
    // Truncated tags of 4, 8 and 12 bytes: GCM accepts them unless the length is fixed.
    for (const chars of [6, 11, 16]) expect(() => decrypt(key, [v, iv, tag!.slice(0, chars), body].join("."))).toThrow();
  });
});

describe("master key", () => {
  it("is generated into the data dir with mode 0600 and reused", () => {
    const dir = path.join(tempDir(), "nested", "data");
    const first = loadMasterKey(undefined, dir);
    expect(first).toHaveLength(32);
    const file = path.join(dir, "master.key");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = readFileSync(file, "utf8");

    const second = loadMasterKey(undefined, dir);
    expect(second.equals(first)).toBe(true);
    expect(readFileSync(file, "utf8")).toBe(stored);
    expect(decrypt(second, encrypt(first, "kept across restarts"))).toBe("kept across restarts");
  });

  it("prefers the configured key, written as hex or base64", () => {
    const dir = tempDir();
    const key = randomBytes(32);
    expect(loadMasterKey(key.toString("hex"), dir).equals(key)).toBe(true);
    expect(loadMasterKey(key.toString("base64"), dir).equals(key)).toBe(true);
    expect(parseMasterKey(`  ${key.toString("hex")}\n`).equals(key)).toBe(true);
    // A configured key writes nothing into the data dir.
    expect(() => statSync(path.join(dir, "master.key"))).toThrow();
  });

  it("refuses a key that is not 32 bytes, configured or found in the data dir", () => {
    expect(() => parseMasterKey("abcd")).toThrow(/32 bytes/);
    expect(() => loadMasterKey(randomBytes(16).toString("base64"), tempDir())).toThrow(/32 bytes/);
    const dir = tempDir();
    writeFileSync(path.join(dir, "master.key"), "short");
    expect(() => loadMasterKey(undefined, dir)).toThrow(/32 bytes/);
  });
});

describe("secrets and ids", () => {
  it("makes secrets of 32 random bytes in raw URL-safe base64", () => {
    const secrets = new Set(Array.from({ length: 50 }, () => newSecret()));
    expect(secrets.size).toBe(50);
    for (const s of secrets) {
      expect(s).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(s, "base64url")).toHaveLength(32);
    }
  });

  it("makes access key ids with a readable prefix", () => {
    expect(newAccessKeyId()).toMatch(/^AK[A-Z0-9X]{20}$/);
    expect(newAccessKeyId("S3")).toMatch(/^S3[A-Z0-9X]{20}$/);
    expect(newAccessKeyId()).not.toBe(newAccessKeyId());
  });

  it("hashes one-time secrets with SHA-256", () => {
    expect(hashSecret("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(hashSecret("abc")).not.toBe(hashSecret("abd"));
  });
});
