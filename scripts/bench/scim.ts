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
/**
 * A change to a large customer's group costs what it costs in a small one: a member added or removed (with the
 * role binding its mapping grants), its externalId replaced, the group read or found without its members, each
 * at p95 within this multiple of the same in a group of SMALL_GROUP members. Work that grew with the group
 * (reading its members to change one) would show as a multiple of the group's size, not of 2.
 */
const LARGE_GROUP_RATIO_BUDGET = 2;
const SMALL_GROUP = 50;
/** Members per PATCH while the large group is filled (Entra ID sends fewer, Okta one by one: this only fills it). */
const FILL_BATCH = 1_000;

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
    const manage = async (method: string, path: string, payload: unknown): Promise<void> => {
      const target = new URL(`http://gateway.bench${path}`);
      const res = await gateway.app.fetch(
        new Request(target, { method, headers: { ...signedHeaders(credentials, { method, url: target }), "content-type": "application/json" }, body: JSON.stringify(payload) }),
      );
      if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    };
    const large = await largeGroup(scale, { scim, manage, db, orgId, integrationId });
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
      large,
    ];
  } finally {
    await bench.close();
  }
}

interface LargeGroupContext {
  scim: (method: string, path: string, payload?: unknown) => Promise<Response>;
  manage: (method: string, path: string, payload: unknown) => Promise<void>;
  db: import("@/lib/gateway/store/client").Database;
  orgId: string;
  integrationId: string;
}

/**
 * A group of scale.scimLargeGroup members, each granted a role by the group's mapping, beside one of SMALL_GROUP:
 * the changes and reads an identity provider makes day to day, timed on each in turns.
 */
