"use client";

import { useQuery } from "@tanstack/react-query";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Skeleton } from "@/components/ui/skeleton";
import { errorMessage } from "@/lib/query/fetcher";
import { projectQueries, type Project } from "@/lib/query/projects";
import { useDeleteProject } from "./use-project-mutations";

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * Deleting a project takes its VMs with their disks and network interfaces, and the
 * role bindings on it: the dialog says so, with counts, and asks for the name.
 */
export function DeleteProjectDialog({
  project,
  open,
  onOpenChange,
  onDeleted,
}: {
  project: Project;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onDeleted?: () => void;
}) {
  const vms = useQuery({ ...projectQueries.vms(project.id), enabled: open });
  const remove = useDeleteProject(() => {
    onOpenChange(false);
    onDeleted?.();
  });
  const list = vms.data?.items ?? [];
  const nics = list.reduce((n, vm) => n + vm.network_interfaces.length, 0);
  const { instances, disks, snapshots, images } = project.resources;
  const status = (remove.error as { status?: number } | null)?.status;

  return (
    <ConfirmDialog
      open={open}
      onOpenChange={(next) => {
        if (!next) remove.reset();
        onOpenChange(next);
      }}
      title={`Delete project ${project.name}?`}
      confirmLabel="Delete project"
      typeToConfirm={project.name}
      pending={remove.isPending}
      onConfirm={() => remove.mutate({ projectId: project.id, name: project.name })}
    >
      <p>
        This permanently deletes <strong>{project.name}</strong> and everything in it. It cannot be undone.
      </p>
      <div>
        <p className="font-medium">Deleted with it:</p>
        <ul aria-label="Deleted with the project" className="mt-1 list-disc space-y-1 pl-5">
          <li>
            {plural(instances.count, "VM")}
            {list.length > 0 ? <span className="text-slate-500 dark:text-slate-400">: {list.map((vm) => vm.name).join(", ")}</span> : null}
          </li>
          <li>{plural(disks.count, "disk")}</li>
          <li>
            {vms.isPending ? (
              <Skeleton className="inline-block h-3 w-32 align-middle" />
            ) : vms.isError ? (
              <span>network interfaces of its VMs (their count could not be loaded)</span>
            ) : (
              plural(nics, "network interface")
            )}
          </li>
          {snapshots.count > 0 ? <li>{plural(snapshots.count, "snapshot")}</li> : null}
          {images.count > 0 ? <li>{plural(images.count, "image")}</li> : null}
          <li>the role bindings that grant access to this project</li>
        </ul>
      </div>
      {remove.isError ? (
        <p role="alert" className="text-red-600 dark:text-red-400">
          {status === 403 ? `You may not delete this project: ${errorMessage(remove.error)}.` : `Nothing was deleted: ${errorMessage(remove.error)}`}
        </p>
      ) : null}
    </ConfirmDialog>
  );
}
