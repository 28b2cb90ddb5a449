"use client";

import { AlertTriangle, Download } from "lucide-react";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { CopyButton } from "./copy-button";
import { csvText, saveText } from "./download";
import { useLeaveWarning } from "./use-leave-warning";
import { Dialog, DialogContent, DialogFooter } from "@/components/ui/dialog";

export interface SecretField {
  /** Shown as the label, and the name in the .env download (e.g. AWS_SECRET_ACCESS_KEY). */
  label: string;
  envName: string;
  value: string;
  secret?: boolean;
}

/** How to use the secret, e.g. a `docker login` line: shown and copyable, but in neither download. */
export interface SecretUsage {
  label: string;
  command: string;
}

interface SecretDialogProps {
  open: boolean;
  title: string;
  fields: SecretField[];
  /** Base of the download file names, e.g. "s3-key-ci-runner". */
  fileBase: string;
  usage?: SecretUsage[];
  onClose: () => void;
}

/**
 * Shows a one-time secret: an unmissable warning, copy buttons, .env and .csv
 * downloads, and it closes only after the user confirms they saved it; until then, leaving the page asks first.
 */
export function SecretDialog({ open, title, fields, fileBase, usage = [], onClose }: SecretDialogProps) {
  const [saved, setSaved] = useState(false);
  useLeaveWarning(open && !saved);
  return (
    <Dialog open={open}>
      <DialogContent title={title} dismissible={false}>
        <div role="alert" className="mb-4 flex gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200">
          <AlertTriangle className="mt-0.5 size-4 shrink-0" aria-hidden />
          <p>
            <strong>This secret is shown only once.</strong> Copy it or download it now; it cannot be shown again.
          </p>
        </div>
        <dl className="space-y-3">
          {fields.map((f) => (
            <div key={f.envName}>
              <dt className="text-xs font-medium text-slate-600 dark:text-slate-300">{f.label}</dt>
              <dd className="mt-1 flex items-center gap-2">
                <code className="block min-w-0 flex-1 break-all rounded bg-slate-100 px-2 py-1.5 font-mono text-xs dark:bg-slate-800" data-secret={f.secret ? "true" : undefined}>
                  {f.value}
                </code>
                <CopyButton value={f.value} what={f.label} />
              </dd>
            </div>
          ))}
        </dl>
        {usage.map((u) => (
          <div key={u.label} className="mt-3">
            <p className="text-xs font-medium text-slate-600 dark:text-slate-300">{u.label}</p>
            <div className="mt-1 flex items-center gap-2">
              <code className="block min-w-0 flex-1 break-all rounded bg-slate-100 px-2 py-1.5 font-mono text-xs dark:bg-slate-800">{u.command}</code>
              <CopyButton value={u.command} what={u.label} />
            </div>
          </div>
        ))}
        <div className="mt-4 flex flex-wrap gap-2">
          <Button variant="secondary" size="sm" onClick={() => saveText(`${fileBase}.env`, fields.map((f) => `${f.envName}=${f.value}`).join("\n") + "\n", "text/plain")}>
            <Download /> Download .env
          </Button>
          <Button
            variant="secondary"
            size="sm"
            onClick={() => void csvText(fields.map((f) => f.envName), [fields.map((f) => f.value)], { escapeFormulae: false }).then((csv) => saveText(`${fileBase}.csv`, csv, "text/csv"))}
          >
            <Download /> Download .csv
          </Button>
        </div>
        <label className="mt-5 flex items-center gap-2 text-sm">
          <input type="checkbox" checked={saved} onChange={(e) => setSaved(e.target.checked)} className="size-4" />
          I have saved this secret somewhere safe
        </label>
        <DialogFooter>
          <Button
            disabled={!saved}
            onClick={() => {
              setSaved(false);
              onClose();
            }}
          >
            Done
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
