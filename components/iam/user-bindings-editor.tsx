"use client";

import { useQuery } from "@tanstack/react-query";
import { AlertTriangle, Minus, Undo2 } from "lucide-react";
import { Suspense, useState } from "react";
import { lazyComponent } from "@/components/common/lazy";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { WidgetSkeleton } from "@/components/ui/skeleton";
import { EmptyState } from "@/components/ui/states";
import { QueryState } from "@/components/ui/query-state";
import { GuardedButton } from "@/components/common/guarded-button";
import type { RoleBinding } from "@/lib/contract/iam";
import { iamQueries } from "@/lib/query/iam";
import { errorMessage } from "@/lib/query/fetcher";
import { cn } from "@/lib/utils";
import type { Addition } from "./add-binding-form";
import type { BindingEditorProps, EditorState } from "./binding-editor";
import { ScopeLabel, UserLabel } from "./scope-label";
import { additionKey, bindingLock, buildApply, explainRefusal, failedKey, removalKey, scopeAllowed, type StagedChange } from "./staged";
import { useApplyBindings } from "./use-apply-bindings";
import type { IamContext } from "./use-iam-context";

// The addition form (react-hook-form, the contract's schema) is fetched with this module or right
// after it (binding-editor.tsx preloads both).
const AddBindingForm = lazyComponent(() => import("./add-binding-form").then((m) => m.AddBindingForm));
export const preloadAdditionForm = AddBindingForm.preload;

/** Editing one user's bindings: their current ones, additions and removals staged, then applied in one call. */
export function UserBindingsEditor({ ctx, orgId, selfId, user, writeReason, state, setState, onStageRemoval }: BindingEditorProps & { user: string }) {
  const { changes } = state;
  return (
    <>
      <div className="flex flex-wrap items-center gap-3 text-sm">
        <span>
          Editing the bindings of <UserLabel orgId={orgId} userId={user} selfId={selfId} />
        </span>
        <GuardedButton
          variant="ghost"
          size="sm"
          reason={changes.length > 0 ? "Apply or discard the staged changes first." : null}
          onClick={() => setState(() => ({ user: null, changes: [], failure: null }))}
        >
          Change user
        </GuardedButton>
      </div>
      <CurrentBindings ctx={ctx} user={user} writeReason={writeReason} changes={changes} onStageRemoval={onStageRemoval} />
      <div className="space-y-2">
        <h3 className="text-sm font-semibold">Add a binding</h3>
        <Suspense fallback={<WidgetSkeleton label="the addition form" lines={2} />}>
          <AddBindingForm
            ctx={ctx}
            orgId={orgId}
            disabled={writeReason !== null}
            onStage={(a) => {
              const problem = duplicateProblem(a, changes);
              if (!problem) setState((s) => ({ ...s, failure: null, changes: [...s.changes, toAddition(a, ctx)] }));
              return problem;
            }}
          />
        </Suspense>
      </div>
      {/* An owner holds every permission whatever their bindings: removing their own roles takes none away. */}
      <StagedDiff ctx={ctx} user={user} self={user === selfId && !ctx.access.isOwner} state={state} setState={setState} />
    </>
  );
}

function toAddition(a: Addition, ctx: IamContext): StagedChange {
  const role = ctx.orgRoles.find((r) => r.id === a.role_id);
  return {
    key: additionKey(a.role_id, a.scope_type, a.scope_object_id),
    kind: "add",
    roleId: a.role_id,
    roleName: role?.role_name ?? a.role_id,
    allowedScopes: role?.allowed_scopes ?? [],
    scopeType: a.scope_type,
    scopeObjectId: a.scope_object_id,
  };
}

function duplicateProblem(a: Addition, changes: StagedChange[]): string | null {
  return changes.some((c) => c.key === additionKey(a.role_id, a.scope_type, a.scope_object_id)) ? "This addition is already staged." : null;
}


