"use client";

import { useId } from "react";
import { Button, type ButtonProps } from "@/components/ui/button";

/**
 * A button that, when the caller may not use it, is disabled and says why: a
 * tooltip on hover (a disabled button gets no pointer events, so the wrapper
 * carries it) and the same text for screen readers.
 */
export function GuardedButton({ reason, disabled, ...props }: ButtonProps & { reason?: string | null }) {
  const id = useId();
  if (!reason) return <Button disabled={disabled} {...props} />;
  return (
    <span title={reason} className="inline-flex">
      <Button disabled aria-describedby={id} {...props} />
      <span id={id} className="sr-only">
        {reason}
      </span>
    </span>
  );
}
