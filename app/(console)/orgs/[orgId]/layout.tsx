import { notFound } from "next/navigation";
import type * as React from "react";
import type { z } from "zod";
import { Shell } from "@/components/shell/shell";
import type { listEntitiesResponseSchema } from "@/lib/contract/organizations";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { operationPath } from "@/lib/contract/operations";

export default async function OrganizationLayout({ children, params }: { children: React.ReactNode; params: Promise<{ orgId: string }> }) {
  const { orgId } = await params;
  const session = await requireConsoleSession();
  const { items } = await cloudJson<z.infer<typeof listEntitiesResponseSchema>>(session, operationPath("getOrganizations"));
  const org = items.find((o) => o.id === orgId);
  if (!org) notFound();
  return (
    <Shell orgs={items.map((o) => ({ id: o.id, name: o.name, relation: o.relation }))} orgId={orgId} email={session.email} flags={org.features} permissions={org.permissions ?? []}>
      {children}
    </Shell>
  );
}
