"use client";

import { lazy, Suspense } from "react";
import type { RowData } from "@tanstack/react-table";
import { WidgetSkeleton } from "./skeleton";
import type { DataTableProps } from "./sortable-table";

export type { ColumnDef } from "./sortable-table";

// TanStack Table and the table's own code (about 11 KB gzipped) are not part of a page's first load:
// the server renders the table, and its sorting hydrates once this chunk arrives (React replays a
// click made before then). On a client-side navigation the chunk is fetched with the page's data.
const load = () => import("./sortable-table");
const SortableTable = lazy(() => load().then((m) => ({ default: m.SortableTable })));

/** A sortable, accessible table over TanStack Table; scrolls sideways on narrow screens. */
export function DataTable<T extends RowData>(props: DataTableProps<T>) {
  return (
    // Shown only while the code loads after a client-side navigation.
    <Suspense fallback={<WidgetSkeleton label={props.label} />}>
      <SortableTable {...(props as DataTableProps<RowData>)} />
    </Suspense>
  );
}