function CurrentBindings({
  ctx,
  user,
  writeReason,
  changes,
  onStageRemoval,
}: {
  ctx: IamContext;
  user: string;
  writeReason: string | null;
  changes: StagedChange[];
  onStageRemoval: (b: RoleBinding) => void;
}) {
  const state = useQuery(iamQueries.bindings({ user_id: user }));
  const bindings = (state.data?.role_bindings ?? []).filter(ctx.inOrg);
  const staged = new Set(changes.map((c) => c.key));
  return (
    <section aria-label="Current bindings" className="space-y-2">
      <h3 className="text-sm font-semibold">Current bindings in {ctx.orgName}</h3>
      <QueryState
        state={state}
        what="the user's bindings"
        lines={3}
        isEmpty={() => bindings.length === 0}
        empty={<EmptyState title={`This user holds no role in ${ctx.orgName}`} />}
      >
        {() => (
          <ul className="divide-y divide-slate-100 rounded-md border border-slate-200 text-sm dark:divide-slate-800 dark:border-slate-800">
            {bindings.map((b) => (
              <li key={b.id} className="flex flex-wrap items-center justify-between gap-2 px-3 py-2">
                <span className="flex flex-wrap items-center gap-2">
                  <span className="font-medium">{b.role_name}</span>{" "}
                  <ScopeLabel scopeType={b.scope_type} scopeObjectId={b.scope_object_id} name={ctx.scopeName(b.scope_type, b.scope_object_id)} />
                </span>
                {staged.has(removalKey(b.id)) ? (
                  <span className="text-xs font-medium text-red-600 dark:text-red-400">Removal staged</span>
                ) : (
                  <GuardedButton
                    variant="ghost"
                    size="sm"
                    reason={writeReason ?? bindingLock(b)}
                    aria-label={`Stage removal of ${b.role_name} on ${b.scope_type} ${ctx.scopeName(b.scope_type, b.scope_object_id) ?? b.scope_object_id}`}
                    onClick={() => onStageRemoval(b)}
                  >
                    <Minus aria-hidden /> Stage removal
                  </GuardedButton>
                )}
              </li>
            ))}
          </ul>
        )}
      </QueryState>
    </section>
  );
}

function describe(c: StagedChange, ctx: IamContext): { role: string; scopeType: string; scopeObjectId: string; name: string | null } {
  if (c.kind === "add") return { role: c.roleName, scopeType: c.scopeType, scopeObjectId: c.scopeObjectId, name: ctx.scopeName(c.scopeType, c.scopeObjectId) };
  const b = c.binding;
  return { role: b.role_name, scopeType: b.scope_type, scopeObjectId: b.scope_object_id, name: ctx.scopeName(b.scope_type, b.scope_object_id) };
}

function StagedDiff({ ctx, user, self, state, setState }: { ctx: IamContext; user: string; self: boolean; state: EditorState; setState: BindingEditorProps["setState"] }) {
  const apply = useApplyBindings();
  // Removing roles of one's own: the one that lets the caller change roles may be among them, and then only another
  // admin can give it back. Asked first.
  const [confirmingOwn, setConfirmingOwn] = useState(false);
  // The keys of the changes the apply out carries (null when none is out).
  const [sending, setSending] = useState<ReadonlySet<string> | null>(null);
  const { changes, failure } = state;
  const added = changes.filter((c) => c.kind === "add").length;
  const removed = changes.length - added;
  const failedIndex = failure?.key ? changes.findIndex((c) => c.key === failure.key) : -1;

  const onApply = async () => {
    const request = buildApply(user, changes);
    // Only the changes sent leave the list: one staged while the call is out stays, for the next apply.
    const sent = new Set(changes.map((c) => c.key));
    setSending(sent);
    setState((s) => ({ ...s, failure: null }));
    try {
      await apply.mutateAsync({ userId: user, body: request.body });
      setState((s) => (s.user === user ? { ...s, changes: s.changes.filter((c) => !sent.has(c.key)), failure: null } : s));
    } catch (error) {
      const raw = errorMessage(error);
      const status = (error as { status?: unknown }).status;
      const answered = typeof status === "number";
      const message = explainRefusal(answered ? status : undefined, raw);
      setState((s) => ({ ...s, failure: { key: answered ? failedKey(raw, request) : null, message, answered } }));
    } finally {
      setSending(null);
    }
  };

  return (
    <section aria-labelledby="staged-heading" className="space-y-3 border-t border-slate-100 pt-4 dark:border-slate-800">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h3 id="staged-heading" className="text-sm font-semibold">
          Staged changes
        </h3>
        <p className="text-sm tabular-nums" aria-label={`${added} to add, ${removed} to remove`}>
          <span className="text-emerald-700 dark:text-emerald-400">+{added} added</span> · <span className="text-red-700 dark:text-red-400">−{removed} removed</span>
        </p>
      </div>
      {changes.length === 0 ? (
        <p className="text-sm text-slate-500 dark:text-slate-400">Nothing staged yet. Stage additions above, or removals from the current bindings.</p>
      ) : (
        <ol aria-label="Staged changes" className="space-y-2">
          {changes.map((c, i) => (
            <StagedItem
              key={c.key}
              change={c}
              index={i}
              ctx={ctx}
              failure={i === failedIndex ? failure?.message : undefined}
              // A change sent is applied or not whatever the list says: it stays until the call returns.
              // One staged since may go.
              unstageDisabled={sending?.has(c.key) ?? false}
              onUnstage={() => setState((s) => ({ ...s, failure: null, changes: s.changes.filter((x) => x.key !== c.key) }))}
            />
          ))}
        </ol>
      )}
      {failure ? <ApplyFailure failure={failure} failedIndex={failedIndex} count={changes.length} /> : null}
      <ConfirmDialog
        open={confirmingOwn}
        onOpenChange={setConfirmingOwn}
        title="Remove roles of your own?"
        confirmLabel={`Apply ${changes.length} ${changes.length === 1 ? "change" : "changes"}`}
        pending={apply.isPending}
        onConfirm={() => {
          setConfirmingOwn(false);
          void onApply();
        }}
      >
        <p>
          You are removing{" "}
          {changes
            .filter((c) => c.kind === "remove")
            .map((c) => describe(c, ctx).role)
            .join(", ")}{" "}
          from yourself. Should one of them be what lets you change roles here, you lose that as soon as this applies, and only another admin can give it back.
        </p>
      </ConfirmDialog>
      <div className="flex flex-wrap gap-2">
        <Button disabled={changes.length === 0 || apply.isPending} onClick={() => (self && removed > 0 ? setConfirmingOwn(true) : void onApply())}>
          {apply.isPending ? "Applying…" : `Apply ${changes.length} ${changes.length === 1 ? "change" : "changes"}`}
        </Button>
        <Button variant="secondary" disabled={changes.length === 0 || apply.isPending} onClick={() => setState((s) => ({ ...s, changes: [], failure: null }))}>
          Discard all
        </Button>
      </div>
    </section>
  );
}

