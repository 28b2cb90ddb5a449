"use client";

import { useQuery } from "@tanstack/react-query";
import { ArrowLeft } from "lucide-react";
import { IntentLink } from "@/components/common/intent-link";
import type * as React from "react";
import { Badge } from "@/components/ui/badge";
import { buttonVariants } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton, WidgetSkeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { ApiError } from "@/lib/query/fetcher";
import { projectQueries } from "@/lib/query/projects";
import { reservationQueries } from "@/lib/query/reservations";
import { price, utcDate, utcDateTime } from "./format";
import { UsageMeter } from "./usage-meter";

function Item({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <dt className="text-xs text-slate-500 dark:text-slate-400">{label}</dt>
      <dd className="mt-0.5 text-sm">{children}</dd>
    </div>
  );
}

function BackLink({ orgId }: { orgId: string }) {
  return (
    <IntentLink href={`/orgs/${orgId}/reservations`} className={buttonVariants({ variant: "secondary", size: "sm" })}>
      <ArrowLeft aria-hidden /> All reservations
    </IntentLink>
  );
}

/** Project names the caller can see; the others are shown by id with the reason. */
function ProjectsCard({ projectIds }: { projectIds: string[] }) {
  const projects = useQuery(projectQueries.list());
  const names = new Map((projects.data?.items ?? []).map((p) => [p.id, p.name]));
  return (
    <Card>
      <CardHeader title="Projects" description="Projects whose VMs may use this reservation" />
      {projectIds.length === 0 ? (
        <EmptyState title="No projects" />
      ) : (
        <CardBody>
          <ul className="divide-y divide-slate-100 text-sm dark:divide-slate-800" aria-label="Projects of the reservation">
            {projectIds.map((id) => {
              const name = names.get(id);
              return (
                <li key={id} className="flex flex-wrap items-center justify-between gap-2 py-2">
                  {projects.isPending ? (
                    <Skeleton className="h-4 w-32" />
                  ) : name ? (
                    <span className="font-medium">{name}</span>
                  ) : (
                    <span className="text-slate-500 dark:text-slate-400" title="You are not a member of this project, or its list could not be loaded">
                      {projects.isError ? "Name unavailable" : "Project not visible to you"}
                    </span>
                  )}
                  <code className="font-mono text-xs text-slate-500 dark:text-slate-400">{id}</code>
                </li>
              );
            })}
          </ul>
        </CardBody>
      )}
    </Card>
  );
}

export function ReservationDetail({ orgId, reservationId }: { orgId: string; reservationId: string }) {
  const state = useQuery(reservationQueries.detail(orgId, reservationId));

  if (state.isPending) {
    return (
      <div className="space-y-6">
        <Skeleton className="h-8 w-64" />
        <Card>
          <WidgetSkeleton label="the reservation" lines={6} />
        </Card>
      </div>
    );
  }
  const reservation = state.data?.items[0];
  const missing = (state.isError && state.error instanceof ApiError && state.error.status === 404) || (state.isSuccess && !reservation);
  if (missing) {
    return (
      <Card>
        <EmptyState title="Reservation not found" action={<BackLink orgId={orgId} />}>
          No reservation <code className="font-mono">{reservationId}</code> exists in this organization.
        </EmptyState>
      </Card>
    );
  }
  if (state.isError || !reservation) {
    return (
      <Card>
        <ErrorState error={state.error} what="the reservation" onRetry={() => void state.refetch()} />
      </Card>
    );
  }

  const r = reservation;
  return (
    <div className="space-y-6">
      <PageHeader
        title={`${r.product_line} reservation`}
        description={
          <>
            <span className="font-mono text-xs">{r.id}</span>
          </>
        }
        actions={<BackLink orgId={orgId} />}
      />
      <div className="grid gap-4 lg:grid-cols-3">
        <Card>
          <CardHeader title="Contract" />
          <CardBody>
            <dl className="grid grid-cols-2 gap-4">
              <Item label="Type">
                <Badge>{r.reservation_type}</Badge>
              </Item>
              <Item label="Term">{r.duration} months</Item>
              <Item label="Start">
                <time dateTime={r.contract_start_date}>{utcDate(r.contract_start_date)}</time>
              </Item>
              <Item label="End">
                <time dateTime={r.contract_end_date}>{utcDate(r.contract_end_date)}</time>
              </Item>
              <Item label="Price per GPU-hour">
                <span className="tabular-nums">{price(r.price)}</span>
              </Item>
              <Item label="Locations">{r.locations.join(", ") || "—"}</Item>
            </dl>
          </CardBody>
        </Card>
        <Card>
          <CardHeader title="Delivery" />
          <CardBody>
            <dl className="grid grid-cols-1 gap-4">
              <Item label="Delivery deadline">{utcDateTime(r.delivery_deadline)}</Item>
              <Item label="Delivered">
                {r.date_delivered ? utcDateTime(r.date_delivered) : <Badge tone="warn">Not delivered yet</Badge>}
              </Item>
            </dl>
          </CardBody>
        </Card>
        <Card>
          <CardHeader title="Quantity used" description="GPUs of running VMs counted against this reservation" />
          <CardBody>
            <UsageMeter used={r.used_quantity} total={r.quantity} label="GPUs in use of this reservation" />
            <p className="mt-2 text-sm text-slate-600 dark:text-slate-300">
              {r.used_quantity} of {r.quantity} reserved GPUs in use
            </p>
          </CardBody>
        </Card>
      </div>
      <div className="grid gap-4 lg:grid-cols-2">
        <ProjectsCard projectIds={r.projects} />
        <Card>
          <CardHeader title="VMs" description="VMs running on this reservation" />
          {r.vm_ids.length === 0 ? (
            <EmptyState title="No VMs on this reservation" />
          ) : (
            <CardBody>
              <ul className="space-y-1" aria-label="VMs of the reservation">
                {r.vm_ids.map((id) => (
                  <li key={id}>
                    <code className="font-mono text-xs">{id}</code>
                  </li>
                ))}
              </ul>
            </CardBody>
          )}
        </Card>
      </div>
    </div>
  );
}
