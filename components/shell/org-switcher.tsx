"use client";

import { Building2, Check, ChevronsUpDown } from "lucide-react";
import Link from "next/link";
import { DropdownMenu } from "radix-ui";
import { Button } from "@/components/ui/button";

export interface OrgSummary {
  id: string;
  name: string;
  relation: string;
}

export function OrgSwitcher({ orgs, currentId }: { orgs: OrgSummary[]; currentId: string }) {
  const current = orgs.find((o) => o.id === currentId);
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger asChild>
        <Button variant="secondary" size="sm" className="max-w-64 justify-between" aria-label={`Organization: ${current?.name ?? "unknown"}. Switch organization`}>
          <Building2 />
          <span className="truncate">{current?.name ?? "Organization"}</span>
          <ChevronsUpDown className="opacity-60" />
        </Button>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          align="start"
          sideOffset={6}
          className="z-50 min-w-56 rounded-md border border-slate-200 bg-white p-1 shadow-lg dark:border-slate-700 dark:bg-slate-900"
        >
          <DropdownMenu.Label className="px-2 py-1.5 text-xs text-slate-500 dark:text-slate-400">Organizations</DropdownMenu.Label>
          {orgs.map((org) => (
            <DropdownMenu.Item key={org.id} asChild>
              <Link
                href={`/orgs/${org.id}`}
                className="flex items-center justify-between gap-3 rounded px-2 py-1.5 text-sm outline-none data-[highlighted]:bg-slate-100 dark:data-[highlighted]:bg-slate-800"
              >
                <span className="truncate">
                  {org.name} <span className="text-xs text-slate-500">({org.relation})</span>
                </span>
                {org.id === currentId ? <Check className="size-4" aria-label="current" /> : null}
              </Link>
            </DropdownMenu.Item>
          ))}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
