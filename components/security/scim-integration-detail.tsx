"use client";

import { useQuery } from "@tanstack/react-query";
import { ArrowLeft } from "lucide-react";
import { IntentLink } from "@/components/common/intent-link";
import { useRouter } from "next/navigation";
import { Suspense } from "react";
import type * as React from "react";
import { lazyComponent } from "@/components/common/lazy";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { WidgetSkeleton } from "@/components/ui/skeleton";
import { ErrorState, keepsLoadedData, RefreshError } from "@/components/ui/states";
import { scimQueries } from "@/lib/query/security";
import { missingPermission, useOrgAccess } from "@/components/common/use-org";
import { DateText, RelativeTime } from "@/components/common/dates";
import { PersonName } from "@/components/common/person-name";
import { PermissionNote } from "./permission-note";
import { ScimIntegrationActions } from "./scim-integration-actions";
import { ScimStatusBadge } from "./scim-integrations";
import { ScimBaseUrl } from "./scim-base-url";
import { ScimTokens } from "./scim-tokens";

// Below the tokens, and drawn from queries the browser makes (the page prefetches none of them): the
// provisioned people and groups, the group mappings and the activity come after the page's first load.
const ScimProvisioned = lazyComponent(() => import("./scim-provisioning").then((m) => m.ScimProvisioned));
const ScimGroupMappings = lazyComponent(() => import("./scim-provisioning").then((m) => m.ScimGroupMappings));
const ScimActivity = lazyComponent(() => import("./scim-provisioning").then((m) => m.ScimActivity));

function Detail({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <dt className="text-xs text-slate-500 dark:text-slate-400">{label}</dt>
      <dd className="mt-0.5 text-sm">{children}</dd>
    </div>
  );
}

export function ScimIntegrationDetail({ orgId, integrationId }: { orgId: string; integrationId: string }) {
  const router = useRouter();
  const integration = useQuery(scimQueries.detail(orgId, integrationId));
  const access = useOrgAccess(orgId);
  const reason = access.can("scim.manage") ? undefined : missingPermission("scim.manage");
  const listHref = `/orgs/${orgId}/security/scim`;
  return (
    <div className="space-y-4">
      <IntentLink href={listHref} className="inline-flex items-center gap-1 text-sm text-brand-600 hover:underline dark:text-brand-400">
        <ArrowLeft className="size-4" aria-hidden /> All SCIM integrations
      </IntentLink>
      {access.ready && reason ? <PermissionNote id="scim-permission" what="this integration and its tokens" permission="scim.manage" /> : null}
      {integration.isPending ? (
        <Card>
          <WidgetSkeleton label="the SCIM integration" lines={4} />
        </Card>
      ) : integration.isError && !(integration.data !== undefined && keepsLoadedData(integration.error)) ? (
        <Card>
          <ErrorState error={integration.error} what="the SCIM integration" onRetry={() => void integration.refetch()} />
        </Card>
      ) : (
        <>
          {/* Kept through a failed refresh: the page holds the dialog of a token just made, shown once. */}
          {integration.isError ? <RefreshError error={integration.error} what="the SCIM integration" onRetry={() => void integration.refetch()} /> : null}
          <Card>
            <CardHeader
              title={integration.data.name}
              description={`SCIM integration with ${integration.data.identity_provider}`}
              action={<ScimIntegrationActions orgId={orgId} integration={integration.data} disabledReason={reason} onDeleted={() => router.push(listHref)} />}
            />
            <CardBody>
              <dl className="grid grid-cols-2 gap-4 sm:grid-cols-3 lg:grid-cols-6">
                <Detail label="Status">
                  <ScimStatusBadge status={integration.data.status} />
                </Detail>
                <Detail label="Identity provider">{integration.data.identity_provider}</Detail>
                <Detail label="People">{integration.data.user_count}</Detail>
                <Detail label="Last activity">
                  <RelativeTime value={integration.data.last_activity_at} />
                </Detail>
                <Detail label="Created">
                  <DateText value={integration.data.created_at} />
                </Detail>
                <Detail label="Created by">
                  <PersonName orgId={orgId} userId={integration.data.created_by} />
                </Detail>
              </dl>
              <div className="mt-4">
                <p className="mb-1 text-xs text-slate-500 dark:text-slate-400">SCIM base URL (give it to the identity provider with a token)</p>
                <ScimBaseUrl />
              </div>
            </CardBody>
          </Card>
          <ScimTokens orgId={orgId} integrationId={integrationId} disabledReason={reason} />
          {reason ? null : (
            <Suspense
              fallback={
                <Card>
                  <WidgetSkeleton label="provisioned people and groups" lines={3} />
                </Card>
              }
            >
              <ScimProvisioned orgId={orgId} integrationId={integrationId} />
              <ScimGroupMappings orgId={orgId} integrationId={integrationId} disabledReason={reason} />
              <ScimActivity orgId={orgId} integrationId={integrationId} />
            </Suspense>
          )}
        </>
      )}
    </div>
  );
}
