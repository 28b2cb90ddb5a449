"use client";

import { LogOut, ShieldCheck } from "lucide-react";
import { IntentLink } from "@/components/common/intent-link";
import { signOut } from "next-auth/react";
import { DropdownMenu } from "radix-ui";
import type * as React from "react";

/** The account menu itself: loaded on the first click of its trigger, then open. */
export default function UserMenuContent({ email, trigger }: { email: string; trigger: React.ReactNode }) {
  return (
    <DropdownMenu.Root defaultOpen>
      <DropdownMenu.Trigger asChild>{trigger}</DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          align="end"
          sideOffset={6}
          className="z-50 min-w-48 rounded-md border border-slate-200 bg-white p-1 shadow-lg dark:border-slate-700 dark:bg-slate-900"
        >
          <DropdownMenu.Label className="px-2 py-1.5 text-xs text-slate-500 dark:text-slate-400">Signed in as {email}</DropdownMenu.Label>
          <DropdownMenu.Separator className="my-1 h-px bg-slate-200 dark:bg-slate-700" />
          <DropdownMenu.Item asChild className="flex cursor-pointer items-center gap-2 rounded px-2 py-1.5 text-sm outline-none data-[highlighted]:bg-slate-100 dark:data-[highlighted]:bg-slate-800">
            <IntentLink href="/account/security">
              <ShieldCheck className="size-4" aria-hidden /> Sign-in security
            </IntentLink>
          </DropdownMenu.Item>
          <DropdownMenu.Item
            onSelect={() => void signOut({ callbackUrl: "/sign-in?reason=signed-out" })}
            className="flex cursor-pointer items-center gap-2 rounded px-2 py-1.5 text-sm outline-none data-[highlighted]:bg-slate-100 dark:data-[highlighted]:bg-slate-800"
          >
            <LogOut className="size-4" aria-hidden /> Sign out
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
