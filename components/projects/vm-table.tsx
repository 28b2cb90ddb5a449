"use client";

import { Badge } from "@/components/ui/badge";
import { DataTable, type ColumnDef } from "@/components/ui/data-table";
import type { Vm } from "@/lib/contract/projects";
import { formatDateTime } from "@/lib/utc-date";

const STATE_TONE: Record<string, "good" | "neutral" | "warn" | "bad"> = {
  STATE_RUNNING: "good",
  STATE_STOPPED: "neutral",
  STATE_FAILED: "bad",
};

/** STATE_RUNNING → Running */
function stateLabel(state: string): string {
  const name = state.replace(/^STATE_/, "").replace(/_/g, " ").toLowerCase();
  return name.charAt(0).toUpperCase() + name.slice(1);
}

export function VmStateBadge({ state }: { state: string }) {
  return (
    <Badge tone={STATE_TONE[state] ?? "warn"} title={state}>
      {stateLabel(state)}
    </Badge>
  );
}

const columns: ColumnDef<Vm, unknown>[] = [
  {
    id: "name",
    header: "Name",
    accessorFn: (vm) => vm.name,
    cell: ({ row: { original: vm } }) => (
      <div>
        <p className="font-medium">{vm.name}</p>
        <p className="max-w-[11rem] whitespace-normal break-all font-mono text-xs text-slate-500 dark:text-slate-400">{vm.id}</p>
      </div>
    ),
  },
  { id: "state", header: "State", accessorFn: (vm) => vm.state, cell: ({ row }) => <VmStateBadge state={row.original.state} /> },
  { id: "type", header: "Type", accessorFn: (vm) => vm.type, cell: ({ getValue }) => <span className="font-mono text-xs">{String(getValue())}</span> },
  { id: "location", header: "Location", accessorFn: (vm) => vm.location },
  {
    id: "created",
    header: "Created",
    accessorFn: (vm) => vm.created_at,
    cell: ({ row: { original: vm } }) => (
      <time dateTime={vm.created_at} title={vm.created_at}>
        {formatDateTime(vm.created_at)}
      </time>
    ),
  },
  {
    id: "disks",
    header: "Disks",
    enableSorting: false,
    cell: ({ row: { original: vm } }) => (
      <ul aria-label={`Disks of ${vm.name}`} className="min-w-[12rem] space-y-1 whitespace-normal text-xs">
        {vm.disks.map((d) => (
          <li key={d.id} className="flex flex-wrap items-center gap-x-1.5">
            <span className="font-medium">{d.name}</span> <span className="tabular-nums">{d.size}</span>{" "}
            <span className="text-slate-500 dark:text-slate-400">
              {d.mode} · {d.type}
            </span>
            {d.attachment_type === "os" ? (
              <>
                {" "}
                <Badge size="sm">OS</Badge>
              </>
            ) : null}
          </li>
        ))}
      </ul>
    ),
  },
  {
    id: "network",
    header: "Network interfaces",
    enableSorting: false,
    cell: ({ row: { original: vm } }) => (
      // Each address on its own line: the table fits a desktop's width instead of scrolling.
      <ul aria-label={`Network interfaces of ${vm.name}`} className="min-w-[13rem] space-y-1 whitespace-normal text-xs">
        {vm.network_interfaces.map((n) => (
          <li key={n.id}>
            <span className="font-medium">{n.name}</span> <span className="font-mono">{n.mac_address}</span>
            {n.ips.map((ip, i) => (
              <span key={i} className="block">
                {ip.private_ipv4 ? (
                  <span className="block">
                    private <span className="font-mono">{ip.private_ipv4.address}</span>
                  </span>
                ) : null}
                {ip.public_ipv4 ? (
                  <span className="block">
                    public <span className="font-mono">{ip.public_ipv4.address}</span>{" "}
                    <span className="text-slate-500 dark:text-slate-400">({ip.public_ipv4.type})</span>
                  </span>
                ) : null}
              </span>
            ))}
          </li>
        ))}
      </ul>
    ),
  },
];

export function VmTable({ vms, projectName }: { vms: Vm[]; projectName: string }) {
  return <DataTable label={`VMs of ${projectName}`} columns={columns} data={vms} getRowId={(vm) => vm.id} className="rounded-none border-0" />;
}