async function largeGroup(scale: Scale, { scim, manage, db, orgId, integrationId }: LargeGroupContext): Promise<Row> {
  const { and, asc, eq, like, sql } = await import("drizzle-orm");
  const { roleBindings, roles, users } = await import("@/lib/gateway/store/schema");
  const { operationPath } = await import("@/lib/contract/operations");
  const rounds = scale.queryRepeats * 3;
  // The people, written by the store (a POST each would take the section's time), members of the organization:
  // the large group's, the small one's, and one spare for each round to add and remove.
  const count = scale.scimLargeGroup + SMALL_GROUP + rounds;
  await db.execute(sql`insert into users (id, email, name) select gen_random_uuid()::text, 'large' || lpad(g::text, 6, '0') || '@bench.example', 'Large ' || g from generate_series(1, ${count}) g`);
  await db.execute(sql`insert into memberships (organization_id, user_id, relation, source) select ${orgId}, u.id, 'member', 'scim' from users u where u.email like 'large%@bench.example'`);
  const people = (await db.select({ id: users.id }).from(users).where(like(users.email, "large%@bench.example")).orderBy(asc(users.email))).map((r) => r.id);
  const largeMembers = people.slice(0, scale.scimLargeGroup);
  const smallMembers = people.slice(scale.scimLargeGroup, scale.scimLargeGroup + SMALL_GROUP);
  const spares = people.slice(scale.scimLargeGroup + SMALL_GROUP);

  const [auditor] = await db.select({ id: roles.id }).from(roles).where(and(eq(roles.organizationId, orgId), eq(roles.roleName, "Auditor")));
  if (!auditor) throw new Error("the demo organization has no Auditor role");
  const names = { large: "Large staff", small: "Small staff" } as const;
  await manage("PUT", operationPath("putSCIMGroupMappings", { org_id: orgId, integration_id: integrationId }), {
    mappings: Object.values(names).map((group_display_name) => ({ group_display_name, role_id: auditor.id, scope_type: "org", scope_object_id: orgId })),
  });
  const group = async (displayName: string) => ((await (await scim("POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName })).json()) as { id: string }).id;
  const ids = { large: await group(names.large), small: await group(names.small) };
  const add = (groupId: string, members: string[]) => scim("PATCH", `/Groups/${groupId}`, { schemas: [PATCH_OP], Operations: [{ op: "add", path: "members", value: members.map((value) => ({ value })) }] });
  const filled = nowMs();
  for (let from = 0; from < largeMembers.length; from += FILL_BATCH) {
    await (await add(ids.large, largeMembers.slice(from, from + FILL_BATCH))).arrayBuffer();
    if ((from + FILL_BATCH) % 10_000 === 0) process.stderr.write(`  scim: ${formatInt(from + FILL_BATCH)} members of the large group\n`);
  }
  const fillSeconds = (nowMs() - filled) / 1000;
  await (await add(ids.small, smallMembers)).arrayBuffer();

  const operations: Array<[string, (groupId: string, displayName: string, i: number) => Promise<Response>]> = [
    ["add a member", (groupId, _name, i) => add(groupId, [spares[i]!])],
    ["remove it (members[value eq])", (groupId, _name, i) => scim("PATCH", `/Groups/${groupId}`, { schemas: [PATCH_OP], Operations: [{ op: "remove", path: `members[value eq "${spares[i]}"]` }] })],
    ["replace externalId", (groupId, _name, i) => scim("PATCH", `/Groups/${groupId}`, { schemas: [PATCH_OP], Operations: [{ op: "replace", path: "externalId", value: `ext-${i}` }] })],
    ["GET without members", (groupId) => scim("GET", `/Groups/${groupId}?excludedAttributes=members`)],
    ["displayName eq", (_groupId, displayName) => scim("GET", `/Groups?filter=${encodeURIComponent(`displayName eq "${displayName}"`)}&excludedAttributes=members`)],
  ];
  const times = operations.map(() => ({ large: [] as number[], small: [] as number[] }));
  const timed = async (which: "large" | "small", i: number) => {
    for (const [k, [, operation]] of operations.entries()) {
      const started = nowMs();
      await (await operation(ids[which], names[which], i)).arrayBuffer();
      times[k]![which].push(nowMs() - started);
    }
  };
  // Each round on both groups, alternating which goes first; a spare is added to and removed from each.
  for (let i = 0; i < rounds; i++) {
    for (const which of i % 2 === 0 ? (["large", "small"] as const) : (["small", "large"] as const)) await timed(which, i);
  }
  const results = operations.map(([name], k) => {
    const large = percentile(times[k]!.large, 95);
    const small = percentile(times[k]!.small, 95);
    return { name, large, small, ratio: large / small };
  });
  const [bindings] = await db.select({ n: sql<number>`count(*)::int` }).from(roleBindings).where(eq(roleBindings.viaGroupId, ids.large));
  if (bindings?.n !== scale.scimLargeGroup) throw new Error(`the large group's mapping grants ${bindings?.n} bindings, not ${scale.scimLargeGroup}`);
  // Read whole, for the record: every member's value and display name (no budget: it grows with the group by design).
  const whole = nowMs();
  const body = await (await scim("GET", `/Groups/${ids.large}`)).arrayBuffer();
  const wholeMs = nowMs() - whole;
  const worst = results.reduce((a, b) => (b.ratio > a.ratio ? b : a));
  return {
    what: "SCIM: a large group",
    how:
      `a group of ${formatInt(scale.scimLargeGroup)} members (filled by PATCHes of ${formatInt(FILL_BATCH)}; its mapping grants each a role) vs one of ${SMALL_GROUP}, same integration; ` +
      `${rounds} rounds of an identity provider's day-to-day calls on each, in turns: ${operations.map(([name]) => name).join(", ")}; p95 of each, through the gateway's fetch handler`,
    measured:
      `worst ${worst.ratio.toFixed(2)} × (${worst.name}); ` +
      results.map((r) => `${r.name} ${formatMs(r.large)} vs ${formatMs(r.small)}`).join(", ") +
      `; filled in ${fillSeconds.toFixed(1)} s; read whole (${formatInt(body.byteLength)} bytes) in ${formatMs(wholeMs)}`,
    budget: `every call's p95 ≤ ${LARGE_GROUP_RATIO_BUDGET} × the same on the small group`,
    pass: worst.ratio <= LARGE_GROUP_RATIO_BUDGET,
  };
}
