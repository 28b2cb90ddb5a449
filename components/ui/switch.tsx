import type * as React from "react";
import { cn } from "@/lib/utils";

type SwitchProps = Omit<React.ButtonHTMLAttributes<HTMLButtonElement>, "onChange" | "value"> & {
  checked: boolean;
  onCheckedChange: (checked: boolean) => void;
  /** Classes of the sliding thumb; `data-state` ("checked" / "unchecked") styles both parts. */
  thumbClassName?: string;
};

/**
 * An on/off switch: a button with the switch role (WAI-ARIA's switch pattern: Space and Enter toggle
 * it, its name comes from aria-labelledby or its text), the same markup Radix's Switch renders
 * outside a form, without Radix's code in the page's first load. Controlled only.
 * Budget: console First Load JS ≤ 180 KB on every route (bench/results.md, "console bundles"):
 * Radix's Switch with its helpers was about 4 KB of the MFA page's.
 */
export function Switch({ checked, onCheckedChange, thumbClassName, className, onClick, disabled, ...props }: SwitchProps) {
  const state = checked ? "checked" : "unchecked";
  return (
    <button
      type="button"
      role="switch"
      aria-checked={checked}
      data-state={state}
      data-disabled={disabled ? "" : undefined}
      disabled={disabled}
      className={className}
      onClick={(event) => {
        onClick?.(event);
        if (!event.defaultPrevented) onCheckedChange(!checked);
      }}
      {...props}
    >
      <span data-state={state} data-disabled={disabled ? "" : undefined} className={cn("pointer-events-none block", thumbClassName)} />
    </button>
  );
}
