"use client";

import { Check, Copy } from "lucide-react";
import { useEffect, useState } from "react";
import { Button } from "@/components/ui/button";

/**
 * Copies `value` to the clipboard. The icon turns into a tick, and a polite live region says
 * "<what> copied" so a screen reader hears it too; both clear after a few seconds.
 */
export function CopyButton({ value, what, showLabel = false }: { value: string; what: string; showLabel?: boolean }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(false), 4000);
    return () => clearTimeout(t);
  }, [copied]);
  return (
    <>
      <Button
        type="button"
        variant="secondary"
        size="sm"
        aria-label={showLabel ? undefined : `Copy ${what}`}
        onClick={() => void navigator.clipboard.writeText(value).then(() => setCopied(true))}
      >
        {copied ? <Check aria-hidden /> : <Copy aria-hidden />}
        {showLabel ? (copied ? "Copied" : `Copy ${what}`) : null}
      </Button>
      <span role="status" aria-live="polite" className="sr-only">
        {copied ? `${what} copied` : ""}
      </span>
    </>
  );
}
