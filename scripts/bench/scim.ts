/**
 * SCIM provisioning as an identity provider's first sync sends it: people created one POST
 * at a time, then groups, then their memberships in PATCHes of 50 members (as Entra ID
 * batches them), each through the gateway's /scim/v2 (bearer-token authentication, audit
 * entries and all) on PGlite; then the lookups a provider makes at that size, repeated.
 */
import { benchGateway } from "./gateway-fixture";
import type { Row } from "./report";
import type { Scale } from "./scale";
import { formatInt, formatMs, nowMs, percentile } from "./stats";

/**
 * People written through SCIM per second, as a share of the store writing the same people itself
 * (its provisioning function, one statement per person). A POST must also find its bearer token
 * (kept in memory until the token tables change) and read and answer the resource: at most as
 * much work again as the write itself, the same share as the CSV export's of COPY.
 */
const PROVISIONING_RATIO_BUDGET = 0.5;
const BATCH = 100;
const P95_BUDGET_MS = 25;
const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

export async function run(scale: Scale): Promise<Row[]> {
  const bench = await benchGateway("scim");
  try {
    const { demo, gateway } = bench;
    const orgId = demo.organization_id;
    const credentials = { accessKeyId: demo.owner.access_key_id, secretKey: demo.owner.secret_key };
    const { signedHeaders } = await import("@/lib/signing");
    const url = new URL(`http://gateway.bench/v1/organizations/${orgId}/scim/integrations`);
    const body = JSON.stringify({ name: "Bench IdP", identity_provider: "okta", token: { alias: "bench", expires_at: new Date(Date.now() + 86_400_000).toISOString() } });
    const created = await gateway.app.fetch(
      new Request(url, { method: "POST", headers: { ...signedHeaders(credentials, { method: "POST", url }), "content-type": "application/json" }, body }),
    );
    const integration = (await created.json()) as { integration: { id: string }; api_key_info: { api_key: string } };
    const token = integration.api_key_info.api_key;

    const scim = async (method: string, path: string, payload?: unknown): Promise<Response> => {
      const res = await gateway.app.fetch(
        new Request(`http://gateway.bench/scim/v2${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" },
          body: payload === undefined ? undefined : JSON.stringify(payload),
        }),
      );
      if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res;
    };

    const integrationId = integration.integration.id;
    const { parseUser } = await import("@/lib/gateway/routes/scim/resources");
    const { provisionPerson } = await import("@/lib/gateway/store/queries/scim-service");
    const person = (prefix: string, n: string) => ({
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
      userName: `${prefix}${n}@bench.example`,
      externalId: `${prefix === "user" ? "ext" : prefix}-${n}`,
      name: { givenName: `Given${n}`, familyName: `Family${n}` },
      emails: [{ value: `${prefix}${n}@bench.example`, type: "work", primary: true }],
      active: true,
    });

    // The same people written twice over, in turns of BATCH: through POST /Users, and by the
    // store's own provisioning function (the one statement the handler runs per person) called
    // directly with the same values, the physical limit of the work on this engine. Both write
    // into the same tables as they grow, so neither is measured on smaller ones.
    const userIds: string[] = [];
    let gatewayMs = 0;
    let storeMs = 0;
    for (let from = 0; from < scale.scimUsers; from += BATCH) {
      const to = Math.min(scale.scimUsers, from + BATCH);
      let t = nowMs();
      for (let i = from; i < to; i++) {
        const res = await scim("POST", "/Users", person("user", String(i).padStart(6, "0")));
        userIds.push(((await res.json()) as { id: string }).id);
      }
      gatewayMs += nowMs() - t;
      t = nowMs();
      for (let i = from; i < to; i++) {
        const input = parseUser(person("direct", String(i).padStart(6, "0")));
        const now = new Date();
        const outcome = await provisionPerson(
          gateway.deps.db,
          { orgId, integrationId, now, email: input.email, accountName: input.accountName, scimUserName: input.userName, externalId: input.externalId, scimAttributes: input.attributes, status: "active" },
          { actorId: integrationId, actorName: "Bench IdP", clientIp: "127.0.0.1", startTime: now },
        );
        if (outcome.outcome !== "created") throw new Error(`the store's provisioning function: ${outcome.outcome}`);
      }
      storeMs += nowMs() - t;
      if (to % 2_000 === 0) process.stderr.write(`  scim: ${formatInt(to)} users each way\n`);
    }
    const usersSeconds = gatewayMs / 1000;
    const storePerSecond = scale.scimUsers / (storeMs / 1000);

    const t1 = nowMs();
    const groupIds: string[] = [];
    for (let g = 0; g < scale.scimGroups; g++) {
      const res = await scim("POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: `Group ${g}`, externalId: `gext-${g}` });
      groupIds.push(((await res.json()) as { id: string }).id);
    }
    const perGroup = Math.floor(scale.scimMemberships / scale.scimGroups);
    let memberships = 0;
    for (const [g, groupId] of groupIds.entries()) {
      for (let start = 0; start < perGroup; start += 50) {
        const value = [];
        for (let k = start; k < Math.min(perGroup, start + 50); k++) value.push({ value: userIds[(g * perGroup + k * 7) % userIds.length] });
        await scim("PATCH", `/Groups/${groupId}`, { schemas: [PATCH_OP], Operations: [{ op: "Add", path: "members", value }] });
        memberships += value.length;
      }
    }
    const groupsSeconds = (nowMs() - t1) / 1000;
    const usersPerSecond = scale.scimUsers / usersSeconds;

    const pick = (i: number) => String((i * 7919) % scale.scimUsers).padStart(6, "0");
    const queries: Array<[string, (i: number) => string]> = [
      ["userName eq", (i) => `/Users?filter=${encodeURIComponent(`userName eq "USER${pick(i)}@bench.example"`)}`],
      ["externalId eq", (i) => `/Users?filter=${encodeURIComponent(`externalId eq "ext-${pick(i)}"`)}`],
      ["emails.value eq", (i) => `/Users?filter=${encodeURIComponent(`emails.value eq "user${pick(i)}@bench.example"`)}`],
      ["id eq", (i) => `/Users?filter=${encodeURIComponent(`id eq "${userIds[(i * 7919) % userIds.length]}"`)}`],
      ["GET /Users/{id}", (i) => `/Users/${userIds[(i * 7919) % userIds.length]}`],
      ["page of 100 at startIndex 5,001", () => `/Users?startIndex=${Math.floor(scale.scimUsers / 2) + 1}&count=100`],
      ["Groups displayName eq", (i) => `/Groups?filter=${encodeURIComponent(`displayName eq "group ${i % scale.scimGroups}"`)}&excludedAttributes=members`],
      ["GET /Groups/{id} with members", (i) => `/Groups/${groupIds[i % groupIds.length]}`],
    ];
    const rounds = Math.max(50, scale.queryRepeats * 5);
    const results: Array<[string, number]> = [];
    for (const [name, path] of queries) {
      for (let i = 0; i < 10; i++) await (await scim("GET", path(i))).text();
      const times: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const s = nowMs();
        await (await scim("GET", path(i))).text();
        times.push(nowMs() - s);
      }
      results.push([name, percentile(times, 95)]);
    }
    const worst = results.reduce((a, b) => (b[1] > a[1] ? b : a));
    return [
      {
        what: "SCIM provisioning",
        how:
          `${formatInt(scale.scimUsers)} POST /scim/v2/Users one at a time (bearer token, uniqueness check, account + membership + baseline binding + audit entry per person) ` +
          `vs the same number of people written by the store's provisioning function called directly with the values the handler parses (the one statement it runs per person), in alternating batches of ${BATCH}; ` +
          `then ${scale.scimGroups} POST /Groups and ${formatInt(memberships)} memberships in PATCHes of 50 members; gateway fetch handler in process, PGlite on a temp dir`,
        measured:
          `${formatInt(usersPerSecond)} people/s (${formatInt(scale.scimUsers)} in ${usersSeconds.toFixed(1)} s) vs the store's function ${formatInt(storePerSecond)} people/s = ${(usersPerSecond / storePerSecond).toFixed(2)}; ` +
          `groups and memberships in ${groupsSeconds.toFixed(1)} s`,
        budget: `≥ ${PROVISIONING_RATIO_BUDGET} × the store's function`,
        pass: usersPerSecond / storePerSecond >= PROVISIONING_RATIO_BUDGET,
      },
      {
        what: "SCIM list and filter",
        how: `at that size (twice the people: those written each way): each lookup an identity provider makes, ${rounds} times after 10 warm-up calls (different values each time)`,
        measured: `worst p95 ${formatMs(worst[1])} (${worst[0]}); ${results.map(([n, p]) => `${n} ${formatMs(p)}`).join(", ")}`,
        budget: `every lookup p95 ≤ ${P95_BUDGET_MS} ms`,
        pass: worst[1] <= P95_BUDGET_MS,
      },
    ];
  } finally {
    await bench.close();
  }
}
