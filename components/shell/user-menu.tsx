"use client";

import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { OnFirstUse } from "@/components/ui/on-first-use";
import { lazyComponent } from "@/components/common/lazy";

// The menu (Radix dropdown, and next-auth's client for signing out) is fetched on first use.
const UserMenuContent = lazyComponent(() => import("./user-menu-content").then((m) => m.default));

/** `icon` arrives rendered by the server. */
export function UserMenu({ email, icon }: { email: string; icon: ReactNode }) {
  const trigger = (handlers: object) => (
    <Button variant="ghost" size="sm" aria-label={`Account menu for ${email}`} aria-haspopup="menu" {...handlers}>
      {icon}
      <span className="hidden max-w-40 truncate sm:inline">{email}</span>
    </Button>
  );
  return <OnFirstUse trigger={trigger} preload={UserMenuContent.preload} menu={<UserMenuContent email={email} trigger={trigger({})} />} />;
}
