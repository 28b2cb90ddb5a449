"use client";

import { Building2, ChevronsUpDown } from "lucide-react";
import { Button } from "@/components/ui/button";
import { OnFirstUse } from "@/components/ui/on-first-use";
import { lazyComponent } from "@/components/common/lazy";

export interface OrgSummary {
  id: string;
  name: string;
  relation: string;
}

// The menu (Radix dropdown, positioning, focus management) is fetched on first use.
const OrgSwitcherMenu = lazyComponent(() => import("./org-switcher-menu").then((m) => m.default));

export function OrgSwitcher({ orgs, currentId }: { orgs: OrgSummary[]; currentId: string }) {
  const current = orgs.find((o) => o.id === currentId);
  const trigger = (handlers: object) => (
    <Button
      variant="secondary"
      size="sm"
      justify="between"
      className="max-w-64"
      aria-label={`Organization: ${current?.name ?? "unknown"}. Switch organization`}
      aria-haspopup="menu"
      {...handlers}
    >
      <Building2 />
      <span className="truncate">{current?.name ?? "Organization"}</span>
      <ChevronsUpDown className="opacity-60" />
    </Button>
  );
  return <OnFirstUse trigger={trigger} preload={OrgSwitcherMenu.preload} menu={<OrgSwitcherMenu orgs={orgs} currentId={currentId} trigger={trigger({})} />} />;
}
