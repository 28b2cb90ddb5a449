"use client";

import { IntentLink } from "@/components/common/intent-link";
import type * as React from "react";
import { Badge } from "@/components/ui/badge";
import { CardBody } from "@/components/ui/card";
import type { GpuTrackingDatumMod } from "@/lib/contract/reservations";
import type { LatestGpuTracking } from "@/lib/query/reservations";
import { price, utcDateTime } from "./format";
import { UsageMeter } from "./usage-meter";

function Stat({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <dt className="text-xs text-slate-500 dark:text-slate-400">{label}</dt>
      <dd className="text-sm font-medium tabular-nums">{children}</dd>
    </div>
  );
}

function SnapshotCard({ d }: { d: GpuTrackingDatumMod }) {
  const title = `${d.product_line} · ${d.region}`;
  return (
    <li className="rounded-lg border border-slate-200 p-4 dark:border-slate-800" aria-label={title}>
      <div className="mb-3 flex items-center justify-between gap-2">
        <h3 className="text-sm font-semibold">{title}</h3>
        {d.overage_count > 0 ? <Badge tone="warn">{d.overage_count} over capacity</Badge> : <Badge tone="good">Within capacity</Badge>}
      </div>
      <UsageMeter used={d.running_compute_unit_count} total={d.regional_reservation_capacity} label={`Running GPUs of ${title} against its reserved capacity`} />
      <dl className="mt-3 grid grid-cols-2 gap-3">
        <Stat label="Running GPUs">{d.running_compute_unit_count}</Stat>
        <Stat label="Reserved in region">{d.regional_reservation_capacity}</Stat>
        <Stat label="Reserved globally">{d.global_reservation_capacity}</Stat>
        <Stat label="On-demand price / GPU-hour">{price(d.price)}</Stat>
      </dl>
      <p className="mt-3 text-xs text-slate-500 dark:text-slate-400">
        As of <time dateTime={d.event_time}>{utcDateTime(d.event_time)}</time>
      </p>
    </li>
  );
}

/** The newest sample of each product line and region, and the effective reservations behind them. */
export function LatestSnapshot({ orgId, data }: { orgId: string; data: LatestGpuTracking }) {
  return (
    <CardBody className="space-y-4">
      <ul className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3" aria-label="Latest GPU usage by product line and region">
        {data.data.map((d) => (
          <SnapshotCard key={`${d.product_line}|${d.region}`} d={d} />
        ))}
      </ul>
      {data.reservation_id.length ? (
        <div className="text-sm">
          <p className="text-slate-600 dark:text-slate-300">Effective reservations behind this capacity:</p>
          <ul className="mt-1 flex flex-wrap gap-2">
            {data.reservation_id.map((id) => (
              <li key={id}>
                <IntentLink href={`/orgs/${orgId}/reservations/${encodeURIComponent(id)}`} className="font-mono text-xs text-brand-600 hover:underline dark:text-brand-400">
                  {id}
                </IntentLink>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </CardBody>
  );
}
