import { cva, type VariantProps } from "class-variance-authority";
import * as React from "react";
import { cn } from "@/lib/utils";

const control = cva(
  "block w-full rounded-md border border-slate-300 bg-white px-3 shadow-sm placeholder:text-slate-400 focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-500/30 disabled:opacity-60 aria-[invalid=true]:border-red-500 dark:border-slate-700 dark:bg-slate-950",
  {
    variants: {
      /** compact: as tall as a small button, for editing in place (a table row). */
      density: { normal: "py-2", compact: "h-8 py-1" },
      /** mono: identifiers and lists of them. */
      text: { normal: "text-sm", mono: "font-mono text-xs" },
    },
    defaultVariants: { density: "normal", text: "normal" },
  },
);
type ControlProps = VariantProps<typeof control>;

export const Input = React.forwardRef<HTMLInputElement, React.InputHTMLAttributes<HTMLInputElement> & ControlProps>(function Input(
  { className, density, text, ...props },
  ref,
) {
  return <input ref={ref} className={cn(control({ density, text }), className)} {...props} />;
});

export const Select = React.forwardRef<HTMLSelectElement, React.SelectHTMLAttributes<HTMLSelectElement>>(function Select({ className, ...props }, ref) {
  return <select ref={ref} className={cn(control(), "pr-8", className)} {...props} />;
});

export const Textarea = React.forwardRef<HTMLTextAreaElement, React.TextareaHTMLAttributes<HTMLTextAreaElement> & ControlProps>(function Textarea(
  { className, density, text, ...props },
  ref,
) {
  return <textarea ref={ref} className={cn(control({ density, text }), className)} {...props} />;
});

interface FieldProps {
  label: string;
  /** The control's id; label and messages are tied to it. */
  htmlFor: string;
  hint?: React.ReactNode;
  error?: string;
  children: React.ReactElement<{ "aria-describedby"?: string; "aria-invalid"?: boolean }>;
  className?: string;
}

/** Label, control, hint and error message, wired for screen readers. */
export function Field({ label, htmlFor, hint, error, children, className }: FieldProps) {
  const hintId = hint ? `${htmlFor}-hint` : undefined;
  const errorId = error ? `${htmlFor}-error` : undefined;
  // A message the control already names (one shared by several fields, say) stays named.
  const own = children.props;
  const describedBy = [own["aria-describedby"], hintId, errorId].filter(Boolean).join(" ") || undefined;
  return (
    <div className={cn("space-y-1", className)}>
      <label htmlFor={htmlFor} className="block text-sm font-medium">
        {label}
      </label>
      {React.cloneElement(children, { "aria-describedby": describedBy, "aria-invalid": error || own["aria-invalid"] ? true : undefined })}
      <FieldNotes id={htmlFor} hint={hint} error={error} />
    </div>
  );
}

/** A control's hint and error message, with the ids its aria-describedby names (`<id>-hint`, `<id>-error`). */
export function FieldNotes({ id, hint, error }: { id: string; hint?: React.ReactNode; error?: string | null }) {
  return (
    <>
      {hint ? (
        <p id={`${id}-hint`} className="text-xs text-slate-500 dark:text-slate-400">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} role="alert" className="text-xs text-red-600 dark:text-red-400">
          {error}
        </p>
      ) : null}
    </>
  );
}
