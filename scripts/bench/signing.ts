/**
 * Signing cost: verify() of lib/signing on a realistic signed GET, the key lookup
 * answered from memory, against the least any verifier must do: one HMAC-SHA256 of
 * the same payload with the raw key and one constant-time compare of the digests.
 * Both are timed in the same run, in alternating batches of the same loop, so the
 * machine's speed and the loop's own cost cancel out of the ratio.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { authorizationHeader, sign, signingPayload, verify } from "@/lib/signing";
import type { Row } from "./report";
import type { Scale } from "./scale";
import { median, nowMs, percentile } from "./stats";

const BATCH = 100;
const BUDGET_RATIO = 2.5;

/** Microseconds with one decimal: these calls take a few. */
const micros = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;

export async function run(scale: Scale): Promise<Row[]> {
  const secret = randomBytes(32).toString("base64url");
  const rawKey = Buffer.from(secret, "base64url");
  const accessKeyId = "AKBENCH0000000001";
  const path = "/v1alpha5/organizations/8f1c2a9e-0000-4000-8000-000000000001/audit-logs";
  const query = "?limit=20&actions=Create&actor_types=Platform%20Admin&results_not=Failure";
  const now = Date.now();
  const found = { secret, key: accessKeyId };
  // Distinct timestamps, so no two calls sign the same payload.
  const requests = Array.from({ length: 1000 }, (_, i) => {
    const timestamp = new Date(now - i).toISOString();
    const signature = sign(secret, { method: "GET", path, query, timestamp });
    return {
      timestamp,
      authorization: authorizationHeader(accessKeyId, signature),
      // The baseline starts from what verify() has to compute or decode itself.
      payload: signingPayload({ method: "GET", path, query, timestamp }),
      given: Buffer.from(signature, "base64url"),
    };
  });
  const verifyOnce = async (i: number) => {
    const r = requests[i % requests.length]!;
    const result = await verify({ authorization: r.authorization, timestamp: r.timestamp, method: "GET", path, query, now, lookupKey: async () => found });
    if (!result.ok) throw new Error(`verify refused a good signature: ${result.reason}`);
  };
  const baselineOnce = async (i: number) => {
    const r = requests[i % requests.length]!;
    const expected = createHmac("sha256", rawKey).update(r.payload).digest();
    if (!timingSafeEqual(expected, r.given)) throw new Error("the baseline refused a good signature");
  };

  const warmUp = Math.min(20_000, scale.signingIterations);
  for (let i = 0; i < warmUp; i++) {
    await verifyOnce(i);
    await baselineOnce(i);
  }
  // Timed in batches (a clock read costs a fair part of a call this short), the two alternating.
  const batches = scale.signingIterations / BATCH;
  const verifyPerCall = new Array<number>(batches);
  const baselinePerCall = new Array<number>(batches);
  for (let b = 0; b < batches; b++) {
    let start = nowMs();
    for (let i = 0; i < BATCH; i++) await verifyOnce(b * BATCH + i);
    verifyPerCall[b] = (nowMs() - start) / BATCH;
    start = nowMs();
    for (let i = 0; i < BATCH; i++) await baselineOnce(b * BATCH + i);
    baselinePerCall[b] = (nowMs() - start) / BATCH;
  }
  const verifyMedian = median(verifyPerCall);
  const baselineMedian = median(baselinePerCall);
  const ratio = verifyMedian / baselineMedian;
  return [
    {
      what: "signing cost",
      how:
        `verify() of lib/signing per request (a GET with a 4-pair query, the key from memory) vs a bare createHmac + timingSafeEqual ` +
        `over the same payload with the decoded key: ${scale.signingIterations.toLocaleString("en-US")} calls each after warm-up, ` +
        `in alternating batches of ${BATCH}; medians of the batches' time per call`,
      measured: `${ratio.toFixed(2)} × (median ${micros(verifyMedian)} vs ${micros(baselineMedian)}; verify p99 ${micros(percentile(verifyPerCall, 99))})`,
      budget: `verify ≤ ${BUDGET_RATIO} × the bare HMAC`,
      pass: ratio <= BUDGET_RATIO,
    },
  ];
}
