import { eq} from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decrypt } from "../../crypto";
import { ssoIdentities, ssoProviders } from "../../store/schema";
import { createTestGateway, opPath, type TestGateway } from "../../testing";

let t: TestGateway;
let base: string;
beforeAll(async () => {
  t = await createTestGateway();
  base = opPath("listSSOProviders", { organization_id: t.demo.organization_id });
});
afterAll(() => t.close());

interface Provider {
  id: string;
  org_id: string;
  client_id: string;
  issuer_uri: string;
  created_at: string;
  email_domains: string[];
  has_client_secret: boolean;
}
interface ErrorBody {
  code: string;
  message: string;
  reason: string;
}
type Who = "owner" | "member" | "outsider";

const list = (who: Who = "owner") => t.opJson<{ sso_providers: Provider[] } & ErrorBody>(who, "listSSOProviders", { params: { organization_id: t.demo.organization_id } });
const create = (body: unknown, who: Who = "owner") => t.opJson<Provider & ErrorBody>(who, "createSSOProvider", { params: { organization_id: t.demo.organization_id }, body });
const valid = { client_id: "0oa-new-client", issuer_uri: "https://idp.acme.example/oauth2/default", email_domains: ["Research.Acme.Example"] };

describe("listing SSO providers", () => {
  it("lists the organization's providers with every required field", async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.sso_providers).toEqual([
      {
        id: expect.any(String),
        org_id: t.demo.organization_id,
        client_id: "0oa8f3k2l1acmeSSO697",
        issuer_uri: "https://acme.okta.example/oauth2/default",
        created_at: expect.stringMatching(/Z$/),
        email_domains: ["acme.example", "acme-ai.example"],
        has_client_secret: false,
      },
    ]);
    expect((await list("member")).status).toBe(200);
  });

  it("refuses an outsider with 403; an unsigned request is 403 too (no 401 declared)", async () => {
    const res = await list("outsider");
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe("permission_denied");
    const unsigned = await t.gateway.app.request(`http://gateway.test/v1${base}`);
    expect(unsigned.status).toBe(403);
  });
});

