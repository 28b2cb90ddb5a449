"use client";

import { useQuery } from "@tanstack/react-query";
import { Pencil, Search, Trash2, X } from "lucide-react";
import { IntentLink } from "@/components/common/intent-link";
import { useQueryStates } from "nuqs";
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { DataTable, type ColumnDef } from "@/components/ui/data-table";
import { Input } from "@/components/ui/field";
import { PageHeader } from "@/components/ui/page-header";
import { EmptyState } from "@/components/ui/states";
import { QueryState } from "@/components/ui/query-state";
import { projectQueries, type Project } from "@/lib/query/projects";
import { CreateProjectButton } from "./create-project-button";
import { DeleteProjectDialog } from "./delete-project-dialog";
import { projectSearchParams } from "./filters";
import { GuardedButton } from "@/components/common/guarded-button";
import { preloadRenameForm, RenameProject } from "./rename-project";
import { useProjectAccess } from "./use-project-access";

const COUNTS = [
  { key: "instances", label: "VMs" },
  { key: "disks", label: "Disks" },
  { key: "snapshots", label: "Snapshots" },
  { key: "images", label: "Images" },
  { key: "vpc_networks", label: "VPC networks" },
] as const;

export function ProjectsView({ orgId, orgName }: { orgId: string; orgName: string; selfId?: string }) {
  const [{ project_name: name }, setSearch] = useQueryStates(projectSearchParams, { history: "push" });
  const state = useQuery(projectQueries.list(name ? { project_name: name } : {}));
  const { createReason, guard } = useProjectAccess(orgId);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Project | null>(null);

  // Listing with org_id is for owners only: everyone lists what they can see and keeps this organization's.
  const projects = (state.data?.items ?? []).filter((p) => p.organization_id === orgId);

  const columns: ColumnDef<Project, unknown>[] = [
    {
      id: "name",
      header: "Name",
      accessorFn: (p) => p.name,
      cell: ({ row: { original: p } }) =>
        renaming === p.id ? (
          <RenameProject project={p} onDone={() => setRenaming(null)} />
        ) : (
          <IntentLink href={`/orgs/${orgId}/projects/${p.id}`} className="font-medium text-brand-600 hover:underline dark:text-brand-400">
            {p.name}
          </IntentLink>
        ),
    },
    {
      id: "relation",
      header: "Your relation",
      accessorFn: (p) => p.relation,
      cell: ({ getValue }) => <Badge tone={getValue() === "owner" ? "info" : "neutral"}>{String(getValue())}</Badge>,
    },
    ...COUNTS.map(
      (c): ColumnDef<Project, unknown> => ({
        id: c.key,
        header: c.label,
        accessorFn: (p) => p.resources[c.key].count,
        cell: ({ getValue }) => <span className="tabular-nums">{String(getValue())}</span>,
      }),
    ),
    {
      id: "actions",
      header: () => <span className="sr-only">Actions</span>,
      enableSorting: false,
      cell: ({ row: { original: p } }) => (
        <ProjectActions project={p} guard={guard} renaming={renaming === p.id} onRename={() => setRenaming(p.id)} onDelete={() => setDeleting(p)} />
      ),
    },
  ];

  return (
    <>
      <PageHeader
        title="Projects"
        description={`Projects of ${orgName} you belong to or own, with their resources.`}
        actions={<CreateProjectButton orgId={orgId} orgName={orgName} reason={createReason} />}
      />
      {createReason ? <p className="-mt-3 mb-4 text-sm text-slate-500 dark:text-slate-400">{createReason}</p> : null}

      <SearchForm key={name} name={name} onSearch={(value) => void setSearch({ project_name: value || null })} />

      <Card>
        <QueryState
          state={state}
          what="projects"
          lines={6}
          isEmpty={() => projects.length === 0}
          empty={<NoProjects name={name} createReason={createReason} onClear={() => void setSearch({ project_name: null })} />}
        >
          {() => <DataTable label="Projects" columns={columns} data={projects} getRowId={(p) => p.id} className="rounded-lg border-0" />}
        </QueryState>
      </Card>

      {deleting ? <DeleteProjectDialog project={deleting} open onOpenChange={(open) => !open && setDeleting(null)} /> : null}
    </>
  );
}

/** Rename and Delete, each disabled with the reason when the caller may not. */
function ProjectActions({
  project: p,
  guard,
  renaming,
  onRename,
  onDelete,
}: {
  project: Project;
  guard: ReturnType<typeof useProjectAccess>["guard"];
  renaming: boolean;
  onRename: () => void;
  onDelete: () => void;
}) {
  const rename = guard(p.id, "projects.update");
  const remove = guard(p.id, "projects.delete");
  return (
    <div className="flex justify-end gap-1">
      <GuardedButton
        variant="ghost"
        size="sm"
        reason={rename.reason}
        title={rename.caveat ?? undefined}
        aria-label={`Rename ${p.name}`}
        onPointerEnter={preloadRenameForm}
        onFocus={preloadRenameForm}
        onClick={onRename}
        disabled={renaming}
      >
        <Pencil aria-hidden /> <span className="hidden lg:inline">Rename</span>
      </GuardedButton>
      <GuardedButton variant="ghost-danger" size="sm" reason={remove.reason} title={remove.caveat ?? undefined} aria-label={`Delete ${p.name}`} onClick={onDelete}>
        <Trash2 aria-hidden /> <span className="hidden lg:inline">Delete</span>
      </GuardedButton>
    </div>
  );
}

/** No project matches the search, or the organization has none the caller can see. */
function NoProjects({ name, createReason, onClear }: { name: string; createReason: string | null; onClear: () => void }) {
  if (name) {
    return (
      <EmptyState
        title={`No project is named “${name}”`}
        action={
          <Button variant="secondary" size="sm" onClick={onClear}>
            Clear search
          </Button>
        }
      >
        The search matches the exact, case-sensitive name.
      </EmptyState>
    );
  }
  return (
    <EmptyState title="No projects yet">
      {createReason ? "You belong to no project of this organization; ask an owner to add you to one." : "Create the first project of this organization."}
    </EmptyState>
  );
}

function SearchForm({ name, onSearch }: { name: string; onSearch: (value: string) => void }) {
  const [value, setValue] = useState(name);
  return (
    <form
      role="search"
      aria-label="Search projects"
      className="mb-4 flex flex-col gap-2 sm:flex-row sm:items-center"
      onSubmit={(e) => {
        e.preventDefault();
        onSearch(value.trim());
      }}
    >
      <label htmlFor="project-search" className="sr-only">
        Exact project name
      </label>
      <Input id="project-search" type="search" placeholder="Exact project name" value={value} onChange={(e) => setValue(e.target.value)} className="sm:max-w-xs" />
      <div className="flex gap-2">
        <Button type="submit" variant="secondary">
          <Search aria-hidden /> Search
        </Button>
        {name ? (
          <Button type="button" variant="ghost" onClick={() => onSearch("")}>
            <X aria-hidden /> Clear
          </Button>
        ) : null}
      </div>
    </form>
  );
}
