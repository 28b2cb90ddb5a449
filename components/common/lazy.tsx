"use client";

import { lazy, type ComponentType, type ReactElement } from "react";
import { OnFirstUse, type TriggerHandlers } from "@/components/ui/on-first-use";

/**
 * A component whose code is fetched when it first renders (React.lazy over one named export):
 * `lazyComponent(() => import("./x").then((m) => m.X))`. Its `preload()` starts the fetch early
 * (from a trigger's pointer-enter or focus); a failed fetch is retried on render.
 */
export function lazyComponent<P extends object>(load: () => Promise<ComponentType<P>>) {
  const component = lazy(() => load().then((loaded) => ({ default: loaded })));
  return Object.assign(component, { preload: () => void load().catch(() => undefined) });
}

export type LazyDialogButtonProps<P> = Omit<P, "defaultOpen"> & {
  /** The button the page loads with; the dialog's module renders the same one, already open. */
  trigger: (handlers: TriggerHandlers) => ReactElement;
  /** A disabled trigger never loads the dialog. */
  disabled?: boolean;
};

/**
 * A create/edit dialog whose code (its form: react-hook-form, the contract's zod schemas, Radix) is
 * fetched on first use, so a page's first load carries only the trigger button. The first click
 * mounts the loaded component open (`defaultOpen`); pointing at or focusing the trigger starts the
 * fetch early. Name the loaded component `…Dialog` and the returned one `…Button`.
 */
export function lazyDialog<P extends { defaultOpen?: boolean }>(load: () => Promise<ComponentType<P>>) {
  const Dialog = lazyComponent(load);
  return function LazyDialogButton({ trigger, disabled, ...props }: LazyDialogButtonProps<P>) {
    if (disabled) return trigger({});
    const dialogProps = { ...props, defaultOpen: true } as unknown as P;
    return <OnFirstUse trigger={trigger} preload={Dialog.preload} menu={<Dialog {...dialogProps} />} />;
  };
}
