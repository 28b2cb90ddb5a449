"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Card, CardHeader } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { DataTable, type ColumnDef } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/states";
import { QueryState } from "@/components/ui/query-state";
import { ssoRedirectUri } from "@/lib/contract/constants";
import type { SsoProvider } from "@/lib/contract/sso";
import { securityKeys } from "@/lib/query/keys";
import { useGatewayMutation } from "@/components/common/use-gateway-mutation";
import { securityPaths, ssoQueries } from "@/lib/query/security";
import { deleteColumn } from "@/components/common/delete-column";
import { missingPermission, useOrgAccess } from "@/components/common/use-org";
import { DateText } from "@/components/common/dates";
import { PermissionNote } from "./permission-note";
import { CopyButton } from "@/components/common/copy-button";
import { CreateSsoProviderButton, ReplaceSsoSecretButton } from "./create-buttons";
import { SsoTestPanel, useSsoTest } from "./sso-test";
import { GuardedButton } from "@/components/common/guarded-button";

/** What a user types to confirm a deletion: the issuer's host name. */
function issuerHost(uri: string): string {
  return URL.canParse(uri) ? new URL(uri).host : uri;
}

/** `consoleOrigin`: where people reach this console; each provider's redirect URI is under it. */
export function SsoProvidersView({ orgId, consoleOrigin }: { orgId: string; consoleOrigin: string }) {
  const providers = useQuery(ssoQueries.list(orgId));
  const access = useOrgAccess(orgId);
  const canManage = access.can("sso.manage");
  const reason = canManage ? undefined : missingPermission("sso.manage");
  const [deleting, setDeleting] = useState<SsoProvider | null>(null);
  const remove = useGatewayMutation<SsoProvider>({
    request: (p) => ({ method: "DELETE", path: securityPaths.ssoProvider(orgId, p.id) }),
    invalidate: () => [securityKeys.ssoProviders(orgId)],
    success: (_r, p) => `SSO provider ${issuerHost(p.issuer_uri)} deleted`,
    onSuccess: () => setDeleting(null),
  });

  const test = useSsoTest(orgId);
  const onTest = test.start;
  const testing = test.busy;

  const columns = useMemo(
    () => ssoProviderColumns({ orgId, consoleOrigin, canManage, reason, onDelete: setDeleting, onTest, testing }),
    [orgId, consoleOrigin, canManage, reason, onTest, testing],
  );

  return (
    <div className="space-y-4">
      {access.ready && !canManage ? <PermissionNote id="sso-permission" what="the SSO providers" permission="sso.manage" /> : null}
      <Card>
        <CardHeader
          title="SSO providers"
          description="OpenID Connect providers people of this organization sign in with, chosen by their e-mail domain. Register each provider's redirect URI in its application there, with the scopes openid, email and profile."
          action={<CreateSsoProviderButton orgId={orgId} disabledReason={reason} />}
        />
        <QueryState
          state={providers}
          what="the SSO providers"
          label="SSO providers"
          lines={3}
          isEmpty={(data) => data.sso_providers.length === 0}
          empty={<EmptyState title="No SSO providers">Without one, people sign in with their own credentials.</EmptyState>}
        >
          {(data) => (
            <div className="p-4">
              <DataTable label="SSO providers" columns={columns} data={data.sso_providers} getRowId={(p) => p.id} />
            </div>
          )}
        </QueryState>
      </Card>
      <SsoTestPanel state={test.state} onClose={test.cancel} />
      <ConfirmDialog
        key={deleting?.id ?? "none"}
        open={deleting !== null}
        onOpenChange={(open) => {
          if (!open) setDeleting(null);
        }}
        title="Delete this SSO provider?"
        confirmLabel="Delete provider"
        typeToConfirm={deleting ? issuerHost(deleting.issuer_uri) : undefined}
        pending={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting)}
      >
        <p>
          <span className="font-medium">{deleting?.issuer_uri}</span> will no longer sign anyone in, and everyone it signed in is signed out now.
          People with addresses at <span className="font-medium">{deleting?.email_domains.join(", ")}</span> must use another way to sign in.
        </p>
      </ConfirmDialog>
    </div>
  );
}

interface ColumnOptions {
  orgId: string;
  consoleOrigin: string;
  canManage: boolean;
  reason: string | undefined;
  onDelete: (provider: SsoProvider) => void;
  onTest: (provider: SsoProvider) => void;
  testing: boolean;
}

function ssoProviderColumns({ orgId, consoleOrigin, canManage, reason, onDelete, onTest, testing }: ColumnOptions): ColumnDef<SsoProvider, unknown>[] {
  return [
    { accessorKey: "issuer_uri", header: "Issuer", cell: ({ row }) => <span className="font-medium">{row.original.issuer_uri}</span> },
    { accessorKey: "client_id", header: "Client ID", cell: ({ row }) => <code className="font-mono text-xs">{row.original.client_id}</code> },
    {
      id: "email_domains",
      header: "Email domains",
      enableSorting: false,
      cell: ({ row }) => (
        <ul className="flex flex-wrap gap-1" aria-label="Email domains">
          {row.original.email_domains.map((d) => (
            <li key={d}>
              <Badge>{d}</Badge>
            </li>
          ))}
        </ul>
      ),
    },
    {
      id: "redirect_uri",
      header: "Redirect URI",
      enableSorting: false,
      cell: ({ row }) => {
        const uri = ssoRedirectUri(consoleOrigin, row.original.id);
        return (
          <div className="flex items-center gap-2">
            <code className="font-mono text-xs break-all">{uri}</code>
            <CopyButton value={uri} what="redirect URI" />
          </div>
        );
      },
    },
    {
      id: "client_secret",
      header: "Client secret",
      enableSorting: false,
      cell: ({ row }) => (
        <div className="flex flex-wrap items-center gap-2">
          {row.original.has_client_secret ? <Badge tone="good">Set</Badge> : <Badge tone="warn">Missing: nobody can sign in</Badge>}
          <ReplaceSsoSecretButton orgId={orgId} provider={row.original} disabledReason={canManage ? undefined : reason} />
        </div>
      ),
    },
    { accessorKey: "created_at", header: "Added", cell: ({ row }) => <DateText value={row.original.created_at} /> },
    {
      id: "test",
      header: "Test",
      enableSorting: false,
      cell: ({ row }) => (
        <GuardedButton
          variant="secondary"
          size="sm"
          reason={canManage ? (row.original.has_client_secret ? undefined : "Add the client secret first") : reason}
          disabled={testing}
          aria-label={`Test sign-in with ${row.original.issuer_uri}`}
          onClick={() => onTest(row.original)}
        >
          Test sign-in
        </GuardedButton>
      ),
    },
    deleteColumn<SsoProvider>({ label: (p) => `Delete SSO provider ${p.issuer_uri}`, disabledReason: () => (canManage ? undefined : reason), onDelete }),
  ];
}
