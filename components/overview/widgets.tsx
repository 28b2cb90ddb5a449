"use client";

import { IntentLink } from "@/components/common/intent-link";
import type * as React from "react";
import { Badge } from "@/components/ui/badge";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/states";
import { QueryState } from "@/components/ui/query-state";
import { useQuery, type UseQueryResult } from "@tanstack/react-query";
import { overviewQueries } from "./queries";
import { RelativeTime } from "@/components/common/dates";
import { auditTargetHref } from "@/components/common/object-links";
import { SpendSparkline } from "./spend-sparkline";
import { compareCodeUnits } from "@/lib/compare";
import { formatUsd } from "@/lib/format";

interface WidgetProps<T> {
  title: string;
  /** The page the widget sums up: its header links there. */
  more: { href: string; label: string };
  description?: string;
  what: string;
  state: UseQueryResult<T>;
  children: (data: T) => React.ReactNode;
}

function Widget<T>({ title, description, what, state, more, children }: WidgetProps<T>) {
  return (
    <Card>
      <CardHeader
        title={title}
        description={description}
        action={
          <IntentLink href={more.href} className="whitespace-nowrap text-xs font-medium text-brand-600 hover:underline dark:text-brand-400">
            {more.label}
          </IntentLink>
        }
      />
      <QueryState state={state} what={what}>
        {(data) => <CardBody>{children(data)}</CardBody>}
      </QueryState>
    </Card>
  );
}

function Stat({ label, value }: { label: string; value: React.ReactNode }) {
  return (
    <div>
      <dt className="text-xs text-slate-500 dark:text-slate-400">{label}</dt>
      <dd className="text-2xl font-semibold tabular-nums">{value}</dd>
    </div>
  );
}

export function ResourcesWidget({ orgId }: { orgId: string }) {
  const state = useQuery(overviewQueries(orgId).projects);
  return (
    <Widget title="Resources" description="Projects you can see in this organization" what="projects" state={state} more={{ href: `/orgs/${orgId}/projects`, label: "All projects" }}>
      {(data) => {
        const projects = data.items.filter((p) => p.organization_id === orgId);
        const vms = projects.reduce((n, p) => n + p.resources.instances.count, 0);
        const disks = projects.reduce((n, p) => n + p.resources.disks.count, 0);
        return (
          <dl className="grid grid-cols-3 gap-4">
            <Stat label="Projects" value={projects.length} />
            <Stat label="VMs" value={vms} />
            <Stat label="Disks" value={disks} />
          </dl>
        );
      }}
    </Widget>
  );
}

export function SpendWidget({ orgId }: { orgId: string }) {
  const state = useQuery(overviewQueries(orgId).spend);
  return (
    <Widget title="Month-to-date spend" description="Daily spend since the first of the month" what="spend" state={state} more={{ href: `/orgs/${orgId}/billing`, label: "Billing" }}>
      {({ days, totalCents }) => {
        const series = days.map((d) => ({ date: d.date, cost: d.cents / 100 }));
        if (series.length === 0) return <EmptyState title="No spend yet this month" />;
        return (
          <div className="space-y-2">
            <p className="text-2xl font-semibold tabular-nums">{formatUsd(totalCents / 100, { maximumFractionDigits: 0 })}</p>
            <SpendSparkline series={series} />
          </div>
        );
      }}
    </Widget>
  );
}

export function QuotasWidget({ orgId }: { orgId: string }) {
  const state = useQuery(overviewQueries(orgId).quotas);
  return (
    <Widget title="Quota usage" description="The most used quotas" what="quotas" state={state} more={{ href: `/orgs/${orgId}/quotas`, label: "All quotas" }}>
      {(data) => {
        const quotas = (data.quotas ?? [])
          .filter((q) => (q.max ?? 0) > 0)
          .map((q) => ({ ...q, ratio: (q.used ?? 0) / (q.max ?? 1) }))
          .sort((a, b) => b.ratio - a.ratio)
          .slice(0, 4);
        if (quotas.length === 0) return <EmptyState title="No quotas set" />;
        return (
          <ul className="space-y-3">
            {quotas.map((q) => (
              <li key={q.programmatic_name ?? q.type}>
                <div className="flex justify-between text-sm">
                  <span>{q.description ?? q.programmatic_name}</span>
                  <span className="tabular-nums text-slate-500 dark:text-slate-400">
                    {q.used} / {q.max}
                  </span>
                </div>
                <div
                  className="mt-1 h-2 rounded-full bg-slate-100 dark:bg-slate-800"
                  role="meter"
                  aria-valuemin={0}
                  aria-valuemax={q.max}
                  aria-valuenow={q.used}
                  aria-label={`${q.description ?? q.programmatic_name}: ${q.used} of ${q.max}`}
                >
                  <div
                    className={`h-2 rounded-full ${q.ratio >= 0.9 ? "bg-red-500" : q.ratio >= 0.75 ? "bg-amber-500" : "bg-brand-500"}`}
                    style={{ width: `${Math.min(100, Math.round(q.ratio * 100))}%` }}
                  />
                </div>
              </li>
            ))}
          </ul>
        );
      }}
    </Widget>
  );
}

