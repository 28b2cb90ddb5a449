"use client";

import { Fragment } from "react";
import { Badge } from "@/components/ui/badge";
import { Card, CardHeader } from "@/components/ui/card";
import { DataTable, type ColumnDef } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/states";
import { QueryState } from "@/components/ui/query-state";
import type { Role } from "@/lib/contract/iam";
import type { IamContext } from "./use-iam-context";

const columns: ColumnDef<Role, unknown>[] = [
  { id: "name", header: "Role", accessorFn: (r) => r.role_name, cell: ({ getValue }) => <span className="font-medium">{String(getValue())}</span> },
  {
    id: "scopes",
    header: "Allowed scopes",
    accessorFn: (r) => r.allowed_scopes.join(", "),
    cell: ({ row }) => (
      <span className="flex gap-1">
        {row.original.allowed_scopes.map((s, i) => (
          <Fragment key={s}>
            {i > 0 ? " " : null}
            <Badge tone={s === "org" ? "info" : "neutral"}>{s}</Badge>
          </Fragment>
        ))}
      </span>
    ),
  },
  {
    id: "description",
    header: "Description",
    accessorFn: (r) => r.description,
    cell: ({ getValue }) => <span className="whitespace-normal text-slate-600 dark:text-slate-300">{String(getValue())}</span>,
  },
];

export function RolesTable({ ctx }: { ctx: IamContext }) {
  const { roles } = ctx;
  return (
    <Card>
      <CardHeader title="Roles" description="The roles of the organization, where each may be bound, and what it is for." />
      <QueryState state={roles} what="roles" lines={5} isEmpty={() => ctx.orgRoles.length === 0} empty={<EmptyState title="No roles in this organization" />}>
        {() => <DataTable label="Roles" columns={columns} data={ctx.orgRoles} getRowId={(r) => r.id} className="rounded-none border-0" />}
      </QueryState>
    </Card>
  );
}
