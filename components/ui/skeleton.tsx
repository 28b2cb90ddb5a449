import { cn } from "@/lib/utils";

export function Skeleton({ className }: { className?: string }) {
  return <div aria-hidden className={cn("animate-pulse rounded-md bg-slate-200 dark:bg-slate-800", className)} />;
}

/** A card-shaped placeholder with a label for screen readers. */
export function WidgetSkeleton({ label, lines = 3 }: { label: string; lines?: number }) {
  return (
    <div role="status" aria-label={`Loading ${label}`} className="space-y-3 p-4">
      {Array.from({ length: lines }, (_, i) => (
        <Skeleton key={i} className={cn("h-4", i === 0 ? "w-1/2" : "w-full")} />
      ))}
    </div>
  );
}

/** A page's content while its data streams in, below a heading already shown. */
export function ContentSkeleton() {
  return (
    <div role="status" aria-label="Loading" className="space-y-4">
      <Skeleton className="h-24" />
      <div className="grid gap-4 md:grid-cols-3">
        {Array.from({ length: 3 }, (_, i) => (
          <Skeleton key={i} className="h-24" />
        ))}
      </div>
      <Skeleton className="h-72" />
    </div>
  );
}
