/**
 * Backend-for-frontend overhead: GET /api/cloud/v1/organizations/projects through
 * the console's route handler (session cookie → vault → sign → the embedded gateway
 * in-process) versus the same signed request handed to the gateway app's fetch
 * directly. Calls alternate, so both see the same warm store; the difference of the
 * medians is what the console adds.
 */
import { encode } from "next-auth/jwt";
import { RequestCookies } from "next/dist/server/web/spec-extension/cookies";
import { authSecret } from "@/lib/console/secret";
import { sessionCookieName } from "@/lib/console/cookies";
import { signInWithKey } from "@/lib/console/sign-in";
import { sessionStateFromCookies } from "@/lib/console/session";
import { handleCloudRequest, type BffDeps } from "@/lib/console/bff";
import { cloudFetch } from "@/lib/console/gateway-client";
import { createConsoleTestbed } from "@/lib/console/testing";
import { signedHeaders } from "@/lib/signing";
import type { Row } from "./report";
import type { Scale } from "./scale";
import { formatMs, median, nowMs } from "./stats";

const GATEWAY_PATH = "/v1/organizations/projects";

export async function run(scale: Scale): Promise<Row[]> {
  const bed = await createConsoleTestbed();
  try {
    const owner = bed.t.demo.owner;
    const credentials = { accessKeyId: owner.access_key_id, secretKey: owner.secret_key };
    const signedIn = await signInWithKey({ credentials, clientIp: "203.0.113.10", rateLimited: false });
    const token = await encode({ token: { sid: signedIn.sessionId, uid: signedIn.userId, email: signedIn.email }, secret: authSecret() });
    const cookie = `${sessionCookieName()}=${token}`;

    const throughConsole = async () => {
      const request = new Request(`http://console.bench/api/cloud${GATEWAY_PATH}`, { headers: { cookie, host: "console.bench" } });
      // The handler's own session resolution (lib/console/session), with the cookies Next.js would give
      // it: next/headers' cookies() in a route handler is RequestCookies over the request's headers.
      const deps: BffDeps = { session: () => sessionStateFromCookies(new RequestCookies(request.headers)), fetch: cloudFetch, maxBodyBytes: 1 << 20, trustedProxyHops: 1 };
      return handleCloudRequest(request, deps);
    };
    const direct = async () => {
      // The request gatewayFetch builds: the same headers, signed the same way.
      const url = new URL(`http://gateway.embedded${GATEWAY_PATH}`);
      const headers = { accept: "application/json", "x-stratus-surface": "console", "x-forwarded-for": "203.0.113.10", ...signedHeaders(credentials, { method: "GET", url }) };
      return bed.t.gateway.app.fetch(new Request(url, { headers }));
    };
    const timed = async (call: () => Promise<Response>) => {
      const start = nowMs();
      const response = await call();
      const body = await response.text();
      const ms = nowMs() - start;
      if (response.status !== 200) throw new Error(`answered ${response.status}: ${body.slice(0, 200)}`);
      return ms;
    };

    for (let i = 0; i < 50; i++) {
      await timed(throughConsole);
      await timed(direct);
    }
    const viaConsole: number[] = [];
    const viaApp: number[] = [];
    for (let i = 0; i < scale.bffIterations; i++) {
      // Alternate which goes first, so neither always meets the store right after the other.
      if (i % 2 === 0) {
        viaConsole.push(await timed(throughConsole));
        viaApp.push(await timed(direct));
      } else {
        viaApp.push(await timed(direct));
        viaConsole.push(await timed(throughConsole));
      }
    }
    const added = median(viaConsole) - median(viaApp);
    return [
      {
        what: "backend-for-frontend overhead",
        how: `GET /api/cloud${GATEWAY_PATH} through the console's handler (cookie, vault, signing, embedded gateway in-process) vs the same signed request to the gateway app's fetch; ${scale.bffIterations.toLocaleString("en-US")} alternating calls each`,
        measured: `+${formatMs(added)} at the median (${formatMs(median(viaConsole))} vs ${formatMs(median(viaApp))})`,
        budget: "≤ 1 ms added at the median",
        pass: added <= 1,
      },
    ];
  } finally {
    await bed.close();
  }
}
