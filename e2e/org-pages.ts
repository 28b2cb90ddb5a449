import type { Page } from "@playwright/test";
import { operationPath } from "@/lib/contract/operations";
import { expect, type Who } from "./fixtures";

/** A backend-for-frontend GET of one operation, as the signed-in browser makes it. */
export async function api<T>(page: Page, path: string): Promise<T> {
  const res = await page.request.get(`/api/cloud${path}`);
  expect(res.status(), path).toBe(200);
  return (await res.json()) as T;
}

/** Every page of an organization the person can open, with real ids for the detail pages. */
export async function pagesOf(page: Page, orgId: string, who: Who): Promise<string[]> {
  const base = `/orgs/${orgId}`;
  const projects = await api<{ items: Array<{ id: string; organization_id: string }> }>(page, operationPath("listProjects"));
  const project = projects.items.find((p) => p.organization_id === orgId);
  const reservations = await api<{ items: Array<{ id: string }> }>(page, operationPath("getReservations", { organization_id: orgId }));
  const images = await api<{ items: Array<{ id: string }> }>(page, operationPath("listImages"));
  // Those whose role does not grant SCIM integrations see none to open.
  const scim = await page.request.get(`/api/cloud${operationPath("listSCIMIntegrations", { org_id: orgId })}`);
  const integration = scim.ok() ? ((await scim.json()) as { integrations: Array<{ id: string }> }).integrations[0] : undefined;
  const pages = [
    base,
    `${base}/projects`,
    ...(project ? [`${base}/projects/${project.id}`] : []),
    `${base}/iam`,
    `${base}/people`,
    `${base}/security/sso`,
    `${base}/security/mfa`,
    `${base}/security/scim`,
    ...(integration ? [`${base}/security/scim/${integration.id}`] : []),
    `${base}/storage`,
    `${base}/billing`,
    `${base}/usage`,
    `${base}/quotas`,
    `${base}/audit-logs`,
    `${base}/reservations`,
    ...(reservations.items[0] ? [`${base}/reservations/${reservations.items[0].id}`] : []),
    `${base}/settings`,
    "/catalog",
    ...(images.items[0] ? [`/catalog/images/${images.items[0].id}`] : []),
    "/catalog/registry",
    "/account/security",
  ];
  // GPU tracking is offered to holders of the reservations feature only (the demo owner).
  if (who === "owner") pages.push(`${base}/reservations/gpu-tracking`);
  return pages;
}
