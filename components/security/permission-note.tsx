import { Lock } from "lucide-react";

/** States, once per view, which permission its disabled actions need. */
export function PermissionNote({ id, what, permission }: { id: string; what: string; permission: string }) {
  return (
    <p
      id={id}
      role="note"
      className="flex items-start gap-2 rounded-md border border-slate-200 bg-slate-50 px-3 py-2 text-sm text-slate-700 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-300"
    >
      <Lock className="mt-0.5 size-4 shrink-0 text-amber-500" aria-hidden />
      <span>
        You can view {what} but not change them: that needs the <code className="font-mono text-xs">{permission}</code> permission. Ask an owner of the
        organization for it.
      </span>
    </p>
  );
}
