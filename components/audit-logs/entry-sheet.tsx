"use client";

import { Badge } from "@/components/ui/badge";
import { CopyButton } from "@/components/common/copy-button";
import { Sheet, SheetContent } from "@/components/ui/sheet";
import type { LogEntry } from "@/lib/query/audit-logs";
import { LOG_ENTRY_FIELDS } from "./export";
import { formatInstant, resultTone } from "./format";

/** The whole record of one entry: every field, then the raw JSON as the gateway sent it. */
export function EntrySheet({ entry, onClose }: { entry: LogEntry | null; onClose: () => void }) {
  const json = entry ? JSON.stringify(entry, null, 2) : "";
  return (
    <Sheet
      open={entry !== null}
      onOpenChange={(open) => {
        if (!open) onClose();
      }}
    >
      {entry ? (
        <SheetContent
          title={entry.action_detail || entry.action}
          description={
            <span className="flex flex-wrap items-center gap-2">
              <Badge tone={resultTone(entry.result)}>{entry.result}</Badge>
              <time dateTime={entry.start_time} suppressHydrationWarning>
                {formatInstant(entry.start_time)}
              </time>
            </span>
          }
        >
          <dl className="grid grid-cols-[minmax(8rem,auto)_1fr] gap-x-4 gap-y-2 text-sm">
            {LOG_ENTRY_FIELDS.map((f) => {
              const value = entry[f];
              const text = Array.isArray(value) ? value.join(", ") : String(value ?? "");
              return (
                <div key={f} className="contents">
                  <dt className="font-mono text-xs text-slate-500 dark:text-slate-400">{f}</dt>
                  <dd className="min-w-0 break-words">{text || <span className="text-slate-400">—</span>}</dd>
                </div>
              );
            })}
          </dl>
          <div className="mt-6">
            <div className="mb-2 flex items-center justify-between">
              <h3 className="text-sm font-semibold" id="raw-json-heading">
                Raw JSON
              </h3>
              <CopyButton value={json} what="JSON" showLabel />
            </div>
            <pre
              aria-labelledby="raw-json-heading"
              data-testid="raw-json"
              className="max-h-96 overflow-auto rounded-md bg-slate-100 p-3 font-mono text-xs text-slate-800 dark:bg-slate-950 dark:text-slate-200"
            >
              {json}
            </pre>
          </div>
        </SheetContent>
      ) : null}
    </Sheet>
  );
}
