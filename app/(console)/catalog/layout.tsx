import type * as React from "react";
import { FirstOrgShell } from "@/components/shell/first-org-shell";
import { requireConsoleSession } from "@/lib/console/session";

/** The catalog belongs to no organization: it is shown in the shell of the user's first one. */
export default async function CatalogLayout({ children }: { children: React.ReactNode }) {
  return <FirstOrgShell session={await requireConsoleSession()}>{children}</FirstOrgShell>;
}
