"use client";

import { usePerson } from "@/components/common/person-name";
import { Lock } from "lucide-react";
import { Suspense, useState } from "react";
import { lazyComponent } from "@/components/common/lazy";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { WidgetSkeleton } from "@/components/ui/skeleton";
import { GuardedButton } from "@/components/common/guarded-button";
import type { RoleBinding } from "@/lib/contract/iam";
import { PersonCombobox } from "@/components/common/person-combobox";
import type { StagedChange } from "./staged";
import type { IamContext } from "./use-iam-context";

// Until a user is picked the editor shows only the picker. What editing a user's bindings takes (their
// current bindings, the staged changes, the apply call and its mutation code) is fetched once a user
// is picked, or when the pointer or the focus reaches the picker; the addition form (react-hook-form,
// the contract's schema) likewise.
const UserBindingsEditor = lazyComponent(() => import("./user-bindings-editor").then((m) => m.UserBindingsEditor));
const preloadEditor = () => {
  UserBindingsEditor.preload();
  void import("./user-bindings-editor").then((m) => m.preloadAdditionForm());
};

export interface EditorState {
  user: string | null;
  changes: StagedChange[];
  /** The last apply's failure; `answered` is false when the gateway's answer never came. */
  failure: { key: string | null; message: string; answered: boolean } | null;
}

export interface BindingEditorProps {
  ctx: IamContext;
  orgId: string;
  selfId: string;
  writeReason: string | null;
  state: EditorState;
  setState: (update: (s: EditorState) => EditorState) => void;
  onStageRemoval: (binding: RoleBinding) => void;
}

export function BindingEditor({ ctx, orgId, selfId, writeReason, state, setState, onStageRemoval }: BindingEditorProps) {
  const { user } = state;
  // The person picked may be one whose bindings only an owner changes (in an organization past the directory's
  // one page, known by their lookup by id).
  const person = usePerson(orgId, user);
  const reason = writeReason ?? (user === null ? null : ctx.personLock(user, person?.relation));
  return (
    <Card id="binding-editor">
      <CardHeader
        title="Change role bindings"
        description="Stage additions and removals for one user, review the difference, then apply them in one call: all of them, or none."
      />
      <CardBody className="space-y-5">
        {reason ? (
          <p role="note" className="flex gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200">
            <Lock className="mt-0.5 size-4 shrink-0" aria-hidden />
            {reason}
          </p>
        ) : null}
        {user === null ? (
          <UserPicker ctx={ctx} selfId={selfId} writeReason={writeReason} onPick={(id) => setState(() => ({ user: id, changes: [], failure: null }))} />
        ) : (
          <Suspense fallback={<WidgetSkeleton label="the binding editor" lines={4} />}>
            <UserBindingsEditor ctx={ctx} orgId={orgId} selfId={selfId} user={user} writeReason={reason} state={state} setState={setState} onStageRemoval={onStageRemoval} />
          </Suspense>
        )}
      </CardBody>
    </Card>
  );
}

function UserPicker({ ctx, selfId, writeReason, onPick }: { ctx: IamContext; selfId: string; writeReason: string | null; onPick: (id: string) => void }) {
  const [picked, setPicked] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      aria-label="Pick a person"
      noValidate
      onFocus={preloadEditor}
      onPointerEnter={preloadEditor}
      className="flex flex-col gap-2 sm:flex-row sm:items-start"
      onSubmit={(e) => {
        e.preventDefault();
        if (!picked) return setError("Choose the person whose roles to change.");
        onPick(picked);
      }}
    >
      <div className="sm:w-96">
        <PersonCombobox
          orgId={ctx.entity?.id ?? ""}
          id="editor-user"
          label="Person"
          hint="The person whose role bindings to change."
          error={error}
          selfId={selfId}
          disabled={writeReason !== null}
          value={picked}
          onChange={(p) => {
            setPicked(p?.id ?? null);
            setError(null);
          }}
        />
      </div>
      <GuardedButton type="submit" variant="secondary" reason={writeReason} className="sm:mt-6">
        Edit bindings
      </GuardedButton>
    </form>
  );
}