/** One staged change: what it adds or removes, a warning when its scope is not allowed, its failure. */
function StagedItem({
  change: c,
  index: i,
  ctx,
  failure,
  unstageDisabled,
  onUnstage,
}: {
  change: StagedChange;
  index: number;
  ctx: IamContext;
  failure: string | undefined;
  unstageDisabled: boolean;
  onUnstage: () => void;
}) {
  const d = describe(c, ctx);
  const failed = failure !== undefined;
  const sign = c.kind === "add" ? "+" : "−";
  return (
    <li
      data-failed={failed ? "true" : undefined}
      className={cn(
        "flex flex-wrap items-center justify-between gap-2 rounded-md border px-3 py-2 text-sm",
        c.kind === "add" ? "border-emerald-200 bg-emerald-50 dark:border-emerald-900 dark:bg-emerald-950/40" : "border-red-200 bg-red-50 dark:border-red-900 dark:bg-red-950/40",
        failed && "border-2 border-red-600 ring-2 ring-red-600/30 dark:border-red-500",
      )}
    >
      <div className="min-w-0 space-y-1">
        <p className="flex flex-wrap items-center gap-2">
          <span aria-hidden className={cn("w-3 font-mono font-bold", c.kind === "add" ? "text-emerald-700 dark:text-emerald-400" : "text-red-700 dark:text-red-400")}>
            {sign}
          </span>{" "}
          <span className="sr-only">{c.kind === "add" ? "Add" : "Remove"} </span>
          <span className="font-medium">{d.role}</span> <ScopeLabel scopeType={d.scopeType} scopeObjectId={d.scopeObjectId} name={d.name} />
        </p>
        {!scopeAllowed(c) && c.kind === "add" ? (
          <p className="flex items-center gap-1 text-xs text-amber-700 dark:text-amber-400">
            <AlertTriangle className="size-3.5" aria-hidden /> {c.roleName} can be bound only at {c.allowedScopes.join(" or ")} scope.
          </p>
        ) : null}
        {failed ? (
          <p className="text-xs font-medium text-red-700 dark:text-red-300">
            Change {i + 1} failed: {failure}
          </p>
        ) : null}
      </div>
      <Button
        variant="ghost"
        size="sm"
        aria-label={`Unstage ${c.kind === "add" ? "addition" : "removal"} of ${d.role} on ${d.scopeType} ${d.name ?? d.scopeObjectId}`}
        disabled={unstageDisabled}
        onClick={onUnstage}
      >
        <Undo2 aria-hidden /> Unstage
      </Button>
    </li>
  );
}

/** Why the apply failed, and what to do next. Nothing was applied: the gateway applies all or nothing. */
function ApplyFailure({ failure, failedIndex, count }: { failure: NonNullable<EditorState["failure"]>; failedIndex: number; count: number }) {
  return (
    <div role="alert" className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200">
      <p className="font-medium">
        {!failure.answered
          ? "The apply may not have reached the gateway."
          : failedIndex >= 0
            ? `Change ${failedIndex + 1} of ${count} failed. Nothing was applied.`
            : "The apply failed. Nothing was applied."}
      </p>
      <p>{failure.message}</p>
      <p className="mt-1 text-xs">{failure.answered ? "Fix or unstage the change, then apply again." : "Check the current bindings below before applying again."}</p>
    </div>
  );
}
