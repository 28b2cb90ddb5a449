import type * as React from "react";
import { SecurityTabs } from "@/components/security/security-tabs";
import { PageHeader } from "@/components/ui/page-header";

export default async function SecurityLayout({ children, params }: { children: React.ReactNode; params: Promise<{ orgId: string }> }) {
  const { orgId } = await params;
  return (
    <div>
      <PageHeader title="Security" description="How people sign in to this organization and how their accounts are provisioned." />
      <SecurityTabs orgId={orgId} />
      {children}
    </div>
  );
}
