"use client";

import { useQuery } from "@tanstack/react-query";
import { Minus, X } from "lucide-react";
import { useQueryStates, type inferParserType } from "nuqs";

import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { DataTable, type ColumnDef } from "@/components/ui/data-table";
import { Field, Select } from "@/components/ui/field";
import { EmptyState } from "@/components/ui/states";
import { QueryState } from "@/components/ui/query-state";
import { GuardedButton } from "@/components/common/guarded-button";
import { PersonCombobox } from "@/components/common/person-combobox";
import { usePerson } from "@/components/common/person-name";
import type { RoleBinding } from "@/lib/contract/iam";
import { iamQueries } from "@/lib/query/iam";
import type { Person } from "@/lib/query/people";
import { bindingFilterParams, toBindingQuery } from "./filters";
import { ScopeLabel, UserLabel } from "./scope-label";
import type { IamContext } from "./use-iam-context";

interface BindingsPanelProps {
  ctx: IamContext;
  selfId: string;
  /** Why a binding cannot be staged for removal now, or null; `relation` is its person's, when known. */
  removalBlocked: (binding: RoleBinding, relation: Person["relation"] | undefined) => string | null;
  isStaged: (binding: RoleBinding) => boolean;
  onStageRemoval: (binding: RoleBinding) => void;
}

/** A row's "Stage removal", locked in advance for a person the caller may not change (looked up past the directory). */
function RemovalButton({ ctx, binding: b, selfId, removalBlocked, onStageRemoval }: { ctx: IamContext; binding: RoleBinding; selfId: string } & Pick<BindingsPanelProps, "removalBlocked" | "onStageRemoval">) {
  const person = usePerson(ctx.entity?.id ?? "", b.customer_id);
  return (
    <GuardedButton
      variant="ghost"
      size="sm"
      reason={removalBlocked(b, person?.relation)}
      aria-label={`Stage removal of ${b.role_name} for ${b.customer_id === selfId ? "you" : b.customer_id} on ${b.scope_type} ${ctx.scopeName(b.scope_type, b.scope_object_id) ?? b.scope_object_id}`}
      onClick={() => onStageRemoval(b)}
    >
      <Minus aria-hidden /> Stage removal
    </GuardedButton>
  );
}

export function BindingsPanel({ ctx, selfId, removalBlocked, isStaged, onStageRemoval }: BindingsPanelProps) {
  const [filters, setFilters] = useQueryStates(bindingFilterParams, { history: "push" });
  const query = toBindingQuery(filters);
  const state = useQuery(iamQueries.bindings(query));
  const bindings = (state.data?.role_bindings ?? []).filter(ctx.inOrg);
  const filtered = Object.keys(query).length > 0;

  const columns: ColumnDef<RoleBinding, unknown>[] = [
    { id: "user", header: "User", accessorFn: (b) => b.customer_id, cell: ({ row }) => <UserLabel orgId={ctx.entity?.id ?? ""} userId={row.original.customer_id} selfId={selfId} /> },
    { id: "role", header: "Role", accessorFn: (b) => b.role_name, cell: ({ getValue }) => <span className="font-medium">{String(getValue())}</span> },
    {
      id: "scope",
      header: "Scope",
      accessorFn: (b) => `${b.scope_type} ${ctx.scopeName(b.scope_type, b.scope_object_id) ?? b.scope_object_id}`,
      cell: ({ row: { original: b } }) => <ScopeLabel scopeType={b.scope_type} scopeObjectId={b.scope_object_id} name={ctx.scopeName(b.scope_type, b.scope_object_id)} />,
    },
    {
      id: "actions",
      header: () => <span className="sr-only">Actions</span>,
      enableSorting: false,
      cell: ({ row: { original: b } }) =>
        isStaged(b) ? (
          <span className="text-xs font-medium text-red-600 dark:text-red-400">Removal staged</span>
        ) : (
          <RemovalButton ctx={ctx} binding={b} selfId={selfId} removalBlocked={removalBlocked} onStageRemoval={onStageRemoval} />
        ),
    },
  ];

  return (
    <Card>
      <CardHeader
        title="Role bindings"
        description={
          ctx.access.can("iam.read")
            ? "Who holds which role, and where. Filters stay in the address, so a view can be shared."
            : "Without the iam.read permission you see only your own bindings."
        }
      />
      <BindingFilters ctx={ctx} filters={filters} onChange={(next) => void setFilters(next)} />
      <QueryState
        state={state}
        what="role bindings"
        lines={6}
        isEmpty={() => bindings.length === 0}
        empty={
          <EmptyState
            title={filtered ? "No role binding matches these filters" : "No role bindings"}
            action={
              filtered ? (
                <Button variant="secondary" size="sm" onClick={() => void setFilters(null)}>
                  Clear filters
                </Button>
              ) : undefined
            }
          />
        }
      >
        {() => <DataTable label="Role bindings" columns={columns} data={bindings} getRowId={(b) => b.id} className="rounded-none border-0 border-t" />}
      </QueryState>
    </Card>
  );
}

type Filters = inferParserType<typeof bindingFilterParams>;
/** Null clears a filter; null for all clears them all. */
type FilterUpdate = { [K in keyof Filters]?: Filters[K] | null } | null;

function BindingFilters({ ctx, filters, onChange }: { ctx: IamContext; filters: Filters; onChange: (next: FilterUpdate) => void }) {
  const any = filters.user_id || filters.role_id || filters.scope_type || filters.scope_object_id;
  return (
    <form
      aria-label="Filter role bindings"
      className="grid gap-3 border-b border-slate-100 p-4 sm:grid-cols-2 lg:grid-cols-5 lg:items-end dark:border-slate-800"
      onSubmit={(e) => e.preventDefault()}
    >
      <PersonCombobox
        key={filters.user_id}
        orgId={ctx.entity?.id ?? ""}
        id="filter-user"
        label="Person"
        value={filters.user_id || null}
        onChange={(p) => onChange({ user_id: p?.id ?? null })}
      />
      <Field label="Role" htmlFor="filter-role">
        <Select id="filter-role" value={filters.role_id} onChange={(e) => onChange({ role_id: e.target.value || null })}>
          <option value="">Any role</option>
          {ctx.orgRoles.map((r) => (
            <option key={r.id} value={r.id}>
              {r.role_name}
            </option>
          ))}
        </Select>
      </Field>
      <Field label="Scope type" htmlFor="filter-scope-type">
        <Select id="filter-scope-type" value={filters.scope_type ?? ""} onChange={(e) => onChange({ scope_type: (e.target.value || null) as Filters["scope_type"] })}>
          <option value="">Any scope type</option>
          <option value="org">org</option>
          <option value="project">project</option>
        </Select>
      </Field>
      <Field label="Scope" htmlFor="filter-scope">
        <Select id="filter-scope" value={filters.scope_object_id} onChange={(e) => onChange({ scope_object_id: e.target.value || null })}>
          <option value="">Any scope</option>
          <option value={ctx.entity?.id ?? ""} disabled={!ctx.entity}>
            org {ctx.orgName}
          </option>
          {ctx.orgProjects.map((p) => (
            <option key={p.id} value={p.id}>
              project {p.name}
            </option>
          ))}
        </Select>
      </Field>
      <div className="flex gap-2">
        <Button type="submit" variant="secondary">
          Filter
        </Button>
        {any ? (
          <Button type="button" variant="ghost" onClick={() => onChange(null)}>
            <X aria-hidden /> Clear filters
          </Button>
        ) : null}
      </div>
    </form>
  );
}
