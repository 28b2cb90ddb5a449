"use client";

import {
  createSortedRowModel,
  flexRender,
  rowSortingFeature,
  sortFn_alphanumeric,
  sortFn_basic,
  sortFn_datetime,
  sortFn_text,
  tableFeatures,
  useTable,
  type ColumnDef as TableColumnDef,
  type RowData,
  type SortingState,
} from "@tanstack/react-table";
import { ArrowDown, ArrowUp, ArrowUpDown } from "lucide-react";
import { useState } from "react";
import type * as React from "react";
import { cn } from "@/lib/utils";

// TanStack Table 9 ships only the features a table registers: here sorting, with the sort
// functions its automatic choice picks from (strings, numbers, dates).
const features = tableFeatures({
  rowSortingFeature,
  sortedRowModel: createSortedRowModel(),
  sortFns: { alphanumeric: sortFn_alphanumeric, basic: sortFn_basic, datetime: sortFn_datetime, text: sortFn_text },
});

/** A column of a DataTable. */
export type ColumnDef<T extends RowData, V = unknown> = TableColumnDef<typeof features, T, V>;

export interface DataTableProps<T extends RowData> {
  columns: ColumnDef<T, unknown>[];
  data: T[];
  /** Accessible name of the table. */
  label: string;
  empty?: React.ReactNode;
  getRowId?: (row: T) => string;
  onRowClick?: (row: T) => void;
  className?: string;
}

/**
 * A row's actions (the column with id "actions" or "details") stay in view at the table's right edge
 * while the rest of a wide table scrolls under them; the cell keeps the row's background.
 */
const STICKY_COLUMNS = new Set(["actions", "details"]);
const stickyCell = (columnId: string, head = false) =>
  STICKY_COLUMNS.has(columnId)
    ? cn(
        "sticky right-0 z-10 border-l border-slate-100 shadow-[-6px_0_6px_-6px_rgb(0_0_0/0.15)] dark:border-slate-800",
        head ? "bg-slate-50 dark:bg-slate-900" : "bg-white group-hover:bg-slate-50 dark:bg-slate-900 dark:group-hover:bg-slate-800",
      )
    : undefined;

/**
 * A header's or a cell's content. flexRender makes a column's function a component of its own, whose identity is that
 * function's: a page that builds its columns anew on each render (most do, over their state) had every cell unmounted
 * and mounted again on each, and a control in it lost its focus (a dialog closing returned focus to nothing; a row's
 * button, pressed, was a new button once its mutation was under way). Called here inside one component per cell
 * (keyed by the cell), the content is reconciled instead, its DOM kept. A function is the same column's from one render
 * to the next (the cell's key names the column), so hooks it calls keep their order.
 */
function Content<C extends object>({ render, context }: { render: unknown; context: C }): React.ReactNode {
  if (typeof render === "function" && !(render.prototype as { isReactComponent?: unknown } | undefined)?.isReactComponent) {
    return (render as (context: C) => React.ReactNode)(context);
  }
  return flexRender(render as Parameters<typeof flexRender>[0], context);
}

/** The table itself (DataTable, data-table.tsx, loads it after the page's first load). */
export function SortableTable<T extends RowData>({ columns, data, label, empty, getRowId, onRowClick, className }: DataTableProps<T>) {
  const [sorting, setSorting] = useState<SortingState>([]);
  const table = useTable({
    features,
    data,
    columns,
    state: { sorting },
    onSortingChange: setSorting,
    getRowId,
  });
  return (
    // relative: what is positioned inside (a screen-reader-only header) stays inside the scroll box, not past the page's edge.
    <div className={cn("relative overflow-x-auto rounded-lg border border-slate-200 dark:border-slate-800", className)}>
      <table className="w-full text-left text-sm" aria-label={label}>
        <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500 dark:bg-slate-900 dark:text-slate-400">
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => {
                const sorted = header.column.getIsSorted();
                return (
                  <th
                    key={header.id}
                    scope="col"
                    className={cn("whitespace-nowrap px-3 py-2 font-medium", stickyCell(header.column.id, true))}
                    aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : undefined}
                  >
                    {header.isPlaceholder ? null : header.column.getCanSort() ? (
                      <button type="button" onClick={header.column.getToggleSortingHandler()} className="inline-flex items-center gap-1 hover:text-slate-900 dark:hover:text-white">
                        <Content render={header.column.columnDef.header} context={header.getContext()} />
                        {sorted === "asc" ? <ArrowUp className="size-3" /> : sorted === "desc" ? <ArrowDown className="size-3" /> : <ArrowUpDown className="size-3 opacity-40" />}
                      </button>
                    ) : (
                      <Content render={header.column.columnDef.header} context={header.getContext()} />
                    )}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {table.getRowModel().rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length} className="px-3 py-8 text-center text-slate-500 dark:text-slate-400">
                {empty ?? "Nothing to show."}
              </td>
            </tr>
          ) : (
            table.getRowModel().rows.map((row) => (
              <tr
                key={row.id}
                onClick={onRowClick ? () => onRowClick(row.original) : undefined}
                className={cn("group hover:bg-slate-50 dark:hover:bg-slate-800", onRowClick && "cursor-pointer")}
              >
                {row.getAllCells().map((cell) => (
                  <td key={cell.id} className={cn("whitespace-nowrap px-3 py-2 align-middle", stickyCell(cell.column.id))}>
                    <Content render={cell.column.columnDef.cell} context={cell.getContext()} />
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}

