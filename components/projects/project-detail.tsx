"use client";

import { useQuery } from "@tanstack/react-query";
import { ArrowLeft, Pencil, Trash2 } from "lucide-react";
import { IntentLink } from "@/components/common/intent-link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Skeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { QueryState } from "@/components/ui/query-state";
import { projectQueries } from "@/lib/query/projects";
import { DeleteProjectDialog } from "./delete-project-dialog";
import { GuardedButton } from "@/components/common/guarded-button";
import { preloadRenameForm, RenameProject } from "./rename-project";
import { useProjectAccess } from "./use-project-access";
import { VmTable } from "./vm-table";

const COUNTS = [
  { key: "instances", label: "VMs" },
  { key: "disks", label: "Disks" },
  { key: "snapshots", label: "Snapshots" },
  { key: "images", label: "Images" },
  { key: "vpc_networks", label: "VPC networks" },
] as const;

export function ProjectDetail({ orgId, projectId }: { orgId: string; projectId: string; selfId?: string }) {
  const router = useRouter();
  const project = useQuery(projectQueries.detail(projectId));
  const vms = useQuery(projectQueries.vms(projectId));
  const { guard } = useProjectAccess(orgId);
  const [renaming, setRenaming] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const listHref = `/orgs/${orgId}/projects`;

  const back = (
    <IntentLink href={listHref} className="inline-flex items-center gap-1 text-sm text-brand-600 hover:underline dark:text-brand-400">
      <ArrowLeft className="size-4" aria-hidden /> All projects
    </IntentLink>
  );

  if (project.isPending) {
    return (
      <div role="status" aria-label="Loading the project" className="space-y-4">
        <Skeleton className="h-8 w-64" />
        <Skeleton className="h-28" />
        <Skeleton className="h-64" />
      </div>
    );
  }
  if (project.isError || project.data.organization_id !== orgId) {
    return (
      <div className="space-y-4">
        {back}
        <Card>
          <ErrorState
            error={project.error ?? { status: 404, message: "This project belongs to another organization" }}
            what="this project"
            onRetry={project.isError ? () => void project.refetch() : undefined}
          />
        </Card>
      </div>
    );
  }

  const p = project.data;
  const rename = guard(p.id, "projects.update");
  const remove = guard(p.id, "projects.delete");

  return (
    <div className="space-y-6">
      {back}
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div className="min-w-0">
          {renaming ? (
            <RenameProject project={p} onDone={() => setRenaming(false)} />
          ) : (
            <h1 className="truncate text-2xl font-semibold tracking-tight">{p.name}</h1>
          )}
          <p className="mt-1 flex flex-wrap items-center gap-2 text-sm text-slate-600 dark:text-slate-300">
            <span className="font-mono text-xs">{p.id}</span>
            <Badge tone={p.relation === "owner" ? "info" : "neutral"}>you: {p.relation}</Badge>
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          <GuardedButton variant="secondary" reason={rename.reason} title={rename.caveat ?? undefined} disabled={renaming} onPointerEnter={preloadRenameForm} onFocus={preloadRenameForm} onClick={() => setRenaming(true)}>
            <Pencil aria-hidden /> Rename
          </GuardedButton>
          <GuardedButton variant="danger" reason={remove.reason} title={remove.caveat ?? undefined} onClick={() => setDeleting(true)}>
            <Trash2 aria-hidden /> Delete project
          </GuardedButton>
        </div>
      </div>

      <Card>
        <CardHeader title="Resources" description="What the project holds now." />
        <CardBody>
          <dl className="grid grid-cols-2 gap-4 sm:grid-cols-5">
            {COUNTS.map((c) => (
              <div key={c.key}>
                <dt className="text-xs text-slate-500 dark:text-slate-400">{c.label}</dt>
                <dd className="text-2xl font-semibold tabular-nums">{p.resources[c.key].count}</dd>
              </div>
            ))}
          </dl>
        </CardBody>
      </Card>

      <Card>
        <CardHeader title="Virtual machines" description="State, type, location, disks and network interfaces of each VM." />
        <QueryState
          state={vms}
          what="the project's VMs"
          label="VMs"
          lines={5}
          isEmpty={(data) => data.items.length === 0}
          empty={<EmptyState title="No VMs in this project" />}
        >
          {(data) => <VmTable vms={data.items} projectName={p.name} />}
        </QueryState>
      </Card>

      {deleting ? (
        <DeleteProjectDialog
          project={p}
          open
          onOpenChange={(open) => !open && setDeleting(false)}
          onDeleted={() => router.push(listHref)}
        />
      ) : null}
    </div>
  );
}
