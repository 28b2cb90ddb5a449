"use client";

import { useQuery } from "@tanstack/react-query";
import { MapPin } from "lucide-react";
import { useQueryStates } from "nuqs";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { DataTable, type ColumnDef } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/states";
import { QueryState } from "@/components/ui/query-state";
import type { Capacity } from "@/lib/contract/catalog";
import { catalogQueries } from "@/lib/query/catalog";
import { MultiFilter } from "./multi-filter";
import { capacityParams, productGroupOf } from "./search-params";

const COLUMNS: ColumnDef<Capacity, unknown>[] = [
  { id: "type", header: "Product", accessorFn: (c) => c.type, cell: ({ row }) => <span className="font-medium">{row.original.type}</span> },
  { id: "group", header: "Group", accessorFn: (c) => productGroupOf(c.type) },
  { id: "location", header: "Location", accessorFn: (c) => c.location },
  { id: "quantity", header: "Available", accessorFn: (c) => c.quantity, cell: ({ row }) => <span className="tabular-nums">{row.original.quantity}</span> },
  { id: "slices", header: "Slices", accessorFn: (c) => c.num_slices, cell: ({ row }) => <span className="tabular-nums">{row.original.num_slices}</span> },
  {
    id: "quota",
    header: "Quota type",
    accessorFn: (c) => c.quota_type,
    cell: ({ row }) => <code className="font-mono text-xs text-slate-500 dark:text-slate-400">{row.original.quota_type}</code>,
  },
];

function sorted(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

/** Available capacity by product and location, filtered in the URL; and the locations usable for hosting. */
export function CapacityView() {
  const [{ product_name, location }, setParams] = useQueryStates(capacityParams, { history: "push" });
  const filtered = product_name.length > 0 || location.length > 0;
  const state = useQuery(catalogQueries.capacities({ product_name, location }));
  // The unfiltered list names every product and location there is to filter by.
  const all = useQuery(catalogQueries.capacities());
  const locations = useQuery(catalogQueries.locations());
  const productOptions = sorted([...(all.data?.items ?? []).map((c) => c.type), ...product_name]);
  const locationOptions = sorted([...(all.data?.items ?? []).map((c) => c.location), ...(locations.data?.items ?? []), ...location]);
  const total = state.data?.items.reduce((n, c) => n + c.quantity, 0) ?? 0;

  return (
    <div className="space-y-6">
      <Card aria-label="Available capacity">
        <CardHeader title="Available capacity" description="VMs that can be created now, per product and location" />
        <div className="flex flex-wrap items-end gap-4 border-b border-slate-100 px-4 py-3 dark:border-slate-800">
          <MultiFilter label="product" options={productOptions} values={product_name} onChange={(v) => void setParams({ product_name: v.length ? v : null })} />
          <MultiFilter label="location" options={locationOptions} values={location} onChange={(v) => void setParams({ location: v.length ? v : null })} />
          {filtered ? (
            <Button variant="ghost" size="sm" onClick={() => void setParams({ product_name: null, location: null })}>
              Clear filters
            </Button>
          ) : null}
        </div>
        <QueryState
          state={state}
          what="capacity"
          lines={6}
          isEmpty={(data) => data.items.length === 0}
          empty={
            <EmptyState title={filtered ? "No capacity matches these filters" : "No capacity available"}>
              {filtered ? "Remove a filter, or add other products or locations." : null}
            </EmptyState>
          }
        >
          {(data) => (
            <CardBody className="space-y-3">
              <p role="status" className="text-sm text-slate-600 dark:text-slate-300">
                {data.items.length} product and location pair{data.items.length === 1 ? "" : "s"} · {total} VMs available
              </p>
              <DataTable columns={COLUMNS} data={data.items} label="Capacity by product and location" getRowId={(c) => `${c.type}@${c.location}`} />
            </CardBody>
          )}
        </QueryState>
      </Card>

      <Card aria-label="Locations">
        <CardHeader title="Locations" description="Where resources can be hosted" />
        <QueryState state={locations} what="locations" isEmpty={(data) => data.items.length === 0} empty={<EmptyState title="No locations" />}>
          {(data) => (
            <CardBody>
              <ul className="grid gap-2 sm:grid-cols-2 lg:grid-cols-3">
                {data.items.map((loc) => (
                  <li key={loc} className="flex items-center justify-between gap-2 rounded-md border border-slate-200 px-3 py-2 dark:border-slate-800">
                    <span className="flex items-center gap-2 text-sm font-medium">
                      <MapPin className="size-4 text-slate-400" aria-hidden /> {loc}
                    </span>
                    <Button variant="link" size="inline" onClick={() => void setParams({ location: [loc], product_name: null }, { scroll: true })}>
                      Show capacity<span className="sr-only"> in {loc}</span>
                    </Button>
                  </li>
                ))}
              </ul>
            </CardBody>
          )}
        </QueryState>
      </Card>
    </div>
  );
}
