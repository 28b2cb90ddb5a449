"use client";

import { useDeferredValue, type ReactNode } from "react";
import { WidgetSkeleton } from "./skeleton";
import { ErrorState, keepsLoadedData, RefreshError } from "./states";

/** What QueryState reads of a query (TanStack Query's result, or a combination of several). */
export interface QueryLike<T> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  data: T | undefined;
  refetch: () => unknown;
}

interface QueryStateProps<T> {
  state: QueryLike<T>;
  /** "Could not load {what}." */
  what: string;
  /** The skeleton's "Loading {label}" (default: `what`). */
  label?: string;
  lines?: number;
  /** Shown while loading instead of the skeleton. */
  loading?: ReactNode;
  /** When the data holds nothing to show: `empty` is shown instead of the children. */
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  /** Wraps the loading, error and empty states (e.g. in a card), not the children. */
  frame?: (node: ReactNode) => ReactNode;
  children: (data: T) => ReactNode;
}

/**
 * The loading / error (with Retry) / empty / data switch of a view over a query. Data already loaded stays when a
 * refresh fails for a moment, under a note (keepsLoadedData).
 */
export function QueryState<T>({ state, what, label = what, lines = 3, loading, isEmpty, empty, frame = (node) => node, children }: QueryStateProps<T>) {
  if (state.isPending) return frame(loading ?? <WidgetSkeleton label={label} lines={lines} />);
  const retry = () => void state.refetch();
  const kept = state.isError && state.data !== undefined && keepsLoadedData(state.error);
  if (!kept && (state.isError || state.data === undefined)) return frame(<ErrorState error={state.error} what={what} onRetry={retry} />);
  const data = state.data as T;
  // One shape whether the note shows or not: the view keeps its place, and its state (a form's edits, focus, a dialog).
  return (
    <>
      {kept ? frame(<RefreshError error={state.error} what={what} onRetry={retry} />) : null}
      {isEmpty?.(data) ? frame(empty) : children(data)}
    </>
  );
}

/**
 * A query's state whose data is deferred (useDeferredValue): pending until the deferred render has it.
 * For data whose rendering is long (months of rows): React renders it in slices between which the
 * browser stays responsive, instead of in one long task when the data lands.
 */
export function useDeferredQuery<T>(state: QueryLike<T>): QueryLike<T> {
  const data = useDeferredValue(state.data);
  return { isPending: data === undefined && !state.isError, isError: state.isError, error: state.error, data, refetch: state.refetch };
}
