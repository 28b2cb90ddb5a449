"use client";

import { useQuery } from "@tanstack/react-query";
import { Activity } from "lucide-react";
import { IntentLink } from "@/components/common/intent-link";
import { buttonVariants } from "@/components/ui/button";
import { orgAccess, orgQueries } from "@/lib/query/organizations";

/** A way to the GPU tracking page, offered only to callers with the reservations feature. */
export function GpuTrackingLink({ orgId }: { orgId: string }) {
  const entities = useQuery(orgQueries.entities());
  const entity = entities.data?.items.find((o) => o.id === orgId);
  if (orgAccess(entity).features.reservations !== true) return null;
  return (
    <IntentLink href={`/orgs/${orgId}/reservations/gpu-tracking`} className={buttonVariants({ variant: "secondary" })}>
      <Activity aria-hidden /> GPU usage over time
    </IntentLink>
  );
}
