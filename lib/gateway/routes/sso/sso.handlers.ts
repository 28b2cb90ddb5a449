import { auditAs, mutate } from "../../audit";
import { requireOrgMember, requirePermission } from "../../authz";
import { isLoopbackUrl } from "@/lib/contract/sso";
import { encrypt } from "../../crypto";
import { badRequest, notFound } from "../../errors";
import { isPublicEmailDomain } from "../../public-email-domains";
import {
  claimedEmailDomains,
  deleteSsoProviderRow,
  findSsoProvider,
  insertSsoProvider,
  listSsoProviders as listProviderRows,
  lockEmailDomains,
  toSsoProvider,
  forgetProviderIdentities,
  updateSsoProviderRow,
} from "../../store/queries/sso";
import type { AppRouteHandler } from "../shared";
import type * as routes from "./sso.routes";

const providerNotFound = () => notFound("SSO provider not found in this organization");

export const listSsoProviders: AppRouteHandler<typeof routes.listSsoProviders> = async (c) => {
  const { organization_id: orgId } = c.req.valid("param");
  await requireOrgMember(c.get("access"), orgId);
  const rows = await listProviderRows(c.get("deps").db, orgId);
  return c.json({ sso_providers: rows.map(toSsoProvider) }, 200);
};

export const createSsoProvider: AppRouteHandler<typeof routes.createSsoProvider> = async (c) => {
  const { organization_id: orgId } = c.req.valid("param");
  const body = c.req.valid("json");
  const audit = auditAs(c, {
    organizationId: orgId,
    action: "Create",
    actionDetail: "Create SSO Provider",
    targetType: "SSOProvider",
    targetNames: [body.issuer_uri],
  });
  const access = c.get("access");
  await requirePermission(access, orgId, "sso.manage");
  // A provider an owner adds signs in owners too; one added by anyone else, only the other people.
  const signsInOwners = (await access.relation(orgId)) === "owner";
  const deps = c.get("deps");
  if (isLoopbackUrl(body.issuer_uri) && !deps.ssoLoopbackIssuers) throw badRequest("body.issuer_uri", "must be an https URL with a host name");
  const publicIndex = body.email_domains.findIndex(isPublicEmailDomain);
  if (publicIndex >= 0) {
    throw badRequest(`body.email_domains[${publicIndex}]`, `${body.email_domains[publicIndex]} is a public e-mail service's domain, where anyone may have an address: name your organization's own domain`);
  }
  const domains = [...new Set(body.email_domains)];
  const row = await mutate(c, audit, async (tx, meta) => {
    // One provider per e-mail domain, in all organizations, so sign-in knows where to send a user
    // (and no organization's provider answers for another's people); concurrent creates, in any
    // organization, check one after the other.
    await lockEmailDomains(tx);
    const claimed = await claimedEmailDomains(tx, domains);
    const index = body.email_domains.findIndex((d) => claimed.has(d));
    const claim = claimed.get(body.email_domains[index] ?? "");
    if (claim) {
      const domain = body.email_domains[index];
      throw badRequest(
        `body.email_domains[${index}]`,
        claim.organizationId === orgId ? `${domain} is already served by SSO provider ${claim.providerId}` : `${domain} is already served by another organization's SSO provider`,
      );
    }
    const created = await insertSsoProvider(tx, {
      organizationId: orgId,
      clientId: body.client_id,
      clientSecretCiphertext: body.client_secret === undefined ? null : encrypt(deps.masterKey, body.client_secret),
      issuerUri: body.issuer_uri,
      emailDomains: domains,
      signsInOwners,
    });
    meta.targetIds = [created.id];
    return created;
  });
  return c.json(toSsoProvider(row), 200);
};

export const deleteSsoProvider: AppRouteHandler<typeof routes.deleteSsoProvider> = async (c) => {
  const { organization_id: orgId, provider_id: providerId } = c.req.valid("param");
  const audit = auditAs(c, {
    organizationId: orgId,
    action: "Delete",
    actionDetail: "Delete SSO Provider",
    targetType: "SSOProvider",
    targetIds: [providerId],
  });
  await requirePermission(c.get("access"), orgId, "sso.manage");
  const existing = await findSsoProvider(c.get("deps").db, orgId, providerId);
  if (!existing) throw providerNotFound();
  audit.targetNames = [existing.issuerUri];
  const deleted = await mutate(c, audit, async (tx) => {
    const row = await deleteSsoProviderRow(tx, orgId, existing.id);
    if (!row) throw providerNotFound();
    return row;
  });
  return c.json(toSsoProvider(deleted), 200);
};

export const updateSsoProvider: AppRouteHandler<typeof routes.updateSsoProvider> = async (c) => {
  const { organization_id: orgId, provider_id: providerId } = c.req.valid("param");
  const body = c.req.valid("json");
  const audit = auditAs(c, {
    organizationId: orgId,
    action: "Update",
    actionDetail: body.client_secret === undefined ? "Update SSO Provider" : "Update SSO Provider Client Secret",
    targetType: "SSOProvider",
    targetIds: [providerId],
  });
  const access = c.get("access");
  await requirePermission(access, orgId, "sso.manage");
  const deps = c.get("deps");
  const existing = await findSsoProvider(deps.db, orgId, providerId);
  if (!existing) throw providerNotFound();
  audit.targetNames = [existing.issuerUri];
  // A provider signs owners in only as an owner set it up (createSsoProvider): changed by anyone else,
  // it no longer does. Otherwise a wrong client id or secret set by someone who is no owner would lock
  // out the owners SSO is required of (their key refused, their provider failing).
  const byOwner = (await access.relation(orgId)) === "owner";
  const updated = await mutate(c, audit, async (tx) => {
    const row = await updateSsoProviderRow(tx, orgId, existing.id, {
      ...(body.client_id === undefined ? {} : { clientId: body.client_id }),
      ...(body.client_secret === undefined ? {} : { clientSecretCiphertext: encrypt(deps.masterKey, body.client_secret) }),
      ...(existing.signsInOwners && !byOwner ? { signsInOwners: false as const } : {}),
    });
    if (!row) throw providerNotFound();
    // A provider may give each application its own subjects (Entra ID does): the links made under the old
    // client id would refuse everyone, so each person is linked again at their next sign-in.
    if (body.client_id !== undefined && body.client_id !== existing.clientId) await forgetProviderIdentities(tx, row.id);
    return row;
  });
  return c.json(toSsoProvider(updated), 200);
};
