"use client";

import { Check } from "lucide-react";
import { IntentLink } from "@/components/common/intent-link";
import { DropdownMenu } from "radix-ui";
import type * as React from "react";
import type { OrgSummary } from "./org-switcher";

/** The organization menu itself: loaded on the first click of its trigger, then open. */
export default function OrgSwitcherMenu({ orgs, currentId, trigger }: { orgs: OrgSummary[]; currentId: string; trigger: React.ReactNode }) {
  return (
    <DropdownMenu.Root defaultOpen>
      <DropdownMenu.Trigger asChild>{trigger}</DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          align="start"
          sideOffset={6}
          className="z-50 min-w-56 rounded-md border border-slate-200 bg-white p-1 shadow-lg dark:border-slate-700 dark:bg-slate-900"
        >
          <DropdownMenu.Label className="px-2 py-1.5 text-xs text-slate-500 dark:text-slate-400">Organizations</DropdownMenu.Label>
          {orgs.map((org) => (
            <DropdownMenu.Item key={org.id} asChild>
              <IntentLink
                href={`/orgs/${org.id}`}
                className="flex items-center justify-between gap-3 rounded px-2 py-1.5 text-sm outline-none data-[highlighted]:bg-slate-100 dark:data-[highlighted]:bg-slate-800"
              >
                <span className="truncate">
                  {org.name} <span className="text-xs text-slate-500 dark:text-slate-400">({org.relation})</span>
                </span>
                {org.id === currentId ? <Check className="size-4" aria-label="current" /> : null}
              </IntentLink>
            </DropdownMenu.Item>
          ))}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
