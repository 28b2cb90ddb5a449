"use client";

import { ArrowDown, ArrowUp, ArrowUpDown } from "lucide-react";
import { useMemo, useState } from "react";
import type * as React from "react";
import { cn } from "@/lib/utils";

/** What a cell renderer receives: the row, and the column's value for it. */
export interface CellContext<T> {
  row: { id: string; index: number; original: T };
  getValue: () => unknown;
}

/**
 * One column, in the shape TanStack Table's column definitions take (the subset the
 * console uses): a key or accessor, a header, a cell renderer, and whether it sorts.
 * The second parameter is kept for the callers' annotations.
 */
// eslint-disable-next-line @typescript-eslint/no-unused-vars
export interface ColumnDef<T, _V = unknown> {
  id?: string;
  header?: string | (() => React.ReactNode);
  accessorKey?: keyof T & string;
  accessorFn?: (row: T, index: number) => unknown;
  cell?: (context: CellContext<T>) => React.ReactNode;
  /** Columns with a value sort unless this is false. */
  enableSorting?: boolean;
}

interface DataTableProps<T> {
  columns: ColumnDef<T, unknown>[];
  data: T[];
  /** Accessible name of the table. */
  label: string;
  empty?: React.ReactNode;
  getRowId?: (row: T) => string;
  onRowClick?: (row: T) => void;
  className?: string;
}

type Direction = "asc" | "desc";

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

function valueOf<T>(column: ColumnDef<T>, row: T, index: number): unknown {
  if (column.accessorFn) return column.accessorFn(row, index);
  if (column.accessorKey) return row[column.accessorKey];
  return undefined;
}

/** Numbers and dates by value, text naturally (case aside, "a2" before "a10"); empty values last either way. */
function compare(a: unknown, b: unknown): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  return collator.compare(String(a), String(b));
}

const empty = (v: unknown) => v === undefined || v === null || v === "";

/**
 * A sortable, accessible table; scrolls sideways on narrow screens. A sortable
 * header cycles through ascending, descending and unsorted (text starts
 * ascending, numbers descending, as TanStack Table does).
 */
export function DataTable<T>({ columns, data, label, empty: emptyContent, getRowId, onRowClick, className }: DataTableProps<T>) {
  const [sorting, setSorting] = useState<{ id: string; direction: Direction } | null>(null);
  const idOf = (column: ColumnDef<T>, i: number) => column.id ?? column.accessorKey ?? String(i);
  const canSort = (column: ColumnDef<T>) => column.enableSorting !== false && Boolean(column.accessorFn ?? column.accessorKey);

  const rows = useMemo(() => {
    const indexed = data.map((original, index) => ({ original, index, id: getRowId ? getRowId(original) : String(index) }));
    if (!sorting) return indexed;
    const at = columns.findIndex((c, i) => idOf(c, i) === sorting.id);
    const column = columns[at];
    if (!column) return indexed;
    const sign = sorting.direction === "asc" ? 1 : -1;
    const keyed = indexed.map((r) => ({ r, v: valueOf(column, r.original, r.index) }));
    keyed.sort((x, y) => {
      if (empty(x.v) || empty(y.v)) return empty(x.v) === empty(y.v) ? x.r.index - y.r.index : empty(x.v) ? 1 : -1;
      return sign * compare(x.v, y.v) || x.r.index - y.r.index;
    });
    return keyed.map((k) => k.r);
    // idOf depends on columns only.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [data, columns, sorting, getRowId]);

  const toggle = (id: string, column: ColumnDef<T>) => {
    const sample = data.map((row, i) => valueOf(column, row, i)).find((v) => !empty(v));
    const first: Direction = typeof sample === "string" ? "asc" : "desc";
    const second: Direction = first === "asc" ? "desc" : "asc";
    setSorting((s) => (s?.id !== id ? { id, direction: first } : s.direction === first ? { id, direction: second } : null));
  };

  return (
    <div className={cn("overflow-x-auto rounded-lg border border-slate-200 dark:border-slate-800", className)}>
      <table className="w-full text-left text-sm" aria-label={label}>
        <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500 dark:bg-slate-900 dark:text-slate-400">
          <tr>
            {columns.map((column, i) => {
              const id = idOf(column, i);
              const sorted = sorting?.id === id ? sorting.direction : undefined;
              const header = typeof column.header === "function" ? column.header() : (column.header ?? column.accessorKey ?? null);
              return (
                <th
                  key={id}
                  scope="col"
                  className="whitespace-nowrap px-3 py-2 font-medium"
                  aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : undefined}
                >
                  {canSort(column) ? (
                    <button type="button" onClick={() => toggle(id, column)} className="inline-flex items-center gap-1 hover:text-slate-900 dark:hover:text-white">
                      {header}
                      {sorted === "asc" ? <ArrowUp className="size-3" /> : sorted === "desc" ? <ArrowDown className="size-3" /> : <ArrowUpDown className="size-3 opacity-40" />}
                    </button>
                  ) : (
                    header
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length} className="px-3 py-8 text-center text-slate-500">
                {emptyContent ?? "Nothing to show."}
              </td>
            </tr>
          ) : (
            rows.map((row) => (
              <tr
                key={row.id}
                onClick={onRowClick ? () => onRowClick(row.original) : undefined}
                className={cn("hover:bg-slate-50 dark:hover:bg-slate-900/60", onRowClick && "cursor-pointer")}
              >
                {columns.map((column, i) => {
                  const getValue = () => valueOf(column, row.original, row.index);
                  let content: React.ReactNode;
                  if (column.cell) content = column.cell({ row, getValue });
                  else {
                    const v = getValue();
                    content = v === undefined || v === null ? null : String(v);
                  }
                  return (
                    <td key={idOf(column, i)} className="whitespace-nowrap px-3 py-2 align-middle">
                      {content}
                    </td>
                  );
                })}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}
