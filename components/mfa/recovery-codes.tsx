"use client";

import { Copy, Download } from "lucide-react";
import { useEffect, useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { useLeaveWarning } from "@/components/common/use-leave-warning";

/**
 * New recovery codes, shown this once: copy or download them, say they are saved, then go on.
 * The codes stay in this component's memory only (the server keeps their hashes).
 */
export function RecoveryCodes({ codes, continueLabel, onContinue }: { codes: string[]; continueLabel: string; onContinue: () => void }) {
  const [saved, setSaved] = useState(false);
  useLeaveWarning(!saved);
  const [copied, setCopied] = useState(false);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const checkboxId = useId();
  useEffect(() => headingRef.current?.focus(), []);
  const text = `Stratus recovery codes (each works once)\n\n${codes.join("\n")}\n`;
  const download = () => {
    const url = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = "stratus-recovery-codes.txt";
    a.click();
    URL.revokeObjectURL(url);
  };
  return (
    <section aria-labelledby={`${checkboxId}-heading`} className="space-y-3">
      <h2 id={`${checkboxId}-heading`} ref={headingRef} tabIndex={-1} className="text-base font-semibold outline-none">
        Save your recovery codes
      </h2>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        If you lose your authenticator or security key, each of these codes signs you in once. They are shown only now.
      </p>
      <ul aria-label="Recovery codes" className="grid grid-cols-2 gap-2 rounded-md border border-slate-200 bg-slate-50 p-3 font-mono text-sm dark:border-slate-800 dark:bg-slate-950">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <div className="flex flex-wrap gap-2">
        <Button
          type="button"
          variant="secondary"
          size="sm"
          onClick={() => {
            void navigator.clipboard?.writeText(text).then(() => setCopied(true));
          }}
        >
          <Copy aria-hidden /> {copied ? "Copied" : "Copy"}
        </Button>
        <Button type="button" variant="secondary" size="sm" onClick={download}>
          <Download aria-hidden /> Download
        </Button>
      </div>
      <label htmlFor={checkboxId} className="flex items-center gap-2 text-sm">
        <input id={checkboxId} type="checkbox" checked={saved} onChange={(e) => setSaved(e.target.checked)} className="size-4 accent-brand-600" />
        I have saved these codes somewhere safe
      </label>
      <Button type="button" className="w-full" disabled={!saved} onClick={onContinue}>
        {continueLabel}
      </Button>
    </section>
  );
}