describe("creating SSO providers", () => {
  it("creates a provider with normalized domains, audited", async () => {
    const { result: res, entries } = await t.audited(() => create({ ...valid, email_domains: ["Research.Acme.Example", "research.acme.example", "labs.acme.example"] }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ org_id: t.demo.organization_id, client_id: valid.client_id, issuer_uri: valid.issuer_uri, email_domains: ["research.acme.example", "labs.acme.example"] });
    expect((await list()).body.sso_providers.map((p) => p.id)).toContain(res.body.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ organizationId: t.demo.organization_id, action: "Create", result: "OK", targetType: "SSOProvider", targetIds: [res.body.id], targetNames: [valid.issuer_uri] });
  });

  it("files a long issuer's audit entry with its name cut to 256 characters, so that it fits the target search", async () => {
    // 1,000 characters of three bytes each: within the issuer's limit, beyond what one index row holds.
    const issuer = `https://idp.long.example/${"\u4e00".repeat(1_000)}`;
    const { result: res, entries } = await t.audited(() => create({ ...valid, issuer_uri: issuer, email_domains: ["long.acme.example"] }));
    expect(res.status).toBe(200);
    expect(res.body.issuer_uri).toBe(issuer);
    expect(entries).toHaveLength(1);
    const [name] = entries[0]!.targetNames;
    expect(name).toHaveLength(256);
    expect(name).toBe(`${issuer.slice(0, 255)}…`);
    expect((await t.opJson("owner", "deleteSSOProvider", { params: { organization_id: t.demo.organization_id, provider_id: res.body.id } })).status).toBe(200);
  });

  it.each([
    ["an http issuer", { ...valid, issuer_uri: "http://idp.acme.example" }, "body.issuer_uri: must be an https URL"],
    ["an issuer that is not a URL", { ...valid, issuer_uri: "idp.acme.example" }, "body.issuer_uri"],
    ["an issuer with an IP address", { ...valid, issuer_uri: "https://10.0.0.1/" }, "body.issuer_uri"],
    ["a loopback issuer (not allowed by this gateway)", { ...valid, issuer_uri: "http://127.0.0.1:9000" }, "body.issuer_uri: must be an https URL with a host name"],
    ["an empty client_secret", { ...valid, client_secret: "" }, "body.client_secret: must not be empty"],
    ["a client_secret with a space", { ...valid, client_secret: "a b" }, "body.client_secret"],
    ["a numeric client_secret", { ...valid, client_secret: 7 }, "body.client_secret: must be a string"],
    ["an issuer with a fragment", { ...valid, issuer_uri: "https://idp.acme.example/#x" }, "body.issuer_uri: must not hold credentials, a query or a fragment"],
    ["an empty issuer", { ...valid, issuer_uri: "" }, "body.issuer_uri"],
    ["an issuer with a tab", { ...valid, issuer_uri: "https://idp.acme\t.example/" }, "body.issuer_uri: must not contain spaces, control or format characters"],
    ["an issuer with a soft hyphen", { ...valid, issuer_uri: "https://idp.ac\u00adme.example/" }, "body.issuer_uri: must not contain spaces, control or format characters"],
    ["an issuer with a right-to-left override", { ...valid, issuer_uri: "https://idp.acme.example/a\u202eb" }, "body.issuer_uri: must not contain spaces, control or format characters"],
    ["no issuer", { client_id: "x", email_domains: ["acme.example"] }, "body.issuer_uri: is required"],
    ["an empty client_id", { ...valid, client_id: "" }, "body.client_id: must not be empty"],
    ["a blank client_id", { ...valid, client_id: "   " }, "body.client_id"],
    ["a numeric client_id", { ...valid, client_id: 12 }, "body.client_id"],
    ["no email_domains", { client_id: "x", issuer_uri: valid.issuer_uri }, "body.email_domains: is required"],
    ["an empty email_domains", { ...valid, email_domains: [] }, "body.email_domains: must hold at least one domain"],
    ["email_domains as a string", { ...valid, email_domains: "acme.example" }, "body.email_domains"],
    ["an invalid second domain", { ...valid, email_domains: ["ok.example", "not a domain"] }, "body.email_domains[1]: must be a domain name"],
    ["a domain without a dot", { ...valid, email_domains: ["localhost"] }, "body.email_domains[0]"],
    ["a domain with an @", { ...valid, email_domains: ["user@acme.example"] }, "body.email_domains[0]"],
    ["a numeric domain entry", { ...valid, email_domains: ["ok.example", 5] }, "body.email_domains[1]"],
    ["a domain another provider serves", { ...valid, email_domains: ["new.example", "ACME.example"] }, "body.email_domains[1]: acme.example is already served"],
    ["a public e-mail service's domain", { ...valid, email_domains: ["fine.example", "Gmail.com"] }, "body.email_domains[1]: gmail.com is a public e-mail service's domain"],
    ["another public e-mail service's domain", { ...valid, email_domains: ["outlook.com"] }, "body.email_domains[0]: outlook.com is a public e-mail service's domain"],
    ["a null body", null, "body"],
  ])("answers 400 for %s, naming the field, and creates nothing", async (_name, body, message) => {
    const before = (await list()).body.sso_providers.length;
    const { result: res, entries } = await t.audited(() => create(body));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "400", reason: "bad_request" });
    expect(res.body.message).toContain(message);
    expect((await list()).body.sso_providers).toHaveLength(before);
    expect(entries.map((e) => e.result)).toEqual(["INVALID_ARGUMENT"]);
  });

  it("refuses a domain another organization's provider serves: one organization answers for a domain", async () => {
    // Otherwise an admin of one organization could send another's people to an identity provider of their choosing.
    const globex = await t.outsiderOrganizationId();
    const claim = { ...valid, email_domains: ["globex-corp.example"] };
    const theirs = await t.opJson<Provider>("outsider", "createSSOProvider", { params: { organization_id: globex }, body: claim });
    expect(theirs.status).toBe(200);
    const before = (await list()).body.sso_providers.length;
    const res = await create({ ...valid, email_domains: ["fine.example", "Globex-Corp.example"] });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("body.email_domains[1]: globex-corp.example is already served by another organization's SSO provider");
    expect((await list()).body.sso_providers).toHaveLength(before);
    // Which provider serves it stays the other organization's secret.
    expect(res.body.message).not.toContain(globex);
    expect(res.body.message).not.toContain(theirs.body.id);
    await t.op("outsider", "deleteSSOProvider", { params: { organization_id: globex, provider_id: theirs.body.id } });
  });

  it.each(["member", "outsider"] as const)("refuses the %s with 403 and audits it", async (who) => {
    const before = (await list()).body.sso_providers.length;
    const { result: res, entries } = await t.audited(() => create({ ...valid, email_domains: ["x.acme.example"] }, who));
    expect(res.status).toBe(403);
    expect(entries.map((e) => [e.result, e.organizationId, e.actorId])).toEqual([["PERMISSION_DENIED", t.demo.organization_id, t.demo[who].user_id]]);
    expect((await list()).body.sso_providers).toHaveLength(before);
  });
});