function TargetNames({ orgId, entry }: { orgId: string; entry: Parameters<typeof auditTargetHref>[1] & { target_names: string[] } }) {
  const href = auditTargetHref(orgId, entry);
  const names = entry.target_names.join(", ");
  return href ? (
    <IntentLink href={href} className="text-brand-600 hover:underline dark:text-brand-400">
      {names}
    </IntentLink>
  ) : (
    <>{names}</>
  );
}

const RESULT_TONE: Record<string, "good" | "warn" | "bad"> = { OK: "good", PERMISSION_DENIED: "warn", INVALID_ARGUMENT: "warn" };

export function AuditWidget({ orgId }: { orgId: string }) {
  const state = useQuery(overviewQueries(orgId).audit);
  return (
    <Widget title="Latest activity" description="The newest audit-log entries" what="the audit log" state={state} more={{ href: `/orgs/${orgId}/audit-logs`, label: "Audit logs" }}>
      {(data) =>
        data.items.length === 0 ? (
          <EmptyState title="No activity yet" />
        ) : (
          <ul className="divide-y divide-slate-100 dark:divide-slate-800">
            {data.items.map((e, i) => (
              <li key={`${e.start_time}-${i}`} className="flex items-center justify-between gap-3 py-2 text-sm">
                <div className="min-w-0">
                  <p className="truncate font-medium">
                    {e.action_detail || e.action} {e.target_names?.length ? <span className="font-normal text-slate-500 dark:text-slate-400">· <TargetNames orgId={orgId} entry={e} /></span> : null}
                  </p>
                  <p className="truncate text-xs text-slate-500 dark:text-slate-400">
                    {e.actor_email} via {e.surface} · <RelativeTime value={e.start_time} />
                  </p>
                </div>
                <Badge tone={RESULT_TONE[e.result] ?? "bad"}>{e.result}</Badge>
              </li>
            ))}
          </ul>
        )
      }
    </Widget>
  );
}

export function ReservationsWidget({ orgId }: { orgId: string }) {
  const state = useQuery(overviewQueries(orgId).reservations);
  // GPUs in use count against effective reservations only (not pending, expired or cancelled ones).
  const effective = useQuery(overviewQueries(orgId).effectiveReservations);
  return (
    <Widget title="Reservations" description="Reserved capacity at a glance" what="reservations" state={state} more={{ href: `/orgs/${orgId}/reservations`, label: "All reservations" }}>
      {(data) => {
        if (data.items.length === 0) return <EmptyState title="No reservations" />;
        const quantity = effective.data ? effective.data.items.reduce((n, r) => n + r.quantity, 0) : null;
        const used = effective.data ? effective.data.items.reduce((n, r) => n + r.used_quantity, 0) : null;
        // The next contract to end: ended ones are history, not what comes next.
        const today = new Date().toISOString().slice(0, 10);
        const next = data.items
          .filter((r) => r.contract_end_date && r.contract_end_date.slice(0, 10) >= today)
          .sort((a, b) => compareCodeUnits(a.contract_end_date, b.contract_end_date))[0];
        return (
          <dl className="grid grid-cols-3 gap-4">
            <Stat label="Reservations" value={data.items.length} />
            <Stat label="GPUs used / reserved (effective)" value={used === null || quantity === null ? "…" : `${used} / ${quantity}`} />
            <Stat label="Next end" value={<span className="text-base">{next ? next.contract_end_date.slice(0, 10) : "—"}</span>} />
          </dl>
        );
      }}
    </Widget>
  );
}
