"use client";

import { useQuery } from "@tanstack/react-query";
import { parseAsStringLiteral, useQueryState } from "nuqs";
import { useMemo, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { DataTable, type ColumnDef } from "@/components/ui/data-table";
import { PageHeader } from "@/components/ui/page-header";
import { EmptyState } from "@/components/ui/states";
import { QueryState } from "@/components/ui/query-state";
import { deleteColumn } from "@/components/common/delete-column";
import { PersonName } from "@/components/common/person-name";
import { useOrgAccess } from "@/components/common/use-org";
import { DateText, expiryState, ExpiryCell } from "@/components/common/dates";
import type { S3Key } from "@/lib/contract/s3";
import { storageKeys } from "@/lib/query/keys";
import { useGatewayMutation } from "@/components/common/use-gateway-mutation";
import { storagePaths, storageQueries } from "@/lib/query/storage";
import { cn } from "@/lib/utils";
import { CreateS3KeyButton } from "./s3-key-create-button";
import type { S3Connection } from "./s3-connection";

const OWNERS = ["all", "mine"] as const;

const keyName = (key: S3Key) => key.alias || key.access_key_id;

function OwnerFilter({ value, onChange }: { value: (typeof OWNERS)[number]; onChange: (v: (typeof OWNERS)[number]) => void }) {
  return (
    <div role="group" aria-label="Show keys of" className="inline-flex rounded-md border border-slate-300 p-0.5 dark:border-slate-700">
      {OWNERS.map((o) => (
        <button
          key={o}
          type="button"
          aria-pressed={value === o}
          onClick={() => onChange(o)}
          className={cn(
            "whitespace-nowrap rounded px-3 py-1 text-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500",
            value === o ? "bg-slate-900 text-white dark:bg-slate-100 dark:text-slate-900" : "text-slate-700 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800",
          )}
        >
          {o === "all" ? "All keys" : "My keys"}
        </button>
      ))}
    </div>
  );
}

/** The organization's S3 access keys: anyone may hold their own; deleting another's needs s3.manage. */
export function S3KeysView({ orgId, userId, connection }: { orgId: string; userId: string; connection: S3Connection }) {
  const keys = useQuery(storageQueries.s3Keys(orgId));
  const access = useOrgAccess(orgId);
  const [owner, setOwner] = useQueryState("owner", parseAsStringLiteral(OWNERS).withDefault("all"));
  const [deleting, setDeleting] = useState<S3Key | null>(null);
  const remove = useGatewayMutation<S3Key>({
    request: (key) => ({ method: "DELETE", path: storagePaths.s3Key(orgId, key.access_key_id) }),
    invalidate: () => [storageKeys.s3Keys(orgId)],
    success: (_r, key) => `S3 key ${keyName(key)} deleted`,
    onSuccess: () => setDeleting(null),
  });
  const canManageOthers = access.can("s3.manage");

  const columns = useMemo(() => s3KeyColumns(orgId, userId, canManageOthers, setDeleting), [orgId, userId, canManageOthers]);

  const rows = (keys.data?.items ?? []).filter((k) => owner === "all" || k.user_id === userId);
  return (
    <div className="space-y-6">
      <PageHeader
        title="Object storage keys"
        description="S3-compatible access keys for this organization's object storage. A key acts as the user who created it; its secret is shown only once."
        actions={<CreateS3KeyButton orgId={orgId} connection={connection} />}
      />
      <Card aria-label="Connection">
        <CardHeader title="Connection" description="What an S3 client needs besides a key." />
        <CardBody>
          <dl className="grid gap-3 text-sm sm:grid-cols-[auto_1fr] sm:gap-x-6">
            <dt className="text-slate-600 dark:text-slate-300">Endpoint</dt>
            <dd>
              <code className="break-all font-mono text-xs">{connection.endpoint}</code>
            </dd>
            <dt className="text-slate-600 dark:text-slate-300">Region</dt>
            <dd>
              <code className="font-mono text-xs">{connection.region}</code>
            </dd>
          </dl>
        </CardBody>
      </Card>
      <Card>
        <CardHeader title="S3 access keys" description={
            canManageOthers
              ? "Every key in the organization, yours and your colleagues'."
              : "Every key in the organization. You can delete only your own: deleting others' needs the s3.manage permission."
          } action={<OwnerFilter value={owner} onChange={(v) => void setOwner(v === "all" ? null : v)} />} />
        <QueryState
          state={keys}
          what="the S3 keys"
          label="S3 keys"
          lines={4}
          isEmpty={() => rows.length === 0}
          empty={<EmptyState title={owner === "mine" ? "You have no S3 keys" : "No S3 keys yet"}>Create a key to reach the object storage with any S3 client.</EmptyState>}
        >
          {() => (
            <div className="p-4">
              <DataTable label="S3 access keys" columns={columns} data={rows} getRowId={(k) => k.access_key_id} />
            </div>
          )}
        </QueryState>
      </Card>
      <ConfirmDialog
        key={deleting?.access_key_id ?? "none"}
        open={deleting !== null}
        onOpenChange={(open) => {
          if (!open) setDeleting(null);
        }}
        title={`Delete S3 key ${deleting ? keyName(deleting) : ""}?`}
        confirmLabel="Delete key"
        typeToConfirm={deleting ? keyName(deleting) : undefined}
        pending={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting)}
      >
        <p>
          Clients using access key <code className="font-mono text-xs">{deleting?.access_key_id}</code> lose access to the object storage at once. The
          stored objects stay.
        </p>
      </ConfirmDialog>
    </div>
  );
}

function s3KeyColumns(orgId: string, userId: string, canManageOthers: boolean, onDelete: (key: S3Key) => void): ColumnDef<S3Key, unknown>[] {
  return [
  { accessorKey: "alias", header: "Alias", cell: ({ row }) => row.original.alias ? <span className="inline-block max-w-[14rem] whitespace-normal break-words">{row.original.alias}</span> : <span className="text-slate-500 dark:text-slate-400">(no alias)</span> },
  { accessorKey: "access_key_id", header: "Access key ID", cell: ({ row }) => <code className="font-mono text-xs">{row.original.access_key_id}</code> },
  {
    accessorKey: "status",
    header: "Status",
    cell: ({ row }) => {
      const expired = expiryState(row.original.expire_at) === "expired";
      return <Badge tone={row.original.status === "enabled" ? "good" : "neutral"}>{row.original.status === "enabled" ? "Enabled" : expired ? "Disabled (expired)" : "Disabled"}</Badge>;
    },
  },
  { accessorKey: "created_at", header: "Created", cell: ({ row }) => <DateText value={row.original.created_at} /> },
  { accessorKey: "expire_at", header: "Expires", cell: ({ row }) => <ExpiryCell value={row.original.expire_at} /> },
  {
    accessorKey: "user_id",
    header: "Owner",
    cell: ({ row }) =>
      row.original.user_id === userId ? <Badge tone="info">you</Badge> : <span className="inline-block max-w-[10rem] whitespace-normal break-all"><PersonName orgId={orgId} userId={row.original.user_id} /></span>,
  },
  deleteColumn<S3Key>({
    label: (key) => `Delete S3 key ${keyName(key)}`,
    disabledReason: (key) => (key.user_id === userId || canManageOthers ? undefined : "Only the key's owner, or someone with the s3.manage permission, can delete it."),
    onDelete,
  }),
  ];
}
