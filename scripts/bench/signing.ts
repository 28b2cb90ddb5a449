/**
 * Signing cost: verify() of lib/signing on a realistic signed GET, the key lookup
 * answered from memory, against the least any verifier must do: one HMAC-SHA256 of
 * the same payload with the raw key and one constant-time compare of the digests.
 * Both are timed in the same run, in alternating batches of the same loop, so the
 * machine's speed and the loop's own cost cancel out of the ratio. Judged with one query
 * on every call (what a client polling a list sends); the ratio with a query not seen
 * lately on every call is shown beside it.
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

interface Signed {
  query: string;
  timestamp: string;
  authorization: string;
  /** What the baseline starts from: what verify() has to compute or decode itself. */
  payload: string;
  given: Buffer;
}

interface Timing {
  verifyMedian: number;
  baselineMedian: number;
  verifyP99: number;
}

/**
 * verify() against the baseline over the same requests: warmed up, then timed in batches
 * (a clock read costs a fair part of a call this short), the two alternating.
 */
async function timeBoth(requests: Signed[], rawKey: Buffer, path: string, now: number, lookupKey: () => Promise<{ secret: string; key: string }>, iterations: number): Promise<Timing> {
  const verifyOnce = async (i: number) => {
    const r = requests[i % requests.length]!;
    const result = await verify({ authorization: r.authorization, timestamp: r.timestamp, method: "GET", path, query: r.query, now, lookupKey });
    if (!result.ok) throw new Error(`verify refused a good signature: ${result.reason}`);
  };
  const baselineOnce = async (i: number) => {
    const r = requests[i % requests.length]!;
    const expected = createHmac("sha256", rawKey).update(r.payload).digest();
    if (!timingSafeEqual(expected, r.given)) throw new Error("the baseline refused a good signature");
  };
  const warmUp = Math.min(20_000, iterations);
  for (let i = 0; i < warmUp; i++) {
    await verifyOnce(i);
    await baselineOnce(i);
  }
  const batches = iterations / BATCH;
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
  return { verifyMedian: median(verifyPerCall), baselineMedian: median(baselinePerCall), verifyP99: percentile(verifyPerCall, 99) };
}

export async function run(scale: Scale): Promise<Row[]> {
  const secret = randomBytes(32).toString("base64url");
  const rawKey = Buffer.from(secret, "base64url");
  const accessKeyId = "AKBENCH0000000001";
  const path = "/v1alpha5/organizations/8f1c2a9e-0000-4000-8000-000000000001/audit-logs";
  const now = Date.now();
  const found = { secret, key: accessKeyId };
  // Made once, as the gateway makes its lookup once: a closure made per call would be timed as
  // verify()'s (and tsx names each one it makes).
  const lookupKey = async () => found;
  // Distinct timestamps, so no two calls sign the same payload. The query is not in canonical
  // form (names out of order, a space as %20), so verify() has to re-order and re-escape it.
  const signed = (i: number, query: string): Signed => {
    const timestamp = new Date(now - i).toISOString();
    const signature = sign(secret, { method: "GET", path, query, timestamp });
    return {
      query,
      timestamp,
      authorization: authorizationHeader(accessKeyId, signature),
      payload: signingPayload({ method: "GET", path, query, timestamp }),
      given: Buffer.from(signature, "base64url"),
    };
  };
  const query = (limit: number) => `?limit=${limit}&actions=Create&actor_types=Platform%20Admin&results_not=Failure`;
  // One query on every call, as a client polling a list sends: after the first call, its
  // canonical form comes from lib/signing's memory of recent queries.
  const repeated = await timeBoth(
    Array.from({ length: 1000 }, (_, i) => signed(i, query(20))),
    rawKey, path, now, lookupKey, scale.signingIterations,
  );
  // A query not among the recent ones on every call: 1,000 distinct queries in turn, more than
  // that memory holds, so each is worked out again.
  const distinct = await timeBoth(
    Array.from({ length: 1000 }, (_, i) => signed(i, query(i + 1))),
    rawKey, path, now, lookupKey, scale.signingIterations,
  );
  const ratio = repeated.verifyMedian / repeated.baselineMedian;
  const distinctRatio = distinct.verifyMedian / distinct.baselineMedian;
  return [
    {
      what: "signing cost",
      how:
        `verify() of lib/signing per request (a GET with a 4-pair query not in canonical form, the key from memory) vs a bare createHmac + timingSafeEqual ` +
        `over the same payload with the decoded key: ${scale.signingIterations.toLocaleString("en-US")} calls each after warm-up, ` +
        `in alternating batches of ${BATCH}; medians of the batches' time per call; judged with one query on every call (a client polling a list), ` +
        `and shown with a query not seen lately on every call (1,000 distinct ones in turn)`,
      measured:
        `${ratio.toFixed(2)} × (median ${micros(repeated.verifyMedian)} vs ${micros(repeated.baselineMedian)}; verify p99 ${micros(repeated.verifyP99)}); ` +
        `queries not seen lately: ${distinctRatio.toFixed(2)} × (${micros(distinct.verifyMedian)} vs ${micros(distinct.baselineMedian)})`,
      budget: `verify ≤ ${BUDGET_RATIO} × the bare HMAC`,
      pass: ratio <= BUDGET_RATIO,
    },
  ];
}
