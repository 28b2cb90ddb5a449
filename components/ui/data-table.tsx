"use client";

import type { RowData } from "@tanstack/react-table";
import { lazy, memo, Suspense, useLayoutEffect, useState, useSyncExternalStore } from "react";
import { WidgetSkeleton } from "./skeleton";
import type { DataTableProps, SortableTable as SortableTableType } from "./sortable-table";

export type { ColumnDef } from "./sortable-table";

/*
 * TanStack Table and the table's own code (about 11 KB gzipped) are not part of a page's first load:
 * the server renders the table, the rest of the page hydrates without waiting for that code, and the
 * table hydrates once it arrives. The code is fetched as soon as a page with a table runs, in parallel
 * with the page's hydration: React does not replay a click that lands on the table before then.
 */
let loaded: typeof SortableTableType | null = null;
const load = () =>
  import("./sortable-table").then((m) => {
    loaded = m.SortableTable;
    return m;
  });
if (typeof window !== "undefined") void load().catch(() => undefined);

// Once the code is here, the lazy component resolves without suspending (no placeholder, not even
// for a frame, on a client-side navigation); until then it suspends and the server's table stays.
type TableModule = { default: typeof SortableTableType };
const resolved = (table: typeof SortableTableType) => ({ then: (resolve: (m: TableModule) => void) => resolve({ default: table }) }) as unknown as Promise<TableModule>;
const LazyTable = lazy(() => (loaded ? resolved(loaded) : load().then((m) => ({ default: m.SortableTable })))) as unknown as typeof SortableTableType;

type AnyProps = DataTableProps<RowData>;

/** The newest props of one table, read by the table itself (useSyncExternalStore), not passed down. */
function propsStore(initial: AnyProps) {
  let current = initial;
  const listeners = new Set<() => void>();
  return {
    get: () => current,
    initial: () => initial,
    set(next: AnyProps) {
      current = next;
      for (const listener of listeners) listener();
    },
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
type PropsStore = ReturnType<typeof propsStore>;

/**
 * A sortable, accessible table over TanStack Table; scrolls sideways on narrow screens.
 *
 * While its code loads, a re-render of the page must not reach the server-rendered table: React would
 * replace it with the placeholder until the code arrives. So the props go through a store instead of
 * down the tree: the boundary below never re-renders, and the table, once hydrated (with the props it
 * was server-rendered with), reads the newest ones.
 */
export function DataTable<T extends RowData>(props: DataTableProps<T>) {
  const [store] = useState(() => propsStore(props as AnyProps));
  useLayoutEffect(() => store.set(props as AnyProps));
  return <Boundary store={store} label={props.label} />;
}

const Boundary = memo(function Boundary({ store, label }: { store: PropsStore; label: string }) {
  return (
    // Shown only when the code is still loading on a client-side navigation.
    <Suspense fallback={<WidgetSkeleton label={label} />}>
      <StoreTable store={store} />
    </Suspense>
  );
});

function StoreTable({ store }: { store: PropsStore }) {
  const props = useSyncExternalStore(store.subscribe, store.get, store.initial);
  return <LazyTable {...props} />;
}
