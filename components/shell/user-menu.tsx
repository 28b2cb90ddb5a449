"use client";

import { UserRound } from "lucide-react";
import { lazy } from "react";
import { Button } from "@/components/ui/button";
import { OnFirstUse } from "@/components/ui/on-first-use";

// The menu (Radix dropdown, and next-auth's client for signing out) is fetched on first use.
const loadMenu = () => import("./user-menu-content");
const UserMenuContent = lazy(loadMenu);

export function UserMenu({ email }: { email: string }) {
  const trigger = (handlers: object) => (
    <Button variant="ghost" size="sm" aria-label={`Account menu for ${email}`} aria-haspopup="menu" {...handlers}>
      <UserRound />
      <span className="hidden max-w-40 truncate sm:inline">{email}</span>
    </Button>
  );
  return <OnFirstUse trigger={trigger} preload={loadMenu} menu={<UserMenuContent email={email} trigger={trigger({})} />} />;
}
