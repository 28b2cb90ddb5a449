import { cva, type VariantProps } from "class-variance-authority";
import type * as React from "react";
import { cn } from "@/lib/utils";

export const buttonVariants = cva(
  "inline-flex items-center gap-2 rounded-md text-sm font-medium transition-colors focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:ring-offset-2 focus-visible:ring-offset-white disabled:pointer-events-none disabled:opacity-50 dark:focus-visible:ring-offset-slate-950 [&_svg]:size-4 [&_svg]:shrink-0",
  {
    variants: {
      variant: {
        primary: "bg-brand-600 text-white hover:bg-brand-700",
        secondary: "border border-slate-300 bg-white text-slate-900 hover:bg-slate-50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800",
        ghost: "text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800",
        danger: "bg-red-600 text-white hover:bg-red-700",
        /** A destructive action that should not shout: delete in a row of actions. */
        "ghost-danger": "text-red-700 hover:bg-red-50 dark:text-red-400 dark:hover:bg-red-950",
        link: "text-brand-600 underline-offset-4 hover:underline dark:text-brand-400",
      },
      size: { sm: "h-8 px-3", md: "h-9 px-4", lg: "h-10 px-5", icon: "size-9", inline: "h-auto p-0" },
      /** One line (the default), or a label that may wrap in a narrow column (the button grows in height). */
      wrap: { false: "whitespace-nowrap", true: "min-h-9 h-auto! whitespace-normal py-2 text-center" },
      /** Where the content sits: centered, or label and icon at both ends (a picker's button). */
      justify: { center: "justify-center", between: "justify-between" },
    },
    defaultVariants: { variant: "primary", size: "md", justify: "center", wrap: false },
  },
);

export type ButtonProps = React.ButtonHTMLAttributes<HTMLButtonElement> &
  VariantProps<typeof buttonVariants> & {
    /**
     * Unavailable for a moment, while what it acts on loads (a pager's next page): announced as
     * disabled and clicks ignored, but it keeps the keyboard's focus, which `disabled` would drop.
     */
    waiting?: boolean;
  };

/** A button. A link that looks like one is a Link with `buttonVariants(...)` as its class. */
export function Button({ className, variant, size, justify, wrap, waiting = false, onClick, ...props }: ButtonProps) {
  return (
    <button
      className={cn(buttonVariants({ variant, size, justify, wrap }), waiting && "cursor-wait opacity-50", className)}
      {...props}
      aria-disabled={waiting || props["aria-disabled"]}
      onClick={waiting ? (event) => event.preventDefault() : onClick}
    />
  );
}
