"use client";

import type { ReactNode } from "react";
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

/** `icon` and `menuIcon` (the organization's, and the up-down chevrons) arrive rendered by the server. */
export function OrgSwitcher({ orgs, currentId, icon, menuIcon }: { orgs: OrgSummary[]; currentId: string; icon: ReactNode; menuIcon: ReactNode }) {
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
      {icon}
      <span className="truncate">{current?.name ?? "Organization"}</span>
      {menuIcon}
    </Button>
  );
  return <OnFirstUse trigger={trigger} preload={OrgSwitcherMenu.preload} menu={<OrgSwitcherMenu orgs={orgs} currentId={currentId} trigger={trigger({})} />} />;
}
