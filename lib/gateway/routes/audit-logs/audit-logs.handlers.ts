import { AUDIT_LOG_DEFAULT_LIMIT } from "@/lib/contract/audit-logs";
import { storeInstant } from "@/lib/contract/time";
import { requirePermission } from "../../authz";
import { auditPage } from "../../store/queries/audit-logs";
import type { AppRouteHandler } from "../shared";
import type * as routes from "./audit-logs.routes";
import { decodePageToken, encodePageToken } from "./page-token";

export const getAuditLogs: AppRouteHandler<typeof routes.getAuditLogs> = async (c) => {
  const { organization_id: orgId } = c.req.valid("param");
  const q = c.req.valid("query");
  const { db, masterKey } = c.get("deps");
  await requirePermission(c.get("access"), orgId, "audit.read");
  const after = q.next_token ? decodePageToken(masterKey, orgId, "next", q.next_token) : undefined;
  const before = q.prev_token ? decodePageToken(masterKey, orgId, "prev", q.prev_token) : undefined;
  const filter = {
    projectIds: q.project_ids,
    actions: q.actions,
    actorIds: q.actor_ids,
    actorEmails: q.actor_emails,
    actorTypes: q.actor_types,
    targetIds: q.target_ids,
    targetTypes: q.target_types,
    targetNames: q.target_names,
    locations: q.locations,
    results: q.results,
    resultsNot: q.results_not,
    surfaces: q.surfaces,
    start: q.start_time ? storeInstant(q.start_time, "start") : undefined,
    end: q.end_time ? storeInstant(q.end_time, "end") : undefined,
  };
  const page = await auditPage(db, orgId, filter, { limit: q.limit ?? AUDIT_LOG_DEFAULT_LIMIT, after, before });
  return c.json(
    {
      items: page.items,
      next_page_token: page.next ? encodePageToken(masterKey, orgId, "next", page.next) : "",
      prev_page_token: page.prev ? encodePageToken(masterKey, orgId, "prev", page.prev) : "",
    },
    200,
  );
};
