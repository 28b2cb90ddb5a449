/** What the CSV benchmarks read: an export (or COPY) read to the end, counted but not kept. */
import { operationPath } from "@/lib/contract/operations";
import type { Gateway } from "@/lib/gateway/runtime";
import { signedHeaders } from "@/lib/signing";

export interface Read {
  rows: number;
  bytes: number;
  seconds: number;
}

export function countNewlines(value: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < value.length; i++) if (value[i] === 10) n++;
  return n;
}

/** The billing export of the organization's days from `start` to `end`, through the gateway app's fetch handler, its whole response read. */
export async function readBillingExport(
  gateway: Gateway,
  credentials: { accessKeyId: string; secretKey: string },
  orgId: string,
  start: string,
  end: string,
): Promise<Read> {
  const t0 = performance.now();
  const url = new URL(`http://gateway.bench${operationPath("getBillingExportProductline", { organization_id: orgId })}?start_date=${start}&end_date=${end}`);
  const response = await gateway.app.fetch(new Request(url, { headers: signedHeaders(credentials, { method: "GET", url }) }));
  if (response.status !== 200 || !response.body) throw new Error(`the billing export answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  let newlines = 0;
  let bytes = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    newlines += countNewlines(value);
  }
  // Fields hold no newlines; the first line is the header.
  return { rows: newlines - 1, bytes, seconds: (performance.now() - t0) / 1000 };
}
