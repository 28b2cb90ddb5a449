import type * as React from "react";
import { Shell } from "@/components/shell/shell";
import { cloudJson } from "@/lib/console/gateway-client";
import type { ConsoleSession } from "@/lib/console/session";
import { operationPath } from "@/lib/contract/operations";
import type { ListEntitiesResponse } from "@/lib/query/organizations";

/** A page that belongs to no organization (the catalog, the person's own account), shown in the shell of their first one. */
export async function FirstOrgShell({ session, children }: { session: ConsoleSession; children: React.ReactNode }) {
  const { items } = await cloudJson<ListEntitiesResponse>(session, operationPath("getOrganizations"));
  const org = items[0];
  if (!org) return <main className="mx-auto w-full max-w-7xl p-4 sm:p-6">{children}</main>;
  return (
    <Shell orgs={items.map((o) => ({ id: o.id, name: o.name, relation: o.relation }))} orgId={org.id} email={session.email} flags={org.features} permissions={org.permissions ?? []}>
      {children}
    </Shell>
  );
}
