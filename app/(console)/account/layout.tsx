import type * as React from "react";
import { FirstOrgShell } from "@/components/shell/first-org-shell";
import { requireConsoleSession } from "@/lib/console/session";

/** The person's own account belongs to no organization: it is shown in the shell of their first one. */
export default async function AccountLayout({ children }: { children: React.ReactNode }) {
  return <FirstOrgShell session={await requireConsoleSession()}>{children}</FirstOrgShell>;
}
