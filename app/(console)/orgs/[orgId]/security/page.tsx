import type { Metadata } from "next";
import { redirect } from "next/navigation";

export const metadata: Metadata = { title: "Security" };

/** The area opens on its first section. */
export default async function SecurityPage({ params }: { params: Promise<{ orgId: string }> }) {
  const { orgId } = await params;
  redirect(`/orgs/${encodeURIComponent(orgId)}/security/sso`);
}
