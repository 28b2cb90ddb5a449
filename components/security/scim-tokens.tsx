"use client";

import { useQuery } from "@tanstack/react-query";
import { AlertTriangle } from "lucide-react";
import { useMemo, useState } from "react";
import { Card, CardHeader } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { DataTable, type ColumnDef } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/states";
import { QueryState } from "@/components/ui/query-state";
import type { ScimTokenInfo } from "@/lib/contract/scim";
import { securityKeys } from "@/lib/query/keys";
import { useGatewayMutation } from "@/components/common/use-gateway-mutation";
import { scimQueries, securityPaths } from "@/lib/query/security";
import { deleteColumn } from "@/components/common/delete-column";
import { DateText, EXPIRY_WARNING_DAYS, ExpiryCell, expiryState, RelativeTime } from "@/components/common/dates";
import { CreateScimTokenButton } from "./create-buttons";

/** One integration's tokens: alias, dates, a warning before they expire, create and delete. */
export function ScimTokens({ orgId, integrationId, disabledReason }: { orgId: string; integrationId: string; disabledReason?: string }) {
  const tokens = useQuery(scimQueries.tokens(orgId, integrationId));
  const [deleting, setDeleting] = useState<ScimTokenInfo | null>(null);
  const remove = useGatewayMutation<ScimTokenInfo>({
    request: (t) => ({ method: "DELETE", path: securityPaths.scimToken(orgId, integrationId, t.key_id) }),
    invalidate: () => [securityKeys.scimIntegration(orgId, integrationId), securityKeys.scimIntegrations(orgId)],
    success: (_r, t) => `Token ${t.alias} deleted`,
    onSuccess: () => setDeleting(null),
  });

  const columns = useMemo(() => scimTokenColumns(disabledReason, setDeleting), [disabledReason]);

  const items = tokens.data?.items ?? [];
  const expiring = items.filter((t) => {
    const s = expiryState(t.expires_at);
    return s === "soon" || s === "expired";
  });
  const healthy = items.length - expiring.length;
  return (
    <Card>
      <CardHeader
        title="Tokens"
        description="The identity provider authenticates with one of these. Keep two during a rotation so provisioning has no gap."
        action={<CreateScimTokenButton orgId={orgId} integrationId={integrationId} disabledReason={disabledReason} />}
      />
      <QueryState
        state={tokens}
        what="the tokens"
        label="tokens"
        lines={3}
        isEmpty={() => items.length === 0}
        empty={<EmptyState title="No tokens">The identity provider cannot connect until you create one.</EmptyState>}
      >
        {() => (
          <div className="space-y-3 p-4">
            {expiring.length > 0 ? (
              <p
                role="status"
                className="flex gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200"
              >
                <AlertTriangle className="mt-0.5 size-4 shrink-0" aria-hidden />
                <span>
                  {expiring.map((t) => t.alias).join(", ")} {expiring.length === 1 ? "expires" : "expire"} within {EXPIRY_WARNING_DAYS} days or already
                  expired.{" "}
                  {healthy > 0
                    ? "Make sure the identity provider uses a newer token before then."
                    : "Create a new token and give it to the identity provider before then, or provisioning stops."}
                </span>
              </p>
            ) : null}
            <DataTable label="SCIM tokens" columns={columns} data={items} getRowId={(t) => t.key_id} />
          </div>
        )}
      </QueryState>
      <ConfirmDialog
        key={deleting?.key_id ?? "none"}
        open={deleting !== null}
        onOpenChange={(open) => {
          if (!open) setDeleting(null);
        }}
        title={`Delete token ${deleting?.alias ?? ""}?`}
        confirmLabel="Delete token"
        typeToConfirm={deleting?.alias}
        pending={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting)}
      >
        <p>
          The identity provider can no longer authenticate with this token; if it still uses it, provisioning stops until it gets another.{" "}
          {items.length <= 1 ? (
            <strong>It is the integration&apos;s last token: provisioning stops altogether until you create another.</strong>
          ) : (
            <>
              The other {items.length - 1} {items.length - 1 === 1 ? "token keeps" : "tokens keep"} working.
            </>
          )}
        </p>
      </ConfirmDialog>
    </Card>
  );
}

function scimTokenColumns(disabledReason: string | undefined, onDelete: (token: ScimTokenInfo) => void): ColumnDef<ScimTokenInfo, unknown>[] {
  return [
  { accessorKey: "alias", header: "Alias", cell: ({ row }) => <span className="font-medium">{row.original.alias}</span> },
  { accessorKey: "key_id", header: "Token ID", cell: ({ row }) => <code className="font-mono text-xs">{row.original.key_id}</code> },
  { accessorKey: "created_at", header: "Created", cell: ({ row }) => <DateText value={row.original.created_at} /> },
  { accessorKey: "expires_at", header: "Expires", cell: ({ row }) => <ExpiryCell value={row.original.expires_at} /> },
  { accessorKey: "last_used", header: "Last used", cell: ({ row }) => <RelativeTime value={row.original.last_used} /> },
  deleteColumn<ScimTokenInfo>({ label: (t) => `Delete token ${t.alias}`, disabledReason: () => disabledReason, onDelete }),
  ];
}
