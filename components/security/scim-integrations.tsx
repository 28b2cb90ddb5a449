"use client";

import { useQuery } from "@tanstack/react-query";
import { IntentLink } from "@/components/common/intent-link";
import { useMemo } from "react";
import { Badge } from "@/components/ui/badge";
import { Card, CardHeader } from "@/components/ui/card";
import { DataTable, type ColumnDef } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/states";
import { QueryState } from "@/components/ui/query-state";
import type { ScimIntegration } from "@/lib/contract/scim";
import { scimQueries } from "@/lib/query/security";
import { ActionsHeader } from "@/components/common/actions-header";
import { missingPermission, useOrgAccess } from "@/components/common/use-org";
import { DateText, RelativeTime } from "@/components/common/dates";
import { PermissionNote } from "./permission-note";
import { CreateScimIntegrationButton } from "./create-buttons";
import { ScimIntegrationActions } from "./scim-integration-actions";

export function ScimStatusBadge({ status }: { status: string }) {
  return <Badge tone={status === "active" ? "good" : "neutral"}>{status === "active" ? "Active" : status === "inactive" ? "Inactive" : status}</Badge>;
}

export function ScimIntegrationsView({ orgId }: { orgId: string }) {
  const integrations = useQuery(scimQueries.list(orgId));
  const access = useOrgAccess(orgId);
  const reason = access.can("scim.manage") ? undefined : missingPermission("scim.manage");

  const columns = useMemo(() => scimIntegrationColumns(orgId, reason), [orgId, reason]);

  return (
    <div className="space-y-4">
      {access.ready && reason ? <PermissionNote id="scim-permission" what="the SCIM integrations" permission="scim.manage" /> : null}
      <Card>
        <CardHeader
          title="SCIM integrations"
          description="Identity providers that create, update and deactivate this organization's users. Open one to manage its tokens."
          action={<CreateScimIntegrationButton orgId={orgId} disabledReason={reason} />}
        />
        <QueryState
          state={integrations}
          what="the SCIM integrations"
          label="SCIM integrations"
          lines={3}
          isEmpty={(data) => data.integrations.length === 0}
          empty={<EmptyState title="No SCIM integrations">Connect an identity provider to provision users automatically.</EmptyState>}
        >
          {(data) => (
            <div className="p-4">
              <DataTable label="SCIM integrations" columns={columns} data={data.integrations} getRowId={(i) => i.id} />
            </div>
          )}
        </QueryState>
      </Card>
    </div>
  );
}

function scimIntegrationColumns(orgId: string, reason: string | undefined): ColumnDef<ScimIntegration, unknown>[] {
  return [
  {
    accessorKey: "name",
    header: "Name",
    cell: ({ row }) => (
      <IntentLink href={`/orgs/${orgId}/security/scim/${encodeURIComponent(row.original.id)}`} className="font-medium text-brand-600 hover:underline dark:text-brand-400">
        {row.original.name}
      </IntentLink>
    ),
  },
  { accessorKey: "identity_provider", header: "Identity provider" },
  { accessorKey: "status", header: "Status", cell: ({ row }) => <ScimStatusBadge status={row.original.status} /> },
  { id: "tokens", accessorFn: (i) => i.token_ids.length, header: "Tokens" },
  { accessorKey: "user_count", header: "Users" },
  { accessorKey: "last_activity_at", header: "Last activity", cell: ({ row }) => <RelativeTime value={row.original.last_activity_at} /> },
  { accessorKey: "created_at", header: "Created", cell: ({ row }) => <DateText value={row.original.created_at} /> },
  {
    id: "actions",
    header: () => <ActionsHeader />,
    enableSorting: false,
    cell: ({ row }) => <ScimIntegrationActions orgId={orgId} integration={row.original} disabledReason={reason} />,
  },
  ];
}
