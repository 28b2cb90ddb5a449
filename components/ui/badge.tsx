import { cva, type VariantProps } from "class-variance-authority";
import type * as React from "react";
import { cn } from "@/lib/utils";

const badgeVariants = cva("inline-flex items-center rounded-full font-medium", {
  variants: {
    tone: {
      neutral: "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-200",
      good: "bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300",
      warn: "bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300",
      bad: "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300",
      info: "bg-brand-50 text-brand-700 dark:bg-slate-800 dark:text-brand-400",
    },
    size: { md: "px-2 py-0.5 text-xs", sm: "px-1.5 py-0 text-[10px]" },
  },
  defaultVariants: { tone: "neutral", size: "md" },
});

export function Badge({ className, tone, size, ...props }: React.HTMLAttributes<HTMLSpanElement> & VariantProps<typeof badgeVariants>) {
  return <span className={cn(badgeVariants({ tone, size }), className)} {...props} />;
}
