"use client";

import { useQuery } from "@tanstack/react-query";
import { IntentLink } from "@/components/common/intent-link";
import { useQueryStates } from "nuqs";
import { Badge } from "@/components/ui/badge";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { DataTable, type ColumnDef } from "@/components/ui/data-table";
import { Field, Select } from "@/components/ui/field";
import { EmptyState } from "@/components/ui/states";
import { QueryState } from "@/components/ui/query-state";
import { catalogQueries, type CatalogImage } from "@/lib/query/catalog";
import { imageParams, productGroupOf } from "./search-params";

const COLUMNS: ColumnDef<CatalogImage, unknown>[] = [
  {
    id: "name",
    header: "Name",
    accessorFn: (i) => i.name,
    cell: ({ row }) => (
      <IntentLink href={`/catalog/images/${encodeURIComponent(row.original.id)}`} className="font-medium text-brand-600 hover:underline dark:text-brand-400">
        {row.original.name}
      </IntentLink>
    ),
  },
  {
    id: "tags",
    header: "Tags",
    enableSorting: false,
    accessorFn: (i) => i.tags.join(", "),
    cell: ({ row }) => (
      <span className="flex min-w-[8rem] max-w-[14rem] flex-wrap gap-1">
        {row.original.tags.map((t) => (
          <Badge key={t} tone={t === "latest" ? "info" : "neutral"}>
            {t}
          </Badge>
        ))}
      </span>
    ),
  },
  {
    id: "description",
    header: "Description",
    accessorFn: (i) => i.description,
    // Wraps to two lines at most: the table fits a desktop's width instead of clipping.
    cell: ({ row }) => <span className="line-clamp-2 block min-w-[12rem] max-w-sm whitespace-normal" title={row.original.description}>{row.original.description}</span>,
  },
  { id: "locations", header: "Locations", accessorFn: (i) => i.locations.length, cell: ({ row }) => <span className="block max-w-[12rem] whitespace-normal">{row.original.locations.join(", ")}</span> },
  { id: "created", header: "Created", accessorFn: (i) => i.created_at, cell: ({ row }) => <span className="tabular-nums">{row.original.created_at.slice(0, 10)}</span> },
];

/** Images, optionally only those compatible with one product group (kept in the URL). */
export function ImagesList() {
  const [{ product_group }, setParams] = useQueryStates(imageParams, { history: "push" });
  const state = useQuery(catalogQueries.images(product_group ?? undefined));
  const capacities = useQuery(catalogQueries.capacities());
  const groups = [...new Set([...(capacities.data?.items ?? []).map((c) => productGroupOf(c.type)), ...(product_group ? [product_group] : [])])].sort();

  return (
    <Card aria-label="Images">
      <CardHeader
        title="Images"
        description="Boot images with their tags and where they are available"
        action={
          <Field label="Product group" htmlFor="image-product-group" className="w-44">
            <Select id="image-product-group" value={product_group ?? ""} onChange={(e) => void setParams({ product_group: e.target.value || null })}>
              <option value="">All product groups</option>
              {groups.map((g) => (
                <option key={g} value={g}>
                  {g}
                </option>
              ))}
            </Select>
          </Field>
        }
      />
      <QueryState
        state={state}
        what="images"
        lines={6}
        isEmpty={(data) => data.items.length === 0}
        empty={<EmptyState title={product_group ? `No images for ${product_group}` : "No images"}>{product_group ? "Choose another product group." : null}</EmptyState>}
      >
        {(data) => (
          <CardBody className="space-y-3">
            <p role="status" className="text-sm text-slate-600 dark:text-slate-300">
              {data.items.length} image{data.items.length === 1 ? "" : "s"}
              {product_group ? ` compatible with ${product_group}` : ""}
            </p>
            <DataTable columns={COLUMNS} data={data.items} label="Images" getRowId={(i) => i.id} />
          </CardBody>
        )}
      </QueryState>
    </Card>
  );
}
