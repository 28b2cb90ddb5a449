"use client";

import { Suspense, useEffect, useSyncExternalStore } from "react";
import { FieldNotes } from "@/components/ui/field";
import { lazyComponent } from "./lazy";
import type { PersonComboboxProps } from "./person-combobox-field";

const inputClass =
  "block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm outline-none placeholder:text-slate-400 disabled:opacity-60 dark:border-slate-700 dark:bg-slate-950";

const Field = lazyComponent(() => import("./person-combobox-field").then((m) => m.PersonComboboxField));

/**
 * The person picker (person-combobox-field.tsx) with its code (downshift) fetched right after the
 * page rather than with it, and rendered only in the browser: the IAM page's First Load JS stays within its budget (bench row
 * "console bundles"). Until it arrives, the same label over a disabled box holds its place.
 */
export function PersonCombobox(props: PersonComboboxProps) {
  useEffect(() => Field.preload(), []);
  // Never rendered on the server: a box in the server's HTML could be typed into before it hydrates.
  const hydrated = useSyncExternalStore(noSubscription, () => true, () => false);
  const placeholder = (
    <div className="relative space-y-1">
      <label htmlFor={props.id} className="block text-sm font-medium">
        {props.label}
      </label>
      <input id={props.id} disabled placeholder="Loading people…" className={inputClass} />
      <FieldNotes id={props.id} hint={props.hint} />
    </div>
  );
  if (!hydrated) return placeholder;
  return (
    <Suspense fallback={placeholder}>
      <Field {...props} />
    </Suspense>
  );
}

const noSubscription = () => () => undefined;
