import type * as React from "react";
import { Shell } from "@/components/shell/shell";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import type { ListEntitiesResponse } from "@/lib/query/organizations";
import { operationPath } from "@/lib/contract/operations";

/** The catalog belongs to no organization: it is shown in the shell of the user's first one. */
export default async function CatalogLayout({ children }: { children: React.ReactNode }) {
  const session = await requireConsoleSession();
  const { items } = await cloudJson<ListEntitiesResponse>(session, operationPath("getOrganizations"));
  const org = items[0];
  if (!org) return <main className="mx-auto w-full max-w-7xl p-4 sm:p-6">{children}</main>;
  return (
    <Shell orgs={items.map((o) => ({ id: o.id, name: o.name, relation: o.relation }))} orgId={org.id} email={session.email} flags={org.features} permissions={org.permissions ?? []}>
      {children}
    </Shell>
  );
}
