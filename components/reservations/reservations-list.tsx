"use client";

import { useQuery } from "@tanstack/react-query";
import { IntentLink } from "@/components/common/intent-link";
import { useQueryStates } from "nuqs";
import { useMemo, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { DataTable, type ColumnDef } from "@/components/ui/data-table";
import { Field, Select } from "@/components/ui/field";
import { EmptyState } from "@/components/ui/states";
import { QueryState } from "@/components/ui/query-state";
import type { Reservation, ReservationStatus } from "@/lib/contract/reservations";
import { RESERVATION_STATUSES } from "@/lib/contract/constants";
import { reservationQueries } from "@/lib/query/reservations";
import { price, utcDate } from "./format";
import { reservationListParams } from "./search-params";
import { UsageMeter } from "./usage-meter";

const STATUS_LABELS: Record<ReservationStatus, string> = {
  effective: "Effective",
  pending: "Pending",
  expired: "Expired",
  cancelled: "Cancelled",
};

const STATUS_TONES: Record<ReservationStatus, "good" | "info" | "neutral" | "bad"> = {
  effective: "good",
  pending: "info",
  expired: "neutral",
  cancelled: "bad",
};

/**
 * A reservation's status, by the gateway's rule: cancelled ones are known only
 * from the cancelled list; the others follow from the contract dates.
 */
function statusOf(r: Reservation, cancelled: Set<string>, now: number): ReservationStatus {
  if (cancelled.has(r.id)) return "cancelled";
  if (Date.parse(r.contract_start_date) > now) return "pending";
  if (Date.parse(r.contract_end_date) <= now) return "expired";
  return "effective";
}

function columns(orgId: string, status: (r: Reservation) => ReservationStatus | undefined): ColumnDef<Reservation, unknown>[] {
  return [
    {
      id: "product_line",
      header: "Product line",
      accessorFn: (r) => r.product_line,
      cell: ({ row }) => (
        <div>
          <IntentLink
            href={`/orgs/${orgId}/reservations/${encodeURIComponent(row.original.id)}`}
            className="font-medium text-brand-600 hover:underline dark:text-brand-400"
          >
            {row.original.product_line}
          </IntentLink>
          <p className="font-mono text-xs text-slate-500 dark:text-slate-400">{row.original.id.slice(0, 8)}</p>
        </div>
      ),
    },
    {
      id: "status",
      header: "Status",
      accessorFn: (r) => status(r) ?? "",
      cell: ({ row }) => {
        const value = status(row.original);
        return value ? <Badge tone={STATUS_TONES[value]}>{STATUS_LABELS[value]}</Badge> : <span className="text-slate-400">—</span>;
      },
    },
    { id: "type", header: "Type", accessorFn: (r) => r.reservation_type, cell: ({ row }) => <Badge>{row.original.reservation_type}</Badge> },
    {
      id: "used",
      header: "Used / reserved",
      accessorFn: (r) => (r.quantity > 0 ? r.used_quantity / r.quantity : 0),
      cell: ({ row }) => (
        <UsageMeter used={row.original.used_quantity} total={row.original.quantity} label={`GPUs in use of reservation ${row.original.id}`} />
      ),
    },
    { id: "locations", header: "Locations", accessorFn: (r) => r.locations.join(", ") },
    {
      id: "contract",
      header: "Contract",
      accessorFn: (r) => r.contract_start_date,
      cell: ({ row }) => (
        <span className="tabular-nums">
          {utcDate(row.original.contract_start_date)} → {utcDate(row.original.contract_end_date)}
        </span>
      ),
    },
    { id: "duration", header: "Term", accessorFn: (r) => r.duration, cell: ({ row }) => `${row.original.duration} months` },
    {
      id: "price",
      header: "Price / GPU-hour",
      accessorFn: (r) => Number(r.price),
      cell: ({ row }) => <span className="tabular-nums">{price(row.original.price)}</span>,
    },
  ];
}

/** The organization's reservations, filtered by status (kept in the URL). */
export function ReservationsList({ orgId }: { orgId: string }) {
  const [{ status }, setParams] = useQueryStates(reservationListParams, { history: "push" });
  const state = useQuery(reservationQueries.list(orgId, status ?? undefined));
  // Without a status filter, the cancelled list tells cancelled reservations from pending ones.
  const cancelled = useQuery({ ...reservationQueries.list(orgId, "cancelled"), enabled: !status });
  // Only effective reservations hold GPUs now: pending, expired and cancelled ones count for nothing.
  const effective = useQuery(reservationQueries.list(orgId, "effective"));
  const inUse = effective.data
    ? { used: effective.data.items.reduce((n, r) => n + r.used_quantity, 0), reserved: effective.data.items.reduce((n, r) => n + r.quantity, 0) }
    : null;
  const [now] = useState(() => Date.now());
  const cols = useMemo(() => {
    const cancelledIds = cancelled.data ? new Set(cancelled.data.items.map((r) => r.id)) : null;
    const statusFor = (r: Reservation) => status ?? (cancelledIds ? statusOf(r, cancelledIds, now) : undefined);
    return columns(orgId, statusFor);
  }, [orgId, status, cancelled.data, now]);
  const statusLabel = status ? STATUS_LABELS[status].toLowerCase() : "";

  return (
    <Card>
      <CardHeader
        title="Reservations"
        description="Reserved GPU capacity: how much of it is in use, where, and for how long"
        action={
          <Field label="Status" htmlFor="reservation-status" className="w-44">
            <Select
              id="reservation-status"
              value={status ?? ""}
              onChange={(e) => void setParams({ status: (e.target.value || null) as ReservationStatus | null })}
            >
              <option value="">All statuses</option>
              {RESERVATION_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {STATUS_LABELS[s]}
                </option>
              ))}
            </Select>
          </Field>
        }
      />
      <QueryState
        state={state}
        what="reservations"
        lines={5}
        isEmpty={(data) => data.items.length === 0}
        empty={
          <EmptyState title={status ? `No ${statusLabel} reservations` : "No reservations"}>
            {status ? "Choose another status, or all statuses." : "Reserved capacity your organization contracts appears here."}
          </EmptyState>
        }
      >
        {(data) => (
          <CardBody className="space-y-3">
            <p className="text-sm text-slate-600 dark:text-slate-300" role="status">
              {data.items.length} {statusLabel} reservation{data.items.length === 1 ? "" : "s"}
              {inUse ? ` · ${inUse.used} of ${inUse.reserved} reserved GPUs in use (effective reservations)` : null}
            </p>
            <DataTable columns={cols} data={data.items} label={status ? `${STATUS_LABELS[status]} reservations` : "Reservations"} getRowId={(r) => r.id} />
          </CardBody>
        )}
      </QueryState>
    </Card>
  );
}
