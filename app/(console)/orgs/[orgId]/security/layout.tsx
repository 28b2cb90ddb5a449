import type * as React from "react";
import { SecurityHeading, SecurityTabs } from "@/components/security/security-tabs";

export default async function SecurityLayout({ children, params }: { children: React.ReactNode; params: Promise<{ orgId: string }> }) {
  const { orgId } = await params;
  return (
    <div>
      <SecurityHeading orgId={orgId} />
      <SecurityTabs orgId={orgId} />
      {children}
    </div>
  );
}
