import type { Metadata } from "next";
import { redirect } from "next/navigation";
import type { z } from "zod";
import type { listEntitiesResponseSchema } from "@/lib/contract/organizations";
import { requireConsoleSession } from "@/lib/console/session";
import { cloudJson } from "@/lib/console/gateway-client";
import { operationPath } from "@/lib/contract/operations";

export const metadata: Metadata = { title: "Organizations" };

/** Sends the user to their first organization, or says they have none. */
export default async function OrganizationsPage() {
  const session = await requireConsoleSession();
  const { items } = await cloudJson<z.infer<typeof listEntitiesResponseSchema>>(session, operationPath("getOrganizations"));
  const first = items[0];
  if (first) redirect(`/orgs/${first.id}`);
  return (
    <main className="mx-auto max-w-xl p-8 text-center">
      <h1 className="text-xl font-semibold">No organization yet</h1>
      <p className="mt-2 text-slate-600 dark:text-slate-300">
        Your API key works, but its user belongs to no active organization. Ask an owner to add you, then sign in again.
      </p>
    </main>
  );
}
