import type { Page, Response } from "@playwright/test";

/** Every way a secret could be written: as issued, its bytes in base64/base64url/hex, the string's own encodings. */
export function secretForms(secret: string): Record<string, string> {
  const bytes = Buffer.from(secret, "base64url");
  const text = Buffer.from(secret, "utf8");
  return {
    raw: secret,
    "bytes base64": bytes.toString("base64"),
    "bytes base64 unpadded": bytes.toString("base64").replace(/=+$/, ""),
    "bytes base64url": bytes.toString("base64url"),
    "bytes hex": bytes.toString("hex"),
    "bytes HEX": bytes.toString("hex").toUpperCase(),
    "string base64": text.toString("base64").replace(/=+$/, ""),
    "string base64url": text.toString("base64url"),
    "string hex": text.toString("hex"),
    "url-encoded": encodeURIComponent(secret),
  };
}

export interface Seen {
  where: string;
  text: string;
}

/** Records every response a page gets (headers and body), for a search for secrets afterwards; `settled()` waits for the reads. */
export function recordResponses(page: Page): { seen: Seen[]; settled: () => Promise<void> } {
  const seen: Seen[] = [];
  const reads: Promise<void>[] = [];
  page.on("response", (response: Response) => {
    reads.push(
      (async () => {
        const where = `${response.request().method()} ${response.url()} (${response.status()})`;
        seen.push({ where: `${where} headers`, text: JSON.stringify(await response.allHeaders()) });
        try {
          seen.push({ where: `${where} body`, text: (await response.body()).toString("utf8") });
        } catch {
          // redirects and aborted requests have no body
        }
      })(),
    );
  });
  return { seen, settled: async () => void (await Promise.all(reads)) };
}

/** Where in `seen` any written form of `secret` appears. */
export function leaksOf(name: string, secret: string, seen: Seen[]): string[] {
  const leaks: string[] = [];
  for (const [form, value] of Object.entries(secretForms(secret))) {
    for (const s of seen) if (s.text.includes(value)) leaks.push(`${name} (${form}) in ${s.where}`);
  }
  return leaks;
}
