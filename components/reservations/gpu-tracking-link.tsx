"use client";

import { useQuery } from "@tanstack/react-query";
import { Activity } from "lucide-react";
import Link from "next/link";
import { Button } from "@/components/ui/button";
import { orgAccess, orgQueries } from "@/lib/query/organizations";

/** A way to the GPU tracking page, offered only to callers with the reservations feature. */
export function GpuTrackingLink({ orgId }: { orgId: string }) {
  const entities = useQuery(orgQueries.entities());
  const entity = entities.data?.items.find((o) => o.id === orgId);
  if (orgAccess(entity).features.reservations !== true) return null;
  return (
    <Button variant="secondary" asChild>
      <Link href={`/orgs/${orgId}/reservations/gpu-tracking`}>
        <Activity aria-hidden /> GPU usage over time
      </Link>
    </Button>
  );
}
