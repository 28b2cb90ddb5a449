"use client";

import { useQuery } from "@tanstack/react-query";
import { CircleCheck, CircleMinus, OctagonExclamationPoint, TriangleAlert } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { DataTable, type ColumnDef } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/states";
import { QueryState } from "@/components/ui/query-state";
import { quotaLevel, quotaQueries, type OrgQuota, type QuotaLevel } from "@/lib/query/quotas";
import { cn } from "@/lib/utils";
import { formatNumber } from "@/lib/format";


/** Colour never carries the level alone: each has a word and an icon too. */
const LEVELS: Record<QuotaLevel, { text: string; tone: "good" | "warn" | "bad" | "neutral"; bar: string; Icon: typeof CircleCheck }> = {
  ok: { text: "Within limit", tone: "good", bar: "bg-brand-500", Icon: CircleCheck },
  near: { text: "Near limit", tone: "warn", bar: "bg-amber-500", Icon: TriangleAlert },
  critical: { text: "At limit", tone: "bad", bar: "bg-red-500", Icon: OctagonExclamationPoint },
  none: { text: "None granted", tone: "neutral", bar: "bg-slate-400", Icon: CircleMinus },
};

function percent(q: OrgQuota): number {
  return q.max > 0 ? Math.round((q.used / q.max) * 100) : q.used > 0 ? 100 : 0;
}

const COLUMNS: ColumnDef<OrgQuota, unknown>[] = [
  { accessorKey: "description", header: "Quota" },
  { accessorKey: "programmatic_name", header: "Name", cell: (c) => <code className="text-xs">{String(c.getValue())}</code> },
  { accessorKey: "used", header: "Used", cell: (c) => <span className="tabular-nums">{formatNumber(Number(c.getValue()))}</span> },
  { accessorKey: "max", header: "Maximum", cell: (c) => <span className="tabular-nums">{formatNumber(Number(c.getValue()))}</span> },
  { accessorKey: "available", header: "Available", cell: (c) => <span className="tabular-nums">{formatNumber(Number(c.getValue()))}</span> },
  { id: "percent", accessorFn: percent, header: "Used %", cell: (c) => <span className="tabular-nums">{String(c.getValue())} %</span> },
  {
    id: "level",
    accessorFn: (q) => quotaLevel(q),
    header: "Status",
    cell: (c) => {
      const level = LEVELS[c.getValue() as QuotaLevel];
      return <Badge tone={level.tone}>{level.text}</Badge>;
    },
  },
];

/** One quota: used against maximum as a meter, with its level in words and an icon. */
function QuotaMeter({ quota: q }: { quota: OrgQuota }) {
  const level = LEVELS[quotaLevel(q)];
  const pct = percent(q);
  return (
    <li data-testid={`quota-${q.programmatic_name}`}>
      <div className="flex items-baseline justify-between gap-3 text-sm">
        <span className="font-medium">{q.description}</span>
        <span className="tabular-nums text-slate-600 dark:text-slate-300">
          {formatNumber(q.used)} / {formatNumber(q.max)}
        </span>
      </div>
      <div
        className="mt-1.5 h-2.5 rounded-full bg-slate-100 dark:bg-slate-800"
        role="meter"
        aria-valuemin={0}
        aria-valuemax={q.max}
        aria-valuenow={Math.min(q.used, Math.max(q.max, 0))}
        aria-valuetext={`${formatNumber(q.used)} of ${formatNumber(q.max)} used, ${pct} %: ${level.text}`}
        aria-label={q.description}
      >
        <div className={cn("h-2.5 rounded-full", level.bar)} style={{ width: `${Math.min(100, pct)}%` }} />
      </div>
      <p className="mt-1 flex items-center gap-1 text-xs text-slate-600 dark:text-slate-400">
        <level.Icon className={cn("size-3.5", level.tone === "warn" && "text-amber-600", level.tone === "bad" && "text-red-600")} aria-hidden />
        <span>
          {level.text} · {pct} % used · {formatNumber(q.available)} available
        </span>
      </p>
    </li>
  );
}

/** Each organization quota: used against maximum, with a warning from 80 % and an alarm from 95 %. */
export function QuotasView({ orgId }: { orgId: string }) {
  const state = useQuery(quotaQueries.org(orgId));
  return (
    <QueryState
      state={state}
      what="quotas"
      lines={6}
      frame={(node) => <Card>{node}</Card>}
      isEmpty={(data) => (data.quotas ?? []).length === 0}
      empty={<EmptyState title="No quotas are set for this organization" />}
    >
      {(data) => <Quotas quotas={data.quotas ?? []} />}
    </QueryState>
  );
}

function Quotas({ quotas }: { quotas: OrgQuota[] }) {
  const warned = quotas.filter((q) => quotaLevel(q) === "near" || quotaLevel(q) === "critical");
  return (
    <div className="space-y-6">
      {warned.length > 0 ? (
        <div role="status" className="flex gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200">
          <TriangleAlert className="mt-0.5 size-4 shrink-0" aria-hidden />
          <p>
            {warned.length === 1 ? "1 quota is" : `${warned.length} quotas are`} at 80 % or more of its maximum: {warned.map((q) => q.description).join(", ")}.
            Ask the platform for a higher maximum before new resources are refused.
          </p>
        </div>
      ) : null}
      <Card>
        <CardHeader title="Used against maximum" description="Amber from 80 %, red from 95 % of the maximum" />
        <CardBody>
          <ul className="grid gap-x-8 gap-y-5 md:grid-cols-2">
            {quotas.map((q) => (
              <QuotaMeter key={q.type} quota={q} />
            ))}
          </ul>
        </CardBody>
      </Card>
      <Card>
        <CardHeader title="All quotas" />
        <CardBody>
          <DataTable label="Organization quotas" columns={COLUMNS} data={quotas} getRowId={(q) => q.type} />
        </CardBody>
      </Card>
    </div>
  );
}
