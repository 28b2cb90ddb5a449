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
/**
 * A lookup through SCIM as a multiple of the store answering it. Beside the store's reading, a
 * request finds its bearer token (in memory), reads its query, renders and serializes the
 * resources: at most as much work again as the reading, the allowance provisioning has.
 */
const LOOKUP_RATIO_BUDGET = 2;
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

    // Each lookup an identity provider makes, asked through GET /scim/v2 and answered by the store
    // itself: the same query functions with the same values the handler passes (the filter is
    // parsed inside the store), in turns, so the host's drift over the section falls on both.
    const { findPerson, groupsOfPerson, listPeople, listGroups, findGroup, groupMemberIds, displayNames } = await import("@/lib/gateway/store/queries/scim-service");
    const { MAX_RESULTS } = await import("@/lib/gateway/routes/scim/resources");
    const db = gateway.deps.db;
    const all = { offset: 0, limit: MAX_RESULTS };
    const pick = (i: number) => String((i * 7919) % scale.scimUsers).padStart(6, "0");
    const someone = (i: number) => userIds[(i * 7919) % userIds.length]!;
    const middle = Math.floor(scale.scimUsers / 2);
    const people = (filter: string) => ({
      request: `/Users?filter=${encodeURIComponent(filter)}`,
      store: () => listPeople(db, orgId, filter, all),
    });
    const lookups: Array<[string, (i: number) => { request: string; store: () => Promise<unknown> }]> = [
      ["userName eq", (i) => people(`userName eq "USER${pick(i)}@bench.example"`)],
      ["externalId eq", (i) => people(`externalId eq "ext-${pick(i)}"`)],
      ["emails.value eq", (i) => people(`emails.value eq "user${pick(i)}@bench.example"`)],
      ["id eq", (i) => people(`id eq "${someone(i)}"`)],
      [
        "GET /Users/{id}",
        (i) => ({
          request: `/Users/${someone(i)}`,
          store: async () => [await findPerson(db, orgId, someone(i)), await groupsOfPerson(db, integrationId, someone(i))],
        }),
      ],
      [
        `page of 100 at startIndex ${formatInt(middle + 1)}`,
        () => ({ request: `/Users?startIndex=${middle + 1}&count=100`, store: () => listPeople(db, orgId, undefined, { offset: middle, limit: 100 }) }),
      ],
      [
        "Groups displayName eq",
        (i) => {
          const filter = `displayName eq "group ${i % scale.scimGroups}"`;
          return { request: `/Groups?filter=${encodeURIComponent(filter)}&excludedAttributes=members`, store: () => listGroups(db, integrationId, filter, all) };
        },
      ],
      [
        "GET /Groups/{id} with members",
        (i) => {
          const groupId = groupIds[i % groupIds.length]!;
          return {
            request: `/Groups/${groupId}`,
            store: async () => {
              const group = await findGroup(db, integrationId, groupId);
              const ids = (await groupMemberIds(db, [groupId])).get(groupId) ?? [];
              return [group, await displayNames(db, orgId, ids)];
            },
          };
        },
      ],
    ];
    // Twice the p95 of a millisecond-long read is decided by a few samples: 400 of each at full size.
    const rounds = Math.max(100, scale.queryRepeats * 10);
    const results: Array<{ name: string; request: number; store: number; ratio: number }> = [];
    for (const [name, lookup] of lookups) {
      for (let i = 0; i < 10; i++) {
        await (await scim("GET", lookup(i).request)).text();
        await lookup(i).store();
      }
      const requestTimes: number[] = [];
      const storeTimes: number[] = [];
      const viaRequest = async (i: number) => {
        const s = nowMs();
        await (await scim("GET", lookup(i).request)).text();
        requestTimes.push(nowMs() - s);
      };
      const viaStore = async (i: number) => {
        const s = nowMs();
        await lookup(i).store();
        storeTimes.push(nowMs() - s);
      };
      for (let i = 0; i < rounds; i++) {
        if (i % 2 === 0) {
          await viaRequest(i);
          await viaStore(i);
        } else {
          await viaStore(i);
          await viaRequest(i);
        }
      }
      const request = percentile(requestTimes, 95);
      const store = percentile(storeTimes, 95);
      results.push({ name, request, store, ratio: request / store });
    }
    const worst = results.reduce((a, b) => (b.ratio > a.ratio ? b : a));
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
        how:
          `at that size (twice the people: those written each way): each lookup an identity provider makes, ${rounds} times after 10 warm-up calls (different values each time), ` +
          `as GET /scim/v2 through the gateway's fetch handler vs the store answering it: the query functions the handler calls, with the values it passes, called directly; the two in turns, alternating which goes first; p95 of each`,
        measured:
          `worst ${worst.ratio.toFixed(2)} × (${worst.name}); ` +
          results.map((r) => `${r.name} ${formatMs(r.request)} vs ${formatMs(r.store)} = ${r.ratio.toFixed(2)}`).join(", "),
        budget: `every lookup p95 ≤ ${LOOKUP_RATIO_BUDGET} × the store's p95`,
        pass: worst.ratio <= LOOKUP_RATIO_BUDGET,
      },
    ];
  } finally {
    await bench.close();
  }
}
