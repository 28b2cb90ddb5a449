import { cn } from "@/lib/utils";

/** "used / total" with a bar; the bar turns amber near the limit and red at it. */
export function UsageMeter({ used, total, label, className }: { used: number; total: number; label: string; className?: string }) {
  const ratio = total > 0 ? Math.min(1, used / total) : 0;
  return (
    <div className={cn("min-w-28", className)}>
      <div className="flex items-baseline justify-between gap-2 text-sm tabular-nums">
        <span>
          {used} / {total}
        </span>
        <span className="text-xs text-slate-500 dark:text-slate-400">{total > 0 ? `${Math.round(ratio * 100)}%` : "—"}</span>
      </div>
      <div
        role="meter"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={Math.min(used, total)}
        aria-valuetext={`${used} of ${total}`}
        className="mt-1 h-1.5 rounded-full bg-slate-100 dark:bg-slate-800"
      >
        <div
          className={cn("h-1.5 rounded-full", ratio >= 1 ? "bg-red-500" : ratio >= 0.85 ? "bg-amber-500" : "bg-brand-500")}
          style={{ width: `${Math.round(ratio * 100)}%` }}
        />
      </div>
    </div>
  );
}