describe("deleting SSO providers", () => {
  it("returns the deleted provider, audited; a repeated delete is 404", async () => {
    const created = (await create({ ...valid, email_domains: ["gone.acme.example"] })).body;
    const { result: res, entries } = await t.audited(() => t.opJson<Provider>("owner", "deleteSSOProvider", { params: { organization_id: t.demo.organization_id, provider_id: created.id } }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created);
    expect(entries[0]).toMatchObject({ action: "Delete", result: "OK", targetType: "SSOProvider", targetIds: [created.id], targetNames: [valid.issuer_uri] });
    expect((await list()).body.sso_providers.map((p) => p.id)).not.toContain(created.id);

    const again = await t.audited(() => t.opJson<ErrorBody>("owner", "deleteSSOProvider", { params: { organization_id: t.demo.organization_id, provider_id: created.id } }));
    expect(again.result.status).toBe(404);
    expect(again.result.body.reason).toBe("not_found");
    expect(again.entries.map((e) => e.result)).toEqual(["NOT_FOUND"]);
    expect((await t.opJson("owner", "deleteSSOProvider", { params: { organization_id: t.demo.organization_id, provider_id: "not-an-id" } })).status).toBe(404);

    // The domain is free again once its provider is gone.
    expect((await create({ ...valid, email_domains: ["gone.acme.example"] })).status).toBe(200);
  });

  it("refuses the member and an outsider with 403", async () => {
    const provider = (await list()).body.sso_providers[0]!;
    for (const who of ["member", "outsider"] as const) {
      expect((await t.opJson(who, "deleteSSOProvider", { params: { organization_id: t.demo.organization_id, provider_id: provider.id } })).status, who).toBe(403);
    }
    expect((await list()).body.sso_providers.map((p) => p.id)).toContain(provider.id);
  });

  it("does not delete another organization's provider through this organization's path", async () => {
    const globex = await t.outsiderOrganizationId();
    const theirs = (await t.opJson<{ sso_providers: Provider[] }>("outsider", "listSSOProviders", { params: { organization_id: globex } })).body.sso_providers[0]!;
    expect((await t.opJson("owner", "deleteSSOProvider", { params: { organization_id: t.demo.organization_id, provider_id: theirs.id } })).status).toBe(404);
    expect((await t.opJson<{ sso_providers: Provider[] }>("outsider", "listSSOProviders", { params: { organization_id: globex } })).body.sso_providers).toHaveLength(1);
  });
});

/** The stored secret, as the console will read it back. */
async function storedSecret(providerId: string): Promise<string | null> {
  const [row] = await t.gateway.store.db.select().from(ssoProviders).where(eq(ssoProviders.id, providerId));
  return row?.clientSecretCiphertext ? decrypt(t.gateway.deps.masterKey, row.clientSecretCiphertext) : null;
}

describe("the client secret", () => {
  const secret = "s3cr3t-from-the-provider_0123456789";

  it("is stored encrypted at creation and never answered", async () => {
    const res = await create({ ...valid, client_secret: secret, email_domains: ["secret.acme.example"] });
    expect(res.status).toBe(200);
    expect(res.body.has_client_secret).toBe(true);
    expect(JSON.stringify(res.body)).not.toContain(secret);
    expect(JSON.stringify((await list()).body)).not.toContain(secret);
    const [row] = await t.gateway.store.db.select().from(ssoProviders).where(eq(ssoProviders.id, res.body.id));
    expect(row?.clientSecretCiphertext).not.toContain(secret);
    expect(await storedSecret(res.body.id)).toBe(secret);
  });

  it("is replaced through updateSSOProvider, audited without the secret; the client id too", async () => {
    const created = (await create({ ...valid, email_domains: ["rotate.acme.example"] })).body;
    expect(created.has_client_secret).toBe(false);
    const params = { organization_id: t.demo.organization_id, provider_id: created.id };
    const { result: res, entries } = await t.audited(() => t.opJson<Provider>("owner", "updateSSOProvider", { params, body: { client_secret: secret } }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...created, has_client_secret: true });
    expect(await storedSecret(created.id)).toBe(secret);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ action: "Update", result: "OK", targetType: "SSOProvider", targetIds: [created.id], targetNames: [valid.issuer_uri] });
    expect(JSON.stringify(entries)).not.toContain(secret);

    const renamed = await t.opJson<Provider>("owner", "updateSSOProvider", { params, body: { client_id: "0oa-rotated", client_secret: "second-secret" } });
    expect(renamed.body).toMatchObject({ client_id: "0oa-rotated", has_client_secret: true });
    expect(await storedSecret(created.id)).toBe("second-secret");
  });

  it("forgets which subjects its sign-ins linked when the client id changes (a provider such as Entra ID gives each application its own subjects), not when only the secret does", async () => {
    const created = (await create({ ...valid, email_domains: ["relink.acme.example"] })).body;
    const params = { organization_id: t.demo.organization_id, provider_id: created.id };
    const db = t.gateway.store.db;
    await db.insert(ssoIdentities).values({ providerId: created.id, subject: "subject-of-member", userId: t.demo.member.user_id });
    const links = async () => (await db.select().from(ssoIdentities).where(eq(ssoIdentities.providerId, created.id))).map((l) => l.subject);
    expect((await t.opJson("owner", "updateSSOProvider", { params, body: { client_secret: "rotated" } })).status).toBe(200);
    expect(await links()).toEqual(["subject-of-member"]);
    expect((await t.opJson("owner", "updateSSOProvider", { params, body: { client_id: valid.client_id } })).status).toBe(200);
    expect(await links()).toEqual(["subject-of-member"]);
    expect((await t.opJson("owner", "updateSSOProvider", { params, body: { client_id: "another-application" } })).status).toBe(200);
    expect(await links()).toEqual([]);
  });

  it.each([
    ["an empty body", {}, "body: must hold client_id or client_secret"],
    ["an empty secret", { client_secret: "" }, "body.client_secret: must not be empty"],
    ["a blank client id", { client_id: "  " }, "body.client_id"],
  ])("answers 400 to an update with %s, naming the field", async (_name, body, message) => {
    const provider = (await list()).body.sso_providers[0]!;
    const res = await t.opJson<ErrorBody>("owner", "updateSSOProvider", { params: { organization_id: t.demo.organization_id, provider_id: provider.id }, body });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(message);
  });

  it("refuses the member (403), and answers 404 for a provider of another organization", async () => {
    const provider = (await list()).body.sso_providers[0]!;
    const params = { organization_id: t.demo.organization_id, provider_id: provider.id };
    expect((await t.opJson("member", "updateSSOProvider", { params, body: { client_secret: "x" } })).status).toBe(403);
    expect(await storedSecret(provider.id)).toBeNull();
    const globex = await t.outsiderOrganizationId();
    const theirs = (await t.opJson<{ sso_providers: Provider[] }>("outsider", "listSSOProviders", { params: { organization_id: globex } })).body.sso_providers[0]!;
    const res = await t.opJson("owner", "updateSSOProvider", { params: { organization_id: t.demo.organization_id, provider_id: theirs.id }, body: { client_secret: "x" } });
    expect(res.status).toBe(404);
    expect(await storedSecret(theirs.id)).toBeNull();
  });
});
